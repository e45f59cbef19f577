"""First smoke checks of the randomizer library (parse, deal, exact stats)."""

from __future__ import annotations

from fractions import Fraction

from nomic_cards.randomizers import PRESETS, Randomizer, parse, stats


def test_seven_bag_deals_each_piece_once_per_bag() -> None:
    pieces = Randomizer(PRESETS["7-bag"], seed=3).take(70)
    for i in range(0, 70, 7):
        assert sorted(pieces[i:i + 7]) == list("IJLOSTZ")


def test_seven_bag_stats() -> None:
    st = stats(parse("bag of I,J,L,O,S,T,Z"), gaps=13)
    assert st.piece("I").frequency == Fraction(1, 7)
    assert st.piece("I").gap_max == 13
