"""Test helpers shared by the database tests."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import create_engine, text


def scripted(values: Iterable[int]) -> dict[str, object]:
    """Keyword arguments for services.deal that roll the given values, in order (manual dice)."""
    it = iter(values)
    return {"source": "manual", "ask": lambda sides: next(it), "reject": lambda msg: None}


def sql(url: str, statement: str, **params: object) -> list[tuple[object, ...]]:
    """Run raw SQL against the game database (to tamper with it, or to look behind the API)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return [tuple(r) for r in result] if result.returns_rows else []
    finally:
        engine.dispose()
