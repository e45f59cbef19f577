"""Pooker, the card game Spoon played with the Red and Blue packs (rule 399; docs/games.md):
trades notified privately by both sides, Motions to Show Cards, Showdowns judged by the poker
library's Poker Hands of 1 to 5 cards.

Each act is a ``verify_*`` (raise unless the rules allow it), a ``can_*`` (the same as a
yes/no) and a builder of the events it records; the use cases (``trade``, ``motion``, ``vote``,
``showdown_open``, ``show``) run them in one transaction, and the engine's windows
(:func:`windows`) close a Showdown and lapse a notification when their time comes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from nomic_cards.cards import ness_code, spoon_card
from nomic_cards.core import ruleset
from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.cardgames import POOKER
from nomic_cards.core.games import GameModule, Window
from nomic_cards.core.games.points import balance, verify_pay
from nomic_cards.core.ledger import game_events as ge
from nomic_cards.core.ledger.chain import card_commitment, new_nonce
from nomic_cards.core.ledger.events import NoticeGiven, parse_time
from nomic_cards.core.ledger.game_replay import format_end, pooker_data
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.common import (
    CardView,
    card_label,
    iso,
    parse_card_ref,
    require_player,
    state_card,
)
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import check_text

if TYPE_CHECKING:
    from nomic_cards.core.store.reads import Reads
    from nomic_cards.core.store.writes import Tx

NAME = POOKER.name
LABEL = "card game pooker"
#: the rule cited by Pooker's movements of cards and Points
RULE = "card game pooker (rule 399)"
_MAX_MOTION = 200


# --- the rules in force -------------------------------------------------------------------


def params(state: State) -> dict[str, ruleset.ParamValue]:
    """Pooker's parameters in force (implicit ones at their defaults), or RuleViolation."""
    change = state.rule(NAME)
    if change is None or not change.in_force:
        raise RuleViolation("card game pooker is not in force (game enact pooker --packs ...)")
    spec = ruleset.spec(NAME)
    assert spec is not None
    return {p.name: spec.value(change.params, p.name) for p in spec.params}


def scores(values: Mapping[str, ruleset.ParamValue]) -> dict[str, int]:
    """The score table in force: category -> Score."""
    return {key.removeprefix("score-"): int(v) for key, v in values.items()
            if key.startswith("score-")}


def code(card: int) -> int:
    """A card's Ness code (the poker library's numbering; the pack is forgotten)."""
    return ness_code(spoon_card(card)[1])


def pcards_held(state: State, player: str) -> list[int]:
    pcards = state.pcards(NAME)
    return [c for c in state.hand(player) if c in pcards]


def _cards(state: State, texts: Sequence[str], what: str) -> tuple[int, ...]:
    """Cards given as ``Red As`` or numbers (a text may hold several, comma-separated)."""
    out: list[int] = []
    for text in texts:
        for part in text.split(","):
            if part.strip():
                out.append(parse_card_ref(state, part))
    if not out:
        raise InputError(f"{what}: name at least one card")
    if len(set(out)) != len(out):
        raise InputError(f"{what}: a card is named twice")
    return tuple(sorted(out))


def _not_pcards(state: State, cards: Sequence[int], what: str) -> None:
    pcards = state.pcards(NAME)
    for c in cards:
        if c not in pcards:
            raise RuleViolation(f"{what}: {card_label(state, c)} is not a PCard (its pack is "
                                "not bound to card game pooker)")


def _trader(state: State, name: str) -> str:
    player = require_player(state, name)
    if not state.players[player].active:
        raise RuleViolation(f"{player} has retired and cannot trade")
    if player == state.dealer:
        raise RuleViolation(f"{player} is the Dealer, who owns the Deck and is not a trader")
    return player


def _shown(state: State) -> set[int]:
    showdown = pooker_data(state)["showdown"]
    if showdown is None:
        return set()
    return {c for hands in showdown["shown"].values() for h in hands for c in h}


# --- trades -------------------------------------------------------------------------------


