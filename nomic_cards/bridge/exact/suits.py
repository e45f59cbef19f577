"""One seat's exact feature table, built suit by suit.

For one suit, every one of the 8192 holdings is looked at once: its *carried* values (those the
condition reads per suit: the suit's length, points, losers, quality, a card held) and its
*contributions* to the hand's totals (length when the lengths are not all carried, points,
losers, and the number of cards of each tracked rank). Holdings with equal values form a
profile whose weight is how many holdings share it. The hand is the four suits together:
carried values are concatenated (pruned so that the lengths never pass 13), totals are
convolved on a dense grid, and in the end only hands of 13 cards are kept. Every entry of
the result counts hands exactly (64-bit integers: at most C(52, 13)).

The per-step tables are kept (:class:`SeatTable.steps`) so that a stacker can walk back from
a final entry to a uniformly chosen hand (:mod:`nomic_cards.bridge.exact.stack`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.tables import BITS, POPCOUNT

I64 = NDArray[np.int64]
MAX_CELLS = 4_000_000


@dataclass(frozen=True)
class Carried:
    """A value read per suit: ``name`` (e.g. ``len``, ``hcp``, ``card12``) in ``suit``."""

    name: str
    suit: int
    values: I64  # per suit mask


@dataclass(frozen=True)
class Total:
    """A value summed over the four suits; ``values`` per suit mask (non-negative), in units
    of ``scale`` (the table's value is ``values * scale``)."""

    name: str
    values: I64
    scale: int = 1

    @classmethod
    def of(cls, name: str, table: I64) -> Total:
        """The total of a per-mask table, in units of the greatest common divisor."""
        if int(table.min()) < 0:
            raise ValueError(f"{name} has negative values")
        g = int(np.gcd.reduce(table)) or 1
        return cls(name, (table // g).astype(np.int64), g)


@dataclass
class Profile:
    """One suit's profiles: distinct carried keys, the contribution grid of each, and for
    every suit mask its key row and flat contribution cell (to walk back to masks)."""

    keys: I64  # (m, c)
    grid: I64  # (m, *sizes)
    mask_key: I64  # (8192,)
    mask_cell: I64  # (8192,)


@dataclass
class SeatTable:
    """The final table: ``keys`` (rows x carried columns), ``grid`` (rows x ``totals`` axes;
    the length total, when there was one, is gone: it is 13). ``steps`` and ``profiles``
    record each suit's combination over the axes of ``step_totals``."""

    carried: list[Carried]
    totals: list[Total]
    step_totals: list[Total]
    keys: I64
    grid: I64
    steps: list[tuple[I64, I64, I64, I64]] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)


def _profile(suit: int, carried: list[Carried], totals: list[Total],
             sizes: tuple[int, ...]) -> Profile:
    mine = [c.values for c in carried if c.suit == suit]
    keys = np.stack(mine, axis=1) if mine else np.zeros((8192, 0), dtype=np.int64)
    uniq, key_of = np.unique(keys, axis=0, return_inverse=True)
    key_of = key_of.reshape(-1)
    contrib = [t.values for t in totals]
    cell = np.ravel_multi_index(tuple(contrib), sizes) if contrib else np.zeros(8192, np.int64)
    flat = np.zeros((len(uniq), int(np.prod(sizes, dtype=np.int64))), dtype=np.int64)
    np.add.at(flat, (key_of, cell), 1)
    return Profile(uniq.astype(np.int64), flat.reshape((len(uniq), *sizes)),
                   key_of.astype(np.int64), np.asarray(cell, dtype=np.int64))


def build(carried: list[Carried], totals: list[Total]) -> SeatTable:
    """The hand table. If the four lengths are carried (``len`` in every suit) hands are kept
    by the key; otherwise ``totals`` must start with the ``len`` total (capped at 13)."""
    all_lengths = {c.suit for c in carried if c.name == "len"} == {0, 1, 2, 3}
    if not all_lengths and (not totals or totals[0].name != "len"):
        raise ValueError("the length total must come first when lengths are not all carried")
    per_suit_max = [int(t.values.max()) for t in totals]
    sizes = tuple(min(14, 4 * m + 1) if t.name == "len" else 4 * m + 1
                  for t, m in zip(totals, per_suit_max, strict=True))
    part = tuple(min(s, m + 1) for s, m in zip(sizes, per_suit_max, strict=True))
    cells = int(np.prod(sizes, dtype=np.int64))
    if cells > MAX_CELLS:
        raise OverflowError(f"{cells} cells")
    table = SeatTable(carried, totals, totals, np.zeros((1, 0), dtype=np.int64),
                      np.zeros((1, *sizes), dtype=np.int64))
    table.grid[(0,) + (0,) * len(sizes)] = 1
    lengths_so_far = np.zeros(1, dtype=np.int64)
    for suit in range(4):
        prof = _profile(suit, carried, totals, part)
        table.profiles.append(prof)
        ia, ib = (x.reshape(-1) for x in np.meshgrid(np.arange(len(table.keys)),
                                                      np.arange(len(prof.keys)),
                                                      indexing="ij"))
        if all_lengths:
            col = [c.name for c in carried if c.suit == suit].index("len")
            total_len = lengths_so_far[ia] + prof.keys[ib, col]
            keep = total_len == 13 if suit == 3 else total_len <= 13
            ia, ib, total_len = ia[keep], ib[keep], total_len[keep]
        grid = _convolve(table.grid[ia], prof.grid[ib], sizes)
        live = grid.reshape(len(ia), -1).any(axis=1)
        ia, ib, grid = ia[live], ib[live], grid[live]
        table.steps.append((ia, ib, table.grid, prof.grid))
        table.keys = np.concatenate([table.keys[ia], prof.keys[ib]], axis=1)
        table.grid = grid
        if all_lengths:
            lengths_so_far = total_len[live]
    if not all_lengths:
        table.grid = table.grid[:, 13]
        table.totals = totals[1:]
    return table


def _convolve(a: I64, b: I64, sizes: tuple[int, ...]) -> I64:
    """Row-wise convolution of ``a`` (rows x sizes) with ``b`` (rows x part), truncated."""
    out = np.zeros_like(a)
    support = np.argwhere(b.any(axis=0))
    rows = slice(None)
    for off in support:
        o = tuple(int(x) for x in off)
        dst = (rows,) + tuple(slice(x, s) for x, s in zip(o, sizes, strict=True))
        src = (rows,) + tuple(slice(0, s - x) for x, s in zip(o, sizes, strict=True))
        weight = b[(rows,) + o]
        out[dst] += a[src] * weight.reshape((-1,) + (1,) * len(sizes))
    return out


def rank_total(rank: int) -> Total:
    """How many cards of ``rank`` the seat holds (one axis of size 5)."""
    return Total(f"rank{rank}", BITS[:, rank].astype(np.int64))


LENGTH_TOTAL = Total("len", POPCOUNT.astype(np.int64))


def count_vectors(ranks: int) -> I64:
    """All vectors of ``ranks`` counts 0..4, in ``np.ndindex`` order."""
    return np.array(list(product(range(5), repeat=ranks)), dtype=np.int64).reshape(-1, ranks)
