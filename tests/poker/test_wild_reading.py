"""A wild card may stand for the card it is: the paper's reading, against the strict one."""

from __future__ import annotations

from itertools import combinations

import pytest

from nomic_cards.poker import JOKER, evaluate, parse_cards, value_of, wild_set
from tests.poker.oracle import natural_value, oracle


def strict_oracle5(codes: list[int], wild: str) -> int:
    """The strict reading: a wild card may not be any card of the hand, itself included."""
    ws = wild_set(wild)
    naturals = [c for c in codes if c < JOKER and c not in ws.cards]
    free = [f for f in range(52) if f not in codes]
    return max(natural_value([*naturals, *extra])
               for extra in combinations(free, 5 - len(naturals)))


@pytest.mark.parametrize(("hand", "wild", "ours", "strict"), [
    ("Ac 5c 2c 2d 3c", "deuces", "Straight flush, five high", "Flush, A-K-Q-5-3"),
    ("Js Qs As Ks 3s", "one-eyed-jacks", "Flush, A-K-Q-J-3", "Flush, A-K-Q-10-3"),
])
def test_a_wild_card_may_stand_for_itself(hand: str, wild: str, ours: str, strict: str) -> None:
    """The paper's Gen lists the wild cards' own faces among their designations (the 2c of the
    first hand is the 2c, the 2d the 4c); read strictly, "not already in the hand" would bar the
    wild card's own face and value these hands lower."""
    codes = parse_cards(hand)
    hv = evaluate(hand, wild=wild)
    assert hv is not None and hv.label == ours
    assert hv.v == oracle(codes, wild_set(wild), "high")
    assert value_of(strict_oracle5(codes, wild)).label == strict
