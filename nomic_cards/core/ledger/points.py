"""Points on the ledger: an account per Player and the Bank (docs/games.md, "Points").

``points.moved`` records Points the nomic's Scorekeeper reported; a card game's events move
Points too (a fee, a prize), through :func:`pay` in their replay steps, and say so by
:meth:`~nomic_cards.core.ledger.events.Event.points_moves` (``points history`` lists every
movement of every kind that moves Points). A payment that would take a Player's balance below
zero is refused unless a card game in force allows it (its declared ``overdraw`` parameter set
to ``yes``); the Bank may go below zero: its balance is minus what it has paid out, net.

The live data is JSON-ready: ``{"players": {name: balance}, "bank": points paid out, net}``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from nomic_cards.core import ruleset
from nomic_cards.core.ledger.events import BANK, PointsMove, PointsMoved
from nomic_cards.core.ledger.replay import step
from nomic_cards.core.ledger.state import ReplayError, State

__all__ = ["BANK", "POINTS", "PointsMove", "PointsMoved", "balance", "overdraft_allowed", "pay",
           "points_data"]

POINTS = "points"


def points_data(state: State) -> dict[str, Any]:
    data = state.game_data(POINTS)
    return data if data is not None else {"players": {}, "bank": 0}


def balance(state: State, player: str) -> int:
    return int(points_data(state)["players"].get(player, 0))


def overdraft_allowed(state: State) -> bool:
    """Whether a card game in force lets a balance go below zero (its declared ``overdraw``
    parameter is ``yes``)."""
    for name, change in state.rules.items():
        spec = ruleset.spec(name) if change.in_force else None
        if spec is not None and spec.overdraw is not None \
                and spec.value(change.params, spec.overdraw) == "yes":
            return True
    return False


def pay(state: State, source: str | None, target: str | None, points: int, seq: int) -> None:
    """Move ``points`` from ``source`` to ``target`` (None: the Bank, which may go below
    zero); a Player's balance may not, unless :func:`overdraft_allowed`."""
    data = points_data(state)
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
    state.put_game(POINTS, data, seq)


@step(PointsMoved)
def _points_moved(state: State, e: PointsMoved, seq: int, at: datetime) -> None:
    if e.points < 1 or not e.rule.strip():
        raise ReplayError("a movement of points moves 1 or more and cites a rule")
    if e.from_ == e.to:
        raise ReplayError("points moved from an account to itself")
    pay(state, e.from_, e.to, e.points, seq)
