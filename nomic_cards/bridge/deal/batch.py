"""Batches of bridge deals as suit masks, dealt seat by seat only where a script looks.

A batch stores, for each of ``n`` deals, a 13-bit mask per seat and suit
(:attr:`HandBatch.masks`, shape ``(n, 4 seats N E S W, 4 suits S H D C)``, ``uint16``, bit
``r`` = rank ``r`` with 0 the deuce). :class:`HandBatch` is the plain, fully given kind that
the evaluator accepts from anywhere; :class:`LazyDeals` deals a seat's cards for a set of
deals the first time something asks for them.

Dealing one seat is exact and unbiased: with ``K`` cards left and ``k`` slots to fill, one
uniform integer in ``[0, C(K, k))`` (:func:`below`, on PCG64's raw words) is decoded into a
``k``-subset of the ``K`` cards — by mixed radix over blocks of 13 card positions, lookup
tables of subsets in colex order, and a bit-deposit table that places the chosen positions on
the cards actually left. Each deal's seats are thus uniform given what was dealt before, so
the whole deal is distributed as if it had been shuffled at once. docs/bridge.md specifies the
stream (:mod:`nomic_cards.bridge.deal.stream`): which words become which ranks, in which seat
order, so that the compiled loop deals the same cards.
"""

from __future__ import annotations

from functools import cache
from itertools import product
from math import comb

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.tables import POPCOUNT, colex_table, pdep

U16 = NDArray[np.uint16]
I64 = NDArray[np.int64]
FULL = (1 << 13) - 1


class HandBatch:
    """``n`` deals given as masks; seats are all present (``ensure`` does nothing)."""

    def __init__(self, masks: U16, weights: NDArray[np.float64] | None = None) -> None:
        if masks.ndim != 3 or masks.shape[1:] != (4, 4):
            raise ValueError("masks must have shape (n, 4, 4)")
        self._by_seat = np.ascontiguousarray(masks.transpose(1, 2, 0), dtype=np.uint16)
        self.n = masks.shape[0]
        self.weights = weights

    @property
    def masks(self) -> U16:
        """The masks as ``(n, seat, suit)`` (a view)."""
        return self._by_seat.transpose(2, 0, 1)

    def suit(self, seat: int, suit: int, rows: I64 | None) -> U16:
        """The seat's masks in one suit for ``rows`` (all deals when ``None``)."""
        self.ensure(seat, rows)
        col = self._by_seat[seat, suit]
        out: U16 = col if rows is None else col[rows]
        return out

    def ensure(self, seat: int, rows: I64 | None) -> None:
        """Make sure the seat is dealt in ``rows``; a plain batch always is."""


