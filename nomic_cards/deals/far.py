"""Far terms: a(n) exactly or modulo m, in O(log n) polynomial products (Bostan–Mori).

For ``A = P/Q`` with ``Q(0) = 1``, ``[x^n] P(x)/Q(x) = [x^(n div 2)] U_(n mod 2)(x)/V(x)`` where
``P(x)Q(-x) = U_0(x^2) + x U_1(x^2)`` and ``Q(x)Q(-x) = V(x^2)``: each halving of n costs two
polynomial products of the recurrence's size (A. Bostan and R. Mori, "A simple and fast
algorithm for computing the N-th term of a linearly recurrent sequence", SOSA 2021). Everything
stays in FLINT's ``fmpz_poly`` (``Q(-x)`` and the even/odd parts by deflation, reduction modulo
m by a scalar division), so no step goes through Python lists. Before each halving the two
products are checked against the size budget (exact terms also against
:data:`MAX_RESULT_BITS`), so a far term is refused, never left to exhaust memory.
"""

from __future__ import annotations

from flint import fmpz_poly

from nomic_cards.deals import polys
from nomic_cards.deals.errors import DealTooLarge, ResultTooLarge
from nomic_cards.deals.gf import RationalGF, generating_function
from nomic_cards.deals.parser import parse
from nomic_cards.deals.polys import MAX_BITS
from nomic_cards.deals.series import SeriesEvaluator
from nomic_cards.deals.syntax import Deal, decimal
from nomic_cards.errors import InputError

#: When the exact generating function (or an exact far term) is over budget, terms up to here
#: come from the series of the syntax tree instead.
SERIES_FALLBACK = 1 << 16
#: Exact far terms stop when the next halving step would need more memory than this (64 MiB).
MAX_RESULT_BITS = MAX_BITS

_ASK_MOD = "the exact term would be too large to compute; ask for it modulo a number"


def _halve(p: fmpz_poly, q: fmpz_poly, odd: bool) -> tuple[fmpz_poly, fmpz_poly]:
    """One Bostan–Mori step: ``(U_odd, V)`` from ``P(x)Q(-x)`` and ``Q(x)Q(-x)``."""
    qm = polys.negate_x(q)
    return polys.even_odd(p * qm, odd), polys.even_odd(q * qm, False)


def _step_bits(p: fmpz_poly, q: fmpz_poly) -> int:
    return polys.product_bits(p, q) + polys.product_bits(q, q)


def _bm_exact(p: fmpz_poly, q: fmpz_poly, n: int) -> int:
    while n:
        if _step_bits(p, q) > MAX_RESULT_BITS:
            detail = polys.over(_step_bits(p, q), MAX_RESULT_BITS)
            raise ResultTooLarge(f"{_ASK_MOD} ({detail})", detail)
        p, q = _halve(p, q, bool(n & 1))
        n >>= 1
    return int(p[0])  # q(0) = 1 throughout


def _reduce(p: fmpz_poly, m: int) -> fmpz_poly:
    """``p`` with every coefficient reduced into ``(-m, m)`` (truncating division)."""
    return p - (p // m) * m


def _bm_mod(p: fmpz_poly, q: fmpz_poly, n: int, m: int) -> int:
    p, q = _reduce(p, m), _reduce(q, m)
    while n:
        polys.refuse_over(_step_bits(p, q), MAX_BITS, "a step of the far term")
        p, q = _halve(p, q, bool(n & 1))
        p, q = _reduce(p, m), _reduce(q, m)
        n >>= 1
    return int(p[0]) % m


def coefficient(gf: RationalGF, n: int, mod: int | None = None) -> int:
    """``[x^n] P/Q`` (reduced modulo ``mod`` when given)."""
    if n < 0:
        raise InputError(f"n must be 0 or more, not {decimal(n)}")
    if mod is not None and mod < 1:
        raise InputError(f"the modulus must be 1 or more, not {decimal(mod)}")
    if mod == 1:
        return 0
    num = gf.numerator
    if not num:
        return 0
    if gf.is_polynomial:
        value = num[n] if n < len(num) else 0
        return value if mod is None else value % mod
    if mod is None:
        return _bm_exact(gf.p, gf.q, n)
    return _bm_mod(gf.p, gf.q, n, mod)


def term(expr: str | Deal, n: int, mod: int | None = None) -> int:
    """a(n), exactly or modulo ``mod``, in time growing with log n."""
    if n < 0:
        raise InputError(f"n must be 0 or more, not {decimal(n)}")
    if mod is not None and mod < 1:
        raise InputError(f"the modulus must be 1 or more, not {decimal(mod)}")
    deal = parse(expr)
    try:
        return coefficient(generating_function(deal), n, mod)
    except (DealTooLarge, ResultTooLarge):
        if n >= SERIES_FALLBACK:
            raise
    value = SeriesEvaluator(deal, n + 1).coefficient(deal.root, n)
    return value if mod is None else value % mod
