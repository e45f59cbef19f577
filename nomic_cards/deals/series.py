"""Truncated power series of deals: the first terms, straight from the syntax tree.

:class:`SeriesEvaluator` computes, for every node of a deal, its generating function modulo
``x^length``. It never builds the exact rational function, so it also works for deals whose
exact generating function would be enormous (``(0 or 1)^1000000``, ``5^0-1000000000``): powers
use binary exponentiation of truncated series (or the binomial series for exponents past 2^62),
and ``X^a-b`` sums use doubling, ``G(2j) = G(j)(1 + X^j)``, ``G(j+1) = 1 + X G(j)``, so a range
costs O(log b) series products. Every product goes through the evaluator's
:class:`~nomic_cards.deals.budget.Meter`. :func:`terms` is the public entry; the sampler reuses
the per-node series.
"""

from __future__ import annotations

from flint import fmpz_poly

from nomic_cards.deals import budget, polys
from nomic_cards.deals.budget import MAX_BITS, MAX_HELD_BITS, MAX_LENGTH, Meter
from nomic_cards.deals.errors import DealTooLarge, ResultTooLarge
from nomic_cards.deals.parser import parse
from nomic_cards.deals.polys import ONE, ZERO
from nomic_cards.deals.syntax import (
    Alternative,
    Chain,
    Deal,
    Dots,
    Group,
    Node,
    Number,
    Options,
    Repeat,
    decimal,
    quote,
    short,
)
from nomic_cards.errors import InputError


def geometric(x: fmpz_poly, m: int, n: int, meter: Meter) -> fmpz_poly:
    """``1 + x + ... + x^(m-1) mod x^n`` for ``m >= 1``, by doubling."""
    g = ONE
    p = x.truncate(n)  # x^j for the current j
    bits = bin(m)[3:]
    for i, bit in enumerate(bits):
        if polys.const(x):  # then p and g only grow: every step left costs at least this
            meter.foresee(budget.product_work(p, p, n) * (len(bits) - i), "a range of a series")
        g = (g + meter.mul_low(p, g, n)).truncate(n)
        p = meter.mul_low(p, p, n)
        if bit == "1":
            g = (ONE + meter.mul_low(x, g, n)).truncate(n)
            p = meter.mul_low(p, x, n)
    return g.truncate(n)


def check_length(length: int, what: str) -> None:
    """Refuse a series longer than :data:`~nomic_cards.deals.polys.MAX_LENGTH` terms."""
    if length > MAX_LENGTH:
        raise InputError(
            f"{what}: at most {MAX_LENGTH} terms can be computed, not {short(length)}")


class SeriesEvaluator:
    """Each node's generating function modulo ``x^length`` (cached per node).

    Every product is checked against the size budget before it is formed, and the cached series
    together against :data:`MAX_HELD_BITS`; a deal over budget raises
    :class:`~nomic_cards.deals.errors.DealTooLarge` at the sub-deal responsible.
    """

    def __init__(self, deal: Deal, length: int) -> None:
        check_length(length, "the series")
        self.deal = deal
        self.n = length
        self.held = 0
        self.meter = Meter()
        self._cache: dict[int, tuple[Node, fmpz_poly]] = {}

    def of(self, node: Node) -> fmpz_poly:
        hit = self._cache.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        try:
            value = self._compute(node)
        except ResultTooLarge as err:
            raise self.too_large(node, err.detail) from None
        self.hold(node, value)
        self._cache[id(node)] = (node, value)
        return value

    def hold(self, node: Node, value: fmpz_poly) -> None:
        """Count ``value`` against the budget of everything kept, blaming ``node``."""
        self.held += budget.series_bits(value)
        if self.held > MAX_HELD_BITS:
            raise self.too_large(
                node, f"with the parts before it, {budget.over(self.held, MAX_HELD_BITS)}")

    def too_large(self, node: Node, detail: str) -> DealTooLarge:
        src = self.deal.source(node)
        return DealTooLarge(
            f"the first {self.n} terms of {quote(src)} would be too large ({detail})",
            self.deal.text,
            node.pos,
        )

    def coefficient(self, node: Node, k: int) -> int:
        return int(self.of(node)[k])

    def power(self, node: Node, x: fmpz_poly, k: int) -> fmpz_poly:
        """``x^k mod x^n`` with the size checks blamed on ``node``."""
        try:
            return polys.pow_series(x, k, self.n, self.meter)
        except ResultTooLarge as err:
            raise self.too_large(node, err.detail) from None

    def _compute(self, node: Node) -> fmpz_poly:
        n = self.n
        if isinstance(node, Number):
            return polys.monomial(node.value) if node.value < n else ZERO
        if isinstance(node, Dots):
            return fmpz_poly([1] * n)
        if isinstance(node, Group):
            return self.of(node.body)
        if isinstance(node, Chain):
            out = self.of(node.items[0])
            for item in node.items[1:]:
                out = self.meter.mul_low(out, self.of(item), n)
            return out
        if isinstance(node, Alternative):
            inner = self.of(node.chain)
            if node.times is None:
                return inner
            budget.refuse_over(budget.series_sum_bits(ZERO, inner, node.times), MAX_BITS,
                               "the series")
            return inner * node.times
        if isinstance(node, Options):
            total = ZERO
            for alt in node.alternatives:
                part = self.of(alt)
                budget.refuse_over(budget.series_sum_bits(total, part), MAX_BITS, "the series")
                total += part
            return total
        return self._repeat(node)

    def _repeat(self, node: Repeat) -> fmpz_poly:
        n = self.n
        x = self.of(node.item)
        lo, hi = node.low, node.high
        if hi is None:
            star = polys.divide_series(ONE, ONE - x, n, self.meter)
            return star if lo == 0 else self.meter.mul_low(self.power(node, x, lo), star, n)
        if x.is_zero():
            return ONE.truncate(n) if lo == 0 else ZERO
        if polys.const(x) == 0:
            hi = min(hi, n - 1)  # x^k vanishes mod x^n for k >= n
            if lo > hi:
                return ZERO
        elif polys.const(x) > 1 and hi >= (1 << 62):  # x^hi alone has over 2^62 bits
            raise self.too_large(node, budget.over(hi, MAX_BITS))
        base = self.power(node, x, lo)
        return self.meter.mul_low(base, geometric(x, hi - lo + 1, n, self.meter), n)


def terms(expr: str | Deal, count: int) -> list[int]:
    """a(0), ..., a(count-1): the number of ways to deal 0, 1, ... cards."""
    if count < 0:
        raise InputError(f"the number of terms must be 0 or more, not {decimal(count)}")
    check_length(count, "terms")
    deal = parse(expr)
    if count == 0:
        return []
    out = [int(c) for c in SeriesEvaluator(deal, count).of(deal.root).coeffs()]
    return out + [0] * (count - len(out))
