"""The game core's public API for scripts: the :class:`Game`, its settings and clocks, and every
use case with its result types, in one module imported eagerly (as beancount's ``api``)::

    from nomic_cards.core import api

    with api.Game("cards.db", create=True,
                  settings=api.GameSettings(dealer="PurpleBob")) as game:
        api.init_game(game)
        api.add_player(game, "Ienne")
        api.deal(game, "Ienne")
        print(api.hand(game, "Ienne").cards)
        assert api.ledger_verify(game).ok

Each use case is defined in a module of :mod:`nomic_cards.core.services`, whose ``__all__``
names what it offers here; the command line and the server import each from its own module
instead, so that a command loads only the part it runs (a read command never loads SQLAlchemy).
Importing this module loads the whole core.
"""

from __future__ import annotations

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.game import Game
from nomic_cards.core.services.acting import *  # noqa: F403
from nomic_cards.core.services.audit import *  # noqa: F403
from nomic_cards.core.services.dealing import *  # noqa: F403
from nomic_cards.core.services.dice import *  # noqa: F403
from nomic_cards.core.services.live import *  # noqa: F403
from nomic_cards.core.services.notices import *  # noqa: F403
from nomic_cards.core.services.player_games import *  # noqa: F403
from nomic_cards.core.services.players import *  # noqa: F403
from nomic_cards.core.services.public import *  # noqa: F403
from nomic_cards.core.services.queries import *  # noqa: F403
from nomic_cards.core.services.reports import *  # noqa: F403
from nomic_cards.core.services.rules import *  # noqa: F403
from nomic_cards.core.services.time import *  # noqa: F403
from nomic_cards.core.services.tokens import *  # noqa: F403
from nomic_cards.core.settings import GameSettings

__all__ = ["Clock", "FixedClock", "Game", "GameSettings", "SystemClock"]
