"""Smart stacking: deal one seat's hand directly from the hands a rare constraint allows.

For a condition such as ``hcp(north) >= 22 && ...``, rejection deals ~236 deals per keeper.
Instead, the seat's part of the condition -- the top-level ``&&`` terms that read only that
seat's shape, lengths and point counts -- is counted exactly
(:mod:`~nomic_cards.bridge.exact.suits`), and each hand is drawn uniformly among the hands
that satisfy it:

1. pick an entry of the final table (a combination of the values the constraint reads, e.g.
   a shape and a point total) with probability proportional to its number of hands;
2. walk back suit by suit: given what the suits so far must add up to, pick the last suit's
   share (its length, points, ...) with probability proportional to (hands of that share in
   this suit) x (hands of the remaining suits making up the rest) -- exactly the classes
   (shape and honour holding per suit) weighted by their hand counts;
3. pick the suit's holding uniformly among the holdings with that share.

Every qualifying hand is thus equally likely. The other three seats are then dealt uniformly
from the 39 cards left by the dealing code (docs/bridge.md: the stacked seat's draws come
first in the chunk's stream), and the whole condition is still evaluated, so
the deals produced have exactly the distribution rejection would give: the seat's constraint
is implied by the condition. Set-up is the exact count (milliseconds), not a table of hands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.batch import below
from nomic_cards.bridge.deal.evaluate import WBF_IMPS
from nomic_cards.bridge.deal.tables import DEFAULT_TABLES, PointTables
from nomic_cards.bridge.exact.plan import NotExact, plan
from nomic_cards.bridge.exact.probability import _Columns
from nomic_cards.bridge.exact.suits import Profile, SeatTable, build
from nomic_cards.bridge.exact.table import Rows, primary_parts, seat_rows
from nomic_cards.bridge.language import nodes as n

I64 = NDArray[np.int64]
U16 = NDArray[np.uint16]
Stacker = Callable[[np.random.BitGenerator, int], tuple[int, U16]]


def _conjuncts(node: n.Expr) -> list[n.Expr]:
    if isinstance(node, n.Binary) and node.op == "&&":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def seat_constraints(condition: n.Expr) -> dict[int, list[n.Expr]]:
    """The top-level ``&&`` terms of ``condition`` that read one seat only, by seat (terms
    using ``rnd``, another seat or a function the exact count refuses are left out)."""
    found: dict[int, list[n.Expr]] = {}
    for term in _conjuncts(condition):
        try:
            p = plan(term)
        except NotExact:
            continue
        if p.primary is None or p.secondary or p.rnds:
            continue
        found.setdefault(p.primary, []).append(term)
    return found


def _join(terms: list[n.Expr]) -> n.Expr:
    out = terms[0]
    for t in terms[1:]:
        out = n.Binary("&&", out, t)
    return out


@dataclass
class SeatSampler:
    """Draws hands for ``seat`` uniformly among those meeting ``constraint``."""

    seat: int
    constraint: n.Expr
    probability: Fraction
    table: SeatTable
    cells: I64  # flat indices (row, cell) of the qualifying final entries
    cumulative: I64  # running totals of their hand counts

    @classmethod
    def build(cls, seat: int, constraint: n.Expr, tables: PointTables = DEFAULT_TABLES,
              text: str = "") -> SeatSampler:
        leaves = plan(constraint).primary_leaves()
        carried, totals = primary_parts(leaves, tables, ())
        table = build(carried, totals)
        cols, _, weights = seat_rows(table, leaves, tables, ())
        ok = _Columns(Rows(cols, weights.astype(object), 0), text, WBF_IMPS).truth(constraint)
        flat = np.flatnonzero(table.grid.reshape(-1))
        cells, counts = flat[ok], weights[ok]
        if not len(cells):
            raise NotExact("no hand satisfies the seat's constraint")
        cumulative = np.cumsum(counts)
        p = Fraction(int(cumulative[-1]), int(table.grid.sum()))
        return cls(seat, constraint, p, table, cells, cumulative)

    def export(self) -> dict[str, Any]:
        """What :meth:`draw` reads, as plain values (int64 bytes, ints, tuples): the tables
        the compiled dealing loop (``_fast.stacker``) draws from, the same hands for the same
        stream -- per suit the step rows, the earlier and profile grids, the part cells some
        key reaches (flat and by axis) and the suit masks ordered by (key, cell)."""
        t = self.table
        sizes = t.steps[-1][2].shape[1:]
        add = 13 * int(np.prod(sizes[1:], dtype=np.int64)) if len(sizes) != t.grid.ndim - 1 else 0

        def raw(a: NDArray[Any]) -> bytes:
            return np.ascontiguousarray(a, dtype=np.int64).tobytes()
        suits = []
        for (ia, ib, prev, prof), p in zip(t.steps, t.profiles, strict=True):
            offsets = np.argwhere(prof.any(axis=0))  # as _split reads them
            off_flat = np.asarray(np.ravel_multi_index(tuple(offsets.T), prof.shape[1:]))
            code = p.mask_key * int(np.prod(prof.shape[1:], dtype=np.int64)) + p.mask_cell
            order = np.argsort(code, kind="stable")  # as _holding reads them
            suits.append((raw(ia), raw(ib), raw(prev), raw(prof), raw(off_flat), raw(offsets),
                          raw(code[order]), raw(order)))
        return {"seat": self.seat, "probability": (self.probability.numerator,
                                                   self.probability.denominator),
                "cumulative": raw(self.cumulative), "cells": raw(self.cells),
                "row_cells": int(np.prod(t.grid.shape[1:], dtype=np.int64)), "cell_add": add,
                "sizes": tuple(int(x) for x in sizes),
                "part": tuple(int(x) for x in t.steps[0][3].shape[1:]), "suits": tuple(suits)}

    def draw(self, rng: np.random.BitGenerator, size: int) -> U16:
        """``size`` hands as ``(size, 4)`` suit masks."""
        t = self.table
        pick = np.searchsorted(self.cumulative, below(rng, int(self.cumulative[-1]), size),
                               side="right")
        row, cell = np.divmod(self.cells[pick], int(np.prod(t.grid.shape[1:], dtype=np.int64)))
        sizes = t.steps[-1][2].shape[1:]
        cell = np.asarray(cell, dtype=np.int64)
        if len(sizes) != t.grid.ndim - 1:  # the length axis was dropped: it is 13
            cell = cell + 13 * int(np.prod(sizes[1:], dtype=np.int64))
        masks = np.zeros((size, 4), dtype=np.uint16)
        for suit in range(3, -1, -1):
            ia, ib, prev, prof = t.steps[suit]
            share, cell = _split(rng, prev, prof, ia[row], ib[row], cell, sizes)
            masks[:, suit] = _holding(rng, t.profiles[suit], ib[row], share, prof.shape[1:])
            row = ia[row]
        return masks


def _split(rng: np.random.BitGenerator, prev: I64, prof: I64, before: I64, key: I64, cell: I64,
           sizes: tuple[int, ...]) -> tuple[I64, I64]:
    """For each sample, the suit's share (a flat cell of ``prof``) and what the earlier suits
    must add up to (a flat cell of ``prev``), drawn with the right weights. Samples that agree
    on (earlier row, suit key, target) share one weight row, searched by bisection."""
    part = prof.shape[1:]
    offsets = np.argwhere(prof.any(axis=0))  # (K, axes)
    cells, keys = int(np.prod(sizes, dtype=np.int64)), len(prof)
    code = (before * keys + key) * cells + cell
    ucode, inv = np.unique(code, return_inverse=True)
    inv = inv.reshape(-1)
    uniq = np.stack([ucode // (keys * cells), ucode // cells % keys, ucode % cells], axis=1)
    target = np.stack(np.unravel_index(uniq[:, 2], sizes), axis=1)  # (U, axes)
    rest = target[:, None, :] - offsets[None, :, :]  # (U, K, axes)
    fine = (rest >= 0).all(axis=2)
    strides = np.array([int(np.prod(sizes[k + 1:], dtype=np.int64)) for k in range(len(sizes))],
                       dtype=np.int64)
    rest_flat = (np.maximum(rest, 0) * strides).sum(axis=2)
    off_flat = np.asarray(np.ravel_multi_index(tuple(offsets.T), part), dtype=np.int64)
    earlier = prev.reshape(len(prev), -1)[uniq[:, :1], rest_flat]
    here = prof.reshape(len(prof), -1)[uniq[:, 1:2], off_flat[None, :]]
    weights = np.where(fine, earlier * here, 0)
    cum = np.cumsum(weights, axis=1)
    totals = cum[:, -1]
    base = np.concatenate(([0], np.cumsum(totals)[:-1]))
    flat_cum = (cum + base[:, None]).reshape(-1)
    u = below(rng, totals[inv]) + base[inv]
    choice = np.searchsorted(flat_cum, u, side="right") - inv * len(offsets)
    return (np.asarray(off_flat[choice], dtype=np.int64),
            np.asarray(rest_flat[inv, choice], dtype=np.int64))


def _holding(rng: np.random.BitGenerator, profile: Profile, key: I64, share: I64,
             part: tuple[int, ...]) -> U16:
    """A uniform suit mask among those with the given carried key and share."""
    cells = int(np.prod(part, dtype=np.int64))
    code = profile.mask_key * cells + profile.mask_cell
    order = np.argsort(code, kind="stable")
    sorted_code = code[order]
    want = key * cells + share
    start = np.searchsorted(sorted_code, want, side="left")
    stop = np.searchsorted(sorted_code, want, side="right")
    pick = start + below(rng, stop - start)
    out: U16 = order[pick].astype(np.uint16)
    return out


def stacker_for(script: n.Script, *, tables: PointTables | None = None,
                min_gain: float = 2.0) -> tuple[Stacker, SeatSampler] | None:
    """A stacker for the run loop, or None when no seat has a constraint worth stacking
    (kept deals at most ``1 / min_gain`` rarer than the seat's constraint) or the script
    predeals cards."""
    if any(script.predeal) or script.suit_lengths:
        return None
    tables = tables or PointTables.for_script(script)
    best: SeatSampler | None = None
    for seat, terms in seat_constraints(script.condition).items():
        try:
            sampler = SeatSampler.build(seat, _join(terms), tables, script.text)
        except (NotExact, OverflowError):
            continue
        if best is None or sampler.probability < best.probability:
            best = sampler
    if best is None or best.probability > 1 / min_gain:
        return None
    chosen = best

    def stack(rng: np.random.BitGenerator, size: int) -> tuple[int, U16]:
        return chosen.seat, chosen.draw(rng, size)
    return stack, chosen
