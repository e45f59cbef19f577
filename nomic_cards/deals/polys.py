"""Integer polynomial and truncated power-series helpers, on python-flint's ``fmpz_poly``.

FLINT gives fast multiplication (Kronecker substitution and Schönhage–Strassen through GMP),
GCD and factorisation of integer polynomials; this module adds the few things the deal code
needs on top: size estimates for the budgets, ``Q(-x)`` and even/odd parts (for Bostan–Mori),
series division that stops as soon as it outgrows its budget, and powers that also work for
astronomically large exponents.

**Budgets.** GMP aborts the whole process when an allocation fails, so nothing big is built
before its size is known to fit. Sizes are *memory* estimates in bits: a word per coefficient,
plus, for a coefficient past 62 bits (which FLINT keeps as a separate GMP integer), that
integer's header and digits. Every function that builds a polynomial whose size is not already
bounded by its caller's check estimates the result from its operands first and raises
:class:`~nomic_cards.deals.errors.ResultTooLarge` over the limit; callers that know which part
of a deal is responsible re-raise it as ``DealTooLarge`` pointing there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from flint import fmpz_poly

from nomic_cards.deals.errors import ResultTooLarge

#: Largest degree of an exact generating function's numerator or denominator.
MAX_DEGREE = 1 << 22
#: Largest memory, in bits, of one exact polynomial or truncated series (64 MiB).
MAX_BITS = 1 << 29
#: Most terms of a truncated series (``terms`` count, cards of a sample).
MAX_LENGTH = 1 << 22
#: Largest working memory, in bits, of one product (512 MiB): FLINT multiplies by packing both
#: operands into integers at the width of the product's largest coefficient (Kronecker
#: substitution), and GMP needs about as much again for the product and its scratch space.
MAX_WORK_BITS = 1 << 32
#: Largest total work of one power, range or far term: the sum of the working estimates of the
#: products it forms (2 GiB processed; roughly ten seconds), so that a request within the
#: memory budgets cannot run for minutes through thousands of large products.
MAX_COST_BITS = 1 << 34

#: Bits a coefficient past 62 bits costs besides its digits (GMP header and allocation).
_BIG_OVERHEAD = 320

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


def memory_bits(length: int, height: int) -> int:
    """Memory estimate, in bits, of ``length`` coefficients of at most ``height`` bits."""
    if height <= 62:
        return 64 * length
    return length * (64 + _BIG_OVERHEAD + height)


def size_bits(p: fmpz_poly) -> int:
    """Memory estimate of ``p`` itself."""
    return memory_bits(p.length(), int(p.height_bits()))


def product_bits(a: fmpz_poly, b: fmpz_poly) -> int:
    """Upper bound on the memory of ``a * b``, from the two heights."""
    la, lb = a.length(), b.length()
    if not la or not lb:
        return 0
    height = int(a.height_bits()) + int(b.height_bits()) + min(la, lb).bit_length()
    return memory_bits(la + lb - 1, height)


def product_work(a: fmpz_poly, b: fmpz_poly, n: int | None = None) -> int:
    """Working memory estimate of ``a * b`` (``mod x^n``): three times both operands packed
    at the width of the product's largest coefficient."""
    la, lb = a.length(), b.length()
    if not la or not lb:
        return 0
    if n is not None:
        la, lb = min(la, n), min(lb, n)
    width = int(a.height_bits()) + int(b.height_bits()) + min(la, lb).bit_length() + 1
    return 3 * (la + lb) * width


def check_product(a: fmpz_poly, b: fmpz_poly, n: int | None, what: str) -> None:
    """Refuse ``a * b`` (``mod x^n``) whose result or working memory is over budget."""
    kept = product_bits(a, b) if n is None else series_product_bits(a, b, n)
    refuse_over(kept, MAX_BITS, what)
    refuse_over(product_work(a, b, n), MAX_WORK_BITS, what, "working memory ")


