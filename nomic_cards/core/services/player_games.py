"""A player's own view of every card game in force (``GET /api/v1/me/games``).

Each card game declares its view beside its actions (``CardGame.view``, with the dataclass it
returns); this reads them all in one read of the game. A view is built from the live state
(the player's own cards, the games' part of ``game_data``) and the public record: never the
events' private parts, which the server's database account may not read. What a view shows of
the games' secrets is decided by each game's own projection, the one every other channel of
that game uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomic_cards.core import engine
from nomic_cards.core.store.reads import Reads

__all__ = ["OwnGames", "games_for"]


@dataclass(frozen=True)
class OwnGames:
    """The player, the ledger head the views were read at, and each game's view by name (only
    the games in force that declare one)."""

    player: str
    as_of: int
    games: dict[str, Any]


def games_for(tx: Reads, player: str) -> OwnGames:
    """``player``'s view of each card game in force."""
    views = {g.name: g.view(tx, player) for g in engine.in_force(tx) if g.view is not None}
    return OwnGames(player, tx.state.seq, views)
