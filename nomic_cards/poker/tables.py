"""The dynamic programs behind the shipped tables (numpy): the generator's reference.

:mod:`nomic_cards.poker.generate` runs them and writes the results into the package; the
evaluators read those files and never build these tables at run time.

Two facts make wild cards as cheap as natural hands:

* the best hand a set of *natural* cards can make with ``w`` wild cards depends only on the
  naturals (a wild card may be any card not in the hand, or a card of no particular suit for
  five of a kind) -- not on which cards the game declares wild;
* it splits into a non-flush part that depends only on the naturals' rank multiset, and a flush
  part that depends only on the set of ranks held in one suit.

So each game ("scale") gets

``G[N]``
    indexed by the rank multiset of the naturals (any size up to 7, up to 7 of a rank): the best
    non-flush value of an ``N``-card hand holding those naturals and ``N - size`` wild cards.
    Built from the 5-card values by two dynamic programs: *add a wild card* (max over the 13
    ranks it can take) and *drop a card* (max over the cards a best five can leave out).
``FLK[k]``
    indexed by a 13-bit rank set of one suit: the best flush using ``k`` of those ranks and
    ``5 - k`` wild cards (-1 when fewer than ``k`` ranks).

A rank multiset is read from the cards as ``K = sum 8**D``; ``DL[K & 0x1FFFFF] + OFF[K >> 21]``
numbers the multisets of size 0...7 densely (77520 of them): ``DL`` numbers the part in ranks
2...8 by size, ``OFF`` gives each part in ranks 9...A the start of its block.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
from numpy.typing import NDArray

from nomic_cards.poker.classes import Scale, scale

MAX_NATURALS = 7
LO_RANKS = 7
LO_MASK = (1 << (3 * LO_RANKS)) - 1
NONE = -1
P8 = np.array([8 ** d for d in range(13)], dtype=np.int64)


@dataclass(frozen=True)
class MultisetIndex:
    """Dense numbering of rank multisets of size 0...7 (see the module docstring)."""

    dl: NDArray[np.int32]
    off: NDArray[np.int32]
    counts: NDArray[np.int8]  # (77520, 13): the multiset of each index
    keys: NDArray[np.int64]  # packed key of each index
    sizes: NDArray[np.int8]

    def index(self, keys: NDArray[np.int64]) -> NDArray[np.int32]:
        out: NDArray[np.int32] = self.dl[keys & LO_MASK] + self.off[keys >> (3 * LO_RANKS)]
        return out


def _parts(nranks: int) -> list[tuple[int, ...]]:
    """Count vectors over ``nranks`` ranks with total 0...7, ordered by total."""
    out: list[tuple[int, ...]] = []
    for size in range(MAX_NATURALS + 1):
        for ms in combinations_with_replacement(range(nranks), size):
            c = [0] * nranks
            for r in ms:
                c[r] += 1
            out.append(tuple(c))
    return out


@cache
def multiset_index() -> MultisetIndex:
    lo = np.array(_parts(LO_RANKS), dtype=np.int64)
    hi = np.array(_parts(13 - LO_RANKS), dtype=np.int64)
    lo_size, hi_size = lo.sum(1), hi.sum(1)
    lo_key = lo @ P8[:LO_RANKS]
    hi_key = hi @ P8[: 13 - LO_RANKS]
    upto = np.array([(lo_size <= s).sum() for s in range(MAX_NATURALS + 1)])
    block = upto[MAX_NATURALS - hi_size]
    start = np.concatenate([[0], np.cumsum(block)[:-1]])
    dl = np.zeros(1 << (3 * LO_RANKS), dtype=np.int32)
    dl[lo_key] = np.arange(len(lo), dtype=np.int32)
    off = np.zeros(1 << (3 * (13 - LO_RANKS)), dtype=np.int32)
    off[hi_key] = start.astype(np.int32)
    total = int(block.sum())
    hi_of = np.repeat(np.arange(len(hi)), block)
    lo_of = np.arange(total) - np.repeat(start, block)
    counts = np.concatenate([lo[lo_of], hi[hi_of]], axis=1)
    keys = counts @ P8
    return MultisetIndex(dl, off, counts.astype(np.int8), keys, counts.sum(1).astype(np.int8))


def _popcount(n: int) -> NDArray[np.int8]:
    b = np.arange(n)
    pc = np.zeros(n, dtype=np.int8)
    for i in range(13):
        pc += ((b >> i) & 1).astype(np.int8)
    return pc


POP = _popcount(1 << 13)


@dataclass(frozen=True)
class ScaleTables:
    """The numpy tables of one game (see the module docstring)."""

    scale: Scale
    nfw: NDArray[np.int16]  # best non-flush value of up to 5 naturals completed by wild cards
    flw: NDArray[np.int16] | None  # best flush completion of a rank set of size <= 5
    flk: NDArray[np.int16] | None  # (6 * 8192): best flush from k of a suit's ranks
    fl5: NDArray[np.int16] | None  # natural 5-rank flush values (27: no wild completion)
    g: dict[int, NDArray[np.int16]]  # N -> G[N]


def _nfw(sc: Scale, ix: MultisetIndex) -> NDArray[np.int16]:
    nfw = np.full(len(ix.keys), NONE, dtype=np.int16)
    k5 = np.fromiter(sc.nf5.keys(), dtype=np.int64, count=len(sc.nf5))
    v5 = np.fromiter(sc.nf5.values(), dtype=np.int16, count=len(sc.nf5))
    nfw[ix.index(k5)] = v5
    for size in range(4, -1, -1):
        rows = np.nonzero(ix.sizes == size)[0]
        child = ix.index(ix.keys[rows][:, None] + P8[None, :])
        nfw[rows] = nfw[child].max(axis=1)
    return nfw


def _drop(d: NDArray[np.int16], ix: MultisetIndex, sizes: range) -> NDArray[np.int16]:
    """Best over dropping one card: out[M] = max over ranks r in M of d[M - r]."""
    out = np.full_like(d, NONE)
    for size in sizes:
        rows = np.nonzero(ix.sizes == size)[0]
        has = ix.counts[rows] > 0
        keys = np.where(has, ix.keys[rows][:, None] - P8[None, :], 0)
        vals = np.where(has, d[ix.index(keys)], NONE)
        out[rows] = vals.max(axis=1)
    return out


def _g(nfw: NDArray[np.int16], ix: MultisetIndex, n: int) -> NDArray[np.int16]:
    drop = n - 5
    d = nfw
    for j in range(1, drop + 1):
        d = _drop(d, ix, range(j, 6 + j))
    g = d.copy()
    g[ix.sizes < drop] = nfw[0]  # five wild cards and no natural: index 0 is the empty set
    g[ix.sizes > n] = NONE
    return g


def _flush_tables(fl5: dict[int, int]) -> tuple[NDArray[np.int16], NDArray[np.int16]]:
    flw = np.full(1 << 13, NONE, dtype=np.int16)
    bits = np.fromiter(fl5.keys(), dtype=np.int64, count=len(fl5))
    flw[bits] = np.fromiter(fl5.values(), dtype=np.int16, count=len(fl5))
    allb = np.arange(1 << 13)
    pc = POP
    for p in range(4, -1, -1):
        rows = allb[pc == p]
        best = np.full(len(rows), NONE, dtype=np.int16)
        for r in range(13):
            child = rows | (1 << r)
            ok = (rows >> r) & 1 == 0
            best = np.where(ok, np.maximum(best, flw[child]), best)
        flw[rows] = best
    flk = np.full((6, 1 << 13), NONE, dtype=np.int16)
    for k in range(6):
        flk[k, pc == k] = flw[pc == k]
        for p in range(k + 1, 14):
            rows = allb[pc == p]
            best = np.full(len(rows), NONE, dtype=np.int16)
            for r in range(13):
                ok = (rows >> r) & 1 == 1
                best = np.where(ok, np.maximum(best, flk[k, rows & ~(1 << r)]), best)
            flk[k, rows] = best
    return flw, flk.reshape(-1)


@cache
def tables(game: str) -> ScaleTables:
    """The tables of a game (built on first use, then cached)."""
    sc = scale(game)
    ix = multiset_index()
    nfw = _nfw(sc, ix)
    flw = flk = fl5 = None
    if sc.fl5 is not None:
        if sc.flush_best:
            flw, flk = _flush_tables(sc.fl5)
        fl5 = np.full(1 << 13, NONE, dtype=np.int16)
        fl5[np.fromiter(sc.fl5.keys(), dtype=np.int64)] = np.fromiter(sc.fl5.values(),
                                                                      dtype=np.int16)
    return ScaleTables(sc, nfw, flw, flk, fl5, {5: nfw})


def g_table(game: str, n: int) -> NDArray[np.int16]:
    """``G[n]`` for ``n`` = 5, 6 or 7 cards (cached on the game's tables)."""
    t = tables(game)
    if n not in t.g:
        t.g[n] = _g(t.nfw, multiset_index(), n)
    return t.g[n]
