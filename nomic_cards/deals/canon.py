"""Equivalence and canonical form of deals.

Two deals give the same sequence exactly when their generating functions are equal, and a
rational function has one representation ``P/Q`` in lowest terms with ``Q(0) = 1``; so
:func:`same` compares those, and :func:`canonical` prints the reduced ``P/Q`` in a fixed shape.
The canonical form is a deal expression when the reduced function has one of these shapes
(tried in order), and otherwise the generating function itself:

1. ``Q = 1``: a polynomial ``P = sum c_k x^k`` prints as ``c * k`` terms (``k`` when c = 1)
   joined by ``or``, in increasing k; the zero sequence is ``0 * 0``;
2. ``P`` has no negative coefficient and ``Q = 1 - R`` with ``R`` free of negative ones:
   ``(P) (R)^?`` (``P`` left out when it is 1);
3. every irreducible factor of ``Q`` over the integers (constant term 1) is either
   cyclotomic or ``1 - R_i`` with ``R_i`` free of negative coefficients. The cyclotomic ones
   are gathered, largest order d first, into ``1 - x^d = prod_{k | d} Phi_k``; a ``Phi_k``
   that ``Q`` lacks multiplies numerator and denominator alike (``M``). When ``P M`` has no
   negative coefficient: ``(P M) (R_1)^? ((R_2)^?)^e ...``, factors in increasing degree then
   coefficients (``1^? 2^?`` stays ``1^? 2^?``); tried only when Q has degree at most
   :data:`~nomic_cards.deals.gf.MAX_FACTOR_DEGREE`;
4. otherwise, with ``P' = P M``, ``Q' = Q M`` and ``N = deg P' - deg Q' + 1``, split
   ``P'/Q' = T + S/Q'`` where ``T`` holds a(0..N-1) (so ``S`` is unique and integral); when
   ``S`` has no negative coefficient: ``T or (S) stars`` as above;
5. otherwise the generating function as :class:`~nomic_cards.deals.gf.RationalGF` prints it,
   e.g. ``1 / (1 - x - x^2 + x^3)`` (text with an ``x`` in it, so never a deal).

Each shape is a function of the reduced ``P/Q`` alone, so equal sequences get equal forms and
different sequences different ones; forms 1–4 parse back to the same generating function.
"""

from __future__ import annotations

from collections import Counter

from flint import fmpz_poly

from nomic_cards.deals import budget, polys
from nomic_cards.deals.errors import ResultTooLarge
from nomic_cards.deals.gf import RationalGF, generating_function
from nomic_cards.deals.syntax import Deal, decimal


def _poly_deal(coeffs: tuple[int, ...]) -> str:
    """A deal whose generating function is the polynomial ``coeffs`` (all >= 0)."""
    parts = []
    for k, c in enumerate(coeffs):
        if c == 1:
            parts.append(str(k))
        elif c > 1:
            parts.append(f"{decimal(c)} * {k}")
    return " or ".join(parts) if parts else "0 * 0"


def _is_single(coeffs: tuple[int, ...]) -> bool:
    """True when ``coeffs`` is ``x^k`` with coefficient 1 (prints as a bare number)."""
    nz = [c for c in coeffs if c]
    return nz == [1]


def _atom(coeffs: tuple[int, ...]) -> str:
    text = _poly_deal(coeffs)
    return text if _is_single(coeffs) else f"({text})"


def _star(r: tuple[int, ...], times: int) -> str:
    body = f"{_atom(r)}^?"
    return body if times == 1 else f"({body})^{times}"


def _nonneg(coeffs: tuple[int, ...]) -> bool:
    return all(c >= 0 for c in coeffs)


def _one_minus(q: tuple[int, ...]) -> tuple[int, ...] | None:
    """``R`` with ``q = 1 - R`` and R free of negative coefficients, else None."""
    if q[0] != 1:
        return None
    r = (0, *(-c for c in q[1:]))
    return r if _nonneg(r) else None


def canonical_of(gf: RationalGF) -> str:
    """The canonical form of a reduced generating function (see the module docstring)."""
    if gf.is_polynomial:
        return _poly_deal(gf.numerator)
    dec = _decompose(gf)
    if dec is None:
        return str(gf)
    extra, stars = dec
    try:
        return _with_stars(gf, extra, stars)
    except ResultTooLarge:  # a function of P/Q alone too, so forms stay canonical
        return str(gf)


