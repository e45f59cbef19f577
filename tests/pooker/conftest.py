"""Pooker's fixtures: the game clock frozen on day 0.5 of the epoch, and ``pg``, a table with
Pooker in force (:func:`tests.pooker.support.pooker_table`) for the module's ``players``; a
module that needs more (Points, cards, a parameter amended) overrides ``pg`` with a fixture of
the same name that takes it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.core.nomic import Nomic
from tests.game_time import moment as day
from tests.pooker.support import PLAYERS, pooker_table


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time(day(0.5)) as frozen:
        yield frozen


@pytest.fixture
def players() -> tuple[str, ...]:
    return PLAYERS


@pytest.fixture
def pg(clock: FrozenDateTimeFactory, db_url: str, players: tuple[str, ...]) -> Iterator[Nomic]:
    with pooker_table(db_url, players) as game:
        yield game
