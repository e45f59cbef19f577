"""Pooker's kinds of event and their replay steps: trade notifications, trades, lapses, Motions
to Show Cards and votes, Showdowns opened, cards shown and Showdowns closed.

What a player may not see is private as for the Cards rules' events: the cards of a trade
notification and of a trade; a card a Hand received in a trade also gets its own public
commitment (docs/ledger.md, "Per-card commitments"). Each step checks what the rules demand of
its event against the state it follows, so that a forged or hand-edited event fails ``ledger
verify``; the live data is ``{"pending": {seq: notification}, "showdown": ... or None,
"showdowns": n, "motion": ..., "motions": n}`` (docs/games.md, "State").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nomic_cards.cardgames.sdk import (
    HIDDEN,
    Event,
    PointsMove,
    ReplayError,
    State,
    card_commitment,
    cards_text,
    format_end,
    kind,
    params_in_force,
    pay,
    step,
)

NAME = "pooker"


def pooker_data(state: State) -> dict[str, Any]:
    data = state.game_data(NAME)
    return data if data is not None else {"pending": {}, "showdown": None, "showdowns": 0,
                                          "motion": None, "motions": 0}


@kind("pooker.notified", private=("partner", "give", "get"))
@dataclass(frozen=True)
class TradeNotified(Event):
    """One side's notification of a Trade to the Dealer: ``player`` gives ``give`` and expects
    ``get`` from ``partner`` (all private but the author); it waits for the other side's
    until ``expires``."""

    player: str
    partner: str
    give: tuple[int, ...]
    get: tuple[int, ...]
    expires: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        what = (f" with {self.partner}: gives {cards_text(state, self.give)}, expects "
                f"{cards_text(state, self.get)}" if reveal else f" {HIDDEN}")
        return f"{self.player} notified a Pooker trade{what}; waits until {self.expires}"


@kind("pooker.traded", private=("a_gives", "b_gives", "salts_a", "salts_b"))
@dataclass(frozen=True)
class Traded(Event):
    """Two matching notifications (events ``notified``) executed at once: ``a`` gives
    ``a_gives`` to ``b`` and ``b_gives`` to ``a`` (private), ``cards`` each way (public), each
    side pays ``fee`` Points to the Dealer ``dealer``. ``to_a``/``to_b``: the public
    commitments of the cards each side received, in order, ``salts_a``/``salts_b`` their salts."""

    a: str
    b: str
    cards: int
    fee: int
    dealer: str | None
    notified: tuple[int, ...]
    a_gives: tuple[int, ...]
    b_gives: tuple[int, ...]
    to_a: tuple[str, ...]
    to_b: tuple[str, ...]
    salts_a: tuple[str, ...]
    salts_b: tuple[str, ...]

    MOVES_POINTS = True

    def subject(self) -> str | None:
        return self.a

    def points_moves(self) -> tuple[PointsMove, ...]:
        if not self.fee:
            return ()
        why = "card game pooker: trade fee"
        return (PointsMove(self.a, self.dealer, self.fee, why),
                PointsMove(self.b, self.dealer, self.fee, why))

    def summary(self, state: State, *, reveal: bool) -> str:
        what = (f": {self.a} gave {cards_text(state, self.a_gives)}, {self.b} gave "
                f"{cards_text(state, self.b_gives)}" if reveal else "")
        return (f"{self.a} and {self.b} traded {self.cards} PCard(s){what}; each paid "
                f"{self.fee} Point(s) to the Dealer")


@kind("pooker.lapsed")
@dataclass(frozen=True)
class TradeLapsed(Event):
    """A notification (event ``notified``) that found no match before it expired."""

    notified: int
    player: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"the trade notification of {self.player} (event {self.notified}) lapsed"


@kind("pooker.motion")
@dataclass(frozen=True)
class MotionMade(Event):
    """A Motion to Show Cards (number ``number``) made by ``player``."""

    number: int
    player: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.player} made Motion {self.number} to Show Cards"


@kind("pooker.voted")
@dataclass(frozen=True)
class MotionVoted(Event):
    """``player``'s vote on the pending Motion ``number``."""

    number: int
    player: str
    vote: bool

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.player} voted {'for' if self.vote else 'against'} Motion {self.number}"


