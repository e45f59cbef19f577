"""The pure fold: ``apply(state, event)`` and ``replay(events) -> State``.

Every effect an event has on the game is here and only here; the store's projector writes the
same effects into tables, and ``verify`` checks that the two agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from nomic_cards.cards import CARDS_PER_PACK
from nomic_cards.ledger import events as ev
from nomic_cards.ledger.events import EventRecord, parse_time
from nomic_cards.ledger.state import (
    ClockStop,
    DealerTermState,
    DealRecord,
    NoticeRecord,
    PackState,
    PeriodState,
    PlayerState,
    ReportRecord,
    RollRecord,
    State,
    VoteRecord,
)


class ReplayError(Exception):
    """An event that cannot be applied to the state it follows."""


def _add_pack(state: State, name: str, back: str, seq: int) -> None:
    number = len(state.packs)
    state.packs.append(PackState(number, name, back, seq))
    for card in range(number * CARDS_PER_PACK + 1, (number + 1) * CARDS_PER_PACK + 1):
        state.owner[card] = None
        state.owner_seq[card] = seq
        state.deck.add(card)


def _move(state: State, card: int, to: str | None, seq: int) -> None:
    if card not in state.owner:
        raise ReplayError(f"card {card} does not exist")
    if state.owner[card] is None:
        state.deck.discard(card)
    state.owner[card] = to
    state.owner_seq[card] = seq
    if to is None:
        state.deck.add(card)


def _register(state: State, name: str, email: str | None, seq: int) -> None:
    if name in state.players:
        raise ReplayError(f"player {name!r} registered twice")
    state.players[name] = PlayerState(state.next_player_id(), name, email, True, seq)


def _rolls(raw: list[dict[str, Any]]) -> tuple[RollRecord, ...]:
    return tuple(
        RollRecord(i, r["value"], r["sides"], r["source"], r.get("period"), r.get("index"))
        for i, r in enumerate(raw)
    )


def apply(state: State, seq: int, kind: str, payload: dict[str, Any], at: datetime) -> None:
    """Apply one event's effects to ``state`` (mutating it)."""
    p = payload
    if kind == ev.GAME_CREATED:
        if state.initialised:
            raise ReplayError("game created twice")
        state.settings = {str(k): str(v) for k, v in p.get("settings", {}).items()}
        for pack in p["packs"]:
            _add_pack(state, pack["name"], pack["back"], seq)
        _register(state, p["dealer"], p.get("dealer_email"), seq)
        state.dealer_terms.append(DealerTermState(p["dealer"], seq))
    elif kind == ev.PLAYER_REGISTERED:
        _register(state, p["name"], p.get("email"), seq)
    elif kind == ev.PLAYER_EMAIL_SET:
        state.players[p["name"]].email = p.get("email")
    elif kind == ev.PLAYER_RETIRED:
        player = state.players[p["name"]]
        player.active = False
        player.retired_seq = seq
        for card in p.get("returned", []):
            _move(state, card, None, seq)
    elif kind == ev.DEALER_ELECTED:
        if state.dealer_terms and state.dealer_terms[-1].end_seq is None:
            state.dealer_terms[-1].end_seq = seq
        state.dealer_terms.append(DealerTermState(p["name"], seq))
        for card in p.get("merged", []):
            _move(state, card, None, seq)
    elif kind == ev.PACK_ADDED:
        if p["number"] != len(state.packs):
            raise ReplayError(f"pack numbered {p['number']}, expected {len(state.packs)}")
        _add_pack(state, p["name"], p["back"], seq)
    elif kind == ev.DICE_COMMITTED:
        state.periods[p["period"]] = PeriodState(p["period"], p["commitment"], seq)
    elif kind == ev.DICE_REVEALED:
        period = state.periods[p["period"]]
        period.revealed_seed = p["seed"]
        period.revealed_seq = seq
    elif kind == ev.CARD_DEALT:
        if state.owner.get(p["card"], "?") is not None:
            raise ReplayError(f"card {p['card']} dealt but it is not in the Deck")
        _move(state, p["card"], p["player"], seq)
        rolls = _rolls(p["rolls"])
        for r in rolls:
            if r.period is not None and r.index is not None:
                per = state.periods[r.period]
                per.rolls_used = max(per.rolls_used, r.index + 1)
        if state.history:
            state.deals.append(DealRecord(seq, p["player"], p["card"], p["reason"], None, rolls,
                                          p.get("nweek")))
            state.notices[seq] = NoticeRecord(seq, p["player"], p["notice"])
    elif kind == ev.DEAL_REFUSED:
        if state.history:
            state.deals.append(DealRecord(seq, p["player"], None, p["reason"], p["refused"], (),
                                          p.get("nweek")))
    elif kind == ev.CARD_TRANSFERRED:
        if state.owner.get(p["card"], "?") != p["from"]:
            raise ReplayError(f"card {p['card']} transferred from {p['from']!r} who lacks it")
        _move(state, p["card"], p["to"], seq)
    elif kind == ev.NOTICE_SENT:
        if state.history:
            state.notices[p["notice"]].sent_seq = seq
    elif kind == ev.CLOCK_STOPPED:
        if not state.clock_running:
            raise ReplayError("the Clock was stopped while already Off")
        state.clock_stops.append(ClockStop(parse_time(p["at"]), seq))
    elif kind == ev.CLOCK_STARTED:
        if state.clock_running:
            raise ReplayError("the Clock was started while already On")
        state.clock_stops[-1].started_at = parse_time(p["at"])
        state.clock_stops[-1].start_seq = seq
    elif kind == ev.VOTES_RECORDED:
        if state.history:
            for v in p["votes"]:
                state.votes.append(VoteRecord(seq, v["player"], v["proposal"],
                                              parse_time(v["at"])))
    elif kind == ev.NWEEK_STARTED:
        if p["nweek"] in state.nweeks:
            raise ReplayError(f"nweek {p['nweek']} started twice")
        state.nweeks[p["nweek"]] = seq
    elif kind == ev.REPORT_PUBLISHED:
        if state.history:
            r = p["rendered"]
            state.reports[p["nweek"]] = ReportRecord(p["nweek"], seq, r["text"], r["markdown"],
                                                     r["json"])
    else:
        raise ReplayError(f"unknown event kind {kind!r}")
    state.seq = seq


def replay(
    events: Iterable[EventRecord], *, upto_seq: int | None = None,
    upto_time: datetime | None = None, history: bool = True,
) -> State:
    """Fold ``events`` (in order) into a fresh :class:`State`, optionally stopping after a
    sequence number or a time."""
    state = State(history=history)
    for e in events:
        if upto_seq is not None and e.seq > upto_seq:
            break
        if upto_time is not None and e.at > upto_time:
            break
        apply(state, e.seq, e.kind, e.payload, e.at)
        state.head_hash = e.hash
    return state