def verify_trade(state: State, player: str, other: str, give: tuple[int, ...],
                 get: tuple[int, ...]) -> tuple[str, str]:
    """Raise unless ``player`` may notify this trade; the two registered names. Only the
    notifier's side is checked (whether the other holds ``get`` is never told)."""
    values = params(state)
    player, other = _trader(state, player), _trader(state, other)
    if player == other:
        raise RuleViolation("a trade is between two Players")
    if len(give) != len(get):
        raise RuleViolation(f"both sides of a trade give the same number of cards (--give "
                            f"names {len(give)}, --get {len(get)})")
    _not_pcards(state, give, "--give")
    _not_pcards(state, get, "--get")
    for c in give:
        if state.owner.get(c) != player:
            raise RuleViolation(f"--give: {card_label(state, c)} is not in {player}'s Hand")
    if set(give) & set(get):
        raise RuleViolation("a card cannot be both given and got")
    if _shown(state) & set(give):
        raise RuleViolation("--give: a card shown at the open Showdown stays until it ends")
    verify_pay(state, player, int(values["trade-fee"]), "as the trade fee")
    return player, other


def can_trade(state: State, player: str, other: str, give: tuple[int, ...],
              get: tuple[int, ...]) -> bool:
    try:
        verify_trade(state, player, other, give, get)
    except (RuleViolation, NotFound, InputError):
        return False
    return True


def matching(state: State, seq: int) -> int | None:
    """The pending notification that matches the one recorded by event ``seq`` and can be
    executed now (both sides still hold what they give), if any: the oldest."""
    pending = pooker_data(state)["pending"]
    me = pending.get(str(seq))
    if me is None:
        return None
    for key in sorted(pending, key=int):
        o = pending[key]
        if (o["player"], o["with"], o["give"], o["get"]) == \
                (me["with"], me["player"], me["get"], me["give"]) and \
                all(state.owner.get(c) == o["player"] for c in o["give"]) and \
                all(state.owner.get(c) == me["player"] for c in me["give"]) and \
                not (_shown(state) & set(o["give"])):
            return int(key)
    return None


def traded(state: State, first: int, second: int, *,
           salt: Any = new_nonce) -> ge.Traded:
    """The trade executing notifications ``first`` (its author: side A) and ``second``."""
    pending = pooker_data(state)["pending"]
    one = pending[str(first)]
    a, b = one["player"], one["with"]
    a_gives, b_gives = tuple(one["give"]), tuple(one["get"])
    salts_a = tuple(salt() for _ in b_gives)
    salts_b = tuple(salt() for _ in a_gives)
    return ge.Traded(a, b, len(a_gives), int(params(state)["trade-fee"]), state.dealer,
                     (first, second), a_gives, b_gives,
                     tuple(card_commitment(s, c) for s, c in zip(salts_a, b_gives,
                                                                 strict=True)),
                     tuple(card_commitment(s, c) for s, c in zip(salts_b, a_gives,
                                                                 strict=True)),
                     salts_a, salts_b)


@dataclass(frozen=True)
class TradeResult:
    """A notification recorded (event ``notified``) and, when it matched, the trade
    (``traded``: its event) -- public summary only."""

    notified: int
    player: str
    other: str
    cards: int
    traded: int | None
    expires: str


def trade(tx: Tx, player: str, give: Sequence[str], get: Sequence[str], other: str
          ) -> TradeResult:
    """Record ``player``'s notification of a trade with ``other``; when the other side's
    matching notification is pending, execute the trade at once."""
    state = tx.state
    give_c = _cards(state, give, "--give")
    get_c = _cards(state, get, "--get")
    player, other = verify_trade(state, player, other, give_c, get_c)
    now = tx.clock.now()
    expires = format_end(now + timedelta(days=int(params(state)["trade-expiry-days"])))
    rec = tx.record(ge.TradeNotified(player, other, give_c, get_c, expires))[0]
    found = matching(state, rec.seq)
    done = None
    if found is not None:
        event = traded(state, found, rec.seq)
        verify_pay(state, event.a, event.fee, "as the trade fee")
        verify_pay(state, event.b, event.fee, "as the trade fee")
        done = tx.record(event)[0].seq
        at = iso(now) or ""
        for who, got, gave in ((event.a, event.b_gives, event.a_gives),
                               (event.b, event.a_gives, event.b_gives)):
            tx.record(NoticeGiven(who, rules.notice_text(
                f"you traded {_labels(state, gave)} for {_labels(state, got)}",
                why=f"both notifications matched (events {event.notified[0]} and "
                    f"{event.notified[1]}; {RULE})", at=at, nweek=None)))
    return TradeResult(rec.seq, player, other, len(give_c), done, expires)


