"""The size estimates behind the budgets are upper bounds on what is actually built.

Every refusal before a big computation rests on an estimate of the result's memory; if an
estimate could fall short, a computation could outgrow its budget and GMP would abort the
process. These properties compare each estimate with the exact memory of the real result, on
random series and polynomials (non-negative counts for series, any signs for exact ones).
"""

from __future__ import annotations

import pytest
from flint import fmpz_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.deals import ResultTooLarge, polys


def exact_memory(p: fmpz_poly) -> int:
    """The memory the estimates model, counted coefficient by coefficient."""
    return sum(polys.memory_bits(1, int(c).bit_length()) for c in p.coeffs())


def _coefficient(signed: bool) -> st.SearchStrategy[int]:
    small = st.integers(-3 if signed else 0, 3)
    big = st.integers(0, 2**200).map(lambda v: v * (2 ** 100))
    if signed:
        big = st.one_of(big, big.map(lambda v: -v))
    return st.one_of(small, small, small, big)


def series(signed: bool = False, max_size: int = 40) -> st.SearchStrategy[fmpz_poly]:
    return st.lists(_coefficient(signed), max_size=max_size).map(fmpz_poly)


@settings(max_examples=300, deadline=None)
@given(series(), series(), st.integers(1, 90))
def test_series_product_estimate_bounds_the_product(a: fmpz_poly, b: fmpz_poly, n: int) -> None:
    product = a.mul_low(b, n)
    assert exact_memory(product) <= polys.series_product_bits(a, b, n)


@settings(max_examples=300, deadline=None)
@given(series(signed=True), series(signed=True))
def test_exact_product_estimate_bounds_the_product(a: fmpz_poly, b: fmpz_poly) -> None:
    assert exact_memory(a * b) <= polys.product_bits(a, b)
    assert exact_memory(a) <= polys.size_bits(a)


@settings(max_examples=300, deadline=None)
@given(series(), series(), st.integers(0, 2**70))
def test_sum_estimate_bounds_the_sum(a: fmpz_poly, b: fmpz_poly, scale: int) -> None:
    assert exact_memory(a + b * scale) <= polys.series_sum_bits(a, b, scale)
    assert exact_memory(a) <= polys.series_bits(a)


@settings(max_examples=200, deadline=None)
@given(series(max_size=6), st.integers(0, 60), st.integers(1, 40), st.integers(0, 5))
def test_power_estimate_bounds_every_power_on_the_way(
    f: fmpz_poly, k: int, n: int, extra: int
) -> None:
    memory, work = polys.pow_series_bits(f, k, n, extra)
    for j in range(k + 1):
        power = polys.pow_trunc(f, j, n)
        assert exact_memory(power) <= memory, j
        # the working estimate packs 2n terms at least as wide as the largest coefficient
        assert 6 * n * int(power.height_bits()) <= work


@settings(max_examples=100, deadline=None)
@given(series(max_size=5), st.integers(2**62, 2**70), st.integers(1, 12))
def test_power_estimate_for_huge_exponents(f: fmpz_poly, k: int, n: int) -> None:
    memory, _ = polys.pow_series_bits(f, k, n)
    if memory <= polys.MAX_BITS:  # only such powers are ever formed
        assert exact_memory(polys.pow_trunc(f, k, n)) <= memory


def test_power_of_x_is_built_without_binomials() -> None:
    x = fmpz_poly([0, 1])
    assert polys.power(x, 10**6) == x.left_shift(10**6 - 1)
    assert polys.power(fmpz_poly([0, 0, 3]), 5) == fmpz_poly([3**5]).left_shift(10)
    assert polys.power(fmpz_poly([0, 1, 1]), 3) == fmpz_poly([0, 0, 0, 1, 3, 3, 1])


def test_sparse_division_stops_at_its_budget() -> None:
    # 1 / (1 - 2x): a(k) = 2^k, so n terms take about n^2 / 2 bits
    q = fmpz_poly([1, -2])
    assert polys.divide_series(polys.ONE, q, 10) == fmpz_poly([2**k for k in range(10)])
    n = 40_000  # about 800 million bits of coefficients: over the budget
    with pytest.raises(ResultTooLarge, match="would be too large"):
        polys.divide_series(polys.ONE, q, n)


def test_negate_x_and_even_odd_parts() -> None:
    p = fmpz_poly([1, 2, 3, 4, 5, 6])
    assert polys.negate_x(p) == fmpz_poly([1, -2, 3, -4, 5, -6])
    assert polys.even_odd(p, False) == fmpz_poly([1, 3, 5])
    assert polys.even_odd(p, True) == fmpz_poly([2, 4, 6])
    assert polys.negate_x(fmpz_poly([7])) == fmpz_poly([7])
