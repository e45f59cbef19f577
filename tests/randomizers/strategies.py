"""Hypothesis strategies shared by the randomizer tests: valid specs built directly as values."""

from __future__ import annotations

from hypothesis import strategies as st

from nomic_cards.randomizers import Spec

NAMES = ["I", "J", "L", "O", "S", "T", "Z", "I2", "7", "S10", "CA", "x-y"]
_NAME = st.sampled_from(NAMES)


@st.composite
def specs(draw: st.DrawFn, max_pieces: int = 8, max_history: int = 6) -> Spec:
    """Any valid spec over a small alphabet (duplicates, foreign names and clauses included)."""
    pieces = tuple(draw(st.lists(_NAME, min_size=1, max_size=max_pieces)))
    kind = draw(st.sampled_from(["list", "bag", "sequence", "history"]))
    first = tuple(draw(st.lists(_NAME, max_size=3)))
    if kind == "bag":
        return Spec("bag", pieces, deal=draw(st.integers(1, len(pieces))), first=first)
    if kind != "history":
        return Spec(kind, pieces, first=first)
    rolls = draw(st.integers(0, 5))
    history = draw(st.integers(0, max_history if rolls else min(max_history, len(pieces) - 1)))
    initial = tuple(draw(st.lists(_NAME, max_size=history)))
    return Spec("history", pieces, history=history, rolls=rolls, first=first, initial=initial)