def _ends(length: int) -> list[int]:
    """Ends of the segments [0, 1), [1, 2), [2, 4), [4, 8), ... covering [0, length)."""
    ends, e = [], 1
    while e < length:
        ends.append(e)
        e *= 2
    return [*ends, length] if length else []


def _prefix_heights(p: fmpz_poly, ends: list[int]) -> list[int]:
    """For each end e, the most bits of a coefficient of ``p`` below x^e."""
    return [int(p.truncate(e).height_bits()) for e in ends]


def series_bits(p: fmpz_poly) -> int:
    """Memory estimate of a series: per segment of doubling length, its largest coefficient.

    Much closer than :func:`size_bits` for counts that grow along the series (a coefficient
    is charged the largest size before the end of its segment, not the largest overall).
    """
    ends = _ends(p.length())
    total, start = 0, 0
    for e, h in zip(ends, _prefix_heights(p, ends), strict=True):
        total += memory_bits(e - start, h)
        start = e
    return total


def series_product_bits(a: fmpz_poly, b: fmpz_poly, n: int) -> int:
    """Upper bound on the memory of ``a * b mod x^n``, segment by segment.

    ``[x^j] ab = sum_{i<=j} a_i b_(j-i)`` has at most ``min(j+1, len a, len b)`` terms, each
    at most the largest ``|a_i|`` times the largest ``|b_i|`` with ``i <= j``.
    """
    la, lb = a.length(), b.length()
    if not la or not lb:
        return 0
    ends = _ends(min(n, la + lb - 1))
    total, start = 0, 0
    for e, ha, hb in zip(ends, _prefix_heights(a, ends), _prefix_heights(b, ends), strict=True):
        total += memory_bits(e - start, ha + hb + min(e, la, lb).bit_length())
        start = e
    return total


def series_sum_bits(a: fmpz_poly, b: fmpz_poly, scale: int = 1) -> int:
    """Upper bound on the memory of ``a + scale * b`` (``a`` may be zero), segment by segment."""
    ends = _ends(max(a.length(), b.length()))
    total, start = 0, 0
    for e, ha, hb in zip(ends, _prefix_heights(a, ends), _prefix_heights(b, ends), strict=True):
        total += memory_bits(e - start, max(ha, hb + scale.bit_length()) + 1)
        start = e
    return total


def refuse_over(bits: int | float, limit: int, what: str, label: str = "") -> None:
    """Raise :class:`ResultTooLarge` when ``bits`` exceeds ``limit`` (``label`` starts the
    size comparison in the message, e.g. ``working memory``)."""
    if bits > limit:
        detail = label + over(bits, limit)
        raise ResultTooLarge(f"{what} would be too large ({detail})", detail)


def over(bits: int | float, limit: int) -> str:
    """``about 80 MiB > 64 MiB``, or ``far more than 64 MiB`` for astronomical sizes."""
    if bits >= 2**53:
        return f"far more than {mib(limit)}"
    if mib(bits) == mib(limit):
        return f"just over {mib(limit)}"
    return f"about {mib(bits)} > {mib(limit)}"


def mib(bits: int | float) -> str:
    """``"12 MiB"``: a size in bits, for messages (below 2^53 bits)."""
    return f"{max(1, round(bits / 8 / 2**20))} MiB"


def log2_norm1(p: fmpz_poly) -> float:
    """``log2`` of the sum of the absolute values of ``p``'s coefficients (0 for ``p = 0``)."""
    total = sum(abs(int(c)) for c in p.coeffs())
    return math.log2(total) if total else 0.0


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


def mul_low(a: fmpz_poly, b: fmpz_poly, n: int) -> fmpz_poly:
    """``a * b mod x^n``, refused (:class:`ResultTooLarge`) when it could exceed the budgets."""
    check_product(a, b, n, "a product of series")
    return a.mul_low(b, n)


