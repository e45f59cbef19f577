"""Brute-force oracle: try every designation of the wild cards, keep the best five.

Independent of the lookup tables and dynamic programs: it knows only the value of a *natural*
5-card hand (from the scale's class dictionaries, which the class tests check against the paper)
and the paper's wild rule -- a wild card may be any card not already in the hand (all wild cards
different), or a card of no particular suit to make five of a kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from nomic_cards.poker.classes import FIVE_OF_A_KIND_BASE, packed_key, scale
from nomic_cards.poker.codes import JOKER, WildSet


def natural_value(faces: Sequence[int], game: str = "high") -> int:
    """Value of five natural faces (codes 0...51, repeats allowed)."""
    sc = scale(game)
    ranks = [c % 13 for c in faces]
    v = sc.nf5[packed_key(ranks)]
    suits = {c // 13 for c in faces}
    if sc.fl5 is not None and len(suits) == 1 and len(set(ranks)) == 5:
        v = sc.fl5[sum(1 << r for r in ranks)]
    return v


def _five_kind_value(rank: int, game: str) -> int:
    if game == "high":
        return FIVE_OF_A_KIND_BASE + rank
    return scale(game).nf5[packed_key([rank] * 5)]


def oracle5(codes: Sequence[int], wild: WildSet, game: str = "high") -> int:
    naturals = [c for c in codes if c < JOKER and c not in wild.cards]
    w = 5 - len(naturals)
    best = -1
    if w:
        ranks = {c % 13 for c in naturals}
        if len(ranks) <= 1:
            for r in ranks or range(13):
                best = max(best, _five_kind_value(r, game))
        free = [f for f in range(52) if f not in naturals]
        for extra in combinations(free, w):
            best = max(best, natural_value([*naturals, *extra], game))
    else:
        best = natural_value(naturals, game)
    return best


def oracle(codes: Sequence[int], wild: WildSet, game: str = "high") -> int:
    """Best over every 5-card sub-hand of ``codes``."""
    return max(oracle5(sub, wild, game) for sub in combinations(codes, 5))
