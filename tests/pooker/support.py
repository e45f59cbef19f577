"""What Pooker's tests share: a table with Pooker in force, and the test's own dealing, Points,
hands and balances (the fixtures are in conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from tests.helpers import new_game, sql

#: the players of a table unless a test module names others (its ``players`` fixture)
PLAYERS = ("ann", "ben", "cat")


@contextmanager
def pooker_table(db_url: str, players: Sequence[str] = PLAYERS) -> Iterator[Nomic]:
    """A game from 2026-01-01 in nweeks of 10 days, the Dealer PurpleBob and ``players``, and
    Pooker (version 3, as any new enactment) on the Red and Blue packs."""
    with new_game(db_url, epoch=date(2026, 1, 1), nweek_days=10, players=players) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        yield game


def give(game: Nomic, player: str, *cards: str) -> None:
    """Cards from the Deck to ``player`` (the test's own dealing), in one transaction."""
    with game.write() as tx:
        for card in cards:
            api.transfer(tx, card, player, "test setup", source="deck")


def fund(game: Nomic, *players: str, n: int = 10) -> None:
    """``n`` Points to each of ``players`` (for the trade fees)."""
    with game.write() as tx:
        for p in players:
            points.grant_points(tx, p, n, rule="Scorekeeper's report")


def hand(game: Nomic, player: str) -> set[str]:
    with game.read() as tx:
        return {c.card for c in api.hand(tx, player).cards}


def balances(game: Nomic) -> dict[str, int]:
    with game.read() as tx:
        return {b.player: b.points for b in points.balances(tx)}


def head(game: Nomic) -> int:
    """The ledger head's event number."""
    return int(str(sql(game, "select max(seq) from events")[0][0]))
