"""Use case: e-mail the private notices that are due.

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

    @property
    def ok(self) -> bool:
        """Nothing was refused and nothing is left for the next run."""
        return not self.failed and not self.retry and self.error is None

    @property
    def unsent(self) -> int:
        """Notices with an address still unsent after this run, held ones excluded."""
        return len(self.failed) + len(self.retry)


def send_notices(game: Game, *, smtp: str | mail.SmtpConfig,
                 sender: str | None = None) -> SendReport:
    """Mail each due notice, in event order, over one SMTP connection. A job rather than a use
    case: it takes the Game and opens its own short transactions, because it waits on a mail
    server between them and must hold no lock while it does.

    1. One short read transaction lists the due notices: unsent, with a player who has an
       address, and not refused for good to that same address.
    2. With no transaction open, each message is handed to the server (unless a short read
       finds that another sender has recorded it sent meanwhile).
    3. Each outcome is recorded in its own short transaction: ``notice.sent`` when the server
       accepted it, ``notice.failed`` when it refused it for good (a 5xx reply). A 4xx reply
       records nothing: the notice is due again next run. A lost connection stops the batch,
       leaving the rest for the next run (``error`` says why).

    A crash after the server accepted a message and before its ``notice.sent`` commits sends it
    again on the next run, with the same Message-ID. ``smtp`` is ``HOST:PORT`` (plain, no login)
    or a :class:`~nomic_cards.core.mail.SmtpConfig`. A bad value, an unreachable server, a failed
    TLS handshake or a refused login raise :class:`~nomic_cards.core.mail.MailError` or
    InputError before anything is sent or recorded.
    """
    config = smtp if isinstance(smtp, mail.SmtpConfig) else mail.smtp_config(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    skipped: list[MailedNotice] = []
    held: list[MailedNotice] = []
    due: list[mail.Notice] = []
    with game.read() as r:
        state = r.full_state()
        queue = [n for n in sorted(state.notices.values(), key=lambda n: n.seq)
                 if n.sent_seq is None]
        hashes = r.event_hashes([n.seq for n in queue])
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
            due.append(mail.Notice(n.seq, hashes[n.seq], n.player, address, n.text))
    sent: list[MailedNotice] = []
    failed: list[MailedNotice] = []
    retry: list[MailedNotice] = []
    error: str | None = None
    if due:
        with mail.Sender(config) as conn:
            for i, note in enumerate(due):
                if _recorded_sent(game, note.seq):  # by another sender since the list was read
                    sent.append(MailedNotice(note.seq, note.player, note.address,
                                             reason="sent by another run"))
                    continue
                message = mail.build_message(note, sender=from_addr, now=game.clock.now())
                try:
                    conn.send(message)
                except mail.Refused as refusal:
                    if not refusal.permanent:
                        retry.append(MailedNotice(note.seq, note.player, note.address,
                                                  reason=str(refusal)))
                        continue
                    seq = _record(game, note,
                                  NoticeFailed(note.seq, note.address, str(refusal)))
                    failed.append(MailedNotice(note.seq, note.player, note.address, seq,
                                               reason=str(refusal)))
                    continue
                except mail.MailError as exc:
                    error = str(exc)
                    retry.extend(MailedNotice(n.seq, n.player, n.address,
                                              reason="not sent: the connection was lost")
                                 for n in due[i:])
                    break
                seq = _record(game, note, NoticeSent(note.seq))
                sent.append(MailedNotice(note.seq, note.player, note.address, seq,
                                         None if seq is not None
                                         else "recorded sent by another run"))
    return SendReport(str(config), tuple(sent), tuple(skipped), tuple(failed), tuple(retry),
                      tuple(held), error)


def _recorded_sent(game: Game, seq: int) -> bool:
    """Whether the notice is recorded sent (a short read that takes no write lock)."""
    with game.read(need_game=False) as r:
        return r.notice_sent(seq)


def _record(game: Game, note: mail.Notice, event: Event) -> int | None:
    """Record what became of one notice, in its own short transaction; None when another
    sender has recorded it sent meanwhile (this copy was then a duplicate)."""
    with game.write() as tx:
        if tx.notice_sent(note.seq):
            return None
        return tx.record(event, subject=note.player)[-1].seq
