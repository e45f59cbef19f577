"""Truncated power series of deals: the first terms, straight from the syntax tree.

:class:`SeriesEvaluator` computes, for every node of a deal, its generating function modulo
``x^length``. It never builds the exact rational function, so it also works for deals whose
exact generating function would be enormous (``(0 or 1)^1000000``, ``5^0-1000000000``): powers
use FLINT's truncated powering (or the binomial series for exponents past 2^62), and ``X^a-b``
sums use doubling, ``G(2j) = G(j)(1 + X^j)``, ``G(j+1) = 1 + X G(j)``, so a range costs
O(log b) series products. :func:`terms` is the public entry; the sampler reuses the per-node
series.
"""

from __future__ import annotations

from flint import fmpz_poly

from nomic_cards.deals import polys
from nomic_cards.deals.errors import DealTooLarge
from nomic_cards.deals.parser import parse
from nomic_cards.deals.polys import MAX_BITS, ONE, ZERO
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
)
from nomic_cards.errors import InputError


def geometric(x: fmpz_poly, m: int, n: int) -> fmpz_poly:
    """``1 + x + ... + x^(m-1) mod x^n`` for ``m >= 1``, by doubling."""
    g = ONE
    p = x.truncate(n)  # x^j for the current j
    for bit in bin(m)[3:]:
        g = (g + p.mul_low(g, n)).truncate(n)
        p = p.mul_low(p, n)
        if bit == "1":
            g = (ONE + x.mul_low(g, n)).truncate(n)
            p = p.mul_low(x, n)
    return g.truncate(n)


class SeriesEvaluator:
    """Each node's generating function modulo ``x^length`` (cached per node)."""

    def __init__(self, deal: Deal, length: int) -> None:
        self.deal = deal
        self.n = length
        self._cache: dict[int, tuple[Node, fmpz_poly]] = {}

    def of(self, node: Node) -> fmpz_poly:
        hit = self._cache.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        value = self._compute(node)
        self._cache[id(node)] = (node, value)
        return value

    def coefficient(self, node: Node, k: int) -> int:
        return int(self.of(node)[k])

    def _check_pow(self, node: Node, x: fmpz_poly, k: int) -> None:
        bits = polys.pow_bits_estimate(x, k, self.n) * self.n
        if bits > MAX_BITS:
            src = self.deal.source(node)
            raise DealTooLarge(
                f"the first {self.n} terms of {src!r} would be too large "
                f"(about {int(bits)} bits > {MAX_BITS})",
                self.deal.text,
                node.pos,
            )

    def power(self, node: Node, x: fmpz_poly, k: int) -> fmpz_poly:
        """``x^k mod x^n`` with the size check blamed on ``node``."""
        self._check_pow(node, x, k)
        return polys.pow_trunc(x, k, self.n)

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
                out = out.mul_low(self.of(item), n)
            return out
        if isinstance(node, Alternative):
            inner = self.of(node.chain)
            return inner if node.times is None else inner * node.times
        if isinstance(node, Options):
            total = ZERO
            for alt in node.alternatives:
                total += self.of(alt)
            return total
        return self._repeat(node)

    def _repeat(self, node: Repeat) -> fmpz_poly:
        n = self.n
        x = self.of(node.item)
        lo, hi = node.low, node.high
        if hi is None:
            star = polys.divide_series(ONE, ONE - x, n)
            return star if lo == 0 else self.power(node, x, lo).mul_low(star, n)
        if x.is_zero():
            return ONE.truncate(n) if lo == 0 else ZERO
        if polys.const(x) == 0:
            hi = min(hi, n - 1)  # x^k vanishes mod x^n for k >= n
            if lo > hi:
                return ZERO
        else:
            self._check_pow(node, x, hi)
        base = self.power(node, x, lo)
        return base.mul_low(geometric(x, hi - lo + 1, n), n)


def terms(expr: str | Deal, count: int) -> list[int]:
    """a(0), ..., a(count-1): the number of ways to deal 0, 1, ... cards."""
    if count < 0:
        raise InputError(f"the number of terms must be 0 or more, not {count}")
    deal = parse(expr)
    if count == 0:
        return []
    out = [int(c) for c in SeriesEvaluator(deal, count).of(deal.root).coeffs()]
    return out + [0] * (count - len(out))
