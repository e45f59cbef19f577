"""Batches of bridge deals as suit masks, dealt seat by seat only where a script looks.

A batch stores, for each of ``n`` deals, a 13-bit mask per seat and suit
(:attr:`HandBatch.masks`, shape ``(n, 4 seats N E S W, 4 suits S H D C)``, ``uint16``, bit
``r`` = rank ``r`` with 0 the deuce). :class:`HandBatch` is the plain, fully given kind that
the evaluator accepts from anywhere; :class:`LazyDeals` deals a seat's cards for a set of
deals the first time something asks for them.

Dealing one seat is exact and unbiased: with ``K`` cards left and ``k`` slots to fill, one
uniform integer in ``[0, C(K, k))`` (numpy's unbiased bounded integers) is decoded into a
``k``-subset of the ``K`` cards — by mixed radix over blocks of 13 card positions, lookup
tables of subsets in colex order, and a bit-deposit table that places the chosen positions on
the cards actually left. Each deal's seats are thus uniform given what was dealt before, so a
seat dealt later (only for the deals still in the running) is distributed as if the whole deal
had been shuffled at once.
"""

from __future__ import annotations

from functools import cache
from itertools import product
from math import comb

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.tables import POPCOUNT, colex_table, pdep

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


def choose_blocks(rng: np.random.Generator, free: int, k: int, size: int) -> list[U16]:
    """``size`` uniformly random ``k``-subsets of positions ``0 .. free-1``, as one 13-bit
    mask per block of 13 positions."""
    nblocks = (free + 12) // 13
    if k == 0 or size == 0:
        return [np.zeros(size, dtype=np.uint16) for _ in range(nblocks)]
    if k == free:
        return [np.full(size, (1 << min(13, free - 13 * b)) - 1, dtype=np.uint16)
                for b in range(nblocks)]
    dec = _decoder(free, k)
    return dec.decode(rng.integers(0, dec.total, size=size, dtype=np.int64))


def choose_positions(rng: np.random.Generator, free: int, k: int, size: int) -> NDArray[np.uint64]:
    """``size`` uniformly random ``k``-subsets of positions ``0 .. free-1`` as bit sets."""
    out = np.zeros(size, dtype=np.uint64)
    for b, bits in enumerate(choose_blocks(rng, free, k, size)):
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
    """``n`` random deals from ``rng``, each seat dealt the first time it is needed.

    ``predeal`` gives each seat's predealt cards as ``(4 seats, 4 suits)`` masks; the other
    cards are dealt uniformly among the free slots.
    """

    def __init__(self, n: int, rng: np.random.Generator, predeal: U16 | None = None) -> None:
        self.n = n
        self.rng = rng
        self.weights = None
        pre = np.zeros((4, 4), dtype=np.uint16) if predeal is None else predeal
        self.predeal = pre
        self.free = [13 - int(POPCOUNT[pre[seat]].sum()) for seat in range(4)]
        self._by_seat = (np.repeat(pre[:, :, None], n, axis=2) if pre.any()
                         else np.zeros((4, 4, n), dtype=np.uint16))
        self._left = np.zeros((4, n), dtype=np.uint16)  # cards not yet placed, per suit
        self._left[:] = (FULL & ~np.bitwise_or.reduce(pre, axis=0))[:, None]
        self._dealt = np.zeros(n, dtype=np.uint8)  # bit s: seat s dealt
        self._all_dealt = False

    def ensure(self, seat: int, rows: I64 | None) -> None:
        if self._all_dealt:
            return
        bit = np.uint8(1 << seat)
        state = self._dealt if rows is None else self._dealt[rows]
        need = (state & bit) == 0
        if not need.any():
            return
        if rows is None and need.all() and (state == state[0]).all():
            self._deal(seat, None, int(state[0]))
        else:
            todo = np.arange(self.n) if rows is None else rows
            todo = todo[need]
            states = self._dealt[todo]
            for st in np.flatnonzero(np.bincount(states, minlength=16)):  # states seen
                self._deal(seat, todo[states == st], int(st))
        if rows is None and (self._dealt == 15).all():
            self._all_dealt = True

    def _deal(self, seat: int, rows: I64 | None, state: int) -> None:
        left_n = sum(self.free[s] for s in range(4) if not state >> s & 1)
        k = self.free[seat]
        size = self.n if rows is None else len(rows)
        sel: slice | I64 = slice(None) if rows is None else rows
        if left_n == 52:  # nothing dealt or predealt: positions are the cards themselves
            chosen = np.stack(choose_blocks(self.rng, 52, k, size))
        elif k == left_n:  # the last seat gets the cards left (nothing is drawn)
            chosen = self._left[:, sel].copy()
        else:
            pos = choose_positions(self.rng, left_n, k, size)
            chosen = deposit(pos, self._left[:, sel])
        self._by_seat[seat][:, sel] |= chosen
        self._left[:, sel] &= ~chosen
        self._dealt[sel] |= np.uint8(1 << seat)

    def place(self, seat: int, masks: U16) -> None:
        """Give ``seat`` the hands ``masks`` (``(n, 4)`` suit masks, predealt cards included
        or not) in every deal, instead of dealing them."""
        chosen = np.ascontiguousarray(masks.T, dtype=np.uint16) & self._left
        self._by_seat[seat] |= chosen
        self._left &= ~chosen
        self._dealt |= np.uint8(1 << seat)

    def complete(self, rows: I64 | None) -> None:
        """Deal every seat still undealt in ``rows`` (all deals when ``None``), in seat
        order."""
        for seat in range(4):
            self.ensure(seat, rows)