def inverse_series(f: fmpz_poly, n: int) -> fmpz_poly:
    """``1/f mod x^n`` for ``f(0) = 1`` (Newton iteration: g <- g + g(1 - fg)).

    Each product is checked against the budgets before it is formed, from the sizes so far.
    """
    if n <= 0:
        return ZERO
    if const(f) != 1:  # pragma: no cover - callers guarantee it
        raise ArithmeticError("series inverse needs constant term 1")
    g = ONE
    k = 1
    while k < n:
        k = min(2 * k, n)
        fk = f.truncate(k)
        e = (ONE - mul_low(fk, g, k)).truncate(k)
        g = (g + mul_low(g, e, k)).truncate(k)
    return g


#: Denominators with at most this many non-zero terms are divided out term by term.
SPARSE_TERMS = 40


def divide_series(p: fmpz_poly, q: fmpz_poly, n: int, limit: int = MAX_BITS) -> fmpz_poly:
    """``p/q mod x^n`` for ``q(0) = 1``; :class:`ResultTooLarge` once it outgrows ``limit``.

    A sparse ``q`` (the usual case: a recurrence with few terms) is divided out one
    coefficient at a time on Python ints, which costs a few big-integer additions per term and
    keeps a running total of the size, stopping as soon as it passes ``limit``; a dense one by
    Newton inversion and one product, each product checked before it is formed.
    """
    if n <= 0 or p.is_zero():
        return ZERO
    refuse_over(memory_bits(n, 0), limit, f"a series of {n} terms")
    terms = [(i, -int(q[i])) for i in range(1, min(q.length(), n)) if q[i] != 0]
    if len(terms) > SPARSE_TERMS:
        inv = inverse_series(q.truncate(n), n)
        return mul_low(p.truncate(n), inv, n)
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
            used += _BIG_OVERHEAD + bits
            if used > limit:
                refuse_over(used * n / (k + 1), limit, f"a series of {n} terms")
    return fmpz_poly(a)


def pow_series_bits(f: fmpz_poly, k: int, n: int, extra: int = 0) -> tuple[float, float]:
    """Upper bounds on the memory of ``f^k mod x^n`` (and of every lower power), with ``extra``
    bits per coefficient, and on the working memory of the products that form it; ``inf``
    when astronomically large.

    With ``f = c + y`` (``y(0) = 0``), ``[x^j] f^k <= sum_{i<=min(j,k)} C(k,i) c^(k-i) |y|^i``,
    which has at most ``k log2 c + min(j, k) (log2(k+1) + log2|y|_1 + 1) + 1`` bits: a bound
    that grows linearly along the series, summed here in closed form. It grows with k too, so
    it also bounds the powers formed on the way to ``f^k``.
    """
    c = abs(const(f))
    y = f - const(f)
    if c > 1 and k > (1 << 64):
        return math.inf, math.inf
    base = (k * math.log2(c) if c > 1 else 0.0) + 1 + extra
    slope = math.log2(k + 1) + log2_norm1(y.truncate(n)) + 1
    cap = min(k, n - 1) if c == 0 else n - 1  # the bound stops growing at j = cap
    # b_j = base + slope * min(j, cap) for j < n; a coefficient of b bits costs memory_bits(1, b)
    small = 0.0 if base > 62 else min(cap + 1.0, math.floor((62 - base) / slope) + 1.0)
    big = cap + 1 - small  # j in [small, cap] are past 62 bits
    top = base + slope * cap
    linear = big * (64 + _BIG_OVERHEAD + base) + slope * (cap * (cap + 1) - small * (small - 1)) / 2
    flat = (n - 1 - cap) * (64 if top <= 62 else 64 + _BIG_OVERHEAD + top)
    # the last product (a squaring, or x^j times the sum so far) packs 2n terms at width ~top
    return 64 * small + linear + flat, 3 * 2 * n * (top + n.bit_length() + 1)


def pow_steps(f: fmpz_poly, k: int, n: int) -> int:
    """How many full-size products :func:`pow_trunc` forms for ``f^k mod x^n``."""
    if k < (1 << 62) or const(f) == 0:
        return 2 * min(k, 1 << 62).bit_length()
    return 2 * n  # the binomial series, one term of the n at a time


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
