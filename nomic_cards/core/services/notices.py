"""Use case: e-mail the private notices that are due, one mail per player (a digest).

One sender at a time per game (a lock held for the whole sending, not the ledger lock), no
database transaction open while the mail server is talked to, and one ``notices.mailed`` event
per sending, recorded once its mails are handed over: delivery is at least once, and the
public record of a sending pairs no sealed notice with anyone (docs/notices.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timedelta

from nomic_cards.core import mail
from nomic_cards.core.ledger import mailing
from nomic_cards.core.ledger.events import (
    AddressAsked,
    AddressLinked,
    DecisionOpened,
    EventRecord,
    NoticeGiven,
    NoticeRefusal,
    NoticesMailed,
    SealedNotice,
    TokenMailed,
    game_of_event,
    parse_time,
)
from nomic_cards.core.ledger.state import State
from nomic_cards.core.nomic import Nomic
from nomic_cards.errors import NomicCardsError
from nomic_cards.inputs import address_problem

__all__ = [
    "MailedNotice",
    "SendReport",
    "SenderBusy",
    "send_notices",
]

#: a daily digest holds back no notice whose deadline would then be nearer than this
DAILY_MARGIN = timedelta(hours=12)

#: the lock a sending holds (:meth:`~nomic_cards.core.store.connect.Database.job_lock`)
SENDING = "notices"


class SenderBusy(NomicCardsError):
    """Another sending of the notices is running on the same game: this one sent nothing."""


@dataclass(frozen=True)
class MailedNotice:
    notice: int
    player: str
    address: str | None
    event: int | None = None  # the notices.mailed event of this run that records it
    reason: str | None = None  # why skipped, refused, held or left for the next run


@dataclass(frozen=True)
class MailedRequest:
    """A mail a player asked for: the confirmation ``link`` of an address change, mailed to
    the new address, or a new ``token``, mailed to the registered one; ``request`` the event
    that asked; ``outcome`` ``sent``, ``failed`` (refused for good), ``retry`` (for now, or
    not tried) or ``skipped`` (no address, retired); ``event`` what recorded it."""

    what: str
    player: str
    address: str | None
    request: int
    outcome: str
    event: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class SendReport:
    smtp: str
    sent: tuple[MailedNotice, ...]
    skipped: tuple[MailedNotice, ...]  # no address: they stay unsent
    failed: tuple[MailedNotice, ...]  # refused for good (5xx) in this run: recorded refused
    retry: tuple[MailedNotice, ...]  # refused for now (4xx) or not tried: due on the next run
    held: tuple[MailedNotice, ...]  # refused for good earlier, or an address that is not one
    error: str | None = None  # what stopped the batch (a lost connection), if anything
    mails: int = 0  # mails the server accepted in this run: one per player at most
    event: int | None = None  # the notices.mailed event that records this sending
    #: notices of players mailed a daily digest, for the first sending after 00:00 UTC
    later: tuple[MailedNotice, ...] = ()
    #: notices of the Dealer, who has no address: read on the page, not a warning
    officer: int = 0
    #: the mails players asked for (links, tokens)
    requests: tuple[MailedRequest, ...] = ()

    @property
    def ok(self) -> bool:
        """Nothing was refused and nothing is left for the next run."""
        return not self.failed and not self.retry and self.error is None and \
            not any(r.outcome in ("failed", "retry") for r in self.requests)

    @property
    def unsent(self) -> int:
        """Notices with an address still unsent after this run, held ones excluded."""
        return len(self.failed) + len(self.retry)


def send_notices(nomic: Nomic, *, smtp: str | mail.SmtpConfig, base_url: str,
                 sender: str | None = None) -> SendReport:
    """Mail the due notices, one mail per player gathering all of eirs (a digest), in the
    order of their first notices, over one SMTP connection. A job rather than a use case: it
    takes the Nomic and opens its own short transactions, because it waits on a mail server
    between them and must hold no lock on the ledger while it does. ``base_url`` is the
    server's URL as players reach it: each notice says to act on the game's page there.

    0. It takes the game's sending lock for the whole sending: while another sending holds it,
       :class:`SenderBusy` is raised at once and nothing is sent or recorded.
    1. One short read transaction lists the due notices: unsent, with a player whose address
       is exactly one address, and not refused for good to that same address.
    2. With no transaction open, each player's mail is handed to the server (without the
       notices that a short read finds recorded sent meanwhile). A 4xx reply leaves the mail's
       notices due on the next run; a 5xx reply refuses them for good; a lost connection stops
       the batch, leaving the rest for the next run (``error`` says why).
    3. One short transaction records the sending: one ``notices.mailed`` event, dated when the
       notices were listed, whatever was mailed (nothing, too), saying in public which
       notices whose own events name their players were mailed, in notice order, and in
       private the sealed notices mailed and the refusals.

    A crash after the server accepted a mail and before the sending is recorded sends its
    mails again on the next run, with the same Message-IDs when they gather the same
    notices. ``smtp`` is ``HOST:PORT`` (plain, no login) or a
    :class:`~nomic_cards.core.mail.SmtpConfig`. A bad value, an unreachable server, a failed
    TLS handshake or a refused login raise :class:`~nomic_cards.core.mail.MailError` or
    InputError before anything is sent or recorded.
    """
    config = smtp if isinstance(smtp, mail.SmtpConfig) else mail.smtp_config(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    page = mail.check_base_url(base_url) + "/"
    with nomic.db.job_lock(SENDING) as mine:
        if not mine:
            raise SenderBusy(f"another notices send is running on {nomic.database}: this one "
                             "sent nothing (run it again once that one has ended)")
        return _send(nomic, config, from_addr, page)


@dataclass
class _Outcome:
    """What became of the due notices in one sending, as it goes."""

    sent: list[tuple[mail.Notice, bool]]  # in order; false: recorded sent by another run
    refused: list[tuple[mail.Notice, str]]
    retry: list[MailedNotice]
    error: str | None = None
    mails: int = 0

    @property
    def mailed(self) -> list[mail.Notice]:
        """The notices of the mails this run handed over."""
        return [n for n, here in self.sent if here]


def _send(nomic: Nomic, config: mail.SmtpConfig, from_addr: str, page: str) -> SendReport:
    skipped: list[MailedNotice] = []
    held: list[MailedNotice] = []
    later: list[MailedNotice] = []
    officer = 0
    due: dict[tuple[str, str], list[mail.Notice]] = {}
    with nomic.read() as r:
        started = nomic.clock.now()
        state = r.full_state()
        queue = [n for n in sorted(state.notices.values(), key=lambda n: n.seq)
                 if n.sent_seq is None]
        heads = r.event_heads([n.seq for n in queue])
        records = {n.seq: r.event_at(n.seq) for n in queue}
        asked = {w for rec in records.values() if (w := _waits(rec))}
        waited = {seq: r.event_at(seq) for seq in sorted(asked)}
        wanted = [_wanted(r.event_at(seq), "link", state) for seq in
                  mailing.links_due(state).values()]
        wanted += [_wanted(r.event_at(seq), "token", state) for seq in
                   mailing.tokens_due(state).values()]
    for n in queue:
        address = state.players[n.player].email
        problem = address_problem(address) if address else None
        rec = records[n.seq]
        if not address:
            if n.player == state.dealer:  # the officer reads eirs on the page
                officer += 1
            else:
                skipped.append(MailedNotice(n.seq, n.player, None,
                                            reason=f"{n.player} has no e-mail address"))
        elif problem is not None:
            held.append(MailedNotice(n.seq, n.player, address,
                                     reason=f"the address is not exactly one address "
                                            f"({problem}); set another to send it"))
        elif n.failed_seq is not None and n.failed_to == address:
            held.append(MailedNotice(n.seq, n.player, address,
                                     reason=f"refused for good at event {n.failed_seq}; set "
                                            f"another address to send it again"))
        else:
            done = not _still_waits(state, rec, waited, n.player, n.text, started)
            if _daily_later(state, n.player, rec, n.text, done, started):
                later.append(MailedNotice(n.seq, n.player, address,
                                          reason=f"{n.player} is mailed a daily digest"))
                continue
            event_hash, subject = heads[n.seq]
            due.setdefault((n.player, address), []).append(
                mail.Notice(n.seq, event_hash, n.player, address, n.text, subject, done))
    out = _Outcome([], [], [])
    groups = list(due.values())
    requests: list[MailedRequest] = []
    with ExitStack() as connection:
        # an unreachable server, a bad certificate or a refused login: raised here, before
        # anything is sent or recorded
        mailable = [want for want in wanted if want.address is not None]
        conn = connection.enter_context(mail.Sender(config)) if groups or mailable else None
        try:
            if conn is not None:
                _mail(nomic, conn, groups, from_addr, page, out)
        finally:
            # recorded even when interrupted: what the server accepted is not mailed again
            event, elsewhere = _record(nomic, started, out.mailed, out.refused)
        for want in wanted:
            requests.append(_request(nomic, conn, want, from_addr, page, out.error))
    sent = [MailedNotice(n.seq, n.player, n.address, reason="sent by another run")
            if not here else
            MailedNotice(n.seq, n.player, n.address, None if n.seq in elsewhere else event,
                         "recorded sent by another run" if n.seq in elsewhere else None)
            for n, here in out.sent]
    failed = [MailedNotice(n.seq, n.player, n.address,
                           None if n.seq in elsewhere else event, reply)
              for n, reply in out.refused]
    return SendReport(str(config), tuple(sent), tuple(skipped), tuple(failed),
                      tuple(out.retry), tuple(held), out.error, out.mails, event,
                      tuple(later), officer, tuple(requests))


@dataclass(frozen=True)
class _Wanted:
    """A mail a player asked for, as listed: where it goes (None: nowhere, ``why``)."""

    what: str
    player: str
    request: int
    at: datetime
    address: str | None
    why: str = ""


def _wanted(rec: EventRecord | None, what: str, state: State) -> _Wanted:
    assert rec is not None
    e = rec.event
    player = state.players[e.name]  # type: ignore[attr-defined]
    if what == "link":
        assert isinstance(e, AddressAsked)
        return _Wanted(what, e.name, rec.seq, rec.at, e.email)
    if not player.active:
        return _Wanted(what, player.name, rec.seq, rec.at, None, f"{player.name} has retired")
    if not player.email:
        return _Wanted(what, player.name, rec.seq, rec.at, None,
                       f"{player.name} has no e-mail address")
    return _Wanted(what, player.name, rec.seq, rec.at, player.email)


def _request(nomic: Nomic, conn: mail.Sender | None, w: _Wanted, from_addr: str, page: str,
             error: str | None) -> MailedRequest:
    """Mail what ``w`` asked for and record it: the confirmation link (``player.
    address_linked``) or the new token (``player.token_mailed``, the token kept and eir
    earlier ones revoked in the same transaction). Refused for now, or the connection lost:
    nothing recorded, tried again on the next sending."""
    from nomic_cards.core.services import self_service, tokens

    if w.address is None:
        with nomic.write() as tx:
            seq = tx.record(TokenMailed(w.player, w.request, reply=w.why))[0].seq
        return MailedRequest(w.what, w.player, None, w.request, "skipped", seq, w.why)
    if conn is None or error is not None:
        return MailedRequest(w.what, w.player, w.address, w.request, "retry",
                             reason="not sent: the connection was lost")
    now = nomic.clock.now()
    if w.what == "link":
        secret = self_service.new_secret()
        expires = self_service.expires_at(now)
        message = mail.build_link_message(
            w.player, w.address, f"{page}address/confirm?link={w.request}.{secret}",
            sender=from_addr, now=now, expires=expires, asked=w.at)
    else:
        selector, verifier = tokens.new_token()
        message = mail.build_new_token_message(
            w.player, w.address, f"{selector}.{verifier}", sender=from_addr, now=now,
            server=page.rstrip("/"), asked=w.at)
    try:
        conn.send(message)
    except mail.Refused as refusal:
        if not refusal.permanent:
            return MailedRequest(w.what, w.player, w.address, w.request, "retry",
                                 reason=str(refusal))
        with nomic.write() as tx:
            seq = tx.record(AddressLinked(w.player, w.request, reply=str(refusal))
                            if w.what == "link" else
                            TokenMailed(w.player, w.request, reply=str(refusal)))[0].seq
        return MailedRequest(w.what, w.player, w.address, w.request, "failed", seq,
                             str(refusal))
    except mail.MailError as exc:
        return MailedRequest(w.what, w.player, w.address, w.request, "retry", reason=str(exc))
    with nomic.write() as tx:
        if w.what == "link":
            seq = tx.record(AddressLinked(w.player, w.request, expires,
                                          self_service.link_hash(secret)))[0].seq
        else:
            tokens.keep_mailed(tx, w.player, selector, verifier)
            seq = tx.record(TokenMailed(w.player, w.request, w.address, selector))[0].seq
    return MailedRequest(w.what, w.player, w.address, w.request, "sent", seq)


def _waits(rec: EventRecord | None) -> int:
    """The event whose business a notice's ``By:`` line is (0: none named)."""
    e = None if rec is None else rec.event
    return e.waits if isinstance(e, NoticeGiven | SealedNotice) else 0


