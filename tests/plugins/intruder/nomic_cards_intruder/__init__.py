"""Grifter, a hostile card game bound to the Fish pack: its one action, ``grifter.take``,
records a ``grifter.took`` event whose replay step tries the attack the action names on
another Player's cards and Points. The core refuses each (docs/games.md, "What a game may
change"); ``tests/test_confinement.py`` checks that it does, that the victim's Hand and Points
are untouched, and that every other game keeps working.

The other modules of this package each declare a game that reaches into a namespace not its
own when it is loaded: ``gifted`` (a kind of the core's), ``squatter`` (a kind in Pooker's),
``claimer`` (a kind Pooker declares itself) and ``poacher`` (an action in Pooker's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.cardgames.sdk import (
    ActionField,
    ActionOutcome,
    ActionSpec,
    CardGame,
    Event,
    PointsMove,
    State,
    Tx,
    kind,
    parse_card_ref,
    pay,
    put_game_state,
    require_player,
    step,
)

NAME = "grifter"

#: each attack: what the replay step does to the victim (the card named, eir Points)
ATTACKS = {
    "pooker-card": "moves the card (another game's) from the victim's Hand to the thief's",
    "loose-card": "moves the card (of a pack no game binds) to the thief",
    "owner-write": "writes the card's holder in the state directly, past State.move",
    "points-write": "puts the victim's Points in the thief's account past pay",
    "points-inplace": "edits the accounts in place",
    "pay-unsaid": "pays the victim's Points to the thief and says nothing of it",
    "pay-as-pooker": "pays them saying the movement is card game pooker's trade fee",
    "overdraw": "takes more Points than the victim holds, under Pooker's points-below-zero",
    "pooker-state": "rewrites Pooker's own state",
    "core-state": "registers a player, as only the core's events do",
    "nested": "applies another event from inside its own step",
    "honest": "moves a Fish card from the Deck to the thief and pays em from the Bank",
}

#: the attacks the game carries out (its replay step, its points_moves); a test disarms one to
#: record the event, then arms it again to replay the ledger, as a package changed after the
#: fact would
ARMED: set[str] = set(ATTACKS)


@kind("grifter.took")
@dataclass(frozen=True)
class Took(Event):
    attack: str
    thief: str
    victim: str
    card: int
    points: int

    MOVES_POINTS = True

    def points_moves(self) -> tuple[PointsMove, ...]:
        if self.attack not in ARMED:
            return ()
        if self.attack == "pay-as-pooker":
            return (PointsMove(self.victim, self.thief, self.points,
                               "card game pooker: trade fee"),)
        if self.attack == "overdraw":
            return (PointsMove(self.victim, self.thief, self.points, f"card game {NAME}"),)
        if self.attack == "honest":
            return (PointsMove(None, self.thief, 1, f"card game {NAME}: a take"),)
        return ()

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.thief} took from {self.victim} ({self.attack})"


@step(Took)
def _took(state: State, e: Took, seq: int, at: datetime) -> None:
    put_game_state(state, NAME, {"takes": seq}, seq)  # its own state: always allowed
    if e.attack not in ARMED:
        return
    points = state.games_data.get("points") or {"players": {}, "bank": 0}
    if e.attack in ("pooker-card", "loose-card"):
        state.move((e.card,), e.thief, seq)
    elif e.attack == "owner-write":
        state.owner[e.card] = e.thief
    elif e.attack == "points-write":
        players = dict(points["players"])
        players[e.thief] = players.get(e.thief, 0) + players.get(e.victim, 0)
        players[e.victim] = 0
        state.put_game("points", {**points, "players": players}, seq)
    elif e.attack == "points-inplace":
        points["players"][e.thief] = points["players"].get(e.thief, 0) + e.points
        points["players"][e.victim] = points["players"].get(e.victim, 0) - e.points
    elif e.attack in ("pay-unsaid", "pay-as-pooker", "overdraw"):
        pay(state, e.victim, e.thief, e.points, seq)
    elif e.attack == "pooker-state":
        state.put_game("pooker", None, seq)
    elif e.attack == "core-state":
        state.register(f"{e.thief}-2", None, seq)
    elif e.attack == "nested":
        from nomic_cards.core.ledger.events import CardTransferred
        from nomic_cards.core.ledger.replay import apply_event

        apply_event(state, seq, CardTransferred(e.card, e.victim, e.thief, "grifter"), at)
    elif e.attack == "honest":
        state.move((e.card,), e.thief, seq)
        pay(state, None, e.thief, 1, seq)


def take(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    attack = str(body["attack"])
    victim = require_player(tx.state, str(body["victim"]))
    card = parse_card_ref(tx.state, str(body["card"]))
    rec = tx.record(Took(attack, actor, victim, card, int(str(body.get("points", 10)))))[0]
    return ActionOutcome((rec.seq,), summary=f"{actor} took from {victim}")


GAME = CardGame(
    NAME, "Grifter", "A hostile game: each take tries to reach another game's cards or Points.",
    actions=(ActionSpec(f"{NAME}.take", "player", "Try an attack on another player.",
                        (ActionField("attack", "text", "one of " + ", ".join(ATTACKS)),
                         ActionField("victim", "player", "the player robbed"),
                         ActionField("card", "text", "the card, e.g. 'Red As'"),
                         ActionField("points", "int", "the Points taken", required=False)),
                        take),))
