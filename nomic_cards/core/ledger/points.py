"""Points on the ledger: an account per Player and the Bank (docs/games.md, "Points").

``points.moved`` records Points the nomic's Scorekeeper reported (its replay step, in
:mod:`.replay`, pays through :func:`pay`); a card game's events move
Points too (a fee, a prize), through :func:`pay` in their replay steps, and say so by
:meth:`~nomic_cards.core.ledger.events.Event.points_moves` (``points history`` lists every
movement of every kind that moves Points). A payment that would take a Player's balance below
zero is refused unless a card game in force allows it (its declared ``overdraw`` parameter set
to ``yes``); the Bank may go below zero: its balance is minus what it has paid out, net.

The live data is JSON-ready: ``{"players": {name: balance}, "bank": points paid out, net}``.
"""

from __future__ import annotations

from typing import Any

from nomic_cards.core import installed
from nomic_cards.core.ledger.events import BANK, PointsMove, PointsMoved
from nomic_cards.core.ledger.state import POINTS, LaneError, ReplayError, State
from nomic_cards.errors import RuleViolation

__all__ = ["BANK", "POINTS", "PointsMove", "PointsMoved", "balance", "overdraft_allowed", "pay",
           "points_data", "verify_pay"]


def points_data(state: State) -> dict[str, Any]:
    data = state.game_data(POINTS)
    return data if data is not None else {"players": {}, "bank": 0}


def balance(state: State, player: str) -> int:
    return int(points_data(state)["players"].get(player, 0))


def overdraft_allowed(state: State, game: str | None = None) -> bool:
    """Whether a balance may go below zero: for a payment of card game ``game``, whether that
    game's declared ``overdraw`` parameter is ``yes``; else whether any card game in force
    lets it."""
    for name, change in state.rules.items():
        spec = installed.spec(name) if change.in_force and game in (None, name) else None
        if spec is not None and spec.overdraw is not None \
                and spec.value(change.params, spec.overdraw) == "yes":
            return True
    return False


def pay(state: State, source: str | None, target: str | None, points: int, seq: int) -> None:
    """Move ``points`` from ``source`` to ``target`` (None: the Bank, which may go below
    zero); a Player's balance may not, unless :func:`overdraft_allowed`. In a card game's
    event the payment is that game's: 1 Point or more, below zero only as that game allows,
    and listed for the check of the event's ``points_moves()`` (:mod:`.replay`)."""
    lane = state.lane
    if lane is not None and points < 1:
        raise LaneError(f"card game {lane.game}'s payment moves 1 Point or more, not {points}")
    data = points_data(state)
    players: dict[str, int] = data["players"]
    if source is None:
        data["bank"] += points
    else:
        state.player(source)
        left = players.get(source, 0) - points
        if left < 0 and not overdraft_allowed(state, None if lane is None else lane.game):
            said = (f"{source} paid {points} Point(s) holding {players.get(source, 0)}: no "
                    "balance goes below zero")
            if lane is None:
                raise ReplayError(said)
            raise LaneError(f"{said} unless card game {lane.game} lets it")
        players[source] = left
    if target is None:
        data["bank"] -= points
    else:
        state.player(target)
        players[target] = players.get(target, 0) + points
    if lane is None:
        state.put_game(POINTS, data, seq)
        return
    lane.paying = True
    try:
        state.put_game(POINTS, data, seq)
    finally:
        lane.paying = False
    lane.paid.append((source, target, points))
    lane.accounts = data


def verify_pay(state: State, player: str, points: int, why: str, *,
               game: str | None = None) -> None:
    """Raise :class:`RuleViolation` unless ``player`` may pay ``points`` now (no balance goes
    below zero unless a card game in force allows it; with ``game``, unless that game
    does, as the replay of its payment asks)."""
    if balance(state, player) < points and not overdraft_allowed(state, game):
        raise RuleViolation(f"{player} holds {balance(state, player)} Point(s) and cannot pay "
                            f"{points} {why}: no balance goes below zero unless a rule "
                            "allows it")
