"""Use case: e-mail the private notices that are due, one mail per player (a digest).

Delivery is at least once: a message is handed to the server before its ``notice.sent`` event is
recorded, with no database transaction open while the server is talked to (docs/notices.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.core import mail
from nomic_cards.core.game import Game
from nomic_cards.core.ledger.events import Event, NoticeFailed, NoticeSent

__all__ = [
    "MailedNotice",
    "SendReport",
    "send_notices",
]


@dataclass(frozen=True)
class MailedNotice:
    notice: int
    player: str
    address: str | None
    event: int | None = None  # the notice.sent or notice.failed event this run recorded
    reason: str | None = None  # why skipped, refused, held or left for the next run


@dataclass(frozen=True)
class SendReport:
    smtp: str
    sent: tuple[MailedNotice, ...]
    skipped: tuple[MailedNotice, ...]  # no address: they stay unsent
    failed: tuple[MailedNotice, ...]  # refused for good (5xx) in this run: notice.failed recorded
    retry: tuple[MailedNotice, ...]  # refused for now (4xx) or not tried: due on the next run
    held: tuple[MailedNotice, ...]  # refused for good earlier, to the address they still have
    error: str | None = None  # what stopped the batch (a lost connection), if anything
    mails: int = 0  # mails the server accepted in this run: one per player at most

    @property
    def ok(self) -> bool:
        """Nothing was refused and nothing is left for the next run."""
        return not self.failed and not self.retry and self.error is None

    @property
    def unsent(self) -> int:
        """Notices with an address still unsent after this run, held ones excluded."""
        return len(self.failed) + len(self.retry)


def send_notices(game: Game, *, smtp: str | mail.SmtpConfig, base_url: str,
                 sender: str | None = None) -> SendReport:
    """Mail the due notices, one mail per player gathering all of eirs (a digest), in the
    order of their first notices, over one SMTP connection. A job rather than a use case: it
    takes the Game and opens its own short transactions, because it waits on a mail server
    between them and must hold no lock while it does. ``base_url`` is the server's URL as
    players reach it: each notice says to act on the game's page there.

    1. One short read transaction lists the due notices: unsent, with a player who has an
       address, and not refused for good to that same address.
    2. With no transaction open, each player's mail is handed to the server (without the
       notices that a short read finds another sender has recorded sent meanwhile).
    3. Each outcome is recorded in its own short transaction: ``notice.sent`` for each notice of
       a mail the server accepted, ``notice.failed`` for each when it refused the mail for good
       (a 5xx reply). A 4xx reply records nothing: the notices are due again next run. A lost
       connection stops the batch, leaving the rest for the next run (``error`` says why).

    A crash after the server accepted a mail and before its ``notice.sent`` events commit sends
    it again on the next run, with the same Message-ID when it gathers the same notices. ``smtp``
    is ``HOST:PORT`` (plain, no login) or a :class:`~nomic_cards.core.mail.SmtpConfig`. A bad
    value, an unreachable server, a failed TLS handshake or a refused login raise
    :class:`~nomic_cards.core.mail.MailError` or InputError before anything is sent or
    recorded.
    """
    config = smtp if isinstance(smtp, mail.SmtpConfig) else mail.smtp_config(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    page = mail.check_base_url(base_url) + "/"
    skipped: list[MailedNotice] = []
    held: list[MailedNotice] = []
    due: dict[tuple[str, str], list[mail.Notice]] = {}
    with game.read() as r:
        state = r.full_state()
        queue = [n for n in sorted(state.notices.values(), key=lambda n: n.seq)
                 if n.sent_seq is None]
        heads = r.event_heads([n.seq for n in queue])
    for n in queue:
        address = state.players[n.player].email
        if not address:
            skipped.append(MailedNotice(n.seq, n.player, None,
                                        reason=f"{n.player} has no e-mail address"))
        elif n.failed_seq is not None and n.failed_to == address:
            held.append(MailedNotice(n.seq, n.player, address,
                                     reason=f"refused for good at event {n.failed_seq}; set "
                                            f"another address to send it again"))
        else:
            event_hash, subject = heads[n.seq]
            due.setdefault((n.player, address), []).append(
                mail.Notice(n.seq, event_hash, n.player, address, n.text, subject))
    sent: list[MailedNotice] = []
    failed: list[MailedNotice] = []
    retry: list[MailedNotice] = []
    error: str | None = None
    mails = 0
    if due:
        groups = list(due.values())
        with mail.Sender(config) as conn:
            for i, group in enumerate(groups):
                done = _recorded_sent(game, [n.seq for n in group])  # by another sender
                sent.extend(MailedNotice(n.seq, n.player, n.address, reason="sent by another run")
                            for n in group if n.seq in done)
                notes = [n for n in group if n.seq not in done]
                if not notes:
                    continue
                message = mail.build_message(notes, sender=from_addr, now=game.clock.now(),
                                             page=page)
                try:
                    conn.send(message)
                except mail.Refused as refusal:
                    if not refusal.permanent:
                        retry.extend(MailedNotice(n.seq, n.player, n.address,
                                                  reason=str(refusal)) for n in notes)
                        continue
                    seqs = _record(game, notes, refused=str(refusal))
                    failed.extend(MailedNotice(n.seq, n.player, n.address, seqs.get(n.seq),
                                               reason=str(refusal)) for n in notes)
                    continue
                except mail.MailError as exc:
                    error = str(exc)
                    retry.extend(MailedNotice(n.seq, n.player, n.address,
                                              reason="not sent: the connection was lost")
                                 for g in groups[i:] for n in g)
                    break
                mails += 1
                seqs = _record(game, notes)
                sent.extend(MailedNotice(n.seq, n.player, n.address, seqs.get(n.seq),
                                         None if n.seq in seqs
                                         else "recorded sent by another run")
                            for n in notes)
    return SendReport(str(config), tuple(sent), tuple(skipped), tuple(failed), tuple(retry),
                      tuple(held), error, mails)


def _recorded_sent(game: Game, seqs: list[int]) -> set[int]:
    """Which of the notices are recorded sent (a short read that takes no write lock), in one
    snapshot: a mail then gathers all of a player's notices or none (on PostgreSQL a narrow
    read's statements each see their own, and another sender's record committed between two of
    them made a mail of some, under another Message-ID)."""
    with game.read(need_game=False, snapshot=True) as r:
        return {s for s in seqs if r.notice_sent(s)}


def _record(game: Game, notes: list[mail.Notice], *,
            refused: str | None = None) -> dict[int, int]:
    """Record what became of the notices of one mail, in one short transaction: sent, or
    ``refused`` for good with the server's reply; the event recorded for each (none for a
    notice another sender has recorded sent meanwhile: this copy was then a duplicate). Each
    names the player only where the notice's own event did (a sealed notice's addressee
    stays private)."""
    out: dict[int, int] = {}
    with game.write() as tx:
        for n in notes:
            if not tx.notice_sent(n.seq):
                event: Event = NoticeSent(n.seq) if refused is None else \
                    NoticeFailed(n.seq, n.address, refused)
                out[n.seq] = tx.record(event, subject=n.subject)[-1].seq
    return out
