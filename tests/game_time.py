"""Game time for the tests: every date counts from the games' epoch (2026-01-01), never from
the day a test runs. The ``clock`` and ``weekly`` fixtures built on it live in conftest.py."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from freezegun.api import FrozenDateTimeFactory

#: the epoch of the test games
EPOCH = date(2026, 1, 1)


def moment(n: float) -> datetime:
    """The time ``n`` days after the epoch's midnight (UTC)."""
    return datetime(EPOCH.year, EPOCH.month, EPOCH.day, tzinfo=UTC) + timedelta(days=n)


def day(n: float) -> str:
    """:func:`moment` as an ISO string (``2026-01-11T00:00:00+00:00``)."""
    return moment(n).isoformat()


def at(clock: FrozenDateTimeFactory, n: float) -> None:
    """Move the frozen clock to ``n`` days after the epoch."""
    clock.move_to(day(n))
