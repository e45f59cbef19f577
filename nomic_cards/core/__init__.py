"""The game core: the Cards proposal carried out over a hash-chained ledger.

The public API a script uses is small::

    from nomic_cards.core import Game, GameSettings, services

    with Game("cards.db", create=True, settings=GameSettings(dealer="PurpleBob")) as game:
        services.init_game(game)
        services.add_player(game, "Ienne")
        services.deal(game, "Ienne")
        print(services.hand(game, "Ienne").cards)
        assert services.ledger_verify(game).ok

Names are imported lazily, so that importing a part of the core (the ledger, the rules) does
not load the database layer.
"""

from __future__ import annotations

from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nomic_cards.core import services
    from nomic_cards.core.clock import Clock, SystemClock
    from nomic_cards.core.game import Game
    from nomic_cards.core.settings import GameSettings

__all__ = ["Clock", "Game", "GameSettings", "SystemClock", "services"]

_WHERE = MappingProxyType({
    "Game": "nomic_cards.core.game",
    "GameSettings": "nomic_cards.core.settings",
    "Clock": "nomic_cards.core.clock",
    "SystemClock": "nomic_cards.core.clock",
})


def __getattr__(name: str) -> Any:
    if name == "services":
        return import_module("nomic_cards.core.services")
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'nomic_cards.core' has no attribute {name!r}")
