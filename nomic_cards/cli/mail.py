"""``nomic-cards mail``: messages to the game, read and applied (``receive`` from the mail
server on standard input, ``import`` from mailbox files, ``poll`` from an IMAP mailbox), and the
officer's review of those not authenticated (``pending``, ``accept``, ``reject``), with
``list``, ``show`` and ``receipts``. docs/mail.md says how to set it up.

``mail receive`` answers the mail server in ``sysexits`` codes, so it keeps, retries or bounces
the message: 0 when the message is kept (whatever became of it: applied, pending, refused with a
reason, from no player, or a copy of one kept before), 65 (EX_DATAERR) for input that is no
message at all (nothing is kept; the server bounces it), 75 (EX_TEMPFAIL) when the game cannot
take it now (the database unreachable, locked or not initialised: the server tries again
later), 78 (EX_CONFIG) for settings that cannot be used (the server keeps it queued), 70
(EX_SOFTWARE) for an internal error (the message is kept as refused). Always one line on
stderr for a failure, never a traceback.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any

import typer

from nomic_cards.cli.common import (
    CA_FILE_OPTION,
    JSON_OPTION,
    Tls,
    echo,
    emit_json,
    open_nomic,
    read,
    write,
)
from nomic_cards.errors import InputError, NomicCardsError

if TYPE_CHECKING:
    from nomic_cards.core.nomic import Nomic
    from nomic_cards.core.services.mail_in import Incoming, MessageOutcome
    from nomic_cards.mail.intake import MailSettings, ReceiptSent
    from nomic_cards.mail.posting import Outbox

mail_app = typer.Typer(help="Messages to the game: read, authenticated and applied as the "
                            "players' ballots and actions; the officer's review of the rest.",
                       no_args_is_help=True)

EX_OK, EX_DATAERR, EX_SOFTWARE, EX_TEMPFAIL, EX_CONFIG = 0, 65, 70, 75, 78

DRY_RUN_OPTION = typer.Option(False, "--dry-run",
                              help="Print what each message says and what would become of it: "
                                   "nothing is kept, applied or answered.")
SMTP_OPTION = typer.Option(None, "--smtp", metavar="HOST:PORT", envvar="NOMIC_CARDS_SMTP",
                           help="The mail server for the receipts (none: no receipt is sent; "
                                "they stay due).")
MAIL_TLS_OPTION = typer.Option(Tls.none, "--tls", envvar="NOMIC_CARDS_SMTP_TLS",
                               help="As for notices send: none, starttls or ssl.")
MAIL_CA_OPTION = typer.Option(None, "--ca-file", metavar="PATH",
                              envvar="NOMIC_CARDS_SMTP_CA_FILE",
                              help=CA_FILE_OPTION.help)
FROM_OPTION = typer.Option(None, "--from", metavar="ADDR", envvar="NOMIC_CARDS_FROM",
                           help="The From address of the receipts.")
LOG_OPTION = typer.Option(None, "--log", metavar="PATH", envvar="NOMIC_CARDS_LOG",
                          help="Also append each message's line to this file.")


class _Run:
    """What one command of the group shares: the settings, the log, its output."""

    def __init__(self, smtp: str | None, tls: Tls, cafile: str | None, sender: str | None,
                 log: str | None, as_json: bool) -> None:
        from nomic_cards.core.services.acting import registry
        from nomic_cards.mail import posting
        from nomic_cards.mail.intake import settings_from_environment

        self.outbox: Outbox | None = posting.outbox(smtp, tls=tls.value, cafile=cafile,
                                                    sender=sender, environ=os.environ)
        self.settings: MailSettings = settings_from_environment(os.environ,
                                                                outbox=self.outbox)
        self.actions = registry()
        self.log = log
        self.as_json = as_json
        self.records: list[dict[str, Any]] = []

    def say(self, text: str, *, err: bool = False) -> None:
        if not self.as_json:
            echo(text, err=err)
        if self.log:
            try:
                with open(self.log, "a", encoding="utf-8") as f:
                    f.write(text + "\n")
            except OSError as exc:
                self.log = None
                echo(f"warning: cannot write the log file: {exc.strerror or exc}", err=True)

    def incoming(self, raw: bytes, via: str, **kw: Any) -> Incoming:
        from nomic_cards.mail.intake import incoming

        return incoming(raw, via, self.settings, self.actions, **kw)

    def one(self, nomic: Nomic, message: Incoming, *, dry_run: bool, receipts: bool,
            where: str | None = None) -> MessageOutcome:
        """Take (or, dry, preview) one message; its line said; its receipt sent."""
        from nomic_cards.mail import intake

        if dry_run:
            outcome = intake.preview(nomic, message)
            self.dry(message, outcome, where)
            return outcome
        outcome = intake.take(nomic, message, receipts=receipts)
        self.say(intake.line(outcome))
        record: dict[str, Any] = {"where": where, "outcome": outcome}
        if self.outbox is not None and outcome.id is not None and outcome.receipt == "due":
            sent = intake.send_receipts(nomic, self.outbox, only=[outcome.id])
            record["receipts"] = sent
            self.receipt_lines(sent)
        self.records.append(record)
        return outcome

    def dry(self, message: Incoming, outcome: MessageOutcome, where: str | None) -> None:
        from nomic_cards.mail.intake import understood

        status = ("a copy of message " + str(outcome.duplicate_of)
                  if outcome.duplicate_of is not None else outcome.status)
        items = understood(message, self.actions)
        self.records.append({"where": where, "message_id": message.message_id,
                             "player": outcome.player, "would_be": status,
                             "reason": outcome.reason, "understood": items,
                             "not_read": list(message.reading.unread),
                             "quoted": message.reading.quoted})
        head = f"{where}: " if where else ""
        self.say(f"{head}message {message.message_id} from {outcome.player or 'no player'}: "
                 f"would be {status}" + (f" ({outcome.reason})" if outcome.reason else ""))
        for line in items:
            self.say(f"  understood: {line}")
        for line in message.reading.unread:
            self.say(f"  not read:   {line!r}")

    def receipt_lines(self, sent: list[ReceiptSent]) -> None:
        for r in sent:
            self.say(_receipt_line(r))


def _receipt_line(r: ReceiptSent) -> str:
    return (f"receipt of message {r.message} to {r.player or '-'}: {r.state}"
            + (f" ({r.note})" if r.state != "sent" else ""))


def _fail(code: int, text: str) -> typer.Exit:
    echo(f"error: {text}", err=True)
    return typer.Exit(code)


@mail_app.command("receive")
def receive(
    ctx: typer.Context,
    dry_run: bool = DRY_RUN_OPTION,
    no_receipt: bool = typer.Option(False, "--no-receipt", help="Answer no one."),
    smtp: str = SMTP_OPTION,
    tls: Tls = MAIL_TLS_OPTION,
    cafile: str = MAIL_CA_OPTION,
    sender: str = FROM_OPTION,
    log: str = LOG_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Take one message (RFC 5322) on standard input, as a mail server's alias, .forward or
    procmail hands it over; the exit status follows sysexits (0 kept, 65 not a message, 75
    try again later, 78 settings, 70 internal error)."""
    from nomic_cards.errors import DatabaseError
    from nomic_cards.mail.boxes import read_bounded
    from nomic_cards.mail.intake import InternalError
    from nomic_cards.mail.parse import NotAMessage

    try:
        raw, size = read_bounded(sys.stdin.buffer)
    except OSError as exc:
        raise _fail(EX_TEMPFAIL, f"cannot read the message on standard input: "
                                 f"{exc.strerror or exc}") from None
    try:
        run = _Run(smtp, tls, cafile, sender, log, as_json)
    except NomicCardsError as exc:  # ConfigError, a bad --smtp: the server keeps it queued
        raise _fail(EX_CONFIG, str(exc)) from None
    try:
        message = run.incoming(raw, "receive", size=size)
    except NotAMessage as exc:
        raise _fail(EX_DATAERR, str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        raise _fail(EX_SOFTWARE, f"internal error reading the message: "
                                 f"{type(exc).__name__}") from None
    try:
        with open_nomic(ctx) as nomic:
            run.one(nomic, message, dry_run=dry_run, receipts=not no_receipt)
    except InternalError as exc:
        raise _fail(EX_SOFTWARE, str(exc)) from None
    except (DatabaseError, NomicCardsError) as exc:
        raise _fail(EX_TEMPFAIL, f"{exc}; the message was not taken (the mail server will "
                                 "try again)") from None
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        raise _fail(EX_SOFTWARE, f"internal error: {type(exc).__name__}") from None
    if as_json:
        emit_json(run.records[0] if run.records else {})
    raise typer.Exit(EX_OK)


@mail_app.command("import")
def import_(
    ctx: typer.Context,
    paths: list[str] = typer.Argument(..., metavar="PATH...",
                                      help="mbox files, Maildir folders, or files of one "
                                           "message."),
    dry_run: bool = DRY_RUN_OPTION,
    receipts: bool = typer.Option(False, "--receipts",
                                  help="Answer each player (an archive's messages are old "
                                       "news: by default no one is)."),
    smtp: str = SMTP_OPTION,
    tls: Tls = MAIL_TLS_OPTION,
    cafile: str = MAIL_CA_OPTION,
    sender: str = FROM_OPTION,
    log: str = LOG_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Take every message of mbox files and Maildir folders (a list's archive, say), each in
    its own transaction, in order; their ballots count as cast at each message's Date."""
    from nomic_cards.mail.boxes import messages
    from nomic_cards.mail.parse import NotAMessage

    run = _Run(smtp, tls, cafile, sender, log, as_json)
    counts: dict[str, int] = {}
    failed: list[str] = []
    with open_nomic(ctx) as nomic:
        for path in paths:
            try:
                for stored in messages(path):
                    try:
                        message = run.incoming(stored.raw, "import", size=stored.size,
                                               dated=nomic.clock.now())
                    except NotAMessage as exc:
                        run.say(f"{stored.where}: skipped: {exc}")
                        counts["skipped"] = counts.get("skipped", 0) + 1
                        continue
                    outcome = run.one(nomic, message, dry_run=dry_run,
                                      receipts=receipts and run.outbox is not None,
                                      where=stored.where)
                    key = "copies" if outcome.duplicate_of is not None else outcome.status
                    counts[key] = counts.get(key, 0) + 1
            except InputError as exc:
                failed.append(str(exc))
                echo(f"error: {exc}", err=True)
    total = sum(counts.values())
    summary = f"{total} message(s)" + (": " + ", ".join(f"{n} {k}" for k, n in
                                                         sorted(counts.items()))
                                       if counts else "")
    if dry_run:
        summary += " (dry run: nothing kept)"
    if as_json:
        emit_json({"messages": run.records, "counts": counts, "errors": failed})
    else:
        run.say(summary)
    if failed:
        raise typer.Exit(1)


@mail_app.command("poll")
def poll(
    ctx: typer.Context,
    dry_run: bool = DRY_RUN_OPTION,
    smtp: str = SMTP_OPTION,
    tls: Tls = MAIL_TLS_OPTION,
    cafile: str = MAIL_CA_OPTION,
    sender: str = FROM_OPTION,
    log: str = LOG_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Take the unseen messages of the IMAP mailbox (NOMIC_CARDS_IMAP_*, or the file
    NOMIC_CARDS_IMAP_FILE names; never a password on the command line), each marked seen (or
    moved) once kept, each answered; then send any receipt still due."""
    from nomic_cards.mail import imap, intake
    from nomic_cards.mail.parse import NotAMessage

    run = _Run(smtp, tls, cafile, sender, log, as_json)
    config = imap.imap_config(os.environ)
    taken = 0
    with open_nomic(ctx) as nomic, imap.Mailbox(config) as box:
        uids = box.unseen()
        for uid in uids:
            found = time.monotonic()
            fetched = box.fetch(uid)
            now = nomic.clock.now()
            cast_at = min(fetched.received, now) if fetched.received else None
            try:
                message = run.incoming(fetched.raw, "poll", size=fetched.size, cast_at=cast_at)
            except NotAMessage as exc:
                run.say(f"UID {uid}: left in the mailbox, marked seen: {exc}")
                if not dry_run:
                    box.done(uid)
                continue
            run.one(nomic, message, dry_run=dry_run, receipts=True, where=f"UID {uid}")
            if not dry_run:
                box.done(uid)
                if run.records:
                    run.records[-1]["seconds"] = round(time.monotonic() - found, 4)
            taken += 1
        if not dry_run and run.outbox is not None:
            run.receipt_lines(intake.send_receipts(nomic, run.outbox))
    if as_json:
        emit_json({"mailbox": str(config), "messages": run.records})
    elif not uids:
        run.say(f"no unseen message in {config.mailbox}")


def _outcome_lines(outcome: MessageOutcome) -> None:
    from nomic_cards.mail.intake import line

    echo(line(outcome))
    for r in outcome.results:
        echo(f"  {'recorded' if r.recorded else 'refused '}: {r.line!r}: {r.text}")


def _after(ctx: typer.Context, smtp: str | None, tls: Tls, cafile: str | None,
           sender: str | None, outcome: MessageOutcome, as_json: bool) -> None:
    from nomic_cards.mail import intake, posting

    box = posting.outbox(smtp, tls=tls.value, cafile=cafile, sender=sender, environ=os.environ)
    sent: list[ReceiptSent] = []
    if box is not None and outcome.id is not None and outcome.receipt == "due":
        with open_nomic(ctx) as nomic:
            sent = intake.send_receipts(nomic, box, only=[outcome.id])
    if as_json:
        emit_json({"outcome": outcome, "receipts": sent})
        return
    _outcome_lines(outcome)
    for r in sent:
        echo(_receipt_line(r))


@mail_app.command("pending")
def pending(ctx: typer.Context, as_json: bool = JSON_OPTION) -> None:
    """The review queue: each message from a player that was not authenticated, oldest
    first, with what it says; `mail accept ID` or `mail reject ID --reason TEXT` each."""
    _list(ctx, "pending", 1000, as_json)


@mail_app.command("list")
def list_messages(
    ctx: typer.Context,
    status: str = typer.Option(None, "--status",
                               help="applied, pending, rejected, refused or unmatched (from "
                                    "no player)."),
    limit: int = typer.Option(100, "--limit", min=1, max=100000,
                              help="At most this many (default 100)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """The messages kept: every one newest first, or those of one status oldest first."""
    _list(ctx, status, limit, as_json)


def _list(ctx: typer.Context, status: str | None, limit: int, as_json: bool) -> None:
    from nomic_cards.core.services.mail_in import mail_messages

    views = read(ctx, mail_messages, status, limit=limit)
    if as_json:
        emit_json(views)
        return
    for v in views:
        echo(f"#{v.id} {v.received_at} {v.status:<9} {v.player or 'no player':<12} "
             f"{v.message_id} {v.subject!r}" + (f": {v.reason}" if v.reason else ""))
        if status == "pending":
            for item in v.items:
                echo(f"    says: {item.get('line')!r}")
    if not views:
        echo("no message" + (f" is {status}" if status else " was received"))


@mail_app.command("show")
def show(
    ctx: typer.Context,
    id: int = typer.Argument(..., min=1, max=2**63 - 1, help="The message's number."),
    raw: bool = typer.Option(False, "--raw", help="Print the message itself, as received."),
    as_json: bool = JSON_OPTION,
) -> None:
    """One message kept: whom it is from, how it was authenticated, what it said, what
    became of it and of its receipt (--raw: the message itself)."""
    from nomic_cards.core.services.mail_in import mail_message

    view, body = read(ctx, mail_message, id, raw=raw)
    if raw:
        assert body is not None
        sys.stdout.buffer.write(body)
        sys.stdout.buffer.flush()
        return
    if as_json:
        emit_json(view)
        return
    echo(f"message {view.id}: {view.message_id}")
    for label, value in (("received", f"{view.received_at} by {view.via}"),
                         ("from", f"{view.sender or '(no address)'} "
                                  f"({view.player or 'no player'})"),
                         ("subject", view.subject), ("status", view.status),
                         ("reason", view.reason), ("auth", view.auth),
                         ("decided", f"{view.decided_at} by {view.decided_by}"
                                     if view.decided_at else ""),
                         ("receipt", f"{view.receipt or 'none'}"
                                     + (f" ({view.receipt_note})" if view.receipt_note else "")),
                         ("events", ", ".join(map(str, view.events))),
                         ("private", "yes" if view.private else "")):
        if value:
            echo(f"  {label + ':':<10} {value}")
    for r in view.results or [dict(item, text="", recorded=None) for item in view.items]:
        state = {True: "recorded", False: "refused", None: "says"}[r.get("recorded")]
        echo(f"  {state:<9} {r.get('line')!r}" + (f": {r['text']}" if r.get("text") else ""))
    for line in view.unread:
        echo(f"  not read  {line!r}")


@mail_app.command("accept")
def accept(
    ctx: typer.Context,
    id: int = typer.Argument(..., min=1, max=2**63 - 1, help="The pending message's number."),
    smtp: str = SMTP_OPTION,
    tls: Tls = MAIL_TLS_OPTION,
    cafile: str = MAIL_CA_OPTION,
    sender: str = FROM_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Accept a pending message as its player's: what it says is applied now (its ballots
    as cast when it was received), and the player is answered."""
    from nomic_cards.core.services.mail_in import accept_message

    outcome = write(ctx, accept_message, id)
    _after(ctx, smtp, tls, cafile, sender, outcome, as_json)


@mail_app.command("reject")
def reject(
    ctx: typer.Context,
    id: int = typer.Argument(..., min=1, max=2**63 - 1, help="The pending message's number."),
    reason: str = typer.Option(..., "--reason", help="Why (the player is told)."),
    smtp: str = SMTP_OPTION,
    tls: Tls = MAIL_TLS_OPTION,
    cafile: str = MAIL_CA_OPTION,
    sender: str = FROM_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Reject a pending message, saying why: nothing in it is applied; the player is told."""
    from nomic_cards.core.services.mail_in import reject_message

    outcome = write(ctx, reject_message, id, reason=reason)
    _after(ctx, smtp, tls, cafile, sender, outcome, as_json)


@mail_app.command("receipts")
def receipts(
    ctx: typer.Context,
    smtp: str = typer.Option(..., "--smtp", metavar="HOST:PORT", envvar="NOMIC_CARDS_SMTP",
                             help="The mail server for the receipts."),
    tls: Tls = MAIL_TLS_OPTION,
    cafile: str = MAIL_CA_OPTION,
    sender: str = FROM_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Send every receipt still due (one the mail server refused for now, or that no mail
    server was configured for)."""
    from nomic_cards.mail import intake, posting

    box = posting.outbox(smtp, tls=tls.value, cafile=cafile, sender=sender, environ=os.environ)
    assert box is not None
    with open_nomic(ctx) as nomic:
        sent = intake.send_receipts(nomic, box)
    if as_json:
        emit_json(sent)
        return
    for r in sent:
        echo(_receipt_line(r))
    left = sum(1 for r in sent if r.state == "due")
    echo(f"{sum(1 for r in sent if r.state == 'sent')} receipt(s) sent"
         + (f"; {left} left due" if left else ""))
    if left or any(r.state == "failed" for r in sent):
        raise typer.Exit(1)
