"""A message in, end to end, for the command line's ``mail`` commands: read it
(:mod:`.parse`), authenticate it (:mod:`.authenticate`), understand it (:mod:`.reading`), keep
and apply it in ONE writing transaction (:func:`~nomic_cards.core.services.mail_in.take_message`),
then -- the transaction committed, no lock held -- answer its player (:func:`send_receipts`).
Each message gives one line (:func:`line`) for the log.

The settings come from the environment: the pinned DKIM keys (``NOMIC_CARDS_DKIM_KEYS``), the
list archive's address for a message (``NOMIC_CARDS_MAIL_ARCHIVE``, a template holding
``{message_id}``), and the outbox for receipts (:mod:`.posting`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from nomic_cards.core.actions import ActionSpec
from nomic_cards.core.mail import MailError, Refused, Sender
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.mail_in import (
    Incoming,
    MessageOutcome,
    MessageView,
    Reading,
    preview_message,
    receipt_done,
    receipts_due,
    take_message,
)
from nomic_cards.errors import NomicCardsError
from nomic_cards.mail import receipts
from nomic_cards.mail.authenticate import ConfigError, PinnedKeys, authenticate
from nomic_cards.mail.parse import parse
from nomic_cards.mail.posting import Outbox
from nomic_cards.mail.reading import read

ARCHIVE_VARIABLE = "NOMIC_CARDS_MAIL_ARCHIVE"


class InternalError(NomicCardsError):
    """Something unforeseen went wrong while a message was applied: nothing of it was, and it
    was kept as refused."""


@dataclass(frozen=True)
class MailSettings:
    """How messages are read: the pinned keys (None: keys from DNS), the archive's address
    template (None: none), and the outbox for receipts (None: none are sent)."""

    keys: PinnedKeys | None = None
    archive: str | None = None
    outbox: Outbox | None = None


def settings_from_environment(environ: Mapping[str, str], *,
                              outbox: Outbox | None = None) -> MailSettings:
    """The settings the environment gives; :class:`ConfigError` for one that cannot be
    used."""
    from nomic_cards.mail.authenticate import keys_from_environment

    archive = environ.get(ARCHIVE_VARIABLE) or None
    if archive is not None and ("{message_id}" not in archive
                                or not archive.startswith(("http://", "https://"))):
        raise ConfigError(f"{ARCHIVE_VARIABLE} is the address of a message in the list's "
                          "archive, with {message_id} where its Message-ID goes: "
                          "https://lists.example.org/archive/{message_id}")
    return MailSettings(keys_from_environment(environ), archive, outbox)


def archive_url(template: str | None, message_id: str) -> str | None:
    """The archive's address of the message (its Message-ID without the angle brackets,
    quoted for a URL)."""
    if template is None:
        return None
    return template.replace("{message_id}", quote(message_id.strip("<>"), safe="@.-_"))


def incoming(raw: bytes, via: str, settings: MailSettings, actions: Mapping[str, ActionSpec],
             *, size: int | None = None, cast_at: datetime | None = None,
             dated: datetime | None = None) -> Incoming:
    """The message ``raw`` read, authenticated and understood (``size``: its whole size when
    ``raw`` is only its head). Its ballots count as cast at ``cast_at`` (None: when it is
    applied); with ``dated`` (now: an archive's message), at its own Date, if it has one, and
    no later than ``dated``. Raises :class:`~nomic_cards.mail.parse.NotAMessage`."""
    parsed = parse(raw, size=size)
    if dated is not None and parsed.date is not None:
        cast_at = min(parsed.date, dated)
    if cast_at is not None:
        cast_at = cast_at.replace(microsecond=0)
    if parsed.refusal is not None or parsed.text is None:
        return Incoming(parsed.message_id, via, parsed.sender, parsed.subject, parsed.raw,
                        parsed.size, Reading(), refusal=parsed.refusal or "it holds no text",
                        unauthenticated="not read")
    verdict = authenticate(parsed.raw, parsed.sender, keys=settings.keys)
    return Incoming(parsed.message_id, via, parsed.sender, parsed.subject, parsed.raw,
                    parsed.size, read(parsed.text, actions), authenticated=verdict.how,
                    unauthenticated=verdict.why_not, cast_at=cast_at,
                    archive=archive_url(settings.archive, parsed.message_id))


def take(nomic: Nomic, message: Incoming, *, receipts: bool = True) -> MessageOutcome:
    """Keep and apply ``message`` in one writing transaction. An unforeseen error rolls it
    all back; the message is then kept as refused (another transaction) and
    :class:`InternalError` says so."""
    try:
        with nomic.write() as tx:
            return take_message(tx, message, receipts=receipts)
    except NomicCardsError:
        raise
    except Exception as exc:  # noqa: BLE001 - a fault of ours: one line, the message kept
        why = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}".rstrip(": ")
        refused = dataclasses.replace(
            message, reading=Reading(), refusal=f"an internal error stopped it ({why}): "
                                                "nothing in it was applied")
        with nomic.write() as tx:
            kept = take_message(tx, refused, receipts=False)
        raise InternalError(f"message {kept.id} {message.message_id}: an internal error "
                            f"({why}): nothing in it was applied; it is kept as refused") \
            from None


def preview(nomic: Nomic, message: Incoming) -> MessageOutcome:
    """What :func:`take` would do, in a read (``--dry-run``)."""
    with nomic.read() as r:
        return preview_message(r, message)


def line(o: MessageOutcome) -> str:
    """The message's line for the log (it names the player, never an address)."""
    if o.duplicate_of is not None:
        return (f"message {o.message_id}: a copy of message {o.duplicate_of} ({o.status}): "
                "not applied again")
    head = f"message {o.id if o.id is not None else '-'} {o.message_id} from " \
           f"{o.player or 'no player'}: {o.status}"
    if o.status == "applied":
        done = sum(1 for r in o.results if r.recorded)
        return (f"{head}: {done} recorded, {len(o.results) - done} refused, "
                f"{len(o.unread)} line(s) not read")
    return f"{head}: {o.reason}" if o.reason else head


def understood(message: Incoming, actions: Mapping[str, ActionSpec]) -> list[str]:
    """Each item read, as ``--dry-run`` lists it."""
    out = []
    for item in message.reading.items:
        if item.kind == "ballot":
            what = item.option if item.endorse is None else f"endorse {item.endorse}"
            out.append(f"ballot on {item.decision}: {what}  <- {item.line!r}")
        elif item.kind == "act":
            spec = actions.get(item.action or "")
            private = " (private)" if spec is not None and spec.private else ""
            fields = " ".join(f"{k}={_shown(v)}" for k, v in item.body.items())
            out.append(f"{item.action}{private} {fields}".rstrip() + f"  <- {item.line!r}")
        else:
            out.append(f"refused: {item.reason}  <- {item.line!r}")
    return out


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(_shown(v) if not isinstance(v, list | tuple) else
                        "[" + ",".join(map(str, v)) + "]" for v in value)
    return str(value)


@dataclass(frozen=True)
class ReceiptSent:
    """What became of one receipt: sent, refused for good, or left due (and why)."""

    message: int
    player: str | None
    state: str
    note: str


def send_receipts(nomic: Nomic, box: Outbox, *, only: Sequence[int] | None = None
                  ) -> list[ReceiptSent]:
    """Send the receipts due (of the messages ``only`` names, or every one), each to its
    player's registered address, no transaction open while the mail server is talked to; each
    sending recorded once the server has answered. A receipt refused for now, or when the
    server cannot be reached, stays due (the next ``mail`` command sends it): at least once."""
    wanted = None if only is None else set(only)
    with nomic.read() as r:
        due: list[MessageView] = [v for v in receipts_due(r)
                                  if wanted is None or v.id in wanted]
        addresses = {v.id: (r.state.players[v.player].email
                            if v.player in r.state.players else None) for v in due}
    out: list[ReceiptSent] = []
    with ExitStack() as connection:
        conn: Sender | None = None  # one connection for them all, opened for the first sent
        for view in due:
            address = addresses[view.id]
            now = nomic.clock.now()
            if address is None:
                out.append(_done(nomic, view, False, "the player has no address now"))
                continue
            try:
                msg = receipts.build(view, address=address, sender=box.sender, now=now)
                if conn is None:
                    conn = connection.enter_context(Sender(box.smtp))
                conn.send(msg)
            except Refused as exc:
                if exc.permanent:
                    out.append(_done(nomic, view, False, str(exc)))
                else:
                    out.append(ReceiptSent(view.id, view.player, "due", str(exc)))
                continue
            except (MailError, NomicCardsError) as exc:
                out.append(ReceiptSent(view.id, view.player, "due", str(exc)))
                break
            out.append(_done(nomic, view, True, now.strftime("%Y-%m-%dT%H:%M:%SZ")))
    return out


def _done(nomic: Nomic, view: MessageView, sent: bool, note: str) -> ReceiptSent:
    with nomic.write(catch_up=False) as tx:
        receipt_done(tx, view.id, sent=sent, note=note)
    return ReceiptSent(view.id, view.player, "sent" if sent else "failed", note)
