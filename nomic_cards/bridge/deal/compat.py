"""Debian dealer's deals, reproduced deal for deal: glibc ``random()`` and dealer's shuffle.

Debian builds dealer with ``-DSTD_RAND``, so ``srand(seed)``/``rand()`` are glibc's TYPE_3
additive generator: 31 words seeded by ``16807 * x mod (2**31 - 1)``, ``r[i] = r[i-3] +
r[i-31] mod 2**32``, 310 outputs discarded, each output ``r >> 1``. Dealer shuffles its 52-card
array *in place, deal after deal* (each deal starts from the previous one): for each position
``i`` not predealt it swaps with position ``j = zero52[rand() & 0xFFFF]``, a table listing the
free positions cyclically and marking the last incomplete cycle for a redraw. With ``-2``/``-3``
the deals between shuffles swap whole hands (E-W, or E, S, W every way).

:class:`DealerShuffle` produces these deals in bulk. The generator is linear, so a block of
``L`` outputs is a fixed matrix times the 31-word state: the states at block starts are
stepped exactly (64-bit integers, split in 16-bit halves), and the low 17 bits that the
shuffle uses are computed for many blocks at once by one floating-point matrix product (exact:
every sum stays below 2**53). The swaps of each deal form a permutation; the deals are the
running composition of those permutations, taken in blocks. :class:`GlibcRandom` is the plain
one-number-at-a-time generator, used with ``rnd()`` and as the tests' reference.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

U16 = NDArray[np.uint16]
I64 = NDArray[np.int64]
MASK32 = 0xFFFFFFFF
BLOCK = 31 * 256  # generator outputs per matrix block


def glibc_state(seed: int) -> list[int]:
    """``r[0..343]`` of glibc's TYPE_3 generator after ``srand(seed)`` (seed taken mod 2**32);
    the first output is ``r[344] >> 1``."""
    seed &= MASK32
    if seed == 0:
        seed = 1
    word = seed - (1 << 32) if seed >= 1 << 31 else seed  # glibc keeps it in an int32_t
    r = [seed]
    for _ in range(1, 31):
        hi = abs(word) // 127773 * (1 if word >= 0 else -1)  # C division truncates
        lo = word - hi * 127773
        word = 16807 * lo - 2836 * hi
        if word < 0:
            word += 2147483647
        r.append(word & MASK32)
    r.extend(r[0:3])
    for i in range(34, 344):
        r.append((r[i - 3] + r[i - 31]) & MASK32)
    return r


class GlibcRandom:
    """glibc ``rand()`` after ``srand(seed)``, one number at a time."""

    def __init__(self, seed: int) -> None:
        self.r = glibc_state(seed)[-31:]
        self.i = 0  # r[i] is the oldest of the last 31 words (a ring)

    def next(self) -> int:
        r, i = self.r, self.i
        value = (r[i] + r[(i + 28) % 31]) & MASK32
        r[i] = value
        self.i = (i + 1) % 31
        return value >> 1


@cache
def _block_matrix() -> tuple[NDArray[np.uint64], NDArray[np.float64]]:
    """(jump matrix 31x31 mod 2**32, block matrix transposed 31xBLOCK mod 2**17 as floats)."""
    rows = np.zeros((BLOCK + 31, 31), dtype=np.uint64)
    rows[:31] = np.eye(31, dtype=np.uint64)
    for i in range(31, BLOCK + 31):
        rows[i] = (rows[i - 31] + rows[i - 3]) & np.uint64(MASK32)
    block = rows[31:]
    low = (block & np.uint64((1 << 17) - 1)).astype(np.float64).T.copy()
    return block[-31:].copy(), low


class GlibcBulk:
    """glibc ``rand() & 0xFFFF`` in bulk (the only bits dealer's shuffle reads)."""

    def __init__(self, seed: int) -> None:
        self.state = np.array(glibc_state(seed)[-31:], dtype=np.uint64)
        self.buffer = np.zeros(0, dtype=np.int64)

    def _advance(self, state: NDArray[np.uint64]) -> NDArray[np.uint64]:
        jump, _ = _block_matrix()
        lo, hi = jump & np.uint64(0xFFFF), jump >> np.uint64(16)
        part_hi = (hi @ state) & np.uint64(0xFFFF)
        return ((lo @ state) + (part_hi << np.uint64(16))) & np.uint64(MASK32)

    def take(self, count: int) -> I64:
        _, low = _block_matrix()
        while len(self.buffer) < count:
            nblocks = min(128, -(-(count - len(self.buffer)) // BLOCK))
            starts = np.empty((nblocks, 31), dtype=np.uint64)
            for b in range(nblocks):
                starts[b] = self.state
                self.state = self._advance(self.state)
            start_low = (starts & np.uint64((1 << 17) - 1)).astype(np.float64)
            vals = (start_low @ low).astype(np.int64)  # exact: below 2**39
            self.buffer = np.concatenate((self.buffer, ((vals >> 1) & 0xFFFF).ravel()))
        out, self.buffer = self.buffer[:count], self.buffer[count:]
        return out


def zero52(stacked: list[bool]) -> NDArray[np.int64]:
    """Dealer's table from 16 random bits to a free position, -1 meaning draw again."""
    free = [p for p in range(52) if not stacked[p]]
    table = np.full(1 << 16, -1, dtype=np.int64)
    if not free:  # a fully predealt pack is never shuffled
        return table
    cycles = (1 << 16) // len(free)
    table[: cycles * len(free)] = np.tile(free, cycles)
    return table


def _swap_perm(p1: int, p2: int) -> NDArray[np.int64]:
    perm = np.arange(52)
    a, b = perm[13 * p1:13 * p1 + 13].copy(), perm[13 * p2:13 * p2 + 13].copy()
    perm[13 * p1:13 * p1 + 13], perm[13 * p2:13 * p2 + 13] = b, a
    return perm


_SWAPS = {1: (1, 3), 2: (2, 3), 3: (1, 2), 4: (1, 3), 5: (2, 3)}
_CARD_BITS = np.array([1 << ((3 - c // 13) * 16 + c % 13) for c in range(52)], dtype=np.uint64)


def initial_deal(predeal: list[list[tuple[int, int]]]) -> tuple[NDArray[np.int64], list[bool]]:
    """Dealer's starting array (cards numbered clubs 0-12 ... spades 39-51, as its pack)
    and which positions are predealt. ``predeal[seat]`` lists ``(suit, rank)``, spades 0."""
    deal = np.full(52, -1, dtype=np.int64)
    stacked = [False] * 52
    used: set[int] = set()
    for seat, cards in enumerate(predeal):
        for k, (suit, rank) in enumerate(cards):
            card = (3 - suit) * 13 + rank
            deal[13 * seat + k] = card
            stacked[13 * seat + k] = True
            used.add(card)
    rest = iter(c for c in range(52) if c not in used)
    for p in range(52):
        if not stacked[p]:
            deal[p] = next(rest)
    return deal, stacked


def to_masks(deals: NDArray[np.int64]) -> U16:
    """``(n, 52)`` dealer card arrays to ``(n, seat, suit)`` masks."""
    bits = _CARD_BITS[deals].reshape(len(deals), 4, 13).sum(axis=2, dtype=np.uint64)
    out: U16 = bits.view(np.uint16).reshape(len(deals), 4, 4)
    return out


class DealerShuffle:
    """Dealer's sequence of deals for a seed, predeal and swapping mode (0, 2 or 3)."""

    def __init__(self, seed: int, predeal: list[list[tuple[int, int]]], swapping: int = 0) -> None:
        self.deal, self.stacked = initial_deal(predeal)
        self.free = np.array([p for p in range(52) if not self.stacked[p]], dtype=np.int64)
        self.table = zero52(self.stacked)
        self.stream = GlibcBulk(seed)
        self.swapping = swapping
        self.swapindex = 0

    def next_deals(self, count: int) -> NDArray[np.int64]:
        """The next ``count`` deals as ``(count, 52)`` arrays of dealer card numbers."""
        kinds = []
        for _ in range(count):
            kinds.append(self.swapindex)
            if self.swapping:
                self.swapindex += 1
                if self.swapindex > (1 if self.swapping == 2 else 5):
                    self.swapindex = 0
        kinds_arr = np.array(kinds)
        perms = np.empty((count, 52), dtype=np.int64)
        real = np.flatnonzero(kinds_arr == 0)
        perms[real] = self._exact_real(len(real))
        for k, (p1, p2) in _SWAPS.items():
            perms[kinds_arr == k] = _swap_perm(p1, p2)
        out = compose_running(self.deal, perms)
        self.deal = out[-1].copy() if count else self.deal
        return out

    def _exact_real(self, count: int) -> NDArray[np.int64]:
        """Permutations of ``count`` real shuffles, drawing exactly the numbers they use."""
        if count == 0 or len(self.free) == 0:
            return np.tile(np.arange(52, dtype=np.int64), (count, 1))
        need = count * len(self.free)
        # Expected rejections are tiny; take a little more and put back what is unused.
        got = self.stream.take(need + need // 1000 + 64)
        j = self.table[got]
        ok = np.flatnonzero(j >= 0)
        while len(ok) < need:
            more = self.stream.take(need - len(ok) + 64)
            got = np.concatenate((got, more))
            j = self.table[got]
            ok = np.flatnonzero(j >= 0)
        used_upto = ok[need - 1] + 1
        self.stream.buffer = np.concatenate((got[used_upto:], self.stream.buffer))
        js = j[ok[:need]].reshape(count, len(self.free))
        perm = np.repeat(np.arange(52, dtype=np.int8)[:, None], count, axis=1)  # (52, count)
        flat = perm.reshape(-1)
        rows = np.arange(count)
        for t, i in enumerate(self.free):
            idx = js[:, t] * count + rows
            a = perm[i].copy()
            perm[i] = flat[idx]
            flat[idx] = a
        return perm.T.astype(np.int64)


def compose_running(start: NDArray[np.int64], perms: NDArray[np.int64],
                    block: int = 64) -> NDArray[np.int64]:
    """Deals ``d_t = d_{t-1}[perms[t]]`` from ``d_{-1} = start``, for every ``t``: prefix
    compositions within blocks (vectorised across blocks), then one carry per block."""
    count = len(perms)
    if count == 0:
        return np.zeros((0, 52), dtype=np.int64)
    nb = -(-count // block)
    padded = np.tile(np.arange(52, dtype=np.int64), (nb * block, 1))
    padded[:count] = perms
    acc = padded.reshape(nb, block, 52).copy()
    for t in range(1, block):
        acc[:, t] = np.take_along_axis(acc[:, t - 1], acc[:, t], axis=1)
    carry = np.empty((nb, 52), dtype=np.int64)  # origin of each slot at each block's start
    current = np.arange(52, dtype=np.int64)
    for b in range(nb):
        carry[b] = current
        current = current[acc[b, -1]]
    origin = np.take_along_axis(carry[:, None, :].repeat(block, axis=1), acc, axis=2)
    return start[origin.reshape(nb * block, 52)[:count]]


def scalar_shuffle(deal: list[int], stacked: list[bool], rng: GlibcRandom,
                   table: NDArray[np.int64]) -> None:
    """One real shuffle of ``deal`` in place, exactly as dealer does it (reference)."""
    for i in range(52):
        if stacked[i]:
            continue
        j = -1
        while j < 0:
            j = int(table[rng.next() & 0xFFFF])
        deal[i], deal[j] = deal[j], deal[i]


class ScalarDealer:
    """Dealer's deals one at a time, sharing the generator with ``rnd()`` as dealer does
    (``rnd`` draws from the same ``rand()`` stream between shuffles)."""

    def __init__(self, seed: int, predeal: list[list[tuple[int, int]]], swapping: int = 0) -> None:
        deal, self.stacked = initial_deal(predeal)
        self.deal = deal.tolist()
        self.table = zero52(self.stacked)
        self.rng = GlibcRandom(seed)
        self.swapping = swapping
        self.swapindex = 0

    def next(self) -> NDArray[np.int64]:
        """The next deal as dealer card numbers by position."""
        if self.swapindex:
            p1, p2 = _SWAPS[self.swapindex]
            d = self.deal
            d[13 * p1:13 * p1 + 13], d[13 * p2:13 * p2 + 13] = (d[13 * p2:13 * p2 + 13],
                                                                d[13 * p1:13 * p1 + 13])
        else:
            scalar_shuffle(self.deal, self.stacked, self.rng, self.table)
        if self.swapping:
            self.swapindex += 1
            if self.swapindex > (1 if self.swapping == 2 else 5):
                self.swapindex = 0
        return np.array(self.deal, dtype=np.int64)

    def rnd(self, limits: NDArray[np.int64]) -> NDArray[np.int64]:
        """dealer's ``rnd(n)``: ``(int)(n * rand() / (RAND_MAX + 1.0))``."""
        return np.array([int(float(v) * self.rng.next() / 2147483648.0) for v in limits],
                        dtype=np.int64)
