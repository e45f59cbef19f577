"""Far terms: a(n) exactly or modulo m, in O(log n) polynomial products (Bostan–Mori).

For ``A = P/Q`` with ``Q(0) = 1``, ``[x^n] P(x)/Q(x) = [x^(n div 2)] U_(n mod 2)(x)/V(x)`` where
``P(x)Q(-x) = U_0(x^2) + x U_1(x^2)`` and ``Q(x)Q(-x) = V(x^2)``: each halving of n costs two
polynomial products of the recurrence's size (A. Bostan and R. Mori, "A simple and fast
algorithm for computing the N-th term of a linearly recurrent sequence", SOSA 2021). Modulo
m < 2^63 the products run in FLINT's ``nmod_poly``; larger moduli reduce ``fmpz_poly``
coefficients after each product; exact terms use ``fmpz_poly`` throughout.
"""

from __future__ import annotations

from flint import fmpz_poly, nmod_poly

from nomic_cards.deals import polys
from nomic_cards.deals.errors import DealTooLarge, ResultTooLarge
from nomic_cards.deals.gf import RationalGF, generating_function
from nomic_cards.deals.parser import parse
from nomic_cards.deals.series import SeriesEvaluator
from nomic_cards.deals.syntax import Deal
from nomic_cards.errors import InputError

#: When the exact generating function is over budget, terms up to here come from series.
SERIES_FALLBACK = 1 << 16
#: Exact far terms stop when the next halving step would need more bits than this (16 MiB).
MAX_RESULT_BITS = 1 << 27


def _bm_exact(p: fmpz_poly, q: fmpz_poly, n: int) -> int:
    while n:
        qm = polys.negate_x(q)
        u = (p * qm).coeffs()
        v = (q * qm).coeffs()
        p = fmpz_poly(u[n & 1 :: 2])
        q = fmpz_poly(v[0::2])
        n >>= 1
        if n and 2 * polys.size_bits(q) > MAX_RESULT_BITS:
            raise ResultTooLarge(
                "the exact term would be too large to compute; ask for it modulo a number"
            )
    return int(p[0])  # q(0) = 1 throughout


def _bm_nmod(p: list[int], q: list[int], n: int, m: int) -> int:
    pp = nmod_poly(p, m)
    qq = nmod_poly(q, m)
    while n:
        qc = [int(c) for c in qq.coeffs()]
        qm = nmod_poly([c if i % 2 == 0 else m - c for i, c in enumerate(qc)], m)
        u = [int(c) for c in (pp * qm).coeffs()]
        v = [int(c) for c in (qq * qm).coeffs()]
        pp = nmod_poly(u[n & 1 :: 2], m)
        qq = nmod_poly(v[0::2], m)
        n >>= 1
    return int(pp[0]) % m


def _bm_bigmod(p: list[int], q: list[int], n: int, m: int) -> int:
    pp = fmpz_poly([c % m for c in p])
    qq = fmpz_poly([c % m for c in q])
    while n:
        qm = polys.negate_x(qq)
        u = [int(c) % m for c in (pp * qm).coeffs()]
        v = [int(c) % m for c in (qq * qm).coeffs()]
        pp = fmpz_poly(u[n & 1 :: 2])
        qq = fmpz_poly(v[0::2])
        n >>= 1
    return int(pp[0]) % m


def coefficient(gf: RationalGF, n: int, mod: int | None = None) -> int:
    """``[x^n] P/Q`` (reduced modulo ``mod`` when given)."""
    if n < 0:
        raise InputError(f"n must be 0 or more, not {n}")
    if mod is not None and mod < 1:
        raise InputError(f"the modulus must be 1 or more, not {mod}")
    if mod == 1:
        return 0
    num, den = list(gf.numerator), list(gf.denominator)
    if not num:
        return 0
    if gf.is_polynomial:
        value = num[n] if n < len(num) else 0
        return value if mod is None else value % mod
    if mod is None:
        return _bm_exact(gf.p, gf.q, n)
    if mod < (1 << 63):
        return _bm_nmod([c % mod for c in num], [c % mod for c in den], n, mod)
    return _bm_bigmod(num, den, n, mod)


def term(expr: str | Deal, n: int, mod: int | None = None) -> int:
    """a(n), exactly or modulo ``mod``, in time growing with log n."""
    if n < 0:
        raise InputError(f"n must be 0 or more, not {n}")
    if mod is not None and mod < 1:
        raise InputError(f"the modulus must be 1 or more, not {mod}")
    deal = parse(expr)
    try:
        gf = generating_function(deal)
    except DealTooLarge:
        if n >= SERIES_FALLBACK:
            raise
        value = SeriesEvaluator(deal, n + 1).coefficient(deal.root, n)
        return value if mod is None else value % mod
    return coefficient(gf, n, mod)
