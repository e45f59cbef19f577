"""Size budgets of the deal computations: the limits, the estimates, and the :class:`Meter`.

GMP, under FLINT, aborts the whole process when an allocation fails, and Python cannot catch
that; so nothing big is built before its size is known to fit. Sizes are *memory* estimates in
bits: a word per coefficient, plus, for a coefficient past 62 bits (which FLINT keeps as a
separate GMP integer), that integer's header and digits. Each estimate here is an upper bound
on the real size (``tests/deals/test_budget.py`` checks them against real results):

* :func:`product_bits` and :func:`size_bits` from heights, for exact polynomials of any sign;
* :func:`series_bits`, :func:`series_product_bits`, :func:`series_sum_bits` segment by segment
  (``[0, 1)``, ``[1, 2)``, ``[2, 4)``, ...) for truncated series, whose coefficients usually
  grow along the series;
* :func:`product_work`, the working memory of a product: FLINT packs both operands into
  integers at the width of the product's largest coefficient (Kronecker substitution), and GMP
  needs about as much again for the product and its scratch space;
* :func:`pow_series_bits`, a closed-form bound for ``f^k mod x^n`` used where the power is not
  formed product by product (exponents past 2^62).

A :class:`Meter` checks each product of one computation before it is formed and adds up the
work, so that a computation within the memory budgets cannot run for minutes either. Over a
budget, :class:`~nomic_cards.deals.errors.ResultTooLarge` is raised; callers that know which
part of a deal is responsible re-raise it as ``DealTooLarge`` pointing there.
"""

from __future__ import annotations

import math

from flint import fmpz_poly

from nomic_cards.deals.errors import ResultTooLarge

#: Largest degree of an exact generating function's numerator or denominator.
MAX_DEGREE = 1 << 22
#: Largest memory, in bits, of one exact polynomial or truncated series (64 MiB).
MAX_BITS = 1 << 29
#: Largest memory of all the series one computation keeps at once (256 MiB).
MAX_HELD_BITS = 1 << 31
#: Most terms of a truncated series (``terms`` count, cards of a sample + 1).
MAX_LENGTH = 1 << 22
#: Largest working memory, in bits, of one product (512 MiB).
MAX_WORK_BITS = 1 << 32
#: Largest total work of one computation: the working estimates of its products, summed
#: (2 GiB processed, roughly ten seconds).
MAX_COST_BITS = 1 << 34

#: Bits a coefficient past 62 bits costs besides its digits (GMP header and allocation).
BIG_OVERHEAD = 320


def memory_bits(length: int, height: int | float) -> int:
    """Memory estimate, in bits, of ``length`` coefficients of at most ``height`` bits."""
    if height <= 62:
        return 64 * length
    return math.ceil(length * (64 + BIG_OVERHEAD + height))


def size_bits(p: fmpz_poly) -> int:
    """Memory estimate of ``p`` from its height."""
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
    """Memory estimate of a series: per segment of doubling length, its largest coefficient
    (a count that grows along the series is not charged its last size throughout)."""
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


def log2_norm1(p: fmpz_poly) -> float:
    """``log2`` of the sum of the absolute values of ``p``'s coefficients (0 for ``p = 0``)."""
    total = sum(abs(int(c)) for c in p.coeffs())
    return math.log2(total) if total else 0.0


def pow_series_bits(f: fmpz_poly, k: int, n: int) -> tuple[float, float]:
    """Upper bounds on the memory of ``f^k mod x^n`` (and of every lower power) and on the
    working memory of one product of that size; ``inf`` when astronomically large.

    With ``f = c + y`` (``y(0) = 0``), ``[x^j] f^k <= sum_{i<=min(j,k)} C(k,i) c^(k-i) |y|^i``,
    which has at most ``k log2 c + min(j, k) (log2(k+1) + log2|y|_1 + 1) + 1`` bits: a bound
    that grows linearly along the series, summed here in closed form. It is loose when the
    coefficients of ``y`` grow, so it is used only for exponents past 2^62, where the power is
    not formed product by product.
    """
    c = abs(int(f[0]))
    y = f - int(f[0])
    if c > 1 and k > (1 << 64):
        return math.inf, math.inf
    base = (k * math.log2(c) if c > 1 else 0.0) + 1
    slope = math.log2(k + 1) + log2_norm1(y.truncate(n)) + 1
    cap = min(k, n - 1) if c == 0 else n - 1  # the bound stops growing at j = cap
    # b_j = base + slope * min(j, cap) for j < n; a coefficient of b bits costs memory_bits(1, b)
    small = 0.0 if base > 62 else min(cap + 1.0, math.floor((62 - base) / slope) + 1.0)
    big = cap + 1 - small  # j in [small, cap] are past 62 bits
    top = base + slope * cap
    linear = big * (64 + BIG_OVERHEAD + base) + slope * (cap * (cap + 1) - small * (small - 1)) / 2
    flat = (n - 1 - cap) * (64 if top <= 62 else 64 + BIG_OVERHEAD + top)
    return 64 * small + linear + flat, 3 * 2 * n * (top + n.bit_length() + 1)


def mib(bits: int | float) -> str:
    """``"12 MiB"``: a size in bits, for messages (below 2^53 bits)."""
    return f"{max(1, round(bits / 8 / 2**20))} MiB"


def over(bits: int | float, limit: int) -> str:
    """``about 80 MiB > 64 MiB``, or ``far more than 64 MiB`` for astronomical sizes."""
    if bits >= 2**53:
        return f"far more than {mib(limit)}"
    if mib(bits) == mib(limit):
        return f"just over {mib(limit)}"
    return f"about {mib(bits)} > {mib(limit)}"


def refuse_over(bits: int | float, limit: int, what: str, label: str = "") -> None:
    """Raise :class:`ResultTooLarge` when ``bits`` exceeds ``limit`` (``label`` starts the
    size comparison in the message, e.g. ``working memory``)."""
    if bits > limit:
        detail = label + over(bits, limit)
        raise ResultTooLarge(f"{what} would be too large ({detail})", detail)


class Meter:
    """The products of one computation: each checked before it is formed (its result against
    :data:`MAX_BITS`, its working memory against :data:`MAX_WORK_BITS`) and its work added up
    against :data:`MAX_COST_BITS`."""

    def __init__(self) -> None:
        self.spent = 0

    def check(self, kept: int | float, work: int | float, what: str, times: int = 1) -> None:
        """Refuse ``times`` products of this size over a budget; count their work."""
        refuse_over(kept, MAX_BITS, what)
        refuse_over(work, MAX_WORK_BITS, what, "working memory ")
        refuse_over(self.spent + work * times, MAX_COST_BITS, what, "work ")
        self.spent += math.ceil(work * times)

    def foresee(self, work: int | float, what: str) -> None:
        """Refuse now when ``work`` more (a lower bound on what is still to come) would pass
        the budget of work, rather than after spending it."""
        refuse_over(self.spent + work, MAX_COST_BITS, what, "work ")

    def mul_low(self, a: fmpz_poly, b: fmpz_poly, n: int) -> fmpz_poly:
        """``a * b mod x^n`` for series, checked."""
        self.check(series_product_bits(a, b, n), product_work(a, b, n), "a product of series")
        return a.mul_low(b, n)

    def mul(self, a: fmpz_poly, b: fmpz_poly) -> fmpz_poly:
        """``a * b`` for exact polynomials, checked."""
        self.check(product_bits(a, b), product_work(a, b), "a product of polynomials")
        return a * b
