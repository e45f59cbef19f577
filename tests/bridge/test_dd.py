"""Double dummy through the optional solver (skipped with a reason when it is absent)."""

from __future__ import annotations

import numpy as np
import pytest

from nomic_cards.bridge.deal.batch import HandBatch
from nomic_cards.bridge.deal.evaluate import Context, Evaluator
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.run import dd

# Each seat holds one whole suit: North spades, East hearts, South diamonds, West clubs.
SUITED = np.zeros((4, 4), dtype=np.uint16)
for _seat in range(4):
    SUITED[_seat, _seat] = 8191


def test_absent_solver_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dd, "available", lambda: False)
    with pytest.raises(dd.DoubleDummyUnavailable, match=r"pip install 'nomic-cards\[dd\]'"):
        dd.require()


def test_trick_table_of_four_solid_suits() -> None:
    if not dd.available():
        pytest.skip("the dd extra (endplay) is not installed")
    result = dd.solve([SUITED], vulnerable=[0], dealers=[0])[0]
    # A seat declaring its own suit as trumps takes every trick; in notrump the defender on
    # lead (declarer's left) runs its suit: North declaring NT loses all 13 to East.
    for seat in range(4):
        assert result.tricks[seat][seat] == 13
        assert result.tricks[seat][4] == 0


def test_tricks_in_a_script() -> None:
    if not dd.available():
        pytest.skip("the dd extra (endplay) is not installed")
    script = parse_script("condition tricks(north, spades) * 100 + tricks(east, notrumps)")
    ctx = Context(HandBatch(SUITED[None]), tricks=dd.TricksCache())
    assert Evaluator().values(script.condition, ctx).tolist() == [1300]