@kind("pooker.opened")
@dataclass(frozen=True)
class ShowdownOpened(Event):
    """Showdown ``number`` begins: ``how`` is ``motion`` (``motion``: the Motion that passed)
    or ``ten`` (``by``: the Player holding the ten PCards, who must show ``min_shown``);
    showing ends at ``ends`` (ISO, UTC)."""

    number: int
    how: str
    motion: str
    by: str | None
    ends: str
    min_shown: int

    def subject(self) -> str | None:
        return self.by

    def summary(self, state: State, *, reveal: bool) -> str:
        why = f"{self.by} holds ten PCards" if self.how == "ten" else (
            self.motion or "a Motion passed")
        return f"Showdown {self.number} opened ({why}); showing ends {self.ends}"


@dataclass(frozen=True)
class CardOpening:
    """The opening of the commitment that put ``card`` in the shower's Hand: event ``event``
    and the card's salt ("" when that event carries no per-card commitment)."""

    card: int
    event: int
    salt: str


@kind("pooker.shown")
@dataclass(frozen=True)
class Shown(Event):
    """``player`` shows PCards arranged into Poker Hands, in public, each card with the
    opening of its commitment."""

    showdown: int
    player: str
    hands: tuple[tuple[int, ...], ...]
    openings: tuple[CardOpening, ...]

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        hands = "; ".join(cards_text(state, h) for h in self.hands)
        return f"{self.player} showed at Showdown {self.showdown}: {hands}"


@dataclass(frozen=True)
class PlayerScore:
    player: str
    score: int


@dataclass(frozen=True)
class Payment:
    player: str
    points: int


@kind("pooker.closed")
@dataclass(frozen=True)
class ShowdownClosed(Event):
    """The end of Showdown ``number``: every shower's Score, the winners, the prize paid from
    the Bank (``paid``; a tie splits it, rounding down, docs/games.md), and the shown cards
    returned to the Deck."""

    number: int
    scores: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    prize: int
    paid: tuple[Payment, ...]
    returned: tuple[int, ...]

    MOVES_POINTS = True

    def points_moves(self) -> tuple[PointsMove, ...]:
        return tuple(PointsMove(None, p.player, p.points,
                                f"card game pooker: prize of Showdown {self.number}")
                     for p in self.paid if p.points)

    def summary(self, state: State, *, reveal: bool) -> str:
        scores = ", ".join(f"{s.player} {s.score}" for s in self.scores) or "nobody showed"
        won = (f"; won by {', '.join(self.winners)}, prize {self.prize}" if self.winners
               else "")
        return (f"Showdown {self.number} closed: {scores}{won}; {len(self.returned)} shown "
                "card(s) back to the Deck")


# --- replay steps ---------------------------------------------------------------------


def _in_force(state: State) -> dict[str, Any]:
    if not state.in_force(NAME):
        raise ReplayError("a Pooker event while card game pooker is not in force")
    return params_in_force(state, NAME)


def _holds(state: State, player: str, cards: tuple[int, ...], pcards: set[int]) -> None:
    for card in cards:
        if card not in pcards:
            raise ReplayError(f"card {card} is not a PCard")
        if state.owner.get(card) != player:
            raise ReplayError(f"{player} does not hold card {card}")


@step(TradeNotified)
def _notified(state: State, e: TradeNotified, seq: int, at: datetime) -> None:
    _in_force(state)
    state.player(e.player)
    state.player(e.partner)
    if len(e.give) != len(e.get) or not e.give:
        raise ReplayError("a trade gives and gets the same number of cards, at least one")
    data = pooker_data(state)
    data["pending"][str(seq)] = {"player": e.player, "with": e.partner, "give": list(e.give),
                                 "get": list(e.get), "expires": e.expires}
    state.put_game(NAME, data, seq)


