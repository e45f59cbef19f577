"""The replay steps of the card games layer's events (:mod:`.game_events`): Points and Pooker.

Each step checks what the rules demand of its event against the state it follows (so that a
forged or hand-edited event fails ``ledger verify``) and changes the state only through
:meth:`State.move` and :meth:`State.put_game`. The live data is JSON-ready: ``points`` is
``{"players": {name: balance}, "bank": points the Bank has paid out, net}``; ``pooker`` is
``{"pending": {seq: notification}, "showdown": ... or None, "showdowns": n, "motion": ...,
"motions": n}`` (docs/games.md, "State").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from nomic_cards.cards import ness_code, spoon_card
from nomic_cards.core.ledger import game_events as ge
from nomic_cards.core.ledger.chain import card_commitment
from nomic_cards.core.ledger.replay import step
from nomic_cards.core.ledger.state import ReplayError, State
from nomic_cards.core.ruleset import spec as rule_spec
from nomic_cards.poker.pookerhands import hand_score

POINTS, POOKER = "points", "pooker"


def points_data(state: State) -> dict[str, Any]:
    data = state.game_data(POINTS)
    return data if data is not None else {"players": {}, "bank": 0}


def pooker_data(state: State) -> dict[str, Any]:
    data = state.game_data(POOKER)
    return data if data is not None else {"pending": {}, "showdown": None, "showdowns": 0,
                                          "motion": None, "motions": 0}


def overdraft_allowed(state: State) -> bool:
    """Whether a rule in force lets a balance go below zero (Pooker's ``points-below-zero``)."""
    rule = state.rule(POOKER)
    return rule is not None and rule.in_force and rule.params.get("points-below-zero") == "yes"


def pay(state: State, data: dict[str, Any], source: str | None, target: str | None,
        points: int) -> None:
    """Move ``points`` in ``data`` (None: the Bank, which may go below zero)."""
    players: dict[str, int] = data["players"]
    if source is None:
        data["bank"] += points
    else:
        state.player(source)
        left = players.get(source, 0) - points
        if left < 0 and not overdraft_allowed(state):
            raise ReplayError(f"{source} paid {points} Point(s) holding "
                              f"{players.get(source, 0)}: no balance goes below zero")
        players[source] = left
    if target is None:
        data["bank"] -= points
    else:
        state.player(target)
        players[target] = players.get(target, 0) + points


@step(ge.PointsMoved)
def _points_moved(state: State, e: ge.PointsMoved, seq: int, at: datetime) -> None:
    if e.points < 1 or not e.rule.strip():
        raise ReplayError("a movement of points moves 1 or more and cites a rule")
    if e.from_ == e.to:
        raise ReplayError("points moved from an account to itself")
    data = points_data(state)
    pay(state, data, e.from_, e.to, e.points)
    state.put_game(POINTS, data, seq)


def _in_force(state: State) -> dict[str, Any]:
    rule = state.rule(POOKER)
    if rule is None or not rule.in_force:
        raise ReplayError("a Pooker event while card game pooker is not in force")
    return dict(rule.params)


def _holds(state: State, player: str, cards: tuple[int, ...], pcards: set[int]) -> None:
    for card in cards:
        if card not in pcards:
            raise ReplayError(f"card {card} is not a PCard")
        if state.owner.get(card) != player:
            raise ReplayError(f"{player} does not hold card {card}")


@step(ge.TradeNotified)
def _notified(state: State, e: ge.TradeNotified, seq: int, at: datetime) -> None:
    _in_force(state)
    state.player(e.player)
    state.player(e.partner)
    if len(e.give) != len(e.get) or not e.give:
        raise ReplayError("a trade gives and gets the same number of cards, at least one")
    data = pooker_data(state)
    data["pending"][str(seq)] = {"player": e.player, "with": e.partner, "give": list(e.give),
                                 "get": list(e.get), "expires": e.expires}
    state.put_game(POOKER, data, seq)


@step(ge.Traded)
def _traded(state: State, e: ge.Traded, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    pending = data["pending"]
    if len(e.notified) != 2 or any(str(n) not in pending for n in e.notified):
        raise ReplayError("a trade executes two pending notifications")
    one, two = (pending[str(n)] for n in e.notified)
    if (one["player"], one["with"], one["give"], one["get"]) != \
            (e.a, e.b, list(e.a_gives), list(e.b_gives)) or \
            (two["player"], two["with"], two["give"], two["get"]) != \
            (e.b, e.a, list(e.b_gives), list(e.a_gives)):
        raise ReplayError("the trade is not what both notifications describe")
    if len(e.a_gives) != len(e.b_gives) or e.cards != len(e.a_gives):
        raise ReplayError("both sides of a trade give the same number of cards")
    if e.fee != int(params.get("trade-fee", 1)) or e.dealer != state.dealer:
        raise ReplayError("a trade pays the fee in force to the Dealer")
    pcards = state.pcards(POOKER)
    _holds(state, e.a, e.a_gives, pcards)
    _holds(state, e.b, e.b_gives, pcards)
    shown = _shown_cards(data)
    if shown & (set(e.a_gives) | set(e.b_gives)):
        raise ReplayError("a card shown at the open Showdown was traded")
    for cards, commits, salts in ((e.b_gives, e.to_a, e.salts_a), (e.a_gives, e.to_b,
                                                                    e.salts_b)):
        if len(commits) != len(cards) or len(salts) != len(cards) or any(
                card_commitment(s, c) != k for c, k, s in zip(cards, commits, salts,
                                                                strict=True)):
            raise ReplayError("a traded card's commitment does not open to it")
    state.move(e.a_gives, e.b, seq)
    state.move(e.b_gives, e.a, seq)
    for n in e.notified:
        del pending[str(n)]
    state.put_game(POOKER, data, seq)
    if e.fee:
        points = points_data(state)
        pay(state, points, e.a, e.dealer, e.fee)
        pay(state, points, e.b, e.dealer, e.fee)
        state.put_game(POINTS, points, seq)


@step(ge.TradeLapsed)
def _lapsed(state: State, e: ge.TradeLapsed, seq: int, at: datetime) -> None:
    data = pooker_data(state)
    note = data["pending"].pop(str(e.notified), None)
    if note is None or note["player"] != e.player:
        raise ReplayError(f"no pending notification of {e.player} recorded by event "
                          f"{e.notified}")
    state.put_game(POOKER, data, seq)


@step(ge.MotionMade)
def _motion(state: State, e: ge.MotionMade, seq: int, at: datetime) -> None:
    _in_force(state)
    data = pooker_data(state)
    if data["motion"] is not None or data["showdown"] is not None:
        raise ReplayError("a Motion to Show Cards while one is pending or a Showdown is open")
    if e.number != data["motions"] + 1:
        raise ReplayError(f"Motion numbered {e.number}, expected {data['motions'] + 1}")
    state.player(e.player)
    data["motions"] = e.number
    data["motion"] = {"number": e.number, "by": e.player, "yes": [], "no": []}
    state.put_game(POOKER, data, seq)


@step(ge.MotionVoted)
def _voted(state: State, e: ge.MotionVoted, seq: int, at: datetime) -> None:
    data = pooker_data(state)
    motion = data["motion"]
    if motion is None or motion["number"] != e.number:
        raise ReplayError(f"a vote on Motion {e.number}, which is not pending")
    state.player(e.player)
    for side in ("yes", "no"):
        if e.player in motion[side]:
            motion[side].remove(e.player)
    motion["yes" if e.vote else "no"].append(e.player)
    state.put_game(POOKER, data, seq)


@step(ge.ShowdownOpened)
def _opened(state: State, e: ge.ShowdownOpened, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise ReplayError("a Showdown opened while one is open")
    if e.number != data["showdowns"] + 1:
        raise ReplayError(f"Showdown numbered {e.number}, expected {data['showdowns'] + 1}")
    if e.how == "ten":
        if e.by is None:
            raise ReplayError("a Showdown at ten PCards names its Player")
        held = len(state.pcards(POOKER) & set(state.hand(e.by)))
        if held < int(params.get("trigger-pcards", 10)):
            raise ReplayError(f"{e.by} declared a Showdown holding {held} PCard(s)")
        if e.min_shown != int(params.get("trigger-min-shown", 2)):
            raise ReplayError("the minimum shown is not the one in force")
    elif e.how != "motion":
        raise ReplayError(f"a Showdown opened by {e.how!r}")
    data["showdowns"] = e.number
    data["motion"] = None
    data["showdown"] = {"number": e.number, "how": e.how, "motion": e.motion, "by": e.by,
                        "ends": e.ends, "min": e.min_shown, "opened": seq, "shown": {}}
    state.put_game(POOKER, data, seq)


def _shown_cards(data: dict[str, Any]) -> set[int]:
    showdown = data["showdown"]
    if showdown is None:
        return set()
    return {c for hands in showdown["shown"].values() for hand in hands for c in hand}


@step(ge.Shown)
def _shown(state: State, e: ge.Shown, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    showdown = data["showdown"]
    if showdown is None or showdown["number"] != e.showdown:
        raise ReplayError(f"cards shown at Showdown {e.showdown}, which is not open")
    if e.player == state.dealer and params.get("dealer-may-show", "no") != "yes":
        raise ReplayError("the Dealer may never show eir cards")
    if e.player in showdown["shown"]:
        raise ReplayError(f"{e.player} showed twice at one Showdown")
    cards = tuple(c for hand in e.hands for c in hand)
    if len(set(cards)) != len(cards) or any(not 1 <= len(h) <= 5 for h in e.hands):
        raise ReplayError("Poker Hands are 1 to 5 distinct PCards")
    _holds(state, e.player, cards, state.pcards(POOKER))
    if showdown["how"] == "ten" and e.player == showdown["by"] and len(cards) < showdown["min"]:
        raise ReplayError(f"{e.player} showed fewer than {showdown['min']} PCards")
    if sorted(o.card for o in e.openings) != sorted(cards):
        raise ReplayError("every shown card comes with its opening")
    showdown["shown"][e.player] = [list(h) for h in e.hands]
    state.put_game(POOKER, data, seq)


@step(ge.ShowdownClosed)
def _closed(state: State, e: ge.ShowdownClosed, seq: int, at: datetime) -> None:
    _in_force(state)
    data = pooker_data(state)
    showdown = data["showdown"]
    if showdown is None or showdown["number"] != e.number:
        raise ReplayError(f"Showdown {e.number} closed, but it is not open")
    if format_end(at) < showdown["ends"]:
        raise ReplayError(f"Showdown {e.number} closed before its window ended")
    shown = showdown["shown"]
    if sorted(e.returned) != sorted(_shown_cards(data)):
        raise ReplayError("the cards returned to the Deck are not the cards shown")
    if sorted(s.player for s in e.scores) != sorted(shown):
        raise ReplayError("the Scores are not those of the Players who showed")
    spec, params = rule_spec(POOKER), _in_force(state)
    table = {} if spec is None else {  # the score table in force
        p.name.removeprefix("score-"): int(spec.value(params, p.name))
        for p in spec.params if p.name.startswith("score-")}
    for s in e.scores:
        if s.score != sum(hand_score([ness_code(spoon_card(c)[1]) for c in hand], table)
                          for hand in shown[s.player]):
            raise ReplayError(f"{s.player}'s Score {s.score} is not that of the Poker Hands "
                              "shown under the score table in force")
    best = max((s.score for s in e.scores), default=0)
    winners = sorted(s.player for s in e.scores if s.score == best) if best > 0 else []
    if sorted(e.winners) != winners or e.prize != (best if winners else 0):
        raise ReplayError("the winners or the prize do not follow from the Scores")
    if sum(p.points for p in e.paid) > e.prize or {p.player for p in e.paid} - set(winners):
        raise ReplayError("the prize was paid to others than the winners, or more than it")
    state.move(e.returned, None, seq)
    data["showdown"] = None
    state.put_game(POOKER, data, seq)
    if e.paid:
        points = points_data(state)
        for p in e.paid:
            if p.points > 0:
                pay(state, points, None, p.player, p.points)
        state.put_game(POINTS, points, seq)


def format_end(at: datetime) -> str:
    """A window's end as events write it: ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")
