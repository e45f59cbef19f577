"""What a player, the Dealer and the public see of Pooker: the status, the one projection of
the trade notifications waiting (:func:`pending_seen`), a player's view of the game (``GET
/api/v1/me/games``, the page's panel) and advice on eir next card."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker.events import NAME, pooker_data
from nomic_cards.cardgames.pooker.rules import (
    params,
    pcards_held,
    shown_at_showdown,
)
from nomic_cards.cardgames.sdk import (
    CardView,
    ParamValue,
    Reads,
    State,
    balance,
    card_label,
    format_end,
    require_player,
    state_card,
)

# --- what a player can see, and advice -----------------------------------------------------


@dataclass(frozen=True)
class PendingView:
    event: int
    player: str
    other: str
    give: tuple[str, ...]
    get: tuple[str, ...]
    expires: str


@dataclass(frozen=True)
class ShowdownView:
    number: int
    how: str
    motion: str
    by: str | None
    ends: str
    min_shown: int
    shown: dict[str, list[list[str]]]
    #: showing has ended by the clock, but no write has closed it yet (the next tick will)
    ended: bool = False


@dataclass(frozen=True)
class StatusView:
    in_force: bool
    params: dict[str, ParamValue]
    showdown: ShowdownView | None
    motion: dict[str, Any] | None
    showdowns: int
    last: dict[str, Any] | None
    #: pending notifications: only with ``reveal`` (the Dealer) or the author's own
    pending: list[PendingView]


def status(tx: Reads, *, reveal: bool = False, player: str | None = None) -> StatusView:
    """Pooker's public state: the open Showdown and what was shown, the pending Motion, the
    last Showdown's result. Pending notifications only for the Dealer (``reveal``) or their
    author (``player``)."""
    state = tx.state
    change = state.rule(NAME)
    if change is None or not change.in_force:
        return StatusView(False, {}, None, None, 0, None, [])
    values = params(state)
    data = pooker_data(state)
    sd = data["showdown"]
    view = None if sd is None else ShowdownView(
        sd["number"], sd["how"], sd["motion"], sd["by"], sd["ends"], sd["min"],
        {p: [[card_label(state, c) for c in h] for h in hands]
         for p, hands in sorted(sd["shown"].items())},
        format_end(tx.clock.now()) >= sd["ends"])
    who = require_player(state, player) if player is not None else None
    pending = pending_seen(state, who, reveal=reveal, named=False)
    last = None
    recent = tx.recent_events(kinds=("pooker.closed",), limit=1)
    if recent:
        e = recent[0].event
        assert isinstance(e, ge.ShowdownClosed)
        last = {"number": e.number, "event": recent[0].seq,
                "scores": {s.player: s.score for s in e.scores},
                "winners": list(e.winners), "prize": e.prize,
                "paid": {p.player: p.points for p in e.paid}}
    return StatusView(True, values, view, data["motion"], data["showdowns"], last, pending)


def pending_seen(state: State, who: str | None, *, reveal: bool = False,
                 named: bool = True) -> list[PendingView]:
    """The one projection of the trade notifications waiting: every one for the Dealer
    (``reveal``); else those ``who`` made and, with ``named``, those naming em as the other
    side (the offers made to em: the record has the players agree privately, then each notify
    the Dealer). Nobody else ever sees one. Oldest first."""
    if reveal:
        seen = ge.pending(state)
    elif who is None:
        seen = {}
    else:  # eir own part and the authors' of those naming em: never the others'
        seen = ge.notes_of(state, who)
        for key, author in (ge.naming(state, who).items() if named else ()):
            note = ge.note_of(state, int(key), author)
            if note is not None:
                seen[key] = note
    return [PendingView(int(key), n["player"], n["with"],
                        tuple(card_label(state, c) for c in n["give"]),
                        tuple(card_label(state, c) for c in n["get"]), n["expires"])
            for key, n in sorted(seen.items(), key=lambda kv: int(kv[0]))]


@dataclass(frozen=True)
class PokerHandView:
    """One Poker Hand of an arrangement: its cards, its category and its Score."""

    cards: tuple[CardView, ...]
    category: str
    score: int


@dataclass(frozen=True)
class MotionView:
    """The Motion to Show Cards pending: when its voting ends (None for a Motion of Pooker's
    first version, which had no end), its votes so far, of how many Players, and the viewer's
    own vote (``yes``, ``no`` or None)."""

    number: int
    by: str
    ends: str | None
    yes: int
    no: int
    players: int
    threshold: str
    voted: str | None


@dataclass(frozen=True)
class OpenShowdownView:
    """The Showdown open: when showing ends, how it opened, the minimum the viewer must show
    (0 but for the Player who declared it at ten PCards), what each Player showed (public) and
    whether the viewer has shown."""

    number: int
    how: str
    motion: str
    by: str | None
    ends: str
    ended: bool
    must_show: int
    shown: dict[str, list[list[str]]]
    mine: list[list[str]] | None


@dataclass(frozen=True)
class LastShowdownView:
    """The last Showdown closed: each shower's Score, the winners and what each was paid."""

    number: int
    event: int
    scores: dict[str, int]
    winners: tuple[str, ...]
    prize: int
    paid: dict[str, int]