@step(Traded)
def _traded(state: State, e: Traded, seq: int, at: datetime) -> None:
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
    pcards = state.pcards(NAME)
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
    state.put_game(NAME, data, seq)
    if e.fee:
        pay(state, e.a, e.dealer, e.fee, seq)
        pay(state, e.b, e.dealer, e.fee, seq)


@step(TradeLapsed)
def _lapsed(state: State, e: TradeLapsed, seq: int, at: datetime) -> None:
    data = pooker_data(state)
    note = data["pending"].pop(str(e.notified), None)
    if note is None or note["player"] != e.player:
        raise ReplayError(f"no pending notification of {e.player} recorded by event "
                          f"{e.notified}")
    state.put_game(NAME, data, seq)


@step(MotionMade)
def _motion(state: State, e: MotionMade, seq: int, at: datetime) -> None:
    _in_force(state)
    data = pooker_data(state)
    if data["motion"] is not None or data["showdown"] is not None:
        raise ReplayError("a Motion to Show Cards while one is pending or a Showdown is open")
    if e.number != data["motions"] + 1:
        raise ReplayError(f"Motion numbered {e.number}, expected {data['motions'] + 1}")
    state.player(e.player)
    data["motions"] = e.number
    data["motion"] = {"number": e.number, "by": e.player, "yes": [], "no": []}
    state.put_game(NAME, data, seq)


@step(MotionVoted)
def _voted(state: State, e: MotionVoted, seq: int, at: datetime) -> None:
    data = pooker_data(state)
    motion = data["motion"]
    if motion is None or motion["number"] != e.number:
        raise ReplayError(f"a vote on Motion {e.number}, which is not pending")
    state.player(e.player)
    for side in ("yes", "no"):
        if e.player in motion[side]:
            motion[side].remove(e.player)
    motion["yes" if e.vote else "no"].append(e.player)
    state.put_game(NAME, data, seq)


@step(ShowdownOpened)
def _opened(state: State, e: ShowdownOpened, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise ReplayError("a Showdown opened while one is open")
    if e.number != data["showdowns"] + 1:
        raise ReplayError(f"Showdown numbered {e.number}, expected {data['showdowns'] + 1}")
    if e.how == "ten":
        if e.by is None:
            raise ReplayError("a Showdown at ten PCards names its Player")
        held = len(state.pcards(NAME) & set(state.hand(e.by)))
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
    state.put_game(NAME, data, seq)


def _shown_cards(data: dict[str, Any]) -> set[int]:
    showdown = data["showdown"]
    if showdown is None:
        return set()
    return {c for hands in showdown["shown"].values() for hand in hands for c in hand}


@step(Shown)
def _shown(state: State, e: Shown, seq: int, at: datetime) -> None:
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
    _holds(state, e.player, cards, state.pcards(NAME))
    if showdown["how"] == "ten" and e.player == showdown["by"] and len(cards) < showdown["min"]:
        raise ReplayError(f"{e.player} showed fewer than {showdown['min']} PCards")
    if sorted(o.card for o in e.openings) != sorted(cards):
        raise ReplayError("every shown card comes with its opening")
    showdown["shown"][e.player] = [list(h) for h in e.hands]
    state.put_game(NAME, data, seq)


@step(ShowdownClosed)
def _closed(state: State, e: ShowdownClosed, seq: int, at: datetime) -> None:
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
    from nomic_cards.cardgames.pooker.scoring import score_of, scores

    table = scores(_in_force(state))  # the score table in force
    for s in e.scores:
        if s.score != score_of(table, shown[s.player]):
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
    state.put_game(NAME, data, seq)
    for p in e.paid:
        if p.points > 0:
            pay(state, None, p.player, p.points, seq)