def _labels(state: State, cards: Sequence[int]) -> str:
    return ", ".join(card_label(state, c) for c in cards)


# --- Motions and Showdowns ---------------------------------------------------------------


def _threshold(values: Mapping[str, ruleset.ParamValue], yes: int, players: int) -> bool:
    rule = values["motion-threshold"]
    if rule == "unanimity":
        return yes >= players
    if rule == "two-thirds":
        return 3 * yes >= 2 * players
    return 2 * yes > players


def _opened(state: State, tx: Tx, how: str, motion: str, by: str | None
            ) -> ge.ShowdownOpened:
    values = params(state)
    ends = tx.clock.now() + timedelta(days=int(values["show-days"]))
    data = pooker_data(state)
    return ge.ShowdownOpened(data["showdowns"] + 1, how, motion, by, format_end(ends),
                             int(values["trigger-min-shown"]) if how == "ten" else 1)


@dataclass(frozen=True)
class MotionResult:
    number: int
    event: int
    yes: int
    no: int
    players: int
    showdown: int | None  # the Showdown it opened, when it passed


def motion(tx: Tx, player: str) -> MotionResult:
    """A Motion to Show Cards by ``player`` (a Player with a Hand, none pending)."""
    state = tx.state
    params(state)
    name = require_player(state, player)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise RuleViolation(f"Showdown {data['showdown']['number']} is open")
    if data["motion"] is not None:
        raise RuleViolation(f"Motion {data['motion']['number']} is pending")
    if name == state.dealer or not pcards_held(state, name):
        raise RuleViolation(f"{name} has no PCards in eir Hand: only a Player with a Hand "
                            "may make a Motion to Show Cards")
    rec = tx.record(ge.MotionMade(data["motions"] + 1, name))[0]
    return _motion_result(tx, rec.seq)


def _motion_voters(state: State) -> int:
    """How many Players a Motion to Show Cards' majority is counted of (the active ones)."""
    return sum(1 for p in state.players.values() if p.active)


def _motion_result(tx: Tx, seq: int) -> MotionResult:
    state = tx.state
    data = pooker_data(state)
    players = _motion_voters(state)
    m = data["motion"]
    assert m is not None
    yes, no = len(m["yes"]), len(m["no"])
    if _threshold(params(state), yes, players):
        opened = _opened(state, tx, "motion", f"Motion {m['number']}", None)
        tx.record(opened)
        return MotionResult(m["number"], seq, yes, no, players, opened.number)
    return MotionResult(m["number"], seq, yes, no, players, None)


def vote(tx: Tx, player: str, yes: bool) -> MotionResult:
    """``player``'s vote on the pending Motion; when it passes, the Showdown opens."""
    state = tx.state
    params(state)
    name = require_player(state, player)
    if not state.players[name].active:
        raise RuleViolation(f"{name} has retired and cannot vote")
    m = pooker_data(state)["motion"]
    if m is None:
        raise RuleViolation("no Motion to Show Cards is pending")
    rec = tx.record(ge.MotionVoted(m["number"], name, yes))[0]
    return _motion_result(tx, rec.seq)


@dataclass(frozen=True)
class OpenResult:
    number: int
    event: int
    how: str
    ends: str
    min_shown: int


def verify_open(state: State, ten: str | None) -> str | None:
    """Raise unless a Showdown may open now (at ten PCards: ``ten``'s name)."""
    values = params(state)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise RuleViolation(f"Showdown {data['showdown']['number']} is open until "
                            f"{data['showdown']['ends']}")
    if ten is None:
        return None
    name = require_player(state, ten)
    if name == state.dealer:
        raise RuleViolation("the Dealer may never show eir cards, so cannot declare a Showdown")
    held = len(pcards_held(state, name))
    need = int(values["trigger-pcards"])
    if held < need:
        raise RuleViolation(f"{name} holds {held} PCard(s); a Showdown without a Motion needs "
                            f"{need} or more")
    return name


