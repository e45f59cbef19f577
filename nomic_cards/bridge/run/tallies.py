"""The ``average`` and ``frequency`` tallies of a run, for both dealing paths (numpy-free).

A :class:`Tally` adds up one action's values chunk by chunk, given as ``array("q")`` columns
(the compiled loop's int64 bytes, or a numpy column's); the report is
:func:`nomic_cards.bridge.output.layouts.tally_report`'s.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from nomic_cards.bridge.language import nodes as n

_WRAP = 1 << 64


@dataclass
class Tally:
    """One ``average``, ``frequency`` or two-dimensional ``frequency``: the values' total
    (wrapping as int64), the counts per value (a grid with Low and High rows and columns in
    two dimensions) and the counts below and above the range (one dimension)."""

    action: n.Action
    total: int = 0
    under: int = 0
    over: int = 0
    counts: Any = field(default_factory=list)

    def __post_init__(self) -> None:
        a = self.action
        if isinstance(a, n.Frequency):
            self.counts = [0] * (a.high - a.low + 1)
        elif isinstance(a, n.Frequency2D):
            self.counts = [[0] * (a.high2 - a.low2 + 3) for _ in range(a.high1 - a.low1 + 3)]

    def add(self, columns: Sequence[array[int]]) -> None:
        """Add a chunk: the action's columns of values (one, or two for a 2-D frequency)."""
        a = self.action
        if isinstance(a, n.Average):
            self.total = (self.total + sum(columns[0]) + _WRAP // 2) % _WRAP - _WRAP // 2
        elif isinstance(a, n.Frequency):
            self._frequency(columns[0], a.low, a.high)
        elif isinstance(a, n.Frequency2D):
            last1, last2 = a.high1 - a.low1 + 2, a.high2 - a.low2 + 2
            for (v, w), c in Counter(zip(columns[0], columns[1], strict=True)).items():
                i = 0 if v < a.low1 else last1 if v > a.high1 else v - a.low1 + 1
                j = 0 if w < a.low2 else last2 if w > a.high2 else w - a.low2 + 1
                self.counts[i][j] += c

    def _frequency(self, values: array[int], low: int, high: int) -> None:
        """Counted by the compiled loop's ``counts`` when it is at hand; else, when every value
        is a byte (the other seven bytes of each little-endian int64 are zero), its low bytes
        are counted with ``bytes.count``, value by value; else by a Counter."""
        raw = values.tobytes() if values.itemsize == 8 else array("q", values).tobytes()
        counts = _compiled_counts()
        if counts is not None and high - low < _COMPILED_WIDTH:
            few, each, many = counts(raw, low, high)
            self.under += few
            self.over += many
            self.counts = [a + b for a, b in zip(self.counts, each, strict=True)]
            return
        small = raw[::8]
        if array("q").itemsize == 8 and raw.count(0) - small.count(0) == 7 * len(values) \
                and _little():
            inside = under = 0
            for v in range(max(low, 0), min(high, 255) + 1):
                c = small.count(v)
                self.counts[v - low] += c
                inside += c
            for v in range(0, min(low, 256)):
                under += small.count(v)
            self.under += under
            self.over += len(values) - inside - under
            return
        for v, c in Counter(values).items():
            if v < low:
                self.under += c
            elif v > high:
                self.over += c
            else:
                self.counts[v - low] += c


#: the widest range the compiled ``counts`` takes
_COMPILED_WIDTH = 1 << 26


@cache
def _compiled_counts() -> Callable[[bytes, int, int], tuple[int, list[int], int]] | None:
    """The compiled loop's ``counts`` (``_fast.c``), or None without it (or with
    ``NOMIC_CARDS_PURE_PYTHON`` set, as :func:`nomic_cards.bridge.run.fast.extension`)."""
    import os

    if os.environ.get("NOMIC_CARDS_PURE_PYTHON"):
        return None
    try:
        from nomic_cards.bridge.run import _fast
    except ImportError:
        return None
    return _fast.counts


def _little() -> bool:
    import sys

    return sys.byteorder == "little"
