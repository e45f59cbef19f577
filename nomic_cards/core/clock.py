"""The injected clock: everything that needs the time asks a :class:`Clock` (tests freeze it
with freezegun)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class FixedClock:
    """A clock that always says the same time (``--at``: rehearsing a schedule, or recording
    what was done at a known time)."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at


class SystemClock:
    """The real time, UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)
