"""The tallies both dealing paths share (``run/tallies.py``), against plain counting."""

from __future__ import annotations

import random
from array import array
from collections.abc import Iterator

import pytest

from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.run import tallies
from nomic_cards.bridge.run.tallies import Tally

INT64 = (-(2**63), 2**63 - 1)


@pytest.fixture(params=["compiled", "python"])
def counting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test twice: counted by the compiled loop's ``counts``, and in Python."""
    if request.param == "python":
        monkeypatch.setenv("NOMIC_CARDS_PURE_PYTHON", "1")
    tallies._compiled_counts.cache_clear()
    if request.param == "compiled" and tallies._compiled_counts() is None:
        pytest.skip("the compiled loop is not built")
    yield request.param
    tallies._compiled_counts.cache_clear()


@pytest.mark.parametrize(("low", "high", "span"), [
    (0, 37, (0, 37)),     # all bytes, the byte-counting path
    (5, 20, (0, 40)),     # bytes on both sides of the range
    (-3, 10, (-8, 15)),   # negative values: the Counter path
    (250, 300, (0, 400)),  # values beyond a byte
    (INT64[0], INT64[0] + 5, (INT64[0], INT64[0] + 9)),  # at the ends of int64
    (INT64[1] - 5, INT64[1], (INT64[1] - 9, INT64[1])),
    (4, 3, (0, 8)),       # an empty range: every value below or above it
])
def test_frequency_counts_as_plain_counting(low: int, high: int, span: tuple[int, int],
                                            counting: str) -> None:
    rng = random.Random(low * 1000 + high)
    chunks = [[rng.randint(*span) for _ in range(rng.randint(0, 3000))] for _ in range(4)]
    t = Tally(n.Frequency(None, n.Num(0), low, high))
    for c in chunks:
        t.add([array("q", c)])
    every = [v for c in chunks for v in c]
    assert t.counts == [every.count(v) for v in range(low, high + 1)]
    assert t.under == sum(v < low for v in every) and t.over == sum(v > high for v in every)


def test_average_total_wraps_as_int64() -> None:
    t = Tally(n.Average(None, n.Num(0)))
    t.add([array("q", [2**62, 2**62, -5])])
    assert t.total == 2**63 - 5
    t.add([array("q", [10])])
    assert t.total == 2**63 + 5 - 2**64


def test_two_dimensional_frequency_has_low_and_high_rows() -> None:
    t = Tally(n.Frequency2D(None, n.Num(0), 1, 2, n.Num(0), 0, 0))
    t.add([array("q", [0, 1, 2, 3, 1]), array("q", [0, 0, 5, -1, 0])])
    # rows Low, 1, 2, High; columns Low, 0, High
    assert t.counts == [[0, 1, 0], [0, 2, 0], [0, 0, 1], [1, 0, 0]]
