"""The exact weighted table of everything a condition reads, for all its seats.

Rows are combinations of leaf values (one column per leaf of the condition); a row's weight
is the number of (deal, rnd outcomes) giving those values, and :attr:`Rows.total` is the
number of all of them, so a probability is a sum of weights over a total.

The primary seat's table comes from :mod:`nomic_cards.bridge.exact.suits`. When other seats
sum point counts, the primary seat also tracks how many cards of each counted rank it holds;
the other seats then draw from what is left, rank by rank (a multivariate hypergeometric
count: ``C(left of rank r, drawn) * ... * C(other cards left, the rest)``), one seat after
the other. ``rnd(n)`` multiplies every row by its ``n`` equally likely values.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.tables import (
    BITS,
    POPCOUNT,
    PointTables,
    cccc_tables,
    loser_table,
    point_table,
)
from nomic_cards.bridge.deal.tables import quality_table as _quality
from nomic_cards.bridge.exact.plan import Leaf, NotExact, Plan
from nomic_cards.bridge.exact.suits import (
    LENGTH_TOTAL,
    Carried,
    SeatTable,
    Total,
    count_vectors,
    rank_total,
)
from nomic_cards.bridge.language import nodes as n

I64 = NDArray[np.int64]
MAX_ROWS = 20_000_000
_COMB = np.array([[comb(a, b) for b in range(53)] for a in range(53)], dtype=np.int64)


@dataclass
class Rows:
    """Columns by ``id(leaf)``, weights (Python ints in an object array) and the total."""

    columns: dict[int, I64]
    weights: NDArray[np.object_]
    total: int


def primary_parts(leaves: list[Leaf], tables: PointTables,
                  ranks: tuple[int, ...]) -> tuple[list[Carried], list[Total]]:
    """What the primary seat's table carries per suit and sums over the hand."""
    carried: dict[tuple[str, int], Carried] = {}
    totals: dict[str, Total] = {}

    def carry(name: str, suit: int, values: I64) -> None:
        carried.setdefault((name, suit), Carried(name, suit, values))

    for leaf in leaves:
        if isinstance(leaf, n.Shape):
            for s in range(4):
                carry("len", s, POPCOUNT)
        elif isinstance(leaf, n.Length):
            carry("len", leaf.suit, POPCOUNT)
        elif isinstance(leaf, n.Points):
            values = _points(tables, leaf.count)
            if leaf.suit is not None:
                carry(leaf.count, leaf.suit, values)
            elif not ranks:
                totals.setdefault(leaf.count, Total.of(leaf.count, values))
        elif isinstance(leaf, n.Losers):
            if leaf.suit is not None:
                carry("loser", leaf.suit, loser_table(tables))
            else:
                totals.setdefault("loser", Total.of("loser", loser_table(tables)))
        elif isinstance(leaf, n.Cccc):
            share, short = cccc_tables()
            totals.setdefault("cccc", Total.of("cccc", share))
            totals.setdefault("cccc_short", Total.of("cccc_short", short))
        elif isinstance(leaf, n.HasCard):
            carry(f"card{leaf.rank}", leaf.suit, BITS[:, leaf.rank].astype(np.int64))
        elif isinstance(leaf, n.Quality):
            carry("quality", leaf.suit, _quality())
    rows = list(carried.values())
    head = [] if {c.suit for c in rows if c.name == "len"} == {0, 1, 2, 3} else [LENGTH_TOTAL]
    return rows, head + list(totals.values()) + [rank_total(r) for r in ranks]


def _points(tables: PointTables, name: str) -> I64:
    per_rank = tables.table(name)
    if min(per_rank) < 0:
        raise NotExact(f"exact probabilities need non-negative point values; {name} has "
                       f"{min(per_rank)}")
    return point_table(tables, name)


def counted_ranks(plan: Plan, tables: PointTables) -> tuple[int, ...]:
    """Ranks whose counts the seats share: those any summed point count of a seat other
    than the primary (or of the primary too, then) gives points to."""
    if not plan.secondary:
        return ()
    names = {c for cs in plan.secondary.values() for c in cs}
    names |= {x.count for x in plan.primary_leaves() if isinstance(x, n.Points)
              and x.suit is None}
    for name in names:
        _points(tables, name)
    ranks = tuple(r for r in range(13) if any(tables.table(c)[r] for c in names))
    if 5 ** len(ranks) > 3125:
        raise NotExact("exact probabilities across seats handle point counts on at most 5 "
                       f"ranks; these count {len(ranks)}")
    return ranks