class _Decoder:
    """Decodes ranks in ``[0, C(free, k))`` into ``k``-subsets of ``free`` card positions.

    The positions form blocks of 13 (the last one shorter). A rank first picks how many cards
    each block gets (a pattern, weighted by its number of subsets), then one subset per block
    by mixed radix. The pattern is found through a table of rank buckets, with an exact
    binary search only for the rare ranks whose bucket straddles two patterns.
    """

    def __init__(self, free: int, k: int) -> None:
        blocks = [13] * (free // 13) + ([free % 13] if free % 13 else [])
        pats = [p for p in product(*(range(b + 1) for b in blocks)) if sum(p) == k]
        counts = np.array([[comb(b, a) for a, b in zip(p, blocks, strict=True)] for p in pats],
                          dtype=np.int64).reshape(len(pats), len(blocks))
        sizes = np.prod(counts, axis=1)
        self.total = comb(free, k)
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        _, cstart = colex_table()
        arr = np.array(pats, dtype=np.int64).reshape(len(pats), len(blocks))
        self.counts = [np.ascontiguousarray(counts[:, b]) for b in range(len(blocks))]
        self.bases = [np.ascontiguousarray(cstart[arr[:, b]]) for b in range(len(blocks))]
        self.shift = max(0, self.total.bit_length() - 16)
        edges = np.arange(((self.total - 1) >> self.shift) + 2, dtype=np.int64) << self.shift
        first = np.searchsorted(self.starts, edges[:-1], side="right") - 1
        last = np.searchsorted(self.starts, np.minimum(edges[1:], self.total) - 1,
                               side="right") - 1
        self.bucket = first.astype(np.int64)
        self.mixed = first != last

    def decode(self, r: I64) -> list[U16]:
        """Per block, the 13-bit mask of chosen positions."""
        bucket = r >> self.shift
        which = self.bucket[bucket]
        odd = np.flatnonzero(self.mixed[bucket])
        if len(odd):
            which[odd] = np.searchsorted(self.starts, r[odd], side="right") - 1
        r = r - self.starts[which]
        colex, _ = colex_table()
        out = []
        for counts, bases in zip(self.counts, self.bases, strict=True):
            r, sub = np.divmod(r, counts[which])
            out.append(colex[bases[which] + sub])
        return out


@cache
def _decoder(free: int, k: int) -> _Decoder:
    return _Decoder(free, k)


_LOW = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


def _mul128(x: NDArray[np.uint64], s: NDArray[np.uint64]) -> tuple[NDArray[np.uint64],
                                                                     NDArray[np.uint64]]:
    """The high and low words of the 128-bit products ``x * s``, from 32-bit halves."""
    xl, xh, sl, sh = x & _LOW, x >> _32, s & _LOW, s >> _32
    ll, lh, hl = xl * sl, xl * sh, xh * sl
    mid = (ll >> _32) + (lh & _LOW) + (hl & _LOW)
    return xh * sh + (lh >> _32) + (hl >> _32) + (mid >> _32), (ll & _LOW) | (mid << _32)


def below(bits: np.random.BitGenerator, bound: int | I64, size: int | None = None) -> I64:
    """Uniform integers in ``[0, bound)`` (``bound`` one integer and ``size`` values, or an
    array of bounds), one after another from the raw 64-bit words of ``bits``: Lemire's method
    as :func:`nomic_cards.bridge.deal.stream.lemire` specifies it (a bound of 1 draws nothing)."""
    bounds = np.asarray(bound, dtype=np.int64)
    if size is not None:
        bounds = np.broadcast_to(bounds, (size,))
    out = np.zeros(len(bounds), dtype=np.int64)
    todo = np.flatnonzero(bounds > 1)
    if not len(todo):
        return out
    s = bounds[todo].astype(np.uint64)
    threshold = (np.zeros_like(s) - s) % s  # 2**64 mod s
    got = np.empty(len(s), dtype=np.uint64)
    buf = np.empty(0, dtype=np.uint64)
    i = 0
    while i < len(s):  # rejections are rare (below 2**-20 a word for the bounds used)
        need = len(s) - i
        if len(buf) < need:
            buf = np.concatenate((buf, bits.random_raw(need - len(buf))))
        hi, lo = _mul128(buf[:need], s[i:])
        bad = np.flatnonzero(lo < threshold[i:])
        ok = int(bad[0]) if len(bad) else need
        got[i:i + ok] = hi[:ok]
        i += ok
        buf = buf[ok + 1:]  # past the rejected word: the same value draws the next one
    out[todo] = got.astype(np.int64)
    return out


def choose_blocks(ranks: I64, free: int, k: int) -> list[U16]:
    """The ``k``-subsets of positions ``0 .. free-1`` whose ranks (in ``[0, C(free, k))``)
    are ``ranks``, as one 13-bit mask per block of 13 positions."""
    nblocks, size = (free + 12) // 13, len(ranks)
    if k == 0 or size == 0:
        return [np.zeros(size, dtype=np.uint16) for _ in range(nblocks)]
    if k == free:
        return [np.full(size, (1 << min(13, free - 13 * b)) - 1, dtype=np.uint16)
                for b in range(nblocks)]
    return _decoder(free, k).decode(ranks)


def choose_positions(ranks: I64, free: int, k: int) -> NDArray[np.uint64]:
    """The ``k``-subsets of positions ``0 .. free-1`` of ``ranks`` as bit sets."""
    out = np.zeros(len(ranks), dtype=np.uint64)
    for b, bits in enumerate(choose_blocks(ranks, free, k)):
        out |= bits.astype(np.uint64) << np.uint64(13 * b)
    return out


def deposit(positions: NDArray[np.uint64], remaining: U16) -> U16:
    """Place a set of positions on the cards left: ``remaining`` is ``(4, m)`` suit masks
    (spades first), positions count the cards left suit by suit, lowest rank first.
    Returns the ``(4, m)`` masks of the chosen cards."""
    out = np.empty_like(remaining)
    pos = positions.astype(np.int64)  # at most 52 bits
    for s in range(4):
        rem = remaining[s].astype(np.int64)
        m = POPCOUNT[rem]
        out[s] = pdep(rem, pos & ((1 << m) - 1))
        pos >>= m
    return out


class LazyDeals(HandBatch):
    """``n`` random deals from the raw words of ``bits``, as docs/bridge.md specifies them.

    ``predeal`` gives each seat's predealt cards as ``(4 seats, 4 suits)`` masks; ``order``
    is the order the seats are dealt in (:func:`nomic_cards.bridge.deal.stream.seat_order`);
    ``placed`` the hands of its first seat, drawn already (by a smart stacker), as ``(n, 4)``
    masks. The ranks of every seat are drawn at once, seat after seat in ``order``; a seat's
    cards are decoded from its rank (after the seats before it) only where something looks.
    """

    def __init__(self, n: int, bits: np.random.BitGenerator, predeal: U16 | None = None,
                 order: tuple[int, ...] = (0, 1, 2, 3), placed: U16 | None = None) -> None:
        self.n = n
        self.weights = None
        pre = np.zeros((4, 4), dtype=np.uint16) if predeal is None else predeal
        self.order = order
        self.pos = [order.index(s) for s in range(4)]
        self.free = [13 - int(POPCOUNT[pre[seat]].sum()) for seat in range(4)]
        self.left_n = [sum(self.free[s] for s in order[q:]) for q in range(4)]
        self._by_seat = (np.repeat(pre[:, :, None], n, axis=2) if pre.any()
                         else np.zeros((4, 4, n), dtype=np.uint16))
        self._left = np.zeros((4, n), dtype=np.uint16)  # cards not yet placed, per suit
        self._left[:] = (FULL & ~np.bitwise_or.reduce(pre, axis=0))[:, None]
        self._depth = np.zeros(n, dtype=np.uint8)  # seats of ``order`` dealt so far
        start = 0
        if placed is not None:
            chosen = np.ascontiguousarray(placed.T, dtype=np.uint16) & self._left
            self._by_seat[order[0]] |= chosen
            self._left &= ~chosen
            self._depth[:] = start = 1
        self._ranks = [np.zeros(0, dtype=np.int64)] * start + [
            below(bits, comb(self.left_n[q], self.free[order[q]]), n) for q in range(start, 4)]
        self._all_dealt = False

    def ensure(self, seat: int, rows: I64 | None) -> None:
        if self._all_dealt:
            return
        p = self.pos[seat]
        depth = self._depth.copy() if rows is None else self._depth[rows]
        low = int(depth.min()) if len(depth) else 4
        if low > p:
            return
        if rows is None and (depth == low).all():
            for q in range(low, p + 1):
                self._deal(q, None)
            self._all_dealt = p == 3
            return
        todo = np.arange(self.n) if rows is None else rows
        for q in range(low, p + 1):  # rows short of q were brought up to it by now
            self._deal(q, todo[depth <= q])

    def _deal(self, q: int, rows: I64 | None) -> None:
        seat, k, left_n = self.order[q], self.free[self.order[q]], self.left_n[q]
        sel: slice | I64 = slice(None) if rows is None else rows
        if k == left_n:  # the last seat gets the cards left (nothing is drawn)
            chosen = self._left[:, sel].copy()
        elif k == 0:
            chosen = np.zeros_like(self._left[:, sel])
        elif left_n == 52:  # nothing dealt or predealt: positions are the cards themselves
            chosen = np.stack(choose_blocks(self._ranks[q][sel], 52, k))
        else:
            pos = choose_positions(self._ranks[q][sel], left_n, k)
            chosen = deposit(pos, self._left[:, sel])
        self._by_seat[seat][:, sel] |= chosen
        self._left[:, sel] &= ~chosen
        self._depth[sel] = q + 1

    def complete(self, rows: I64 | None) -> None:
        """Deal every seat still undealt in ``rows`` (all deals when ``None``)."""
        self.ensure(self.order[3], rows)
