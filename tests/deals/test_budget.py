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

from nomic_cards.deals import ResultTooLarge, budget, polys
from nomic_cards.deals.budget import Meter


def exact_memory(p: fmpz_poly) -> int:
    """The memory the estimates model, counted coefficient by coefficient."""
    return sum(budget.memory_bits(1, int(c).bit_length()) for c in p.coeffs())


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
    assert exact_memory(product) <= budget.series_product_bits(a, b, n)


@settings(max_examples=300, deadline=None)
@given(series(signed=True), series(signed=True))
def test_exact_product_estimate_bounds_the_product(a: fmpz_poly, b: fmpz_poly) -> None:
    assert exact_memory(a * b) <= budget.product_bits(a, b)
    assert exact_memory(a) <= budget.size_bits(a)


@settings(max_examples=300, deadline=None)
@given(series(), series(), st.integers(0, 2**70))
def test_sum_estimate_bounds_the_sum(a: fmpz_poly, b: fmpz_poly, scale: int) -> None:
    assert exact_memory(a + b * scale) <= budget.series_sum_bits(a, b, scale)
    assert exact_memory(a) <= budget.series_bits(a)


@settings(max_examples=100, deadline=None)
@given(series(max_size=5), st.integers(2**62, 2**70), st.integers(1, 12))
def test_power_estimate_for_huge_exponents(f: fmpz_poly, k: int, n: int) -> None:
    memory, work = budget.pow_series_bits(f, k, n)
    for j in (k - 1, k):  # the estimate grows with k: it covers every lower power too
        if memory <= budget.MAX_BITS and work <= budget.MAX_WORK_BITS:
            power = polys.pow_series(f, j, n, Meter())
            assert exact_memory(power) <= memory
            # the working estimate packs 2n terms at least as wide as the largest coefficient
            assert 6 * n * int(power.height_bits()) <= work


@settings(max_examples=200, deadline=None)
@given(series(max_size=6), st.integers(0, 60), st.integers(1, 40))
def test_powers_agree_with_flint(f: fmpz_poly, k: int, n: int) -> None:
    assert polys.pow_series(f, k, n, Meter()) == f.pow_trunc(k, n)


def test_meter_refuses_each_budget_and_adds_up_the_work() -> None:
    meter = Meter()
    with pytest.raises(ResultTooLarge, match=r"^a product would be too large \(about 65 MiB"):
        meter.check(budget.MAX_BITS + 2**23, 0, "a product")
    with pytest.raises(ResultTooLarge, match=r"\(working memory about 513 MiB > 512 MiB\)"):
        meter.check(0, budget.MAX_WORK_BITS + 2**23, "a product")
    assert meter.spent == 0  # refused products cost nothing
    step = budget.MAX_WORK_BITS // 2
    for _ in range(7):
        meter.check(0, step, "a product")
    assert meter.spent == 7 * step
    with pytest.raises(ResultTooLarge, match=r"\(work about 2304 MiB > 2048 MiB\)"):
        meter.check(0, step, "a product", times=2)
    # and the products it forms are counted the same way
    a = fmpz_poly([3**50] * 30)
    meter = Meter()
    assert meter.mul_low(a, a, 40) == a.mul_low(a, 40)
    assert meter.spent == budget.product_work(a, a, 40)


def test_power_of_x_is_built_without_binomials() -> None:
    x = fmpz_poly([0, 1])
    assert polys.power(x, 10**6) == x.left_shift(10**6 - 1)
    assert polys.power(fmpz_poly([0, 0, 3]), 5) == fmpz_poly([3**5]).left_shift(10)
    assert polys.power(fmpz_poly([0, 1, 1]), 3) == fmpz_poly([0, 0, 0, 1, 3, 3, 1])


def test_sparse_division_stops_at_its_budget() -> None:
    # 1 / (1 - 2x): a(k) = 2^k, so n terms take about n^2 / 2 bits
    q = fmpz_poly([1, -2])
    assert polys.divide_series(polys.ONE, q, 10, Meter()) == fmpz_poly([2**k for k in range(10)])
    n = 40_000  # about 800 million bits of coefficients: over the budget
    with pytest.raises(ResultTooLarge, match="would be too large"):
        polys.divide_series(polys.ONE, q, n, Meter())


def test_negate_x_and_even_odd_parts() -> None:
    p = fmpz_poly([1, 2, 3, 4, 5, 6])
    assert polys.negate_x(p) == fmpz_poly([1, -2, 3, -4, 5, -6])
    assert polys.even_odd(p, False) == fmpz_poly([1, 3, 5])
    assert polys.even_odd(p, True) == fmpz_poly([2, 4, 6])
    assert polys.negate_x(fmpz_poly([7])) == fmpz_poly([7])
