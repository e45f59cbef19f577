"""Game time: nweeks and ndays, and the Clock that an officer can stop and start.

A game day starts at 00:00 UTC; day 1 is the game's first day (its *epoch*); an nweek is
``nweek_days`` game days (Spoon Nomic: 10). While the Clock is Off, game time does not advance:
game time is real time since the epoch's midnight minus every interval the Clock was Off, so a
stop shifts every later day boundary by the length of the stop.

:class:`Calendar` is pure: it is built from the settings and the Clock's stop/start history
(both kept in the ledger) and converts real times to (nweek, nday) and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from nomic_cards.errors import InputError

DAY = timedelta(days=1)


@dataclass(frozen=True)
class Position:
    """Where a real time falls in game time (1-based nweek and nday)."""

    nweek: int
    nday: int
    running: bool

    @property
    def before_start(self) -> bool:
        return self.nweek < 1


@dataclass(frozen=True)
class Calendar:
    epoch: date
    nweek_days: int
    #: (stopped_at, started_at or None while still stopped), in time order
    stops: tuple[tuple[datetime, datetime | None], ...] = ()

    def __post_init__(self) -> None:
        if self.nweek_days < 1:
            raise InputError(f"an nweek needs at least one day, not {self.nweek_days}")

    @property
    def origin(self) -> datetime:
        return datetime.combine(self.epoch, time(0), tzinfo=UTC)

    def stopped_at(self, real: datetime) -> bool:
        return any(a <= real and (b is None or real < b) for a, b in self.stops)

    def elapsed(self, real: datetime) -> timedelta:
        """Game time elapsed since the epoch's midnight at real time ``real``."""
        total = real - self.origin
        for a, b in self.stops:
            if a >= real:
                break
            end = real if b is None or b > real else b
            total -= end - a
        return total

    def position(self, real: datetime) -> Position:
        days = self.elapsed(real) // DAY
        nweek, nday0 = divmod(days, self.nweek_days)
        return Position(nweek + 1, nday0 + 1, not self.stopped_at(real))

    def nweek_of(self, real: datetime) -> int:
        return self.position(real).nweek

    def real_time(self, game: timedelta) -> datetime | None:
        """The first real time at which ``game`` of game time has elapsed (None if the Clock
        is stopped before then and not yet restarted)."""
        t = self.origin + game
        for a, b in self.stops:
            if a >= t:
                break
            if b is None:
                return None
            t += b - a
        return t

    def start_of(self, nweek: int, nday: int = 1) -> datetime | None:
        if not 1 <= nday <= self.nweek_days:
            raise InputError(f"nday must be 1..{self.nweek_days}, not {nday}")
        return self.real_time(((nweek - 1) * self.nweek_days + (nday - 1)) * DAY)
