"""Exact probabilities of dealer conditions, by counting hands rather than dealing them.

``exact(condition)`` returns the probability that a random deal satisfies the condition, as a
:class:`~fractions.Fraction`, and the expected number of deals generated per deal produced
(its inverse). For a condition that mixes hand types with ``||`` (a "leveling" script such as
``(A && rnd(100) < 30) || B``) it also gives the exact share of each type among the produced
deals. :func:`exact_keep_rate` is the same for a whole script, or ``None`` when the script is
out of reach (predealt cards, or a function refused by :mod:`~nomic_cards.bridge.exact.plan`).

How: the condition is evaluated directly on a table of *feature values* -- one row per
combination of the values its leaves can take (a shape and a point total, say), weighted by
the exact number of deals giving it (:mod:`~nomic_cards.bridge.exact.table`). We evaluate the
syntax tree on these columns rather than run the dealing evaluator on representative hands,
because a representative hand per class (shape and honours per suit) means tens of millions of
classes for one seat, while the rows a condition actually distinguishes number in the
thousands: "North 15-17 balanced" is 560 shapes x 38 point totals, computed in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb, prod
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.evaluate import WBF_IMPS, c_divide, imps, score
from nomic_cards.bridge.deal.tables import DEFAULT_TABLES, PointTables
from nomic_cards.bridge.errors import division_by_zero
from nomic_cards.bridge.exact.plan import NotExact, Plan, plan
from nomic_cards.bridge.exact.suits import build
from nomic_cards.bridge.exact.table import (
    MAX_ROWS,
    Rows,
    counted_ranks,
    others,
    primary_parts,
    seat_rows,
)
from nomic_cards.bridge.language import nodes as n

I64 = NDArray[np.int64]
__all__ = ["ExactResult", "NotExact", "TypeShare", "exact", "exact_keep_rate", "rows_for"]


@dataclass(frozen=True)
class TypeShare:
    """One hand type (a top-level ``||`` branch): its text, its probability and its share
    of the produced deals."""

    text: str
    probability: Fraction
    share: Fraction


@dataclass(frozen=True)
class ExactResult:
    """``probability`` of the condition; ``deals_per_deal`` = 1 / probability (None if 0);
    ``types``: the ``||`` branches when there are several; ``overlap``: the share of produced
    deals that satisfy more than one branch."""

    probability: Fraction
    deals_per_deal: Fraction | None
    types: tuple[TypeShare, ...] = ()
    overlap: Fraction | None = None


def rows_for(condition: n.Expr, tables: PointTables = DEFAULT_TABLES,
             the_plan: Plan | None = None) -> Rows:
    """The weighted table of the condition's leaf values (see the module docstring)."""
    p = the_plan or plan(condition)
    columns: dict[int, I64] = {}
    if p.primary is None:
        weights = np.array([1], dtype=object)
        total = 1
    else:
        ranks = counted_ranks(p, tables)
        carried, totals = primary_parts(p.primary_leaves(), tables, ranks)
        try:
            table = build(carried, totals)
        except OverflowError:
            raise NotExact("the point counts in this condition span too many values for an "
                           "exact answer") from None
        cols, combo, w = seat_rows(table, p.primary_leaves(), tables, ranks)
        cols, combo, w = _merge(cols, combo, w)
        total = comb(52, 13)
        if p.secondary:
            labels, values, dist = others(p, tables, ranks)
            outcome = dist[combo]
            row, pick = np.nonzero(outcome)
            if len(row) > MAX_ROWS:
                raise NotExact("this condition has too many combinations for an exact answer")
            cols = {k: v[row] for k, v in cols.items()}
            weights = w[row].astype(object) * outcome[row, pick].astype(object)
            for leaf in p.leaves:
                if isinstance(leaf, n.Points) and leaf.seat in p.secondary:
                    cols[id(leaf)] = values[pick, labels.index((leaf.seat, leaf.count))]
            total *= prod(comb(52 - 13 * k, 13) for k in range(1, len(p.secondary) + 1))
        else:
            weights = w.astype(object)
        columns = cols
    rnds = [leaf for leaf in p.leaves if isinstance(leaf, n.Rnd)]
    for leaf, limit in zip(rnds, p.rnds, strict=True):
        outcomes = np.sign(limit) * np.arange(max(abs(limit), 1), dtype=np.int64)
        size = len(weights)
        if size * len(outcomes) > MAX_ROWS:
            raise NotExact("this condition has too many combinations for an exact answer")
        columns = {k: np.repeat(v, len(outcomes)) for k, v in columns.items()}
        columns[id(leaf)] = np.tile(outcomes, size)
        weights = np.repeat(weights, len(outcomes))
        total *= len(outcomes)
    return Rows(columns, weights, total)


