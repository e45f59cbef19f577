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


def test_nweek_length_per_range_of_nweeks() -> None:
    # 10-day nweeks 1..5 (days 0..49), then 12-day nweeks from nweek 6 (day 50 on)
    cal = Calendar(EPOCH, 10, lengths=((6, 12),))
    assert cal.start_of(5) == at(40)
    assert cal.start_of(6) == at(50)
    assert cal.start_of(7) == at(62)
    assert cal.start_of(6, 12) == at(61)
    assert (cal.position(at(49.5)).nweek, cal.position(at(49.5)).nday) == (5, 10)
    assert (cal.position(at(61.5)).nweek, cal.position(at(61.5)).nday) == (6, 12)
    assert (cal.position(at(62)).nweek, cal.position(at(62)).nday) == (7, 1)
    assert cal.days_in(5) == 10 and cal.days_in(6) == 12 and cal.days_in(99) == 12
    # a later change for the same nweek replaces the earlier one; a third range
    cal2 = Calendar(EPOCH, 10, lengths=((3, 5), (3, 7), (4, 1)))
    assert [cal2.start_of(k) for k in (1, 2, 3, 4, 5, 6)] == \
        [at(0), at(10), at(20), at(27), at(28), at(29)]
    assert cal2.position(at(28.5)).nweek == 5


@given(st.lists(st.tuples(st.integers(1, 30), st.integers(1, 20)), max_size=4),
       st.integers(1, 20), st.integers(1, 40))
def test_start_of_and_position_agree_with_lengths(lengths: list[tuple[int, int]], base: int,
                                                  nweek: int) -> None:
    cal = Calendar(EPOCH, base, lengths=tuple(lengths))
    start = cal.start_of(nweek)
    assert start is not None
    pos = cal.position(start)
    assert (pos.nweek, pos.nday) == (nweek, 1)
    # the nweek lasts days_in(nweek) days: the next one starts that much later
    assert cal.start_of(nweek + 1) == start + timedelta(days=cal.days_in(nweek))