def _still_waits(state: State, rec: EventRecord | None, waited: dict[int, EventRecord | None],
                 player: str, text: str, now: datetime) -> bool:
    """Whether what a notice's ``By:`` line names still waits for its player: its deadline
    not passed, and -- when the notice names the event whose business it is -- that business
    not done (the nomic's decision asks for a ballot, a card game says of its own)."""
    by = mail.deadline(text)
    if by is None:
        return False
    try:
        if parse_time(by) <= now:
            return False
    except ValueError:
        return True
    seq = _waits(rec)
    asked = waited.get(seq) if seq else None
    if asked is None:
        return True
    if isinstance(asked.event, DecisionOpened):
        from nomic_cards.core.services.decisions import ballot_waits

        return ballot_waits(state, asked.event, player)
    name = game_of_event(asked.event)
    if name is None:
        return True
    from nomic_cards.core.engine import game

    found = game(name)
    if found is None or found.waiting is None:
        return True
    return found.waiting(state, asked.event, seq, player)


def _daily_later(state: State, player: str, rec: EventRecord | None, text: str, done: bool,
                 now: datetime) -> bool:
    """Whether a notice of a player mailed a daily digest waits for the first sending after
    the next 00:00 UTC: recorded since the last one, and no deadline of what still waits
    nearer than :data:`DAILY_MARGIN` to that sending."""
    if mailing.choice(state, player) != "daily" or rec is None:
        return False
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if rec.at < today:
        return False
    by = mail.deadline(text)
    if by is None or done:
        return True
    try:
        return parse_time(by) - (today + timedelta(days=1)) >= DAILY_MARGIN
    except ValueError:
        return False


