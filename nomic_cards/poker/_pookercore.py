"""What Pooker's Poker Hands are made of, shared by :mod:`nomic_cards.poker.pookerhands` and
its optimisers: the categories in order of precedence, the runs, the category of a hand, and the
result type. No checking here: the public functions check their input first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: the categories, the first statement that applies taking precedence (rule 397)
CATEGORIES: tuple[str, ...] = (
    "five-of-a-kind", "royal-flush", "straight-flush", "four-of-a-kind", "full-house",
    "flush", "straight", "three-of-a-kind", "two-pair", "one-pair", "high-card")

#: the five rank sets (as 0 = deuce ... 12 = ace) that make a straight; the wheel A2345 first
STRAIGHTS: tuple[tuple[int, ...], ...] = (
    (12, 0, 1, 2, 3), *(tuple(range(lo, lo + 5)) for lo in range(9)))
_STRAIGHT_SETS = frozenset(frozenset(s) for s in STRAIGHTS)
_ROYAL = frozenset(range(8, 13))


def category_of(codes: Sequence[int]) -> str:
    """The category of 1 to 5 valid codes (unchecked)."""
    n = len(codes)
    ranks = [c % 13 for c in codes]
    by_rank: dict[int, int] = {}
    for r in ranks:
        by_rank[r] = by_rank.get(r, 0) + 1
    shape = sorted(by_rank.values(), reverse=True)
    if n == 5:
        one_suit = len({c // 13 for c in codes}) == 1
        straight = len(by_rank) == 5 and frozenset(by_rank) in _STRAIGHT_SETS
        if shape[0] == 5:
            return "five-of-a-kind"
        if one_suit and straight:
            return "royal-flush" if frozenset(by_rank) == _ROYAL else "straight-flush"
        if shape[0] == 4:
            return "four-of-a-kind"
        if shape == [3, 2]:
            return "full-house"
        if one_suit:
            return "flush"
        if straight:
            return "straight"
    if shape[0] >= 4:
        return "four-of-a-kind"
    if shape[0] == 3:
        return "three-of-a-kind"
    if shape[0] == 2:
        return "two-pair" if len(shape) > 1 and shape[1] == 2 else "one-pair"
    return "high-card"



@dataclass(frozen=True)
class Arrangement:
    """Poker Hands made of some of the given cards: ``hands`` are tuples of indices into the
    input, and ``score`` their total Score. Cards in no hand are not shown."""

    score: int
    hands: tuple[tuple[int, ...], ...]
