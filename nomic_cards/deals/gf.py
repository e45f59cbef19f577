"""Exact rational generating functions of deals.

Every deal denotes a sequence a(0), a(1), ... whose generating function ``A(x) = sum a(n) x^n``
is rational (built from polynomials by sums, products and ``1/(1 - X)``).
:func:`generating_function` builds it exactly from the syntax tree, keeping each step in lowest
terms with the denominator normalised to ``Q(0) = 1``, so that two deals denote the same
sequence exactly when their :class:`RationalGF` values are equal.

The rules, for sub-deals with generating functions ``X = P/Q`` (lowest terms, ``Q(0) = 1``):

* ``k``: ``x^k``; ``...``: ``1/(1 - x)``; a chain: the product; ``or``: the sum;
  ``m * chain``: ``m`` times the chain (``0 * chain`` is the zero sequence);
* ``X^k``: ``P^k/Q^k``; ``X^a-b``: ``P^a (Q^m - P^m) / (Q^b (Q - P))`` with ``m = b - a + 1``
  (``m`` when ``X = 1``, the deal ``0``);
* ``X^?``: ``Q/(Q - P)``; ``X^a-?``: ``P^a / (Q^(a-1) (Q - P))`` — these need ``P(0) = 0``,
  which :func:`~nomic_cards.deals.parser.parse` has already enforced.

Each of those results is already in lowest terms when its inputs are (gcd(P, Q) = 1 implies
gcd(P, Q - P) = 1 and gcd(Q, Q^m - P^m / (Q - P)) = 1); sums and products are reduced with
GCDs. Sizes are checked against :data:`~nomic_cards.deals.budget.MAX_DEGREE` and
:data:`~nomic_cards.deals.budget.MAX_BITS` before anything big is computed; a deal over budget
raises :class:`~nomic_cards.deals.errors.DealTooLarge` pointing at the sub-deal responsible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flint import fmpz_poly

from nomic_cards.deals import budget, polys
from nomic_cards.deals.budget import MAX_BITS, MAX_DEGREE, Meter
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

#: Denominators of higher degree are not factored (FLINT takes seconds past a few thousand).
MAX_FACTOR_DEGREE = 1500

# -- printing -------------------------------------------------------------------------------


def format_poly(coeffs: tuple[int, ...] | list[int], var: str = "x") -> str:
    """``1 - x - 2x^3``: ascending powers, coefficient 1 left out."""
    parts: list[str] = []
    for k, c in enumerate(coeffs):
        if c == 0:
            continue
        mag = abs(c)
        if k == 0:
            body = decimal(mag)
        else:
            power = var if k == 1 else f"{var}^{k}"
            body = power if mag == 1 else f"{decimal(mag)}{power}"
        if not parts:
            parts.append(body if c > 0 else f"-{body}")
        else:
            parts.append(f"+ {body}" if c > 0 else f"- {body}")
    return " ".join(parts) if parts else "0"


def _terms_count(coeffs: tuple[int, ...]) -> int:
    return sum(1 for c in coeffs if c)


@dataclass(frozen=True)
class Recurrence:
    """``a(n) = c1 a(n-1) + ... + cd a(n-d)`` for ``n >= start``, with ``a(0..start-1)``."""

    coefficients: tuple[int, ...]
    start: int
    initial: tuple[int, ...]

    @property
    def order(self) -> int:
        return len(self.coefficients)

    def __str__(self) -> str:
        rhs: list[str] = []
        for i, c in enumerate(self.coefficients, start=1):
            if c == 0:
                continue
            mag = abs(c)
            body = f"a(n-{i})" if mag == 1 else f"{decimal(mag)} a(n-{i})"
            if not rhs:
                rhs.append(body if c > 0 else f"-{body}")
            else:
                rhs.append(f"+ {body}" if c > 0 else f"- {body}")
        law = f"a(n) = {' '.join(rhs) if rhs else '0'} for n >= {self.start}"
        if not self.initial:
            return law
        init = ", ".join(f"a({i}) = {decimal(v)}" for i, v in enumerate(self.initial))
        return f"{law}; {init}"


@dataclass(frozen=True)
class RationalGF:
    """``P(x)/Q(x)`` in lowest terms with ``Q(0) = 1`` (coefficients ascending, as ints).

    Equal values mean equal sequences. The zero sequence is ``numerator == ()``.
    """

    numerator: tuple[int, ...]
    denominator: tuple[int, ...]

    @property
    def p(self) -> fmpz_poly:
        return polys.poly(self.numerator)

    @property
    def q(self) -> fmpz_poly:
        return polys.poly(self.denominator)

    @property
    def is_polynomial(self) -> bool:
        return self.denominator == (1,)

    def __str__(self) -> str:
        num = format_poly(self.numerator)
        if self.is_polynomial:
            return num
        if _terms_count(self.numerator) > 1:
            num = f"({num})"
        return f"{num} / ({format_poly(self.denominator)})"

    @property
    def factorable(self) -> bool:
        """Whether Q is small enough to factor (degree at most :data:`MAX_FACTOR_DEGREE`)."""
        return len(self.denominator) - 1 <= MAX_FACTOR_DEGREE

    def denominator_factors(self) -> list[tuple[tuple[int, ...], int]]:
        """Irreducible factors of Q over the integers, each with constant term 1, and their
        multiplicities, sorted by degree then coefficients (needs :attr:`factorable`)."""
        if self.is_polynomial:
            return []
        if not self.factorable:
            raise ValueError(f"will not factor a denominator of degree over {MAX_FACTOR_DEGREE}")
        _, factors = self.q.factor()
        out = []
        for f, e in factors:
            c = polys.ints(f)
            if c[0] < 0:
                c = tuple(-v for v in c)
            out.append((c, int(e)))
        out.sort(key=lambda fe: (len(fe[0]), fe[0]))
        return out

    def factored(self) -> str:
        """Like ``str()`` but with the denominator factored: ``1 / ((1 - x)^2 (1 + x))``.

        Denominators of degree over :data:`MAX_FACTOR_DEGREE` are left unfactored."""
        if self.is_polynomial or not self.factorable:
            return str(self)
        parts = []
        for c, e in self.denominator_factors():
            parts.append(f"({format_poly(c)})" + (f"^{e}" if e > 1 else ""))
        den = parts[0] if len(parts) == 1 else f"({' '.join(parts)})"
        num = format_poly(self.numerator)
        if _terms_count(self.numerator) > 1:
            num = f"({num})"
        return f"{num} / {den}"

    def terms(self, count: int) -> list[int]:
        """a(0), ..., a(count-1) by power-series division.

        Raises :class:`~nomic_cards.deals.errors.ResultTooLarge` when they would not fit the
        size budget (or ``count`` is over :data:`~nomic_cards.deals.budget.MAX_LENGTH`).
        """
        if count <= 0:
            return []
        if count > budget.MAX_LENGTH:
            raise ResultTooLarge(
                f"at most {budget.MAX_LENGTH} terms can be computed, not {short(count)}")
        a = polys.divide_series(self.p, self.q, count, Meter())
        out = [int(c) for c in a.coeffs()]
        return out + [0] * (count - len(out))

    def recurrence(self) -> Recurrence:
        """The linear recurrence with constant coefficients that ``Q`` gives the sequence.

        Raises :class:`~nomic_cards.deals.errors.ResultTooLarge` when its initial terms would
        be too large; :meth:`law` then still gives the recurrence itself.
        """
        law = self.law()
        try:
            initial = self.terms(law.start)
        except ResultTooLarge as err:
            raise ResultTooLarge(
                f"the {law.start} initial terms of the recurrence would be too large "
                f"({err.detail})", err.detail) from None
        return Recurrence(law.coefficients, law.start, tuple(initial))

    def law(self) -> Recurrence:
        """The recurrence without its initial terms (``initial`` is empty)."""
        d = len(self.denominator) - 1
        deg_p = len(self.numerator) - 1  # -1 for the zero sequence
        start = max(d, deg_p + 1)
        return Recurrence(tuple(-c for c in self.denominator[1:]), start, ())


# -- building -------------------------------------------------------------------------------

_Frac = tuple[fmpz_poly, fmpz_poly]


def _normalise(p: fmpz_poly, q: fmpz_poly) -> _Frac:
    if p.is_zero():
        return ZERO, ONE
    if polys.const(q) < 0:
        return -p, -q
    return p, q


def _reduce(p: fmpz_poly, q: fmpz_poly) -> _Frac:
    g = p.gcd(q)
    if g.degree() > 0:
        p, q = polys.exact_div(p, g), polys.exact_div(q, g)
    return _normalise(p, q)


class _Builder:
    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self.meter = Meter()

    def _too_large(self, node: Node, what: str) -> DealTooLarge:
        src = self.deal.source(node)
        return DealTooLarge(
            f"the exact generating function of {quote(src)} would be too large ({what})",
            self.deal.text,
            node.pos,
        )

    def _check(self, node: Node, degree: int, bits: float) -> None:
        if degree > MAX_DEGREE:
            raise self._too_large(node, f"degree {short(degree)} > {MAX_DEGREE}")
        if bits > MAX_BITS:
            raise self._too_large(node, budget.over(bits, MAX_BITS))

    def _pow(self, node: Node, f: fmpz_poly, k: int) -> fmpz_poly:
        if k == 0:
            return ONE
        if f.is_zero() or f == ONE:
            return f
        deg = k * f.degree()
        self._check(node, deg, 0)
        # here k <= MAX_DEGREE unless f is a constant, whose power has k * log2|c| bits
        log_norm = budget.log2_norm1(f)
        if log_norm and k > MAX_BITS:
            raise self._too_large(node, budget.over(math.inf, MAX_BITS))
        # the result's terms: k deg(g) + 1 for f = x^v g, where x^(vk) only adds zeros
        v = polys.valuation(f)
        terms = deg - k * v + 1
        per = k * log_norm + 1
        self._check(node, deg, budget.memory_bits(terms, per) + 64 * k * v)
        try:  # FLINT squares its way up: about two products of the result's size per bit of k
            self.meter.check(0, 3 * 2 * terms * (per + terms.bit_length()), "a power",
                             2 * k.bit_length())
        except ResultTooLarge as err:
            raise self._too_large(node, err.detail) from None
        return polys.power(f, k)

    def _mul(self, node: Node, a: fmpz_poly, b: fmpz_poly) -> fmpz_poly:
        if a.is_zero() or b.is_zero():
            return ZERO
        self._check(node, a.degree() + b.degree(), budget.product_bits(a, b))
        try:
            return self.meter.mul(a, b)
        except ResultTooLarge as err:
            raise self._too_large(node, err.detail) from None

    def build(self, node: Node) -> _Frac:
        if isinstance(node, Number):
            self._check(node, node.value, budget.memory_bits(node.value + 1, 1))
            return polys.monomial(node.value), ONE
        if isinstance(node, Dots):
            return ONE, polys.poly([1, -1])
        if isinstance(node, Group):
            return self.build(node.body)
        if isinstance(node, Chain):
            p, q = self.build(node.items[0])
            for item in node.items[1:]:
                p2, q2 = self.build(item)
                if p.is_zero() or p2.is_zero():
                    p, q = ZERO, ONE
                    continue
                g1, g2 = p.gcd(q2), p2.gcd(q)
                if g1.degree() > 0:
                    p, q2 = polys.exact_div(p, g1), polys.exact_div(q2, g1)
                if g2.degree() > 0:
                    p2, q = polys.exact_div(p2, g2), polys.exact_div(q, g2)
                p, q = _normalise(self._mul(node, p, p2), self._mul(node, q, q2))
            return p, q
        if isinstance(node, Alternative):
            p, q = self.build(node.chain)
            if node.times is None:
                return p, q
            if node.times == 0:
                return ZERO, ONE
            height = int(p.height_bits()) + node.times.bit_length()
            self._check(node, p.degree(), budget.memory_bits(p.length(), height))
            return p * node.times, q
        if isinstance(node, Options):
            p, q = self.build(node.alternatives[0])
            for alt in node.alternatives[1:]:
                p2, q2 = self.build(alt)
                if p2.is_zero():
                    continue
                if p.is_zero():
                    p, q = p2, q2
                    continue
                g = q.gcd(q2)
                qa, qb = polys.exact_div(q, g), polys.exact_div(q2, g)
                num = self._mul(node, p, qb) + self._mul(node, p2, qa)
                p, q = _reduce(num, self._mul(node, q, qb))
            return p, q
        return self._repeat(node)

    def _repeat(self, node: Repeat) -> _Frac:
        p, q = self.build(node.item)
        lo, hi = node.low, node.high
        if hi is None:
            # P(0) = 0 here: parse() refuses the rest
            if lo == 0:
                return _normalise(q, q - p)
            num = self._pow(node, p, lo)
            den = self._mul(node, self._pow(node, q, lo - 1), q - p)
            return _normalise(num, den)
        if p.is_zero():
            return (ONE, ONE) if lo == 0 else (ZERO, ONE)
        if p == ONE and q == ONE:
            return polys.poly([hi - lo + 1]), ONE
        m = hi - lo + 1
        if m == 1:
            return _normalise(self._pow(node, p, lo), self._pow(node, q, hi))
        top = self._pow(node, q, m) - self._pow(node, p, m)
        n_m = polys.exact_div(top, q - p)
        num = self._mul(node, self._pow(node, p, lo), n_m)
        return _normalise(num, self._pow(node, q, hi))


def generating_function(expr: str | Deal) -> RationalGF:
    """The deal's generating function ``P(x)/Q(x)``, in lowest terms with ``Q(0) = 1``."""
    deal = parse(expr)
    p, q = _Builder(deal).build(deal.root)
    return RationalGF(polys.ints(p), polys.ints(q))
