"""The pure fold: ``apply(state, record)`` and ``replay(records) -> State``.

Every effect an event has on the game is here and only here, one step per event kind, each
changing the state only through :class:`~nomic_cards.core.ledger.state.State`'s methods (which
the store's projector turns into table writes).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.events import Event, EventRecord
from nomic_cards.core.ledger.state import (
    DealRecord,
    NoticeRecord,
    ReplayError,
    ReportRecord,
    RollRecord,
    State,
    VoteRecord,
)

__all__ = ["ReplayError", "apply", "apply_event", "replay"]


def _rolls(entries: tuple[ev.RollEntry, ...]) -> tuple[RollRecord, ...]:
    return tuple(RollRecord(i, r.value, r.sides, r.source, r.period, r.index)
                 for i, r in enumerate(entries))


def apply_event(state: State, seq: int, event: Event, at: datetime) -> None:
    """Apply one event's effects to ``state`` (mutating it)."""
    match event:
        case ev.GameCreated():
            if state.initialised:
                raise ReplayError("game created twice")
            state.set_settings(event.settings)
            for pack in event.packs:
                state.add_pack(pack.name, pack.back, seq)
            state.register(event.dealer, None, seq)
            state.start_dealer_term(event.dealer, seq)
        case ev.PlayerRegistered():
            state.register(event.name, event.email, seq)
        case ev.PlayerEmailSet():
            state.set_email(event.name, event.email)
        case ev.PlayerRetired():
            state.retire(event.name, seq)
            state.move(event.returned, None, seq)
        case ev.DealerElected():
            state.player(event.name)
            state.start_dealer_term(event.name, seq)
            state.move(event.merged, None, seq)
        case ev.PackAdded():
            if event.number != len(state.packs):
                raise ReplayError(f"pack numbered {event.number}, expected {len(state.packs)}")
            state.add_pack(event.name, event.back, seq)
        case ev.DiceCommitted():
            state.open_period(event.period, event.commitment, seq)
        case ev.DiceRevealed():
            state.reveal_period(event.period, event.seed, seq)
        case ev.CardDealt():
            if state.owner.get(event.card, "?") is not None:
                raise ReplayError(f"card {event.card} dealt but it is not in the Deck")
            state.move((event.card,), event.player, seq)
            rolls = _rolls(event.rolls)
            for r in rolls:
                if r.period is not None and r.index is not None:
                    state.use_rolls(r.period, r.index + 1)
            state.add_deal(DealRecord(seq, event.player, event.card, event.reason, None, rolls,
                                      event.nweek))
            state.add_notice(NoticeRecord(seq, event.player, event.notice))
        case ev.DealRefused():
            state.player(event.player)
            state.add_deal(DealRecord(seq, event.player, None, event.reason, event.refused, (),
                                      event.nweek))
        case ev.CardTransferred():
            if state.owner.get(event.card, "?") != event.from_:
                raise ReplayError(f"card {event.card} transferred from {event.from_!r}, "
                                  "who does not hold it")
            state.move((event.card,), event.to, seq)
        case ev.NoticeSent():
            state.mark_notice_sent(event.notice, seq)
        case ev.ClockStopped():
            state.stop_clock(event.at, seq)
        case ev.ClockStarted():
            state.start_clock(event.at, seq)
        case ev.VotesRecorded():
            state.add_votes(tuple(VoteRecord(seq, v.player, v.proposal, v.at)
                                  for v in event.votes))
        case ev.NweekStarted():
            state.mark_nweek(event.nweek, seq)
        case ev.ReportPublished():
            out = event.rendered
            state.add_report(ReportRecord(event.nweek, seq, out.text, out.markdown, out.json))
        case _:
            raise ReplayError(f"no replay step for event kind {event.KIND!r}")
    state.seq = seq


def apply(state: State, record: EventRecord) -> None:
    """Apply a stored event and move the state's head to it."""
    apply_event(state, record.seq, record.event, record.at)
    state.head_hash = record.hash


def replay(
    records: Iterable[EventRecord], *, upto_seq: int | None = None,
    upto_time: datetime | None = None, history: bool = True,
) -> State:
    """Fold ``records`` (in order) into a fresh :class:`State`, optionally stopping after a
    sequence number or a time."""
    state = State(history=history)
    for rec in records:
        if upto_seq is not None and rec.seq > upto_seq:
            break
        if upto_time is not None and rec.at > upto_time:
            break
        apply(state, rec)
    return state
