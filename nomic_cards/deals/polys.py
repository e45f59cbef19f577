"""Integer polynomial and truncated power-series helpers, on python-flint's ``fmpz_poly``.

FLINT gives fast multiplication (Kronecker substitution and Schönhage–Strassen through GMP),
GCD and factorisation of integer polynomials; this module adds the few things the deal code
needs on top: ``Q(-x)`` and even/odd parts (for Bostan–Mori), series division and truncated
powers whose every product is checked by a :class:`~nomic_cards.deals.budget.Meter` before it
is formed (the sparse division, on Python integers, stops as soon as its running size passes
the budget), powers that also work for astronomically large exponents, and exact powers that
avoid FLINT's binomial expansion of ``x^k``.
"""

from __future__ import annotations

from collections.abc import Iterable

from flint import fmpz_poly

from nomic_cards.deals.budget import (
    BIG_OVERHEAD,
    MAX_BITS,
    Meter,
    memory_bits,
    pow_series_bits,
    product_work,
    refuse_over,
)

ZERO = fmpz_poly([])
ONE = fmpz_poly([1])


def poly(coeffs: Iterable[int]) -> fmpz_poly:
    """An ``fmpz_poly`` from coefficients in ascending order."""
    return fmpz_poly(list(coeffs))


def monomial(k: int, c: int = 1) -> fmpz_poly:
    """``c * x^k`` (callers check ``k`` against their budget)."""
    return fmpz_poly([c]).left_shift(k)


def ints(p: fmpz_poly) -> tuple[int, ...]:
    """Coefficients of ``p`` as Python ints, ascending (``()`` for the zero polynomial)."""
    return tuple(int(c) for c in p.coeffs())


def const(p: fmpz_poly) -> int:
    """``p(0)``."""
    return int(p[0])


def valuation(p: fmpz_poly) -> int:
    """The least ``v`` with a non-zero coefficient of ``x^v`` (0 for the zero polynomial)."""
    v = 0
    for v in range(p.length()):
        if p[v] != 0:
            break
    return v


def negate_x(p: fmpz_poly) -> fmpz_poly:
    """``p(-x)``: twice the even part minus ``p`` (all in FLINT, no Python lists)."""
    if p.length() < 2:
        return p
    return 2 * p.deflate(2).inflate(2) - p


def even_odd(p: fmpz_poly, odd: bool) -> fmpz_poly:
    """``E`` or ``O`` where ``p(x) = E(x^2) + x O(x^2)``."""
    return (p.right_shift(1) if odd else p).deflate(2)


def exact_div(a: fmpz_poly, b: fmpz_poly) -> fmpz_poly:
    """``a / b`` when ``b`` divides ``a`` exactly in Z[x]."""
    q, r = divmod(a, b)
    if not r.is_zero():  # pragma: no cover - a bug, never an input error
        raise ArithmeticError("inexact polynomial division")
    return q


def inverse_series(f: fmpz_poly, n: int, meter: Meter) -> fmpz_poly:
    """``1/f mod x^n`` for ``f(0) = 1`` (Newton iteration: g <- g + g(1 - fg))."""
    if n <= 0:
        return ZERO
    if const(f) != 1:  # pragma: no cover - callers guarantee it
        raise ArithmeticError("series inverse needs constant term 1")
    g = ONE
    k = 1
    while k < n:
        k = min(2 * k, n)
        e = (ONE - meter.mul_low(f.truncate(k), g, k)).truncate(k)
        g = (g + meter.mul_low(g, e, k)).truncate(k)
    return g


#: Denominators with at most this many non-zero terms are divided out term by term.
SPARSE_TERMS = 40


def divide_series(p: fmpz_poly, q: fmpz_poly, n: int, meter: Meter) -> fmpz_poly:
    """``p/q mod x^n`` for ``q(0) = 1``; ``ResultTooLarge`` once it outgrows the budget.

    A sparse ``q`` (the usual case: a recurrence with few terms) is divided out one
    coefficient at a time on Python ints, which costs a few big-integer additions per term and
    keeps a running total of the size, stopping as soon as it passes the budget; a dense one by
    Newton inversion and one product, each product checked before it is formed.
    """
    if n <= 0 or p.is_zero():
        return ZERO
    refuse_over(memory_bits(n, 0), MAX_BITS, f"a series of {n} terms")
    terms = [(i, -int(q[i])) for i in range(1, min(q.length(), n)) if q[i] != 0]
    if len(terms) > SPARSE_TERMS:
        inv = inverse_series(q.truncate(n), n, meter)
        return meter.mul_low(p.truncate(n), inv, n)
    a = [0] * n
    for i in range(min(p.length(), n)):
        a[i] = int(p[i])
    used = 64 * n
    for k in range(1, n):
        v = a[k]
        for i, c in terms:
            if i > k:
                break
            v += c * a[k - i]
        a[k] = v
        bits = v.bit_length()
        if bits > 62:
            used += BIG_OVERHEAD + bits
            if used > MAX_BITS:
                refuse_over(used * n / (k + 1), MAX_BITS, f"a series of {n} terms")
    return fmpz_poly(a)


def pow_series(f: fmpz_poly, k: int, n: int, meter: Meter) -> fmpz_poly:
    """``f^k mod x^n`` for any ``k >= 0``, every product checked by ``meter``.

    Binary exponentiation, except for exponents past 2^62 with ``f(0) = 1``, where the binomial
    series ``(1 + y)^k = sum_{i<n} C(k, i) y^i`` is summed (``y^i`` vanishes for ``i >= n``)
    after a closed-form size bound; ``f(0) > 1`` with such exponents is astronomically large.
    """
    if n <= 0:
        return ZERO
    if k == 0:
        return ONE.truncate(n)
    f = f.truncate(n)
    if f.is_zero() or (const(f) == 0 and k >= n):
        return ZERO  # x^k divides f^k
    if k < (1 << 62) or const(f) == 0:
        out = f
        bits = bin(k)[3:]
        for i, bit in enumerate(bits):
            if const(f):  # then the powers only grow: every squaring left costs at least this
                meter.foresee(product_work(out, out, n) * (len(bits) - i), "a power of a series")
            out = meter.mul_low(out, out, n)
            if bit == "1":
                out = meter.mul_low(out, f, n)
        return out
    kept, work = pow_series_bits(f, k, n)
    meter.check(kept, work, "a power of a series", 2 * n)
    if const(f) != 1:  # pragma: no cover - refused above as astronomically large
        raise ArithmeticError("power too large")
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


def power(f: fmpz_poly, k: int) -> fmpz_poly:
    """``f^k`` exactly (callers check the size first).

    The power of ``x`` dividing ``f`` is taken out first: FLINT raises a two-term polynomial to
    a power by the binomial theorem, which for ``x^k`` would build every binomial coefficient
    C(k, i) only to multiply it by zero (gigabytes for k = 10^6).
    """
    if k == 0:
        return ONE
    v = valuation(f)
    g = f.right_shift(v) if v else f
    out = fmpz_poly([int(pow(int(g[0]), k))]) if g.length() == 1 else g**k
    return out.left_shift(v * k) if v else out