def showdown_open(tx: Tx, *, motion_passed: str | None = None,
                  ten: str | None = None) -> OpenResult:
    """Open a Showdown: a Motion to Show Cards passed (as the nomic recorded it), or a Player
    holding ten or more PCards declares one."""
    if (motion_passed is None) == (ten is None):
        raise InputError("give exactly one of --motion-passed TEXT and --ten PLAYER")
    text = check_text(motion_passed, "--motion-passed", _MAX_MOTION).strip() \
        if motion_passed is not None else ""
    if motion_passed is not None and not text:
        raise InputError("--motion-passed: name the Motion that passed")
    state = tx.state
    by = verify_open(state, ten)
    event = _opened(state, tx, "ten" if by else "motion", text, by)
    rec = tx.record(event)[0]
    return OpenResult(event.number, rec.seq, event.how, event.ends, event.min_shown)


def verify_show(state: State, player: str, hands: Sequence[tuple[int, ...]]) -> str:
    values = params(state)
    data = pooker_data(state)
    showdown = data["showdown"]
    if showdown is None:
        raise RuleViolation("no Showdown is open")
    name = require_player(state, player)
    if name == state.dealer and values["dealer-may-show"] != "yes":
        raise RuleViolation("the Dealer may never show eir cards")
    if name in showdown["shown"]:
        raise RuleViolation(f"{name} has shown already at Showdown {showdown['number']}")
    cards = [c for h in hands for c in h]
    if len(set(cards)) != len(cards):
        raise InputError("a card is shown twice")
    for h in hands:
        if not 1 <= len(h) <= 5:
            raise InputError(f"a Poker Hand is 1 to 5 PCards, not {len(h)}")
    _not_pcards(state, cards, "--hand")
    for c in cards:
        if state.owner.get(c) != name:
            raise RuleViolation(f"--hand: {card_label(state, c)} is not in {name}'s Hand")
    if showdown["how"] == "ten" and name == showdown["by"] and len(cards) < showdown["min"]:
        raise RuleViolation(f"{name} declared the Showdown and must show at least "
                            f"{showdown['min']} PCards")
    return name


@dataclass(frozen=True)
class ShowResult:
    event: int
    showdown: int
    player: str
    hands: tuple[tuple[str, ...], ...]
    score: int


def show(tx: Tx, player: str, hands: Sequence[str]) -> ShowResult:
    """``player`` shows PCards arranged into Poker Hands (each ``--hand``: 1 to 5 cards,
    comma-separated), published with the opening of each card's commitment."""
    if not hands:
        raise InputError("--hand: show at least one Poker Hand")
    state = tx.state
    arranged = [_cards(state, [h], "--hand") for h in hands]
    name = verify_show(state, player, arranged)
    openings = tuple(_opening(tx, state, c, name) for h in arranged for c in h)
    number = pooker_data(state)["showdown"]["number"]
    rec = tx.record(ge.Shown(number, name, tuple(arranged), openings))[0]
    total = score_of(params(state), arranged)
    return ShowResult(rec.seq, number, name,
                      tuple(tuple(card_label(state, c) for c in h) for h in arranged), total)


def _opening(tx: Tx, state: State, card: int, player: str) -> ge.CardOpening:
    """The opening of the commitment of the event that put ``card`` in ``player``'s Hand."""
    seq = state.owner_seq[card]
    rec = tx.event_at(seq)
    salt = ""
    if rec is not None:
        e = rec.event
        if isinstance(e, ge.Traded):
            got = e.b_gives if player == e.a else e.a_gives
            salts = e.salts_a if player == e.a else e.salts_b
            salt = salts[got.index(card)] if card in got else ""
        else:
            salt = str(getattr(e, "salt", "") or "")
    return ge.CardOpening(card, seq, salt)


def score_of(values: Mapping[str, ruleset.ParamValue],
             hands: Sequence[Sequence[int]]) -> int:
    from nomic_cards.poker.pookerhands import hand_score

    table = scores(values)
    return sum(int(hand_score([code(c) for c in h], table)) for h in hands)


