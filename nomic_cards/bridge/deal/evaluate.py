"""Vectorised evaluation of dealer expressions over a batch of deals.

:class:`Evaluator` compiles each syntax-tree node once into a function of ``(context, rows)``
that returns the node's value for those rows of the batch (all rows when ``rows`` is
``None``) as a numpy array. ``&&``, ``||``, ``!`` and ``?:`` evaluate their right-hand parts
only on the rows still undecided, as C does per deal, so a seat that only a later part looks
at is dealt (by :class:`~nomic_cards.bridge.deal.batch.LazyDeals`) only for the deals that get
that far, and a division by zero on a row that C would never reach is no error.

Any object with the :class:`~nomic_cards.bridge.deal.batch.HandBatch` interface works as the
batch (``suit(seat, suit, rows)`` returning masks), e.g. hands given with weights.
Arithmetic is C's: integers, division truncating toward zero, ``%`` with the dividend's sign;
a division or remainder by zero raises :class:`ScriptRuntimeError` naming the expression and
its line. Values are 64-bit (dealer's are 32-bit ``int``s).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.tables import (
    DEFAULT_TABLES,
    POPCOUNT,
    PointTables,
    cccc_tables,
    loser_table,
    point_table,
    quality_table,
)
from nomic_cards.bridge.errors import ScriptRuntimeError, division_by_zero
from nomic_cards.bridge.language import nodes as n

Arr = NDArray[Any]
Rows = NDArray[np.int64] | None
Fn = Callable[["Context", Rows], Arr]

WBF_IMPS = (10, 40, 80, 120, 160, 210, 260, 310, 360, 420, 490, 590, 740, 890, 1090, 1290,
            1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990)
"""Upper bounds of the WBF IMP scale: a difference up to 10 is 0 IMPs, up to 40 is 1, ...,
4000 and more is 24."""
DEALER_IMPS = (10, 40, 80, 120, 160, 210, 260, 310, 360, 410, 490, 590, 740, 890, 1090, 1190,
               1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990)
"""Debian dealer's table, which differs at 420 (10 IMPs, WBF 9) and 1200-1290 (16, WBF 15)."""


class Batch(Protocol):
    """What the evaluator needs of a batch of deals."""

    n: int

    def suit(self, seat: int, suit: int, rows: Rows) -> NDArray[np.uint16]: ...


class Context:
    """One evaluation: the batch, the random source for ``rnd`` and the double-dummy hook."""

    def __init__(self, batch: Batch, *, rng: np.random.BitGenerator | None = None,
                 tricks: Callable[[Batch, int, int, Rows], Arr] | None = None,
                 rnd: Callable[[Arr], Arr] | None = None) -> None:
        self.batch = batch
        self.rng = rng
        self.tricks = tricks
        self.rnd = rnd
        self.cache: dict[tuple[int, int], tuple[Rows, Arr]] = {}

    def size(self, rows: Rows) -> int:
        return self.batch.n if rows is None else len(rows)


def _i64(v: Arr) -> NDArray[np.int64]:
    return v if v.dtype == np.int64 else v.astype(np.int64)


def _sub(rows: Rows, picked: NDArray[np.int64]) -> NDArray[np.int64]:
    return picked if rows is None else rows[picked]


def c_divide(a: NDArray[np.int64], b: NDArray[np.int64], op: str) -> NDArray[np.int64]:
    """C's ``a / b`` (truncating) or ``a % b`` (sign of ``a``); ``b`` has no zeros."""
    q = a // b
    q += ((a % b) != 0) & ((a < 0) != (b < 0))
    return q if op == "/" else a - q * b


def imps(diff: NDArray[np.int64], table: tuple[int, ...] = WBF_IMPS) -> NDArray[np.int64]:
    """IMPs for score differences, with their sign."""
    return np.sign(diff) * np.searchsorted(np.array(table), np.abs(diff), side="left")


def score(vul: bool, level: int, strain: int, tricks: NDArray[np.int64]) -> NDArray[np.int64]:
    """Declarer's score for an undoubled contract (strain 0-3 spades..clubs, 4 notrump)."""
    v = int(vul)
    need = 6 + level
    per_trick = 30 if strain in (0, 1, 4) else 20
    made = per_trick * (tricks - 6) + (10 if strain == 4 else 0) + 50
    game = level >= (3 if strain == 4 else 4 if strain < 2 else 5)
    made += (250 + 200 * v) if game else 0
    made += {6: 500 + 250 * v, 7: 1000 + 500 * v}.get(level, 0)
    down = -50 * (1 + v) * (need - tricks)
    return np.where(tricks < need, down, made).astype(np.int64)


