"""Integer polynomial and truncated power-series helpers, on python-flint's ``fmpz_poly``.

FLINT gives fast multiplication (Kronecker substitution and Schönhage–Strassen through GMP),
GCD and factorisation of integer polynomials; this module adds the few things the deal code
needs on top: the size budget, ``Q(-x)`` and even/odd parts (for Bostan–Mori), series inversion
by Newton iteration, and truncated powers that also work for astronomically large exponents.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from flint import fmpz_poly

#: Largest degree of an exact generating function's numerator or denominator.
MAX_DEGREE = 1 << 22
#: Largest total size, in bits, of one exact polynomial or truncated series (128 MiB).
MAX_BITS = 1 << 30

ZERO = fmpz_poly([])
ONE = fmpz_poly([1])


def poly(coeffs: Iterable[int]) -> fmpz_poly:
    """An ``fmpz_poly`` from coefficients in ascending order."""
    return fmpz_poly(list(coeffs))


def monomial(k: int, c: int = 1) -> fmpz_poly:
    """``c * x^k``."""
    return fmpz_poly([0] * k + [c])


def ints(p: fmpz_poly) -> tuple[int, ...]:
    """Coefficients of ``p`` as Python ints, ascending (``()`` for the zero polynomial)."""
    return tuple(int(c) for c in p.coeffs())


def const(p: fmpz_poly) -> int:
    """``p(0)``."""
    return int(p[0])


def size_bits(p: fmpz_poly) -> int:
    """An upper bound on the bits needed for ``p``'s coefficients."""
    return (p.degree() + 1) * (int(p.height_bits()) + 1)


def log2_norm1(p: fmpz_poly) -> float:
    """``log2`` of the sum of the absolute values of ``p``'s coefficients (0 for ``p = 0``)."""
    total = sum(abs(int(c)) for c in p.coeffs())
    return math.log2(total) if total else 0.0


def negate_x(p: fmpz_poly) -> fmpz_poly:
    """``p(-x)``."""
    c = p.coeffs()
    return fmpz_poly([v if i % 2 == 0 else -v for i, v in enumerate(c)])


def exact_div(a: fmpz_poly, b: fmpz_poly) -> fmpz_poly:
    """``a / b`` when ``b`` divides ``a`` exactly in Z[x]."""
    q, r = divmod(a, b)
    if not r.is_zero():  # pragma: no cover - a bug, never an input error
        raise ArithmeticError("inexact polynomial division")
    return q


def inverse_series(f: fmpz_poly, n: int) -> fmpz_poly:
    """``1/f mod x^n`` for ``f(0) = 1`` (Newton iteration: g <- g + g(1 - fg))."""
    if n <= 0:
        return ZERO
    if const(f) != 1:  # pragma: no cover - callers guarantee it
        raise ArithmeticError("series inverse needs constant term 1")
    g = ONE
    k = 1
    while k < n:
        k = min(2 * k, n)
        e = (ONE - f.mul_low(g, k)).truncate(k)
        g = (g + g.mul_low(e, k)).truncate(k)
    return g


#: Denominators with at most this many non-zero terms are divided out term by term.
SPARSE_TERMS = 40


def divide_series(p: fmpz_poly, q: fmpz_poly, n: int) -> fmpz_poly:
    """``p/q mod x^n`` for ``q(0) = 1``.

    A sparse ``q`` (the usual case: a recurrence with few terms) is divided out one
    coefficient at a time on Python ints, which costs a few big-integer additions per term;
    a dense one by Newton inversion and one product, which costs a few full-size products.
    """
    if n <= 0 or p.is_zero():
        return ZERO
    qc = [int(c) for c in q.coeffs()]
    terms = [(i, -c) for i, c in enumerate(qc) if i and c]
    if len(terms) > SPARSE_TERMS:
        return p.mul_low(inverse_series(q, n), n)
    pc = [int(c) for c in p.coeffs()[:n]]
    a = pc + [0] * (n - len(pc))
    for k in range(1, n):
        v = a[k]
        for i, c in terms:
            if i > k:
                break
            v += c * a[k - i]
        a[k] = v
    return fmpz_poly(a)


def pow_bits_estimate(f: fmpz_poly, k: int, n: int) -> float:
    """An upper bound on the bits of one coefficient of ``f^k mod x^n``.

    With ``f = c + y`` (``y(0) = 0``), ``[x^j] f^k <= sum_{i<=j} C(k,i) c^(k-i) |y|^i``.
    """
    c = abs(const(f))
    y = f - c if const(f) >= 0 else f + c
    ly = log2_norm1(y.truncate(n))
    j = min(n - 1, k) if c == 0 else n - 1
    cbits = k * math.log2(c) if c > 1 else 0.0
    return cbits + j * (math.log2(k + 1) + ly + 1) + 1


def pow_trunc(f: fmpz_poly, k: int, n: int) -> fmpz_poly:
    """``f^k mod x^n`` for any ``k >= 0`` (callers check the size first)."""
    if n <= 0:
        return ZERO
    if k == 0:
        return ONE
    if f.is_zero():
        return ZERO
    f = f.truncate(n)
    if const(f) == 0:
        # x^k divides f^k: nothing survives once k >= n
        return ZERO if k >= n else f.pow_trunc(k, n)
    if k < (1 << 62):
        return f.pow_trunc(k, n)
    if const(f) != 1:  # pragma: no cover - refused earlier by the size budget
        raise ArithmeticError("power too large")
    # (1 + y)^k = sum_i C(k, i) y^i, and y^i vanishes mod x^n for i >= n
    y = f - ONE
    out = ONE
    term = ONE
    binom = 1
    for i in range(1, n):
        term = term.mul_low(y, n)
        if term.is_zero():
            break
        binom = binom * (k - i + 1) // i
        out += term * binom
    return out.truncate(n)
