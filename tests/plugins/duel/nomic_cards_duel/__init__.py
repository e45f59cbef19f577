"""A card duel, played with the cards of the packs bound to it: a Player challenges another;
each side, without the other's knowledge, commits one card of eir Hand (the card and its salt
private, a commitment to them public); once both have committed, both cards are revealed and
the higher, by the poker library's ranking, wins the prize of Points from the Bank. A tie is
played again. A side that has not committed when the deadline passes forfeits (docs/games.md,
"Write a card game": this package, end to end). Each rule is one ``verify_...`` function that
the action calls before it records, and the event's replay step again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nomic_cards.cardgames.sdk import (
    ActionField,
    ActionOutcome,
    ActionSpec,
    CardGame,
    Event,
    Param,
    PointsMove,
    Reads,
    ReplayError,
    RuleViolation,
    State,
    Tx,
    Window,
    card_commitment,
    card_label,
    game_state,
    is_player,
    kind,
    new_nonce,
    params_in_force,
    parse_card_ref,
    parse_time,
    pay,
    player_cards,
    put_game_state,
    require_player,
    step,
    window_end,
)
from nomic_cards.cards import spoon_card
from nomic_cards.poker.codes import code_of

NAME = "duel"
RULE = "card game duel"


# --- the game's state, its events and their replay steps ----------------------------------


@dataclass
class Duel:
    a: str
    b: str
    ends: str
    committed: dict[str, str] = field(default_factory=dict)  # each side's commitment
    events: dict[str, int] = field(default_factory=dict)  # each side's duel.committed


@dataclass
class Duels:  # the open duels by number (as text: the keys of a JSON object)
    count: int = 0
    open: dict[str, Duel] = field(default_factory=dict)


def duels(state: State) -> Duels:
    return game_state(state, NAME, Duels)


@kind("duel.challenged")
@dataclass(frozen=True)
class Challenged(Event):
    number: int
    a: str
    b: str
    ends: str

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.a} challenged {self.b} to duel {self.number}; commit by {self.ends}"


@kind("duel.committed", private=("card", "salt"))
@dataclass(frozen=True)
class Committed(Event):
    number: int
    player: str
    commitment: str
    card: int
    salt: str

    def summary(self, state: State, *, reveal: bool) -> str:
        what = f" {card_label(state, self.card)}" if reveal else " a card"
        return f"{self.player} committed{what} to duel {self.number}"


@kind("duel.decided")
@dataclass(frozen=True)
class Decided(Event):
    """The end of a round: both cards revealed (with their salts), or a forfeit at the
    deadline (``cards`` empty); ``winner`` None: a tie, played again (or nobody committed)."""

    number: int
    cards: tuple[int, ...]
    salts: tuple[str, ...]
    winner: str | None
    prize: int
    again: bool

    MOVES_POINTS = True

    def points_moves(self) -> tuple[PointsMove, ...]:
        if self.winner is None or not self.prize:
            return ()
        return (PointsMove(None, self.winner, self.prize, f"{RULE}: duel {self.number}"),)

    def summary(self, state: State, *, reveal: bool) -> str:
        shown = " vs ".join(card_label(state, c) for c in self.cards) or "a forfeit"
        end = "a tie: played again" if self.again else (
            f"won by {self.winner}, {self.prize} Point(s)" if self.winner else "no winner")
        return f"duel {self.number}: {shown}; {end}"


def rank(card: int) -> int:
    """A card's rank by the poker library (its Ness denomination: 2 low, Ace high)."""
    return code_of(spoon_card(card)[1]) % 13


def outcome(cards: Mapping[str, int]) -> str | None:
    """The winner of two revealed cards (None: a tie)."""
    (a, ca), (b, cb) = cards.items()
    return None if rank(ca) == rank(cb) else a if rank(ca) > rank(cb) else b


def verify_challenge(state: State, player: str, other: str) -> None:
    """A Player challenges another active player, not the Dealer."""
    params_in_force(state, NAME)
    if other == player or other == state.dealer or not is_player(state, other):
        raise RuleViolation(f"{player} may challenge another active player, not {other}")


def verify_commit(state: State, player: str, number: int, card: int) -> Duel:
    """Each side of an open duel commits one duel card of eir Hand, once."""
    duel = duels(state).open.get(str(number))
    if duel is None or player not in (duel.a, duel.b):
        raise RuleViolation(f"{player} is in no open duel numbered {number}")
    if player in duel.committed:
        raise RuleViolation(f"{player} has committed a card to duel {number} already")
    if card not in player_cards(state, NAME, player):
        raise RuleViolation(f"{card_label(state, card)} is not a duel card in {player}'s Hand")
    return duel


@step(Challenged)
def _challenged(state: State, e: Challenged, seq: int, at: datetime) -> None:
    verify_challenge(state, e.a, e.b)
    data = duels(state)
    if e.number != data.count + 1:
        raise ReplayError("a duel is numbered in turn")
    data.count = e.number
    data.open[str(e.number)] = Duel(e.a, e.b, e.ends)
    put_game_state(state, NAME, data, seq)


@step(Committed)
def _committed(state: State, e: Committed, seq: int, at: datetime) -> None:
    verify_commit(state, e.player, e.number, e.card)
    if card_commitment(e.salt, e.card) != e.commitment:
        raise ReplayError("the commitment does not open to the card committed")
    data = duels(state)
    duel = data.open[str(e.number)]
    duel.committed[e.player], duel.events[e.player] = e.commitment, seq
    put_game_state(state, NAME, data, seq)