class Evaluator:
    """Compiles expressions of one script (with its point tables) to vector functions."""

    def __init__(self, text: str = "", tables: PointTables = DEFAULT_TABLES, *,
                 imp_table: tuple[int, ...] = WBF_IMPS) -> None:
        self.text = text
        self.imp_table = imp_table
        self.tables = tables
        self._points: dict[str, NDArray[np.int64]] = {}  # built when first used
        self._losers: NDArray[np.int64] | None = None
        self._compiled: dict[int, Fn] = {}
        self._keep: list[n.Expr] = []

    def points(self, name: str) -> NDArray[np.int64]:
        """The per-suit-mask table of the point count ``name``."""
        if name not in self._points:
            self._points[name] = point_table(self.tables, name)
        return self._points[name]

    def losers(self) -> NDArray[np.int64]:
        """The per-suit-mask loser table."""
        if self._losers is None:
            self._losers = loser_table(self.tables)
        return self._losers

    # ------------------------------------------------------------------ public
    def compile(self, expr: n.Expr) -> Fn:
        key = id(expr)
        if key not in self._compiled:
            self._keep.append(expr)
            self._compiled[key] = self._make(expr)
        return self._compiled[key]

    def values(self, expr: n.Expr, ctx: Context, rows: Rows = None) -> NDArray[np.int64]:
        """The expression's value for ``rows`` (all when ``None``) as 64-bit integers."""
        v = self.compile(expr)(ctx, rows)
        return np.broadcast_to(_i64(np.asarray(v)), (ctx.size(rows),)).copy()

    def truth(self, expr: n.Expr, ctx: Context, rows: Rows = None) -> NDArray[np.bool_]:
        """Where the expression is non-zero (the condition holds)."""
        v = np.asarray(self.compile(expr)(ctx, rows))
        return np.broadcast_to(v != 0, (ctx.size(rows),)).copy()

    # ------------------------------------------------------------------ compilation
    def _make(self, e: n.Expr) -> Fn:
        method: Callable[[Any], Fn] = getattr(self, f"_c_{type(e).__name__}")
        return method(e)

    def _c_Num(self, e: n.Num) -> Fn:
        value = np.int64(e.value)
        return lambda ctx, rows: np.full(ctx.size(rows), value)

    def _c_Unary(self, e: n.Unary) -> Fn:
        inner = self.compile(e.operand)
        if e.op == "!":
            return lambda ctx, rows: inner(ctx, rows) == 0
        return lambda ctx, rows: -_i64(inner(ctx, rows))

    def _c_Binary(self, e: n.Binary) -> Fn:
        left, right = self.compile(e.left), self.compile(e.right)
        op = e.op
        if op in ("&&", "||"):
            want = op == "&&"

            def logic(ctx: Context, rows: Rows) -> Arr:
                lv: Arr = left(ctx, rows) != 0
                go = np.flatnonzero(lv == want)
                if len(go) == 0:
                    return lv
                rv = right(ctx, _sub(rows, go)) != 0
                out: Arr = lv.copy()
                out[go] = rv
                return out
            return logic
        if op in ("/", "%"):
            def divide(ctx: Context, rows: Rows) -> Arr:
                a, b = _i64(left(ctx, rows)), _i64(right(ctx, rows))
                if (b == 0).any():
                    raise division_by_zero(self.text, e)
                return c_divide(a, b, op)
            return divide
        ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply, "<": np.less,
                 "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                 "==": np.equal, "!=": np.not_equal}[op]
        if op in "+-*":
            return lambda ctx, rows: ufunc(_i64(left(ctx, rows)), _i64(right(ctx, rows)))
        return lambda ctx, rows: ufunc(left(ctx, rows), right(ctx, rows))

    def _c_Conditional(self, e: n.Conditional) -> Fn:
        test, then, other = (self.compile(x) for x in (e.test, e.then, e.otherwise))

        def cond(ctx: Context, rows: Rows) -> Arr:
            t = test(ctx, rows) != 0
            out = np.zeros(len(t), dtype=np.int64)
            yes, no = np.flatnonzero(t), np.flatnonzero(~t)
            if len(yes):
                out[yes] = then(ctx, _sub(rows, yes))
            if len(no):
                out[no] = other(ctx, _sub(rows, no))
            return out
        return cond

    @staticmethod
    def _cached(key: int, fn: Fn) -> Fn:
        def cached(ctx: Context, rows: Rows) -> Arr:
            hit = ctx.cache.get((key, id(rows)))
            if hit is not None and hit[0] is rows:
                return hit[1]
            value = fn(ctx, rows)
            ctx.cache[key, id(rows)] = (rows, value)
            return value
        return cached

    def _suit_sum(self, table: NDArray[np.int64], seat: int, suit: int | None) -> Fn:
        if suit is not None:
            return lambda ctx, rows: table[ctx.batch.suit(seat, suit, rows)]

        def total(ctx: Context, rows: Rows) -> Arr:
            b = ctx.batch
            return (table[b.suit(seat, 0, rows)] + table[b.suit(seat, 1, rows)]
                    + table[b.suit(seat, 2, rows)] + table[b.suit(seat, 3, rows)])
        return total

    def _c_Length(self, e: n.Length) -> Fn:
        return self._suit_sum(POPCOUNT, e.seat, e.suit)

    def _c_Points(self, e: n.Points) -> Fn:
        return self._cached(id(e), self._suit_sum(self.points(e.count), e.seat, e.suit))

    def _c_Losers(self, e: n.Losers) -> Fn:
        return self._cached(id(e), self._suit_sum(self.losers(), e.seat, e.suit))

    def _c_Quality(self, e: n.Quality) -> Fn:
        return self._suit_sum(quality_table(), e.seat, e.suit)

    def _c_Cccc(self, e: n.Cccc) -> Fn:
        share, short = cccc_tables()
        base, shape = self._suit_sum(share, e.seat, None), self._suit_sum(short, e.seat, None)

        def cccc(ctx: Context, rows: Rows) -> Arr:
            sp = shape(ctx, rows)
            return base(ctx, rows) + np.where(sp == 0, -50, sp - 100)
        return cccc

    def _c_Shape(self, e: n.Shape) -> Fn:
        allowed = np.zeros(1 << 16, dtype=bool)
        for s, h, d, c in e.shapes:
            allowed[s << 12 | h << 8 | d << 4 | c] = True
        seat = e.seat

        def shape(ctx: Context, rows: Rows) -> Arr:
            b = ctx.batch
            code = (POPCOUNT[b.suit(seat, 0, rows)] << 12 | POPCOUNT[b.suit(seat, 1, rows)] << 8
                    | POPCOUNT[b.suit(seat, 2, rows)] << 4 | POPCOUNT[b.suit(seat, 3, rows)])
            hit: Arr = allowed[code]
            return hit
        return shape

    def _c_HasCard(self, e: n.HasCard) -> Fn:
        seat, suit, rank = e.seat, e.suit, e.rank
        return lambda ctx, rows: (ctx.batch.suit(seat, suit, rows) >> rank) & 1

    def _c_Tricks(self, e: n.Tricks) -> Fn:
        seat, strain = e.seat, e.strain

        def tricks(ctx: Context, rows: Rows) -> Arr:
            if ctx.tricks is None:
                raise ScriptRuntimeError("tricks() needs double dummy analysis, which is not "
                                         "available here")
            return ctx.tricks(ctx.batch, seat, strain, rows)
        return tricks

    def _c_Score(self, e: n.Score) -> Fn:
        inner = self.compile(e.tricks)
        return lambda ctx, rows: score(e.vulnerable, e.level, e.strain, _i64(inner(ctx, rows)))

    def _c_Imps(self, e: n.Imps) -> Fn:
        inner, table = self.compile(e.value), self.imp_table
        return lambda ctx, rows: imps(_i64(inner(ctx, rows)), table)

    def _c_Rnd(self, e: n.Rnd) -> Fn:
        inner = self.compile(e.limit)

        def rnd(ctx: Context, rows: Rows) -> Arr:
            limit = _i64(inner(ctx, rows))
            if ctx.rnd is not None:
                return ctx.rnd(limit)
            from nomic_cards.bridge.deal.batch import below

            bits = ctx.rng if ctx.rng is not None else np.random.PCG64()
            mag = below(bits, np.maximum(np.abs(limit), 1))
            return np.where(limit == 0, 0, np.sign(limit) * mag)
        return rnd


def condition_mask(expr: n.Expr, batch: Batch, *, tables: PointTables = DEFAULT_TABLES,
                   text: str = "") -> NDArray[np.bool_]:
    """Where ``expr`` holds for each deal of ``batch`` (any object with the batch interface,
    e.g. ``HandBatch(masks)`` of representative hands): a boolean array of length ``n``."""
    return Evaluator(text, tables).truth(expr, Context(batch))
