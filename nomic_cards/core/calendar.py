"""Game time: nweeks and ndays, and the Clock that an officer can stop and start.

A game day starts at 00:00 UTC; day 1 is the game's first day (its *epoch*); an nweek is
``nweek_days`` game days (Spoon Nomic: 10), until the calendar rule changes the length: an
nweek's length can differ per range of nweeks (``lengths``: from nweek N on, D days). While
the Clock is Off, game time does not advance: game time is real time since the epoch's
midnight minus every interval the Clock was Off, so a stop shifts every later day boundary by
the length of the stop.

:class:`Calendar` is pure: it is built from the settings, the Clock's stop/start history and the
nweek lengths the calendar rule set (all kept in the ledger), and converts real times to
(nweek, nday) and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cached_property

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
    #: the length of nweek 1 (and of every nweek until ``lengths`` says otherwise)
    nweek_days: int
    #: (stopped_at, started_at or None while still stopped), in time order
    stops: tuple[tuple[datetime, datetime | None], ...] = ()
    #: (first nweek, days): from that nweek on, nweeks last that many days; in the order the
    #: changes were made (a later one for the same nweek replaces an earlier one)
    lengths: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        for days in (self.nweek_days, *(d for _, d in self.lengths)):
            if days < 1:
                raise InputError(f"an nweek needs at least one day, not {days}")

    @cached_property
    def _segments(self) -> tuple[tuple[int, int, int], ...]:
        """(first nweek, days per nweek, game day the first nweek starts on, from 0), by
        nweek."""
        lengths = {1: self.nweek_days}
        for first, days in self.lengths:
            lengths[max(1, first)] = days
        out: list[tuple[int, int, int]] = []
        for first in sorted(lengths):
            day = 0 if not out else out[-1][2] + (first - out[-1][0]) * out[-1][1]
            out.append((first, lengths[first], day))
        return tuple(out)

    def _segment_of_nweek(self, nweek: int) -> tuple[int, int, int]:
        found = self._segments[0]
        for seg in self._segments:
            if seg[0] > nweek:
                break
            found = seg
        return found

    def days_in(self, nweek: int) -> int:
        """The length of ``nweek`` in game days."""
        return self._segment_of_nweek(nweek)[1]

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
        first, length, start = self._segments[0]
        for seg in self._segments:
            if seg[2] > days:
                break
            first, length, start = seg
        nweek, nday0 = divmod(days - start, length)
        return Position(first + nweek, nday0 + 1, not self.stopped_at(real))

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
        first, length, start = self._segment_of_nweek(nweek)
        if not 1 <= nday <= length:
            raise InputError(f"nday must be 1..{length}, not {nday}")
        return self.real_time((start + (nweek - first) * length + (nday - 1)) * DAY)