def seat_rows(table: SeatTable, leaves: list[Leaf], tables: PointTables,
              ranks: tuple[int, ...]) -> tuple[dict[int, I64], I64, I64]:
    """The primary seat's rows: leaf columns, the rank-count combination index, weights."""
    nz = np.nonzero(table.grid)
    weights = table.grid[nz].astype(np.int64)
    keys = table.keys[nz[0]]
    axis = {t.name: nz[k + 1] * t.scale for k, t in enumerate(table.totals)}
    where = {(c.name, c.suit): keys[:, k] for k, c in enumerate(table.carried)}
    cols: dict[int, I64] = {}
    for leaf in leaves:
        if isinstance(leaf, n.Shape):
            allowed = np.zeros((14, 14, 14, 14), dtype=np.int64)
            for shape in leaf.shapes:
                allowed[shape] = 1
            cols[id(leaf)] = allowed[tuple(where["len", s] for s in range(4))]
        elif isinstance(leaf, n.Length):
            cols[id(leaf)] = where["len", leaf.suit]
        elif isinstance(leaf, n.Points) and leaf.suit is None:
            per_rank = tables.table(leaf.count)
            cols[id(leaf)] = (sum((per_rank[r] * axis[f"rank{r}"] for r in ranks),
                                  np.zeros(len(weights), dtype=np.int64))
                              if ranks else axis[leaf.count])
        elif isinstance(leaf, n.Points) and leaf.suit is not None:
            cols[id(leaf)] = where[leaf.count, leaf.suit]
        elif isinstance(leaf, n.Losers):
            cols[id(leaf)] = axis["loser"] if leaf.suit is None else where["loser", leaf.suit]
        elif isinstance(leaf, n.HasCard):
            cols[id(leaf)] = where[f"card{leaf.rank}", leaf.suit]
        elif isinstance(leaf, n.Quality):
            cols[id(leaf)] = where["quality", leaf.suit]
        elif isinstance(leaf, n.Cccc):  # dealer's c4.c: suit shares plus a shape adjustment
            short = axis["cccc_short"]
            cols[id(leaf)] = axis["cccc"] + np.where(short == 0, -50, short - 100)
    combo = (np.ravel_multi_index(tuple(axis[f"rank{r}"] for r in ranks), (5,) * len(ranks))
             if ranks else np.zeros(len(weights), dtype=np.int64))
    return cols, np.asarray(combo, dtype=np.int64), weights


def others(plan: Plan, tables: PointTables,
           ranks: tuple[int, ...]) -> tuple[list[tuple[int, str]], I64, I64]:
    """For every count of ranks the primary holds: the joint distribution of the other
    seats' point counts. Returns the (seat, count) columns, their values per outcome
    ``(V, k)`` and the weights ``(5**len(ranks), V)``; weights add up to the number of ways
    to deal those seats, at most C(39, 13) * C(26, 13), so 64-bit integers hold them."""
    vecs = count_vectors(len(ranks))
    nvec, width = vecs.shape
    spots = 52 - 4 * len(ranks)
    seats = sorted(plan.secondary)
    labels = [(seat, c) for seat in seats for c in plan.secondary[seat]]
    values = np.zeros((1, 0), dtype=np.int64)
    table = np.ones((nvec, 1), dtype=np.int64)
    t_idx, d_idx = (x.reshape(-1) for x in np.meshgrid(np.arange(nvec), np.arange(nvec),
                                                        indexing="ij"))
    taken, drawn = vecs[t_idx], vecs[d_idx]
    fits = (drawn <= 4 - taken).all(axis=1)
    t_idx, d_idx, taken, drawn = t_idx[fits], d_idx[fits], taken[fits], drawn[fits]
    rank_ways = np.prod(_COMB[4 - taken, drawn], axis=1) if width else np.ones(len(t_idx),
                                                                               np.int64)
    nxt = (np.ravel_multi_index(tuple((taken + drawn).T), (5,) * width)
           if width else np.zeros(len(t_idx), dtype=np.int64))
    rest = 13 - drawn.sum(axis=1)
    for level in range(len(seats), 0, -1):
        seat = seats[level - 1]
        per = np.array([[tables.table(c)[r] for r in ranks] for c in plan.secondary[seat]],
                       dtype=np.int64).reshape(-1, width)
        seat_vals = vecs @ per.T
        uniq, inv = np.unique(seat_vals, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        other_left = spots - (13 * level - taken.sum(axis=1))
        ok = (rest >= 0) & (other_left >= rest)
        ways = rank_ways[ok] * _COMB[np.maximum(other_left[ok], 0), np.maximum(rest[ok], 0)]
        out = np.zeros((nvec, len(uniq), len(values)), dtype=np.int64)
        np.add.at(out, (t_idx[ok], inv[d_idx[ok]]), ways[:, None] * table[nxt[ok]])
        values = np.concatenate([np.repeat(uniq, len(values), axis=0),
                                 np.tile(values, (len(uniq), 1))], axis=1)
        table = out.reshape(nvec, -1)
    return labels, values, table
