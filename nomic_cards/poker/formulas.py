"""The paper's "Computing V" section, corrected: V of a hand straight from its CV.

The paper builds V from reduction functions ``Rdc`` and a pairing function ``Two`` and leaves
the flush, one-pair and no-pair formulas (and ``Three``) unfinished. These are the formulas
completed and corrected so that they agree with the V obtained by sorting every CV (checked for
all 7462 classes in the tests); ``docs/poker.md`` lists each correction.

* ``Two(D1, D2) = 12*D1 + Rdc(D1, D2)`` (the paper prints ``13*D1``, which runs to 167).
* ``Three(D1, D2, D3) = 66*D1 + C(Rdc(D1,D2), 2) + Rdc(D1,D3)`` for singles ``D2 > D3``.
* Two pair needs its own function, ``Pairs(H, L, S) = 11*(C(H,2) + L) + Rdc(H, L, S)``.
* ``Four(D1, ..., D4) = 220*D1 + C(a,3) + C(b,2) + c`` with ``a > b > c`` the kickers reduced
  by ``D1`` (one pair).
* ``Five(D1 > ... > D5) = C(D1,5) + C(D2,4) + C(D3,3) + C(D4,2) + D5 - max(0, D1-4) - [D1=12]``
  counts the non-straight sets below (no pair and flush).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from nomic_cards.poker.classes import FIVE_OF_A_KIND_BASE, Type


def rdc(*ds: int) -> int:
    """``Rdc(D1, ..., Dn)``: ``Dn`` renumbered with the earlier denominations left out."""
    last = ds[-1]
    return last - sum(1 for d in ds[:-1] if last > d)


def two(d1: int, d2: int) -> int:
    """``Two(D1, D2)`` on 0...155 (corrected: 12, not 13, times ``D1``)."""
    return 12 * d1 + rdc(d1, d2)


def three(d1: int, d2: int, d3: int) -> int:
    """``Three(D1, D2, D3)`` on 0...857: a triple ``D1`` with singles ``D2 > D3``."""
    return 66 * d1 + comb(rdc(d1, d2), 2) + rdc(d1, d3)


def pairs(high: int, low: int, single: int) -> int:
    """Two pair on 0...857: pairs ``high > low`` and a single."""
    return 11 * (comb(high, 2) + low) + rdc(high, low, single)


def four(pair: int, k1: int, k2: int, k3: int) -> int:
    """One pair on 0...2859: a pair and kickers ``k1 > k2 > k3``."""
    a, b, c = rdc(pair, k1), rdc(pair, k2), rdc(pair, k3)
    return 220 * pair + comb(a, 3) + comb(b, 2) + c


def five(d: Sequence[int]) -> int:
    """Five different non-straight denominations (descending) on 0...1276."""
    d1, d2, d3, d4, d5 = d
    colex = comb(d1, 5) + comb(d2, 4) + comb(d3, 3) + comb(d4, 2) + d5
    return colex - max(0, d1 - 4) - (1 if d1 == 12 else 0)


def v_from_cv(cv: Sequence[int]) -> int:
    """V of a high-game CV by the corrected formulas (five of a kind: ``7462 + D``)."""
    t, d = Type(cv[0]), cv[1:]
    if t == Type.FIVE_OF_A_KIND:
        return FIVE_OF_A_KIND_BASE + d[0]
    if t == Type.STRAIGHT_FLUSH:
        return 7449 + d[0]
    if t == Type.FOUR_OF_A_KIND:
        return 7296 + two(d[0], d[1])
    if t == Type.FULL_HOUSE:
        return 7140 + two(d[0], d[1])
    if t == Type.FLUSH:
        return 5863 + five(d)
    if t == Type.STRAIGHT:
        return 5850 + d[0]
    if t == Type.THREE_OF_A_KIND:
        return 4995 + three(d[0], d[1], d[2])
    if t == Type.TWO_PAIR:
        return 4137 + pairs(d[0], d[1], d[2])
    if t == Type.ONE_PAIR:
        return 1277 + four(d[0], d[1], d[2], d[3])
    return five(d)


def paper_two(d1: int, d2: int) -> int:
    """``Two`` exactly as printed (``Rdc(D1,D2) + 13*D1``), kept to demonstrate the erratum."""
    return rdc(d1, d2) + 13 * d1