@step(Decided)
def _decided(state: State, e: Decided, seq: int, at: datetime) -> None:
    data = duels(state)
    duel = data.open.get(str(e.number))
    if duel is None:
        raise ReplayError(f"duel {e.number} is not open")
    if e.cards:  # revealed: each card opens its side's commitment
        if len(duel.committed) != 2 or len(e.cards) != 2 or len(e.salts) != 2:
            raise ReplayError("a duel is revealed when both sides have committed")
        players = [duel.a, duel.b]
        for p, card, salt in zip(players, e.cards, e.salts, strict=True):
            if card_commitment(salt, card) != duel.committed[p]:
                raise ReplayError(f"{p}'s revealed card does not open eir commitment")
        winner = outcome(dict(zip(players, e.cards, strict=True)))
    else:  # a forfeit, at the deadline
        if at.strftime("%Y-%m-%dT%H:%M:%SZ") < duel.ends or len(duel.committed) == 2:
            raise ReplayError(f"duel {e.number} forfeited before its deadline")
        winner = next(iter(duel.committed), None)
    if (e.winner, e.again) != (winner, winner is None and bool(e.cards)):
        raise ReplayError("the duel's result does not follow from the cards")
    if e.again:
        duel.committed, duel.events = {}, {}
    else:
        del data.open[str(e.number)]
    put_game_state(state, NAME, data, seq)
    if winner is not None and e.prize:
        pay(state, None, winner, e.prize, seq)


def challenge(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    state = tx.state
    other = require_player(state, str(body["opponent"]))
    verify_challenge(state, actor, other)
    number = duels(state).count + 1
    ends = window_end(tx.clock.now(), int(params_in_force(state, NAME)["commit-days"]))
    rec = tx.record(Challenged(number, actor, other, ends))[0]
    return ActionOutcome((rec.seq,), waiting=True,
                         summary=f"{actor} challenged {other} to duel {number}")


def commit(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    state = tx.state
    values = params_in_force(state, NAME)
    number = int(str(body["duel"]))
    card = parse_card_ref(state, str(body["card"]))
    duel = verify_commit(state, actor, number, card)
    salt = new_nonce()
    seqs = [tx.record(Committed(number, actor, card_commitment(salt, card), card, salt))[0].seq]
    committed = duels(state).open[str(number)].events
    if len(committed) < 2:
        return ActionOutcome(tuple(seqs), waiting=True, summary=f"{actor} committed a card")
    events = [tx.event_at(committed[p]) for p in (duel.a, duel.b)]
    opened = [e.event for e in events if e is not None and isinstance(e.event, Committed)]
    cards = {c.player: c.card for c in opened}
    winner = outcome(cards)
    prize = int(values["prize"]) if winner else 0
    rec = tx.record(Decided(number, tuple(cards.values()), tuple(c.salt for c in opened),
                            winner, prize, winner is None))[0]
    seqs.append(rec.seq)
    said = f"{winner} won duel {number}" if winner else f"duel {number} tied: commit again"
    return ActionOutcome(tuple(seqs), summary=said)


def _forfeit(number: int) -> Any:
    def close(tx: Tx) -> None:
        duel = duels(tx.state).open[str(number)]
        winner = next(iter(duel.committed), None)
        prize = int(params_in_force(tx.state, NAME)["prize"]) if winner else 0
        tx.record(Decided(number, (), (), winner, prize, False))
    return close


def windows(state: State) -> list[Window]:
    return [Window(NAME, parse_time(d.ends), f"duel {n}'s deadline", _forfeit(int(n)))
            for n, d in duels(state).open.items()]


# --- what a player sees -----------------------------------------------------------------------


@dataclass(frozen=True)
class OpenDuel:
    number: int
    against: str
    ends: str
    committed: bool
    they_committed: bool


@dataclass(frozen=True)
class DuelView:
    cards: tuple[str, ...]
    duels: tuple[OpenDuel, ...]


def view(reads: Reads, player: str) -> DuelView:
    state = reads.state
    mine = [OpenDuel(int(n), o, d.ends, player in d.committed, o in d.committed)
            for n, d in sorted(duels(state).open.items(), key=lambda kv: int(kv[0]))
            if player in (d.a, d.b) for o in [d.b if player == d.a else d.a]]
    cards = tuple(card_label(state, c) for c in player_cards(state, NAME, player))
    return DuelView(cards, tuple(mine))


GAME = CardGame(
    NAME, "Card duel",
    "Two players each commit a card in secret; both are revealed; the higher wins Points.",
    (Param("prize", "int", 5, "Points from the Bank to the winner", 0, 1000),
     Param("commit-days", "int", 2, "days both sides have to commit", 1, 30)),
    actions=(
        ActionSpec(f"{NAME}.challenge", "player", "Challenge another player to a duel.",
                   (ActionField("opponent", "player", "the player challenged"),), challenge,
                   example={"opponent": "ben"}),
        ActionSpec(f"{NAME}.commit", "player", "Commit one duel card of your Hand, in secret.",
                   (ActionField("duel", "int", "the duel's number"),
                    ActionField("card", "text", "the card, e.g. 'Fish Kd'")), commit,
                   private=True, example={"duel": 1, "card": "Fish Kd"})),
    windows=windows, view=view, view_type=DuelView)
