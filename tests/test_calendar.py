"""The game calendar: nweeks and ndays from the epoch, and the Clock switched Off and On."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from nomic_cards.core.calendar import Calendar

EPOCH = date(2001, 3, 14)
T0 = datetime(2001, 3, 14, tzinfo=UTC)


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def test_nweek_and_nday_from_the_epoch() -> None:
    cal = Calendar(EPOCH, 10)
    assert (cal.position(at(0)).nweek, cal.position(at(0)).nday) == (1, 1)
    assert (cal.position(at(9.999)).nweek, cal.position(at(9.999)).nday) == (1, 10)
    assert (cal.position(at(10)).nweek, cal.position(at(10)).nday) == (2, 1)
    assert cal.position(at(-0.5)).nweek == 0  # before the game began
    assert cal.start_of(3) == at(20)
    assert Calendar(EPOCH, 12).start_of(3) == at(24)  # later eras: 12-day nweeks


def test_stopped_clock_does_not_advance_and_shifts_later_boundaries() -> None:
    cal = Calendar(EPOCH, 10, ((at(9), at(14)),))  # Off for 5 days across the boundary
    assert cal.position(at(9)).nday == 10
    assert cal.position(at(13.9)).nweek == 1 and not cal.position(at(13.9)).running
    assert cal.start_of(2) == at(15)
    assert cal.position(at(15)).nweek == 2
    still_off = Calendar(EPOCH, 10, ((at(9), None),))
    assert still_off.position(at(100)).nweek == 1
    assert still_off.start_of(2) is None


stops = st.lists(st.tuples(st.floats(0, 200), st.floats(0.01, 30)), max_size=4).map(
    lambda xs: tuple(sorted(xs)))


@given(stops, st.integers(1, 30), st.integers(1, 12))
def test_start_of_is_the_inverse_of_position(raw: tuple[tuple[float, float], ...], nweek: int,
                                             days: int) -> None:
    intervals: list[tuple[datetime, datetime | None]] = []
    last = at(0)
    for start, length in raw:
        a = max(at(start), last)
        b = a + timedelta(days=length)
        intervals.append((a, b))
        last = b + timedelta(seconds=1)
    cal = Calendar(EPOCH, days, tuple(intervals))
    t = cal.start_of(nweek)
    assert t is not None
    assert cal.position(t).nweek == nweek and cal.position(t).nday == 1
    assert cal.position(t - timedelta(microseconds=1)).nweek == nweek - 1