def closed(state: State) -> ge.ShowdownClosed:
    """The end of the open Showdown: Scores, winners, the prize from the Bank (split on a tie,
    each winner getting the prize divided by their number, rounded down; the remainder stays
    in the Bank), the shown cards returned to the Deck."""
    values = params(state)
    showdown = pooker_data(state)["showdown"]
    shown: dict[str, list[list[int]]] = showdown["shown"]
    results = tuple(ge.PlayerScore(p, score_of(values, hands))
                    for p, hands in sorted(shown.items()))
    best = max((r.score for r in results), default=0)
    winners = tuple(r.player for r in results if r.score == best) if best > 0 else ()
    share = best // len(winners) if winners else 0
    paid = tuple(ge.Payment(w, share) for w in winners if share)
    returned = tuple(sorted(c for hands in shown.values() for h in hands for c in h))
    return ge.ShowdownClosed(showdown["number"], results, winners, best if winners else 0,
                             paid, returned)


def _close(tx: Tx) -> None:
    tx.record(closed(tx.state))


def _lapse(seq: int, player: str) -> Any:
    def close(tx: Tx) -> None:
        tx.record(ge.TradeLapsed(seq, player))
    return close


def windows(state: State) -> list[Window]:
    """A Showdown's end, and each pending notification's expiry."""
    data = pooker_data(state)
    out: list[Window] = []
    if data["showdown"] is not None:
        out.append(Window(NAME, parse_time(data["showdown"]["ends"]),
                          f"Showdown {data['showdown']['number']} ends", _close))
    for key, note in data["pending"].items():
        out.append(Window(NAME, parse_time(note["expires"]), f"notification {key} lapses",
                          _lapse(int(key), note["player"])))
    return out


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
    params: dict[str, ruleset.ParamValue]
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
    out = []
    for key, n in sorted(pooker_data(state)["pending"].items(), key=lambda kv: int(kv[0])):
        if reveal or (who is not None and (n["player"] == who or named and n["with"] == who)):
            out.append(PendingView(int(key), n["player"], n["with"],
                                   tuple(card_label(state, c) for c in n["give"]),
                                   tuple(card_label(state, c) for c in n["get"]),
                                   n["expires"]))
    return out


@dataclass(frozen=True)
class PokerHandView:
    """One Poker Hand of an arrangement: its cards, its category and its Score."""

    cards: tuple[CardView, ...]
    category: str
    score: int


