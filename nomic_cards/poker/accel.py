"""The optional compiled accelerator of :func:`~nomic_cards.poker.evaluate` (``_accel.c``).

``pip install`` compiles it when a C compiler is at hand and goes on without it otherwise (the
extension is optional). It evaluates 5 to 7 natural cards of the high game without a wild set
from the same shipped tables as the pure-Python path and returns the same shared values; it
hands every other call to the pure-Python :func:`~nomic_cards.poker.evaluate.pure_evaluate`,
so the results and the errors are the same (the tests compare both on every 5-card hand). Set
``NOMIC_CARDS_PURE_PYTHON=1`` to leave it out.
"""

from __future__ import annotations

import os
import sys
from array import array

from nomic_cards.poker import layout
from nomic_cards.poker.shipped import GameTables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from nomic_cards.poker.classes import HandValue

    class Evaluate(Protocol):
        def __call__(self, cards: Any, wild: Any = None, game: str = "high",
                     ) -> HandValue | None: ...

FLUSH_ROW = 8192


def _index_arrays() -> list[array[int]]:
    """``DA``, ``OB`` and ``SC[5..7]`` of :mod:`nomic_cards.poker.layout` as int32 arrays over
    the raw fields."""
    da = array("i", bytes(4 * (layout.A_MASK + 1)))
    for k, i in layout.da().items():
        da[k] = i
    ob = array("i", bytes(4 * ((layout.MAX_NATURALS + 1) << 12)))
    for beta, starts in enumerate(layout.ob()):
        for b, at in starts.items():
            ob[(beta << 12) + b] = at
    out = [da, ob]
    for n in layout.SIZES:
        sc = array("i", bytes(4 * (layout.C_MASK + 1)))
        for c, at in layout.sc(n).items():
            sc[c] = at
        out.append(sc)
    return out


def setup(pure: Evaluate, high: GameTables) -> Evaluate | None:
    """The accelerated evaluate, or ``None`` when the extension is absent or switched off."""
    if os.environ.get("NOMIC_CARDS_PURE_PYTHON") or sys.byteorder != "little":
        return None
    try:
        from nomic_cards.poker import _accel
    except ImportError:
        return None
    if array("i").itemsize != 4:  # pragma: no cover - every platform we know
        return None
    raw = memoryview(high.raw())

    def span(name: str, skip: int = 0, count: int | None = None) -> memoryview:
        at, n = high.span(name)
        at += 2 * skip
        return raw[at:at + 2 * (n - skip if count is None else count)]

    _accel.init(pure, high.value_list(), high.value, span("g5"), span("g6"), span("g7"),
                span("flk", 5 * FLUSH_ROW, FLUSH_ROW), *_index_arrays())
    evaluate: Evaluate = _accel.evaluate
    return evaluate
