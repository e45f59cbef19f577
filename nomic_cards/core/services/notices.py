"""Use case: e-mail the private notices that have not been sent yet."""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.core import mail
from nomic_cards.core.game import Game
from nomic_cards.core.ledger.events import NoticeSent


@dataclass(frozen=True)
class MailedNotice:
    notice: int
    player: str
    address: str | None
    event: int | None = None  # the notice.sent event, for those sent
    reason: str | None = None  # why skipped or failed


@dataclass(frozen=True)
class SendReport:
    smtp: str
    sent: tuple[MailedNotice, ...]
    skipped: tuple[MailedNotice, ...]  # no address: they stay unsent
    failed: MailedNotice | None  # the notice the server refused; the batch stopped there
    unsent: int  # notices with an address still unsent after this run (failed one included)

    @property
    def ok(self) -> bool:
        return self.failed is None


def send_notices(game: Game, *, smtp: str, sender: str | None = None) -> SendReport:
    """Mail each unsent notice, in event order, to its player's address over one SMTP
    connection, recording a ``notice.sent`` event for each in its own unit of work.

    Each message is sent while that unit of work holds the ledger lock, after checking the
    notice is still unsent, so two senders running at once cannot both send it. A refusal or a
    dropped connection stops the batch: the notices sent so far stay recorded, the rest stay
    unsent for the next run (``failed`` names the one refused). A crash after the server
    accepted a message but before the commit would send that one again on the next run; its
    Message-ID is the same both times (see docs/notices.md). A bad ``smtp`` value or an
    unreachable server raises :class:`nomic_cards.core.mail.MailError`/InputError, recording
    nothing.
    """
    endpoint = mail.parse_endpoint(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    with game.unit_of_work(write=False) as uow:
        state = uow.full_state()
        known_seq = state.seq
        queue = [n for n in sorted(state.notices.values(), key=lambda n: n.seq)
                 if n.sent_seq is None]
    skipped = [MailedNotice(n.seq, n.player, None, reason=f"{n.player} has no e-mail address")
               for n in queue if not state.players[n.player].email]
    todo = [n for n in queue if state.players[n.player].email]
    sent: list[MailedNotice] = []
    done: set[int] = set()  # notices found sent by others, as of event ``known_seq``
    if todo:
        with mail.Sender(endpoint) as conn:
            for i, n in enumerate(todo):
                address: str | None = None
                try:
                    with game.unit_of_work() as uow:
                        live = uow.state
                        if live.seq != known_seq:  # someone else wrote: look again
                            done = {s for s, r in uow.full_state().notices.items()
                                    if r.sent_seq is not None}
                            known_seq = live.seq
                        if n.seq in done:
                            continue
                        address = live.players[n.player].email
                        if not address:
                            skipped.append(MailedNotice(
                                n.seq, n.player, None,
                                reason=f"{n.player} has no e-mail address"))
                            continue
                        head = uow.event_at(n.seq)
                        note = mail.Notice(n.seq, head.hash if head else "", n.player, address,
                                           n.text)
                        conn.send(mail.build_message(note, sender=from_addr,
                                                     now=game.clock.now()))
                        rec = uow.record(NoticeSent(n.seq), subject=n.player)
                        known_seq = rec[-1].seq
                        sent.append(MailedNotice(n.seq, n.player, address, rec[-1].seq))
                except mail.MailError as exc:
                    failed = MailedNotice(n.seq, n.player, address, reason=str(exc))
                    return SendReport(str(endpoint), tuple(sent), tuple(skipped), failed,
                                      len(todo) - i)
    return SendReport(str(endpoint), tuple(sent), tuple(skipped), None, 0)
