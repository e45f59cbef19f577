"""Lookup tables over 13-bit suit masks, and the point-count tables a script configures.

Every per-suit function of the dealer language (length, a point count, losers, suit quality,
the suit's part of the Kaplan-Rubens evaluation) depends only on the holding in that suit, so
it is one table of 8192 entries indexed by the suit mask; a hand function is the sum of four
lookups. :class:`PointTables` holds the per-rank tables after ``pointcount``/``altcount``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.points import DEFAULT_TABLES as DEFAULT_TABLES
from nomic_cards.bridge.deal.points import PointTables as PointTables
from nomic_cards.bridge.deal.points import losers
from nomic_cards.bridge.language.nodes import POINT_COUNTS

I64 = NDArray[np.int64]
MASKS = np.arange(1 << 13, dtype=np.int64)
BITS = ((MASKS[:, None] >> np.arange(13)) & 1).astype(np.int64)  # (8192, 13): rank bits
POPCOUNT = BITS.sum(axis=1).astype(np.int64)

ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT = 12, 11, 10, 9, 8, 7, 6

def suit_table(per_rank: tuple[int, ...]) -> I64:
    """The table giving, for every suit mask, the sum of ``per_rank`` over its cards."""
    return BITS @ np.asarray(per_rank, dtype=np.int64)


def loser_table(tables: PointTables) -> I64:
    """Losers per suit mask, as dealer counts them
    (:func:`nomic_cards.bridge.deal.points.losers`)."""
    return np.array(losers(tables.loser_short, tables.loser_long), dtype=np.int64)


def _has(mask: int, rank: int) -> bool:
    return bool(mask >> rank & 1)


def _quality(mask: int) -> int:
    length = bin(mask).count("1")
    factor = length * 10
    higher = sum(_has(mask, r) for r in (ACE, KING, QUEEN, JACK))
    q = factor * (4 * _has(mask, ACE) + 3 * _has(mask, KING) + 2 * _has(mask, QUEEN)
                  + _has(mask, JACK))
    if length > 6:
        replace = 3 - 2 * _has(mask, QUEEN) - _has(mask, JACK)
        q += min(replace, length - 6) * factor
    else:
        if _has(mask, TEN):
            q += factor if higher > 1 or _has(mask, JACK) else factor // 2
        if _has(mask, NINE) and (higher == 2 or _has(mask, TEN) or _has(mask, EIGHT)):
            q += factor // 2
    return q


def _cccc_suit(mask: int) -> int:
    """One suit's share of Kaplan-Rubens (without the shape adjustment), dealer's c4.c."""
    length = bin(mask).count("1")
    value, higher = 0, 0
    if _has(mask, ACE):
        value += 300
        higher += 1
    if _has(mask, KING):
        value += 200 - (150 if length == 1 else 0)
        higher += 1
    if _has(mask, QUEEN):
        value += 100 - (75 if length == 1 else 0) - (25 if length == 2 else 0)
        value -= 25 if higher == 0 else 0
        higher += 1
    if _has(mask, JACK):
        value += {2: 50, 1: 25}.get(higher, 0)
        higher += 1
    if _has(mask, TEN):
        value += 25 if higher == 2 or (higher == 1 and _has(mask, NINE)) else 0
    return value + _quality(mask)


@cache
def quality_table() -> I64:
    """``quality(seat, suit)`` for every suit mask."""
    return np.array([_quality(m) for m in range(1 << 13)], dtype=np.int64)


@cache
def cccc_tables() -> tuple[I64, I64]:
    """(suit share of ``cccc``, shape points ``max(0, 3 - length) * 100``) per suit mask."""
    share = np.array([_cccc_suit(m) for m in range(1 << 13)], dtype=np.int64)
    short = np.maximum(0, 3 - POPCOUNT) * 100
    return share, short.astype(np.int64)


@cache
def colex_table() -> tuple[NDArray[np.uint16], NDArray[np.int64]]:
    """All suit masks sorted by (card count, value), and where each count starts: the i-th
    ``a``-card subset of the lowest ``b`` ranks is ``table[start[a] + i]`` for i < C(b, a)."""
    order = np.lexsort((MASKS, POPCOUNT))
    starts = np.searchsorted(POPCOUNT[order], np.arange(15))
    return MASKS[order].astype(np.uint16), starts.astype(np.int64)


def _pdep_part(bits: int) -> NDArray[np.uint16]:
    """Bit deposit on ``bits``-bit masks: ``table[r << bits | x]`` spreads the low bits of
    ``x`` onto the set bits of ``r``, lowest first."""
    r = np.repeat(np.arange(1 << bits, dtype=np.int64), 1 << bits)
    x = np.tile(np.arange(1 << bits, dtype=np.int64), 1 << bits)
    out = np.zeros(len(r), dtype=np.int64)
    left = r.copy()
    for j in range(bits):
        low = left & -left  # lowest set bit of r not yet used
        out |= np.where((x >> j) & 1, low, 0)
        left ^= low
    return out.astype(np.uint16)


@cache
def pdep_tables() -> tuple[NDArray[np.uint16], NDArray[np.uint16]]:
    """Bit deposit for suit masks in two halves: ranks 0-6 and ranks 7-12 (see
    :func:`pdep`)."""
    return _pdep_part(7), _pdep_part(6)


def pdep(remaining: NDArray[np.int64], x: NDArray[np.int64]) -> NDArray[np.uint16]:
    """Spread the low bits of ``x`` onto the set bits of the suit masks ``remaining``."""
    low_t, high_t = pdep_tables()
    rlo = remaining & 127
    nlo = POPCOUNT[rlo]
    lo = low_t[(rlo << 7) | (x & ((1 << nlo) - 1))]
    hi = high_t[((remaining >> 7) << 6) | (x >> nlo)]
    out: NDArray[np.uint16] = lo | (hi << 7)
    return out


def point_table(tables: PointTables, name: str) -> I64:
    """The per-suit-mask table of one of :data:`~nomic_cards.bridge.language.nodes.POINT_COUNTS`."""
    if name not in POINT_COUNTS:  # pragma: no cover - the parser makes only these
        raise KeyError(name)
    return suit_table(tables.table(name))