def _mail(nomic: Nomic, conn: mail.Sender, groups: list[list[mail.Notice]], from_addr: str,
          page: str, out: _Outcome) -> None:
    """Hand each player's mail to the server, noting in ``out`` what became of it."""
    for i, group in enumerate(groups):
        done = _recorded_sent(nomic, [n.seq for n in group])  # by another sender
        out.sent.extend((n, False) for n in group if n.seq in done)
        notes = [n for n in group if n.seq not in done]
        if not notes:
            continue
        message = mail.build_message(notes, sender=from_addr, now=nomic.clock.now(),
                                     page=page)
        try:
            conn.send(message)
        except mail.Refused as refusal:
            if refusal.permanent:
                out.refused.extend((n, str(refusal)) for n in notes)
            else:
                out.retry.extend(MailedNotice(n.seq, n.player, n.address, reason=str(refusal))
                                 for n in notes)
            continue
        except mail.MailError as exc:
            out.error = str(exc)
            out.retry.extend(MailedNotice(n.seq, n.player, n.address,
                                          reason="not sent: the connection was lost")
                             for g in groups[i:] for n in g)
            return
        out.mails += 1
        out.sent.extend((n, True) for n in notes)


def _recorded_sent(nomic: Nomic, seqs: list[int]) -> set[int]:
    """Which of the notices are recorded sent (a short read that takes no write lock), in one
    snapshot: a mail then gathers all of a player's notices or none."""
    with nomic.read(need_game=False, snapshot=True) as r:
        return {s for s in seqs if r.notice_sent(s)}


def _record(nomic: Nomic, started: datetime, mailed: Sequence[mail.Notice],
            refused: Sequence[tuple[mail.Notice, str]]) -> tuple[int, set[int]]:
    """Record the sending in one short transaction: one ``notices.mailed`` event, dated
    ``started`` (when its notices were listed; the ledger's last event's time if that is
    later), listing in notice order the notices mailed whose own events name their players,
    and privately the sealed ones and the refusals. The event's number, and the notices left
    out because they were recorded sent meanwhile (this copy was a duplicate)."""
    with nomic.write() as tx:
        elsewhere = {n.seq for n in (*mailed, *(n for n, _ in refused))
                     if tx.notice_sent(n.seq)}
        public = sorted(n.seq for n in mailed if n.seq not in elsewhere and n.subject == n.player)
        sealed = sorted(n.seq for n in mailed if n.seq not in elsewhere and n.subject != n.player)
        refusals = sorted((NoticeRefusal(n.seq, n.address, reply) for n, reply in refused
                           if n.seq not in elsewhere), key=lambda r: r.notice)
        with tx.as_of(started):
            (rec,) = tx.record(NoticesMailed(tuple(public), tuple(sealed), tuple(refusals)))
    return rec.seq, elsewhere
