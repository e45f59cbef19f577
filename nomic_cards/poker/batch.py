"""Batch evaluation with numpy: blocks of rows through small lookup tables.

Each card contributes one int64 to a per-hand key (two adjacent cards of a ``uint8`` row are read
together as one little-endian ``uint16`` and looked up in a 65,536-entry pair table, which halves
the lookups). The key holds, from bit 0:

==========  ===========================================================================
bits 0-11   the ``A`` part of the naturals' rank multiset (:mod:`nomic_cards.poker.layout`)
bits 12-23  the ``B`` part
bits 24-26  cards outside the ``C`` ranks, wild cards included: ``N - |C part|``
bits 27-42  the cards of each suit, 4 bits a suit starting at 3 (bit 3 set: a flush is possible)
bits 43-45  wild cards
bits 46-60  the ``C`` part
==========  ===========================================================================

so the dense index of the multiset is ``SC[N][key >> 46] + OB[(key >> 12) & 0x7fff] +
DA[key & 0xfff]`` and the value ``G[N][index]`` (tables shipped with the package, read through
:mod:`nomic_cards.poker.shipped`). Only hands with a suit reaching five look at the flush table.
Rows go through in blocks of :data:`BLOCK`, so the temporary arrays stay in the cache and the
memory a batch needs beyond its input and output is a few megabytes whatever its size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.errors import InputError
from nomic_cards.poker import layout
from nomic_cards.poker.classes import GAMES
from nomic_cards.poker.codes import JOKER, WildSet, parse_cards, wild_set
from nomic_cards.poker.shipped import game_tables

BLOCK = 1 << 15
SUIT_SHIFT, WILD_SHIFT, C_SHIFT = 27, 43, 46
COUNTER = 1 << layout.COUNTER_SHIFT
SUIT_START = sum(3 << (SUIT_SHIFT + 4 * s) for s in range(4))
SUITED = sum(8 << (SUIT_SHIFT + 4 * s) for s in range(4))
FLUSH_ROW = 8192


@dataclass(frozen=True)
class _Tables:
    g: dict[int, NDArray[np.int16]]
    flk: NDArray[np.int16] | None
    fl5: NDArray[np.int16] | None


@cache
def _tables(game: str) -> _Tables:
    gt = game_tables(game)
    raw = gt.raw()

    def arr(name: str) -> NDArray[np.int16] | None:
        at, n = gt.span(name)
        return np.frombuffer(raw, dtype="<i2", count=n, offset=at) if n else None

    g = {n: arr(f"g{n}") for n in layout.SIZES}
    flush_best = game != "27"
    return _Tables({n: a for n, a in g.items() if a is not None},
                   arr("flk") if flush_best else None, None if flush_best else arr("fl5"))


@cache
def _index() -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``DA`` and ``OB`` of :mod:`nomic_cards.poker.layout` as arrays over the raw fields."""
    da = np.zeros(layout.A_MASK + 1, dtype=np.intp)
    for k, i in layout.da().items():
        da[k] = i
    ob = np.zeros((layout.MAX_NATURALS + 1) << 12, dtype=np.intp)
    for beta, starts in enumerate(layout.ob()):
        for b, at in starts.items():
            ob[(beta << 12) + b] = at
    return da, ob


@cache
def _sc(n: int) -> NDArray[np.intp]:
    """``SC[n]`` as an array over the raw ``C`` field."""
    sc = np.zeros(layout.C_MASK + 1, dtype=np.intp)
    for c, at in layout.sc(n).items():
        sc[c] = at
    return sc