@dataclass(frozen=True)
class MotionView:
    """The Motion to Show Cards pending: its votes so far, of how many Players, and the
    viewer's own vote (``yes``, ``no`` or None)."""

    number: int
    by: str
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
    ``best_arrangement``, as ``poker arrange``), eir Points, eir own notifications waiting
    (``waiting``), those naming em as the other side (``offers``), the pending Motion, the open
    Showdown and the last one's result. The Dealer also sees every notification waiting
    (``all_waiting``; empty for everyone else)."""

    player: str
    dealer: bool
    pcards: tuple[CardView, ...]
    score: int
    hands: tuple[PokerHandView, ...]
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
    from nomic_cards.poker.pookerhands import best_arrangement, category

    state = reads.state
    values = params(state)
    name = require_player(state, player)
    data = pooker_data(state)
    table = scores(values)
    held = pcards_held(state, name)
    codes = [code(c) for c in held]
    best = best_arrangement(codes, table)
    hands = []
    for idx in best.hands:
        cat = category([codes[i] for i in idx])
        hands.append(PokerHandView(tuple(state_card(state, held[i]) for i in idx), cat, table[cat]))
    dealer = name == state.dealer
    pending = pending_seen(state, name)
    m = data["motion"]
    motion_view = None
    if m is not None:
        mine = "yes" if name in m["yes"] else "no" if name in m["no"] else None
        motion_view = MotionView(m["number"], m["by"], len(m["yes"]), len(m["no"]),
                                 _motion_voters(state), str(values["motion-threshold"]), mine)
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
        name, dealer, tuple(state_card(state, c) for c in held), int(best.score), tuple(hands),
        table, balance(state, name), int(values["trade-fee"]), traders,
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
    from nomic_cards.poker.pookerhands import advice, best_arrangement

    state = tx.state
    values = params(state)
    name = require_player(state, player)
    held = pcards_held(state, name)
    seen = set(held) | _shown(state)
    unseen = [code(c) for c in sorted(state.pcards(NAME) - seen)]
    table = scores(values)
    codes = [code(c) for c in held]
    best = best_arrangement(codes, table)
    dist = advice(codes, unseen, table) if unseen else {}
    return AdviceView(name, tuple(card_label(state, c) for c in held), int(best.score),
                      tuple(tuple(card_label(state, held[i]) for i in h)
                            for h in best.hands),
                      len(unseen), tuple(sorted(dist.items())))


# --- the actions, declared once for the CLI and the server ---------------------------------


def _list(body: Mapping[str, object], key: str) -> list[str]:
    value = body.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    raise InputError(f"{key}: expected a list of cards")


def _run_trade(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = trade(tx, actor, _list(body, "give"), _list(body, "get"), str(body["with"]))
    seqs = (r.notified,) if r.traded is None else (r.notified, r.traded)
    return ActionOutcome(seqs, waiting=r.traded is None,
                         summary=f"{r.player} notified a trade of {r.cards} PCard(s) with "
                                 f"{r.other}" + ("; traded" if r.traded else "; waiting"))


def _run_show(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    raw = body.get("hands")
    if not isinstance(raw, list | tuple) or not raw:
        raise InputError("hands: expected a list of Poker Hands, each a list of cards")
    hands = [",".join(str(c) for c in h) if isinstance(h, list | tuple) else str(h)
             for h in raw]
    r = show(tx, actor, hands)
    return ActionOutcome((r.event,), summary=f"{r.player} showed {len(r.hands)} Poker "
                                             f"Hand(s) at Showdown {r.showdown}")


def _run_motion(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = motion(tx, actor)
    return ActionOutcome((r.event,), summary=f"Motion {r.number} to Show Cards by {actor}")


def _run_vote(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    yes = str(body.get("vote", "")).lower()
    if yes not in ("yes", "no", "for", "against"):
        raise InputError("vote: yes or no")
    r = vote(tx, actor, yes in ("yes", "for"))
    opened = f"; Showdown {r.showdown} opened" if r.showdown else ""
    return ActionOutcome((r.event,), summary=f"{actor} voted on Motion {r.number}{opened}")


def _run_open(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    motion_text = body.get("motion_passed")
    ten = body.get("ten")
    r = showdown_open(tx, motion_passed=str(motion_text) if motion_text else None,
                      ten=str(ten) if ten else None)
    return ActionOutcome((r.event,), summary=f"Showdown {r.number} open until {r.ends}")


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("pooker.trade", "player",
               "Notify the Dealer of a trade: the PCards you give and those you expect; it is "
               "executed when the other side's notification matches (a fee to the Dealer from "
               "each side).",
               (ActionField("with", "player", "the other side of the trade"),
                ActionField("give", "cards", "the PCards of your Hand you give"),
                ActionField("get", "cards", "the PCards you expect in return")),
               _run_trade, private=True,
               example={"with": "Bob", "give": ["Red As"], "get": ["Blue Kd"]}),
    ActionSpec("pooker.show", "player",
               "Show PCards at the open Showdown, arranged into Poker Hands of 1 to 5 cards.",
               (ActionField("hands", "card-lists", "the Poker Hands shown"),),
               _run_show, example={"hands": [["Red As", "Red Ks"], ["Blue 2c"]]}),
    ActionSpec("pooker.motion", "player",
               "Make a Motion to Show Cards (a Player with PCards; none pending).", (),
               _run_motion),
    ActionSpec("pooker.vote", "player",
               "Vote on the pending Motion to Show Cards: yes or no.",
               (ActionField("vote", "text", "yes or no"),), _run_vote,
               example={"vote": "yes"}),
    ActionSpec("pooker.showdown_open", "dealer",
               "Open a Showdown: a Motion the nomic passed, or a Player holding ten PCards.",
               (ActionField("motion_passed", "text", "the Motion that passed", required=False),
                ActionField("ten", "player", "the Player holding ten or more PCards",
                            required=False)),
               _run_open, example={"ten": "Alice"}),
)


MODULE = GameModule(POOKER, ACTIONS, windows, view=player_view, view_type=PlayerPooker)
