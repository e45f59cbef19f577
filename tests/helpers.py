"""Test helpers shared by the database tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypedDict

from sqlalchemy import create_engine, text

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.settings import GameSettings


def new_game(url: str, *, players: Sequence[str] = (), **settings: Any) -> Nomic:
    """A :class:`Nomic` on ``url`` with a new game created in it (``settings`` as for
    :class:`GameSettings`) and ``players`` registered. The caller closes it."""
    game = Nomic(url, create=True, settings=GameSettings(**settings))
    api.init_game(game)
    for name in players:
        with game.write() as tx:
            api.add_player(tx, name)
    return game


class Scripted(TypedDict):
    """Keyword arguments for api.deal with manual dice."""

    source: str
    ask: Callable[[int], int]
    reject: Callable[[str], None]


def scripted(values: Iterable[int]) -> Scripted:
    """Keyword arguments for api.deal that roll the given values, in order (manual dice)."""
    it = iter(values)
    return {"source": "manual", "ask": lambda sides: next(it), "reject": lambda msg: None}


def sql(db: Nomic | str, statement: str, **params: object) -> list[tuple[object, ...]]:
    """Run raw SQL against the game database (to tamper with it, or to look behind the API)."""
    engine = create_engine(db.url if isinstance(db, Nomic) else db)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return [tuple(r) for r in result] if result.returns_rows else []
    finally:
        engine.dispose()


def flat(text: str) -> str:
    """``text`` with every run of white space one space: what a wrapped report says, whatever
    the width it was wrapped at."""
    return " ".join(text.split())
