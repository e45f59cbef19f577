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

from nomic_cards.deals import budget, polys
from nomic_cards.deals.budget import MAX_BITS, MAX_COST_BITS, MAX_WORK_BITS
from nomic_cards.deals.errors import DealTooLarge, ResultTooLarge
from nomic_cards.deals.gf import RationalGF, generating_function
from nomic_cards.deals.parser import parse
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


def _check_step(kept: int, work: int, what: str, limit: int, steps: int) -> None:
    """Refuse a halving step whose products keep more than ``limit`` or need more working
    memory than the budget, or ``steps`` such steps over the budget of work."""
    budget.refuse_over(kept, limit, what)
    budget.refuse_over(work, MAX_WORK_BITS, what, "working memory ")
    budget.refuse_over(work * steps, MAX_COST_BITS, what, "work ")


def _bm_exact(p: fmpz_poly, q: fmpz_poly, n: int) -> int:
    done = 0
    while n:
        kept = budget.product_bits(p, q) + budget.product_bits(q, q)
        work = budget.product_work(p, q) + budget.product_work(q, q)
        try:
            # coefficients only grow: every step left costs at least this one
            _check_step(kept, work, "the exact term", MAX_RESULT_BITS, 1)
            budget.refuse_over(done + n.bit_length() * work, MAX_COST_BITS, "the exact term",
                              "work ")
        except ResultTooLarge as err:
            raise ResultTooLarge(f"{_ASK_MOD} ({err.detail})", err.detail) from None
        done += work
        p, q = _halve(p, q, bool(n & 1))
        n >>= 1
    return int(p[0])  # q(0) = 1 throughout


def _reduce(p: fmpz_poly, m: int) -> fmpz_poly:
    """``p`` with every coefficient reduced into ``(-m, m)`` (truncating division)."""
    return p - (p // m) * m


def _bm_mod(p: fmpz_poly, q: fmpz_poly, n: int, m: int) -> int:
    p, q = _reduce(p, m), _reduce(q, m)
    # coefficients stay below m, lengths below those of p and q: every step costs at most a
    # step with coefficients of 2 log2 m + log2 d bits
    lp, lq = p.length(), q.length()
    width = 2 * m.bit_length() + lq.bit_length() + 1
    kept = budget.memory_bits(lp + lq, width) + budget.memory_bits(2 * lq, width)
    work = 3 * (lp + 3 * lq) * width
    _check_step(kept, work, "the far term", MAX_BITS, n.bit_length())
    while n:
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
