"""The injected clock: everything that needs the time asks a :class:`Clock` (tests freeze it
with freezegun)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    """The real time, UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)
