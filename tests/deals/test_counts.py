"""Counting: the seed's examples, published numbers, the brute-force oracle, far terms."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from nomic_cards.deals import (
    DealTooLarge,
    ResultTooLarge,
    coefficient,
    generating_function,
    parse,
    same,
    term,
    terms,
)
from nomic_cards.errors import InputError
from tests.deals.gen import random_deal
from tests.deals.oracle import all_ways

DATA = Path(__file__).resolve().parent.parent / "data" / "deals"
KNOWN = json.loads((DATA / "known.json").read_text(encoding="utf-8"))


# -- the seed's examples ------------------------------------------------------------------


def test_seed_numbers_and_repeats() -> None:
    assert terms("5", 7) == [0, 0, 0, 0, 0, 1, 0]
    assert same("5^2", "10")
    assert terms("5^2-4", 21) == [1 if n in (10, 15, 20) else 0 for n in range(21)]


def test_seed_any_number_of_times_includes_none() -> None:
    assert terms("5^?", 11)[0] == 1  # "as many times as you like" includes zero times
    assert same("5^?", "5^0-?")
    assert same("5^1-?", "5 5^?")  # "at least once"


def test_seed_dots_are_one_to_any_power() -> None:
    assert same("...", "(1^?)")
    assert same("......", "1^?")
    assert same("(1^?)^2", "...^2")
    assert terms("...^2", 6) == [1, 2, 3, 4, 5, 6]


def test_seed_chains() -> None:
    assert same("5 10 1", "16")
    assert not same("5 10 1", "5101")
    assert terms("...1...", 6) == [0, 1, 2, 3, 4, 5]


def test_seed_or_and_people() -> None:
    assert terms("1... or 2", 5) == [0, 1, 2, 1, 1]
    assert terms("5 or 5", 6)[5] == 2
    assert same("2 * 5", "5 or 5")
    assert terms("0 * 5", 8) == [0] * 8  # m = 0 people: no way at all
    assert same("1 * (1 or 2)^?", "(1 or 2)^?")


def test_issue_examples() -> None:
    fib = [1, 1]
    while len(fib) < 30:
        fib.append(fib[-1] + fib[-2])
    assert terms("(1 or 2)^?", 30) == fib
    assert terms("(0 or 1)^6", 8) == [1, 6, 15, 20, 15, 6, 1, 0]
    # Clear the Deck is exact only below 2^53: from n = 78 the count is past it
    assert term("(1 or 2)^?", 77) < 2**53 <= term("(1 or 2)^?", 78)
    # and it freezes on these
    assert term("(1 or 2)^30", 45) == 155117520  # C(30, 15)
    assert terms("0^100000000000000000000", 3) == [1, 0, 0]
    assert generating_function("0^100000000000000000000").numerator == (1,)


# -- published numbers ----------------------------------------------------------------------


@pytest.mark.parametrize("case", KNOWN["cases"], ids=lambda c: c["source"])
def test_known_sequences(case: dict) -> None:
    values, shift = case["values"], case["shift"]
    count = len(values) - shift
    assert terms(case["deal"], count) == values[shift:], case["source"]
    assert generating_function(case["deal"]).terms(count) == values[shift:]


@pytest.mark.parametrize("case", KNOWN["spot"], ids=lambda c: c["source"])
def test_known_far_terms(case: dict) -> None:
    assert term(case["deal"], case["n"]) == int(case["value"]), case["source"]


# -- the brute-force oracle -----------------------------------------------------------------


@pytest.mark.slow
def test_oracle_agrees_with_series_gf_and_far_terms_on_random_deals() -> None:
    rng = random.Random(7)
    for _ in range(150):
        deal = random_deal(rng)
        fast = terms(deal, 7)
        gf = generating_function(deal)
        brute = [len(all_ways(deal, n)) for n in range(7)]
        assert fast == brute, (deal.text, fast, brute)
        assert gf.terms(7) == brute, (deal.text, str(gf))
        for n in range(7):
            assert term(deal, n) == brute[n]
            assert term(deal, n, mod=5) == brute[n] % 5


def test_generating_function_matches_series_far_out() -> None:
    rng = random.Random(11)
    for _ in range(80):
        deal = random_deal(rng)
        gf = generating_function(deal)
        series = terms(deal, 120)
        assert gf.terms(120) == series, deal.text
        for n in (37, 64, 119):
            assert term(deal, n) == series[n]
            assert term(deal, n, mod=1_000_000_007) == series[n] % 1_000_000_007
            assert term(deal, n, mod=2**89 - 1) == series[n] % (2**89 - 1)


def test_recurrence_regenerates_the_sequence() -> None:
    rng = random.Random(3)
    for _ in range(60):
        deal = random_deal(rng)
        gf = generating_function(deal)
        rec = gf.recurrence()
        seq = list(rec.initial)
        while len(seq) < 60:
            n = len(seq)
            seq.append(sum(c * seq[n - i] for i, c in enumerate(rec.coefficients, start=1)))
        assert seq[:60] == terms(deal, 60), deal.text
        assert rec.order == len(gf.denominator) - 1


def test_lowest_terms() -> None:
    # (1 + x) / (1 - x^2) = 1 / (1 - x)
    gf = generating_function("(0 or 1) 2^?")
    assert (gf.numerator, gf.denominator) == ((1,), (1, -1))
    assert str(gf) == "1 / (1 - x)"
    assert generating_function("...1...").factored() == "x / (1 - x)^2"
    assert str(generating_function("0 * (1 or 2)^?")) == "0"
    big = generating_function("(1 or 2000)^?")
    assert not big.factorable and big.factored() == str(big) == "1 / (1 - x - x^2000)"


def test_series_division_sparse_and_dense_agree() -> None:
    sparse = "(1 or 2 or 3)^?"
    dense = "(" + " or ".join(str(k) for k in range(1, 61)) + ")^?"
    for expr in (sparse, dense):
        gf = generating_function(expr)
        assert gf.terms(300) == terms(expr, 300)
    # the first 60 terms of the dense one are compositions: 2^(n-1)
    assert terms(dense, 61)[1:61] == [2 ** (n - 1) for n in range(1, 61)]


# -- far terms ------------------------------------------------------------------------------


def _fib_pair(n: int, mod: int | None) -> tuple[int, int]:
    """(F(n), F(n+1)) by fast doubling: an oracle independent of polynomials."""
    if n == 0:
        return 0, 1
    a, b = _fib_pair(n // 2, mod)
    c = a * (2 * b - a)
    d = a * a + b * b
    if mod is not None:
        c, d = c % mod, d % mod
    return (d, c + d) if n % 2 else (c, d)


def _matrix_term(rec_coeffs: list[int], initial: list[int], n: int, mod: int) -> int:
    """a(n) mod m by powering the companion matrix: a second, independent far-term method."""
    d = len(rec_coeffs)
    if n < len(initial):
        return initial[n] % mod

    def mul(x: list[list[int]], y: list[list[int]]) -> list[list[int]]:
        return [[sum(x[i][k] * y[k][j] for k in range(d)) % mod for j in range(d)]
                for i in range(d)]

    comp = [[0] * d for _ in range(d)]
    comp[0] = [c % mod for c in rec_coeffs]
    for i in range(1, d):
        comp[i][i - 1] = 1
    start = len(initial) - 1
    state = [initial[start - i] % mod for i in range(d)]  # a(start), a(start-1), ...
    power = [[int(i == j) for j in range(d)] for i in range(d)]
    e = n - start
    base = comp
    while e:
        if e & 1:
            power = mul(power, base)
        base = mul(base, base)
        e >>= 1
    return sum(power[0][k] * state[k] for k in range(d)) % mod


def test_fibonacci_far_terms_exact_and_mod() -> None:
    assert term("(1 or 2)^?", 100_000) == _fib_pair(100_001, None)[0]
    p = 1_000_000_007
    for n in (10**18, 10**18 + 1, 2**60 + 12345, 999_999_999_999):
        assert term("(1 or 2)^?", n, mod=p) == _fib_pair(n + 1, p)[0]
    big = 2**127 - 1
    assert term("(1 or 2)^?", 10**18, mod=big) == _fib_pair(10**18 + 1, big)[0]


def test_mod_far_terms_agree_with_companion_matrix_powers() -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 25:
        deal = random_deal(rng)
        gf = generating_function(deal)
        rec = gf.recurrence()
        if rec.order == 0 or rec.order > 12:
            continue
        checked += 1
        for n in (10**18, 123_456_789_012):
            want = _matrix_term(list(rec.coefficients), list(rec.initial), n, 998_244_353)
            assert term(deal, n, mod=998_244_353) == want, deal.text


def test_order_fifty_recurrence_far_term() -> None:
    deal = "(1 or 50)^?"
    gf = generating_function(deal)
    assert gf.recurrence().order == 50
    n = 20_000
    series = terms(deal, n + 1)
    assert term(deal, n) == series[n]
    assert term(deal, n, mod=97) == series[n] % 97


def test_polynomial_far_terms_and_bad_arguments() -> None:
    assert term("2 * 5", 5) == 2 and term("2 * 5", 10**18) == 0
    assert term("(1 or 2)^?", 10, mod=1) == 0
    assert coefficient(generating_function("0 * 1"), 5) == 0
    with pytest.raises(InputError, match="n must be 0 or more"):
        term("5", -1)
    with pytest.raises(InputError, match="modulus must be 1 or more"):
        term("5", 3, mod=0)
    with pytest.raises(InputError, match="number of terms must be 0 or more"):
        terms("5", -2)
    assert terms("5", 0) == []


def test_huge_deals_use_series_or_say_they_are_too_large() -> None:
    with pytest.raises(DealTooLarge) as info:
        generating_function("1 (0 or 1)^1000000")
    assert info.value.column == 3
    assert "'(0 or 1)^1000000'" in str(info.value)
    assert terms("(0 or 1)^1000000", 4) == [1, 1_000_000, 499_999_500_000, 166_666_166_667_000_000]
    assert term("(0 or 1)^1000000", 3) == 166_666_166_667_000_000
    assert term("(0 or 1)^1000000", 3, mod=1000) == 0
    with pytest.raises(DealTooLarge):
        generating_function("5^100000000000")
    assert terms("5^0-100000000000", 12) == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]
    assert terms("(0 or 1)^100000000000000000000000", 2) == [1, 10**23]
    with pytest.raises(DealTooLarge):
        terms("(0 or 0)^100000000000000000000", 2)
    with pytest.raises(ResultTooLarge):
        term("(1 or 1)^?", 10**12)
    assert term("(1 or 1)^?", 10**12, mod=10**9 + 7) == pow(2, 10**12, 10**9 + 7)


def test_parse_result_is_reusable() -> None:
    deal = parse("(1 or 2)^?")
    assert terms(deal, 3) == [1, 1, 2] and term(deal, 3) == 3


def test_budgets_refuse_before_building() -> None:
    gf = generating_function("(1 or 1 or 100000)^?")
    with pytest.raises(ResultTooLarge, match="100000 initial terms of the recurrence"):
        gf.recurrence()
    law = gf.law()
    assert (law.start, law.initial, law.coefficients[0], law.coefficients[-1]) == (
        100000, (), 2, 1)
    with pytest.raises(InputError, match="at most 4194304 terms can be computed, not 4194305"):
        terms("...", 4_194_305)
    with pytest.raises(DealTooLarge, match=r"would be too large \(work about"):
        terms(".^1844674407370955161", 3000)
    with pytest.raises(DealTooLarge, match=r"degree about 10\^400 > 4194304"):
        generating_function("(1 or 2)^1" + "0" * 400)
    # within the budgets the same shapes are computed
    assert terms(".^1844674407370955161", 3) == [1, 1844674407370955161,
                                                 1844674407370955161 * 1844674407370955162 // 2]
    assert str(generating_function("1^1000000")) == "x^1000000"