@cache
def _keys(wild: WildSet) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Per code 0...255: the card's key, the key of each pair (``lo + 256 * hi``), and its bit
    ``1 << (13 * S + D)`` (0 for wild cards)."""
    single = np.zeros(256, dtype=np.int64)
    bit = np.zeros(256, dtype=np.int64)
    wild_key = COUNTER + sum(1 << (SUIT_SHIFT + 4 * s) for s in range(4)) + (1 << WILD_SHIFT)
    for c in range(256):
        if c >= JOKER or c in wild.cards:
            single[c] = wild_key
            continue
        d, s = c % 13, c // 13
        rank = (layout.DIGIT[d] + COUNTER if d < 8
                else (layout.DIGIT[d] >> layout.C_SHIFT) << C_SHIFT)
        single[c] = rank + (1 << (SUIT_SHIFT + 4 * s))
        bit[c] = 1 << (13 * s + d)
    pair = (single[:, None] + single[None, :]).reshape(-1)
    return single, pair, bit


def _u16(block: NDArray[np.uint8], at: int) -> NDArray[np.uint16]:
    """Bytes ``at`` and ``at + 1`` of every row of a C-contiguous block, as one uint16."""
    return np.ndarray((block.shape[0],), dtype="<u2", buffer=block, offset=at,
                      strides=(block.shape[1],))


def _block(block: NDArray[np.uint8], out: NDArray[np.int16], game: str, wild: WildSet,
           bufs: tuple[NDArray[np.int64], ...]) -> None:
    """Values of the rows of one C-contiguous uint8 block of 5 to 7 columns into ``out``."""
    m, n = block.shape
    t = _tables(game)
    single, pair, bit = _keys(wild)
    da, ob = _index()
    key, t1, t2, t3 = (b[:m] for b in bufs)
    np.take(pair, _u16(block, 0), out=key, mode="clip")
    for at in range(2, n - 1, 2):
        np.take(pair, _u16(block, at), out=t1, mode="clip")
        key += t1
    if n % 2:
        np.take(single, block[:, n - 1], out=t1, mode="clip")
        key += t1
    key += SUIT_START
    np.bitwise_and(key, layout.A_MASK, out=t1)
    np.take(da, t1, out=t2, mode="clip")
    np.right_shift(key, layout.B_SHIFT, out=t1)
    t1 &= 0x7FFF
    np.take(ob, t1, out=t3, mode="clip")
    t2 += t3
    np.right_shift(key, C_SHIFT, out=t1)
    np.take(_sc(n), t1, out=t3, mode="clip")
    t2 += t3
    np.take(t.g[n], t2, out=out, mode="clip")
    if t.flk is None and t.fl5 is None:
        return
    np.bitwise_and(key, SUITED, out=t1)
    cand = np.flatnonzero(t1)
    if cand.size == 0:
        return
    mask = np.bitwise_or.reduce(bit[block[cand]], axis=1)
    w = (key[cand] >> WILD_SHIFT) & 7
    if t.flk is not None:
        row = (5 - np.minimum(w, 5)) * FLUSH_ROW
        best = t.flk[row + (mask & 0x1FFF)]
        for s in range(1, 4):
            best = np.maximum(best, t.flk[row + ((mask >> (13 * s)) & 0x1FFF)])
        out[cand] = np.maximum(out[cand], best)
    elif t.fl5 is not None and n == 5:  # deuce-to-seven: a natural flush counts against
        bits = (mask | (mask >> 13) | (mask >> 26) | (mask >> 39)) & 0x1FFF
        f = np.where(w == 0, t.fl5[bits], -1)
        out[cand] = np.where(f >= 0, f, out[cand])


def _run(n_rows: int, n_cards: int, rows: Callable[[int, int], NDArray[np.uint8]],
         game: str, wild: WildSet) -> NDArray[np.int16]:
    out = np.empty(n_rows, dtype=np.int16)
    size = min(BLOCK, n_rows)
    bufs = tuple(np.empty(size, dtype=np.int64) for _ in range(4))
    for start in range(0, n_rows, BLOCK):
        stop = min(start + BLOCK, n_rows)
        _block(rows(start, stop), out[start:stop], game, wild, bufs)
    return out


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise InputError(f"unknown game {game!r}; games: {', '.join(GAMES)}")


def _as_codes(hands: Any) -> NDArray[np.integer[Any]]:
    if isinstance(hands, np.ndarray) and hands.dtype.kind in "iu":
        arr = hands
    else:
        rows = [parse_cards(r) for r in hands]
        if len({len(r) for r in rows}) > 1:
            raise InputError("evaluate_batch needs hands of one size")
        arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1 if rows else 5)
    if arr.ndim != 2:
        raise InputError("evaluate_batch needs a 2-d array: one hand of N cards per row")
    if arr.shape[1] < 5:
        raise InputError(f"a poker hand needs at least 5 cards, got {arr.shape[1]}")
    if arr.size and arr.dtype != np.uint8:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0:
            raise InputError(f"card codes must be 0 or more, not {lo}")
        if hi > 255:
            arr = np.minimum(arr, 255)  # every code from 52 up is a joker
    return arr


def evaluate_batch(hands: Any, *, wild: Any = None, game: str = "high") -> NDArray[np.int16]:
    """See :func:`nomic_cards.poker.evaluate.evaluate_batch`."""
    _check_game(game)
    arr = _as_codes(hands)
    ws = wild_set(wild)
    n_rows, n_cards = arr.shape
    if n_rows == 0:
        return np.zeros(0, dtype=np.int16)
    if n_cards <= 7 and (game != "27" or n_cards == 5):
        def rows(start: int, stop: int) -> NDArray[np.uint8]:
            return np.ascontiguousarray(arr[start:stop], dtype=np.uint8)

        return _run(n_rows, n_cards, rows, game, ws)
    best = np.full(n_rows, -1, dtype=np.int16)
    for sub in combinations(range(n_cards), 5):
        part = np.ascontiguousarray(arr[:, list(sub)], dtype=np.uint8)

        def five(start: int, stop: int, part: NDArray[np.uint8] = part) -> NDArray[np.uint8]:
            return part[start:stop]

        best = np.maximum(best, _run(n_rows, 5, five, game, ws))
    return best


def evaluate_columns(cols: list[NDArray[Any]], *, wild: Any = None,
                     game: str = "high") -> NDArray[np.int16]:
    """See :func:`nomic_cards.poker.evaluate.evaluate_columns`."""
    _check_game(game)
    ws = wild_set(wild)
    n_cards = len(cols)
    if n_cards > 7 or (game == "27" and n_cards != 5):
        return evaluate_batch(np.stack(cols, axis=1), wild=ws, game=game)

    def rows(start: int, stop: int) -> NDArray[np.uint8]:
        block = np.empty((stop - start, n_cards), dtype=np.uint8)
        for j, col in enumerate(cols):
            block[:, j] = col[start:stop]
        return block

    return _run(len(cols[0]), n_cards, rows, game, ws)