def _with_stars(gf: RationalGF, extra: fmpz_poly, stars: list[str]) -> str:
    """Shape 3 or 4, or the generating function; ResultTooLarge when over the size budget."""
    pg, qg = gf.p, gf.q
    budget.refuse_over(budget.product_bits(pg, extra) + budget.product_bits(qg, extra),
                      budget.MAX_BITS, "the canonical form")
    p, q = pg * extra, qg * extra
    pc, qc = polys.ints(p), polys.ints(q)
    if _nonneg(pc):
        head = [] if pc == (1,) else [_atom(pc)]
        return " ".join(head + stars)
    n = max(0, len(pc) - len(qc) + 1)
    t = tuple(gf.terms(n))
    tp = polys.poly(t)
    budget.refuse_over(budget.product_bits(tp, q), budget.MAX_BITS, "the canonical form")
    s = polys.ints(p - tp * q)
    if not _nonneg(s):
        return str(gf)
    tail = " ".join([_atom(s), *stars])
    return tail if not any(t) else f"{_poly_deal(t)} or {tail}"


def _divisors(d: int) -> list[int]:
    return [k for k in range(1, d + 1) if d % k == 0]


def _cyclotomic(k: int) -> fmpz_poly:
    """The k-th cyclotomic polynomial with constant term 1 (``1 - x`` for k = 1)."""
    c = fmpz_poly.cyclotomic(k)
    return -c if polys.const(c) < 0 else c


def _decompose(gf: RationalGF) -> tuple[fmpz_poly, list[str]] | None:
    """``(M, stars)``: ``Q * M`` is the product of the stars' ``1 - R`` (shape 2, else 3), or
    None when a factor of ``Q`` fits neither."""
    r = _one_minus(gf.denominator)
    if r is not None:
        return polys.ONE, [_star(r, 1)]
    if not gf.factorable:
        return None
    factors: list[tuple[tuple[int, ...], int]] = []
    orders: Counter[int] = Counter()
    for f, e in gf.denominator_factors():
        fp = polys.poly(f)
        k = int((fp if f[-1] > 0 else -fp).is_cyclotomic())
        if k:
            orders[k] += e
        elif _one_minus(f) is None:
            return None
        else:
            factors.append((f, e))
    # cyclotomic factors, largest order first, gathered into 1 - x^d = prod_{k | d} Phi_k;
    # a Phi_k missing from Q multiplies numerator and denominator alike
    extra = polys.ONE
    groups: Counter[int] = Counter()
    while orders:
        d = max(orders)
        for k in _divisors(d):
            if orders[k] > 0:
                orders[k] -= 1
                if orders[k] == 0:
                    del orders[k]
            else:
                extra *= _cyclotomic(k)
        groups[d] += 1
    factors += [((1, *([0] * (d - 1)), -1), e) for d, e in groups.items()]
    factors.sort(key=lambda fe: (len(fe[0]), fe[0]))
    stars = []
    for f, e in factors:
        rf = _one_minus(f)
        assert rf is not None
        stars.append(_star(rf, e))
    return extra, stars


def canonical(expr: str | Deal) -> str:
    """The canonical form of a deal: equal for two deals exactly when their sequences are."""
    return canonical_of(generating_function(expr))


def same(a: str | Deal, b: str | Deal) -> bool:
    """Whether two deals give the same number of ways for every number of cards."""
    return generating_function(a) == generating_function(b)


def first_difference(a: str | Deal, b: str | Deal) -> int | None:
    """The least n with a different a(n) in the two deals, or None when they are the same."""
    ga, gb = generating_function(a), generating_function(b)
    if ga == gb:
        return None
    # A - B = (Pa Qb - Pb Qa) / (Qa Qb) and Qa Qb has constant term 1: the first non-zero
    # coefficient of the numerator is the first difference.
    pa, qa, pb, qb = ga.p, ga.q, gb.p, gb.q
    budget.refuse_over(budget.product_bits(pa, qb) + budget.product_bits(pb, qa), budget.MAX_BITS,
                      "comparing the two deals term by term")
    diff = pa * qb - pb * qa
    return next(i for i, c in enumerate(diff.coeffs()) if c != 0)