def _merge(cols: dict[int, I64], combo: I64, w: I64) -> tuple[dict[int, I64], I64, I64]:
    """Add up rows that agree on every column and on the rank counts."""
    keys = list(cols)
    stacked = np.stack([cols[k] for k in keys] + [combo], axis=1)
    uniq, inv = np.unique(stacked, axis=0, return_inverse=True)
    merged = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(merged, inv.reshape(-1), w)
    return ({k: uniq[:, i] for i, k in enumerate(keys)}, uniq[:, -1], merged)


class _Columns:
    """Evaluates a syntax tree on table columns with C semantics: ``&&``, ``||`` and ``?:``
    look at their later parts only on the rows that need them, as dealer does per deal."""

    def __init__(self, rows: Rows, text: str, imp_table: tuple[int, ...]) -> None:
        self.rows = rows
        self.text = text
        self.imp_table = imp_table

    def truth(self, node: n.Expr) -> NDArray[np.bool_]:
        idx = np.arange(len(self.rows.weights))
        return np.asarray(self.value(node, idx) != 0)

    def value(self, e: n.Expr, idx: I64) -> I64:
        if isinstance(e, n.Num):
            return np.full(len(idx), e.value, dtype=np.int64)
        col = self.rows.columns.get(id(e))
        if col is not None:
            return col[idx]
        if isinstance(e, n.Unary):
            v = self.value(e.operand, idx)
            return (v == 0).astype(np.int64) if e.op == "!" else -v
        if isinstance(e, n.Conditional):
            t = self.value(e.test, idx) != 0
            out = np.zeros(len(idx), dtype=np.int64)
            out[t] = self.value(e.then, idx[t])
            out[~t] = self.value(e.otherwise, idx[~t])
            return out
        if isinstance(e, n.Score):
            return score(e.vulnerable, e.level, e.strain, self.value(e.tricks, idx))
        if isinstance(e, n.Imps):
            return imps(self.value(e.value, idx), self.imp_table)
        if isinstance(e, n.Binary):
            return self._binary(e, idx)
        raise NotExact(f"exact probabilities cannot evaluate {type(e).__name__}")

    def _binary(self, e: n.Binary, idx: I64) -> I64:
        left = self.value(e.left, idx)
        if e.op in ("&&", "||"):
            want = e.op == "&&"
            out = (left != 0).astype(np.int64)
            go = (left != 0) == want
            out[go] = self.value(e.right, idx[go]) != 0
            result: I64 = out
            return result
        right = self.value(e.right, idx)
        if e.op in ("/", "%"):
            if (right == 0).any():
                raise division_by_zero(self.text, e, unnamed=e.op)
            return c_divide(left, right, e.op)
        ops: dict[str, Any] = {"+": np.add, "-": np.subtract, "*": np.multiply,
                               "<": np.less, "<=": np.less_equal, ">": np.greater,
                               ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}
        return np.asarray(ops[e.op](left, right)).astype(np.int64)


def _branches(node: n.Expr) -> list[n.Expr]:
    if isinstance(node, n.Binary) and node.op == "||":
        return _branches(node.left) + _branches(node.right)
    return [node]


def exact(condition: n.Expr, *, tables: PointTables = DEFAULT_TABLES, text: str = "",
          imp_table: tuple[int, ...] = WBF_IMPS) -> ExactResult:
    """The exact probability of ``condition`` (``text`` is the script it was parsed from, for
    error messages and the branch texts)."""
    rows = rows_for(condition, tables)
    ev = _Columns(rows, text, imp_table)
    weights = rows.weights
    ok = ev.truth(condition)
    hits = int(weights[ok].sum()) if ok.any() else 0
    p = Fraction(hits, rows.total)
    result = ExactResult(p, 1 / p if p else None)
    branches = _branches(condition)
    if len(branches) < 2 or not p:
        return result
    truths = [ev.truth(b) for b in branches]
    shares = []
    for branch, t in zip(branches, truths, strict=True):
        pb = Fraction(int(weights[t].sum()) if t.any() else 0, rows.total)
        span = branch.span
        label = " ".join(text[span.start:span.end].split()) if span and text else ""
        shares.append(TypeShare(label, pb, pb / p))
    several = np.sum(truths, axis=0) > 1
    overlap = Fraction(int(weights[several].sum()) if several.any() else 0, rows.total) / p
    return ExactResult(p, 1 / p, tuple(shares), overlap)


def exact_keep_rate(script: n.Script) -> Fraction | None:
    """The exact share of generated deals a script keeps, or None when it cannot be computed
    (predealt cards, or functions the exact computation refuses)."""
    if any(script.predeal) or script.suit_lengths:
        return None
    try:
        return exact(script.condition, tables=PointTables.for_script(script),
                     text=script.text).probability
    except NotExact:
        return None