@dataclass(frozen=True)
class PlayerPooker:
    """What one Player sees of Pooker (``GET /api/v1/me/games``): eir PCards, eir best
    arrangement and Score under the table in force (the poker library's
    ``best_arrangement``, as ``poker arrange``; ``exact`` False: the best found so far, while
    the exact one is computed for a later read), eir Points, eir own notifications waiting
    (``waiting``), those naming em as the other side (``offers``), the pending Motion, the open
    Showdown and the last one's result. The Dealer also sees every notification waiting
    (``all_waiting``; empty for everyone else)."""

    player: str
    dealer: bool
    pcards: tuple[CardView, ...]
    score: int
    hands: tuple[PokerHandView, ...]
    exact: bool
    scores: dict[str, int]
    points: int
    trade_fee: int
    traders: tuple[str, ...]
    waiting: tuple[PendingView, ...]
    offers: tuple[PendingView, ...]
    all_waiting: tuple[PendingView, ...]
    motion: MotionView | None
    showdown: OpenShowdownView | None
    last: LastShowdownView | None


def player_view(reads: Reads, player: str) -> PlayerPooker:
    """``player``'s view of Pooker, from the live state (``game_data``, ``ownership``) and the
    public record alone: never the events' private parts."""
    from nomic_cards.cardgames.pooker.scoring import arranged_for, code, scores
    from nomic_cards.poker.pookerhands import category

    state = reads.state
    values = params(state)
    name = require_player(state, player)
    data = pooker_data(state)
    table = scores(values)
    held = pcards_held(state, name)
    best = arranged_for(name, held, table)  # kept per content of the Hand; under a budget
    hands = []
    for hand in best.hands:
        cat = category([code(c) for c in hand])
        hands.append(PokerHandView(tuple(state_card(state, c) for c in hand), cat, table[cat]))
    dealer = name == state.dealer
    pending = pending_seen(state, name)
    m = data["motion"]
    motion_view = None
    if m is not None:
        mine = "yes" if name in m["yes"] else "no" if name in m["no"] else None
        yes, no, players = ge.motion_count(state, m)
        motion_view = MotionView(m["number"], m["by"], m.get("ends") or None, yes, no, players,
                                 str(values["motion-threshold"]), mine)
    sd = data["showdown"]
    showdown_view = None
    if sd is not None:
        shown = {p: [[card_label(state, c) for c in h] for h in hands_]
                 for p, hands_ in sorted(sd["shown"].items())}
        must = sd["min"] if sd["how"] == "ten" and sd["by"] == name else 0
        showdown_view = OpenShowdownView(sd["number"], sd["how"], sd["motion"], sd["by"],
                                         sd["ends"], format_end(reads.clock.now()) >= sd["ends"],
                                         must, shown, shown.get(name))
    last = None
    row = reads.last_public("pooker.closed")
    if row is not None:
        e = json.loads(row.payload)
        last = LastShowdownView(int(e["number"]), row.seq,
                                {s["player"]: int(s["score"]) for s in e["scores"]},
                                tuple(e["winners"]), int(e["prize"]),
                                {p["player"]: int(p["points"]) for p in e["paid"]})
    traders = () if dealer else tuple(  # the Dealer is not a trader
        p.name for p in state.players.values() if p.active and p.name not in (name, state.dealer))
    return PlayerPooker(
        name, dealer, tuple(state_card(state, c) for c in held), best.score, tuple(hands),
        best.exact, table, balance(state, name), int(values["trade-fee"]), traders,
        tuple(n for n in pending if n.player == name),
        tuple(n for n in pending if n.other == name),
        tuple(pending_seen(state, None, reveal=True)) if dealer else (),
        motion_view, showdown_view, last)


@dataclass(frozen=True)
class AdviceView:
    player: str
    cards: tuple[str, ...]
    score: int
    hands: tuple[tuple[str, ...], ...]
    unseen: int
    #: the distribution of the best Score after one more card: (Score, probability)
    next_card: tuple[tuple[int, Fraction], ...]


def advise(tx: Reads, player: str) -> AdviceView:
    """``player``'s best arrangement of eir PCards now, and the exact distribution of eir best
    Score after the next card dealt, every card e has not seen equally likely (eir own cards
    and the cards shown at the open Showdown are seen)."""
    from nomic_cards.cardgames.pooker.scoring import best_hands, code, scores
    from nomic_cards.poker.pookerhands import advice

    state = tx.state
    values = params(state)
    name = require_player(state, player)
    held = pcards_held(state, name)
    seen = set(held) | shown_at_showdown(state)
    unseen = [code(c) for c in sorted(state.pcards(NAME) - seen)]
    table = scores(values)
    codes = [code(c) for c in held]
    best = best_hands(held, table)
    dist = advice(codes, unseen, table) if unseen else {}
    return AdviceView(name, tuple(card_label(state, c) for c in held), best.score,
                      tuple(tuple(card_label(state, c) for c in h) for h in best.hands),
                      len(unseen), tuple(sorted(dist.items())))


