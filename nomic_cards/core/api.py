"""The game core's public API for scripts: the :class:`Nomic`, its settings and clocks, and every
use case with its result types, in one module imported eagerly (as beancount's ``api``)::

    from nomic_cards.core import api

    with api.Nomic("cards.db", create=True,
                   settings=api.GameSettings(dealer="PurpleBob")) as nomic:
        api.init_game(nomic)
        with nomic.write(actor="PurpleBob") as tx:   # one transaction, the ledger lock held
            api.add_player(tx, "Ienne")
            api.deal(tx, "Ienne")
        with nomic.read() as tx:                      # one snapshot
            print(api.hand(tx, "Ienne").cards)
            assert api.ledger_verify(tx).ok

Each use case is defined in a module of :mod:`nomic_cards.core.services`, whose ``__all__``
names what it offers here; the command line and the server import each from its own module
instead, so that a command loads only the part it runs (a read command never loads SQLAlchemy).
Importing this module loads the whole core.
"""

from __future__ import annotations

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.acting import *  # noqa: F403
from nomic_cards.core.services.audit import *  # noqa: F403
from nomic_cards.core.services.dealing import *  # noqa: F403
from nomic_cards.core.services.decisions import *  # noqa: F403
from nomic_cards.core.services.dice import *  # noqa: F403
from nomic_cards.core.services.live import *  # noqa: F403
from nomic_cards.core.services.mail_in import *  # noqa: F403
from nomic_cards.core.services.notices import *  # noqa: F403
from nomic_cards.core.services.player_games import *  # noqa: F403
from nomic_cards.core.services.players import *  # noqa: F403
from nomic_cards.core.services.points import *  # noqa: F403
from nomic_cards.core.services.public import *  # noqa: F403
from nomic_cards.core.services.queries import *  # noqa: F403
from nomic_cards.core.services.reports import *  # noqa: F403
from nomic_cards.core.services.rules import *  # noqa: F403
from nomic_cards.core.services.self_service import (  # noqa: F401 - the use cases alone
    ask_address,
    ask_token,
    choose_mail,
    confirm_address,
)
from nomic_cards.core.services.time import *  # noqa: F403
from nomic_cards.core.services.tokens import *  # noqa: F403
from nomic_cards.core.services.votes import *  # noqa: F403
from nomic_cards.core.settings import GameSettings

__all__ = ["Clock", "FixedClock", "Nomic", "GameSettings", "SystemClock"]
