"""Sampling a way to deal: support, uniformity against a(n), cards, reproducibility."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from nomic_cards.cards import format_card, spoon_card
from nomic_cards.deals import NoWayToDeal, parse, sample, term
from nomic_cards.deals.sample import steps_of
from nomic_cards.errors import InputError
from tests.deals.gen import random_deal
from tests.deals.oracle import all_ways

DECK = [format_card(spoon_card(i)[1]) for i in range(1, 53)]

UNIFORM_CASES = [
    ("(1 or 2)^?", 6),
    ("(0 or 1)^6", 3),
    ("2 * (1 or 3)^2-4", 8),
    ("(1^1-2)^2-?", 5),
    ("...1...", 6),
    ("(0 or 1)^0-3 (1 or 2)^1-?", 3),
    ("5^0 or 0^0-2 or 3 * 0", 0),
    ("(2 * 1 ... or 2)^?", 4),
]


def _chi_square(counts: Counter, support: list, draws: int) -> float:
    expected = draws / len(support)
    return sum((counts[w] - expected) ** 2 / expected for w in support)


@pytest.mark.slow
@pytest.mark.parametrize(("expr", "n"), UNIFORM_CASES)
def test_sampler_is_uniform_over_the_oracles_ways(expr: str, n: int) -> None:
    deal = parse(expr)
    support = all_ways(deal, n)
    assert len(set(support)) == len(support) == term(deal, n)
    rng = random.Random(1234)
    draws = 200 * len(support)
    counts = Counter(sample(deal, n, rng=rng).way for _ in range(draws))
    assert set(counts) <= set(support)
    assert set(counts) == set(support)  # every way turns up
    df = len(support) - 1
    # about 6 standard deviations above the chi-square mean: fails only for a biased sampler
    assert _chi_square(counts, support, draws) < df + 6 * (2 * df) ** 0.5 + 10


def test_samples_of_random_deals_are_ways_the_oracle_knows() -> None:
    rng = random.Random(42)
    draw_rng = random.Random(43)
    for _ in range(60):
        deal = random_deal(rng)
        for n in range(5):
            support = set(all_ways(deal, n))
            if not support:
                with pytest.raises(NoWayToDeal):
                    sample(deal, n, rng=draw_rng)
                continue
            for _ in range(5):
                got = sample(deal, n, rng=draw_rng)
                assert got.way in support, deal.text
                assert got.ways == len(support)
                assert sum(s.cards for s in got.steps) == n


def test_seeded_samples_are_reproducible() -> None:
    a = sample("(1 or 2)^?", 30, seed=7)
    b = sample("(1 or 2)^?", 30, seed=7)
    assert a == b and a.seed == 7
    others = {sample("(1 or 2)^?", 30, seed=s).way for s in range(20)}
    assert len(others) > 1


def test_injected_random_source() -> None:
    class First:
        def randrange(self, stop: int) -> int:
            return 0

    got = sample("(1 or 2)^?", 4, rng=First())
    assert [s.cards for s in got.steps] == [1, 1, 1, 1]
    assert all(c.kind in ("round", "option") for s in got.steps for c in s.choices)
    assert got.seed is None


def test_steps_deal_real_cards_from_the_top() -> None:
    got = sample("13^4", 52, seed=1, cards=DECK)
    assert [s.cards for s in got.steps] == [13, 13, 13, 13]
    assert [c for s in got.steps for c in s.dealt] == DECK
    got = sample("2 * (1 or 3)^2-4", 8, seed=3, cards=DECK)
    assert [c for s in got.steps for c in s.dealt] == DECK[:8]
    for s in got.steps:
        assert len(s.dealt) == s.cards
        assert s.atom in ("1", "3")
        assert s.choices[0].kind == "person" and s.choices[0].total == 2
    assert "one of 12 ways (seed 3)" in got.describe()


def test_steps_name_the_branch() -> None:
    got = sample("5 or 5", 5, seed=0, cards=["a", "b", "c", "d", "e", "f"])
    (step,) = got.steps
    assert step.choices[0].kind == "option" and step.choices[0].total == 2
    assert step.column == (1 if step.choices[0].index == 1 else 6)
    assert step.dealt == ("a", "b", "c", "d", "e")
    assert steps_of(parse("5 or 5"), got.way)[0].cards == 5


def test_zero_card_steps_are_shown() -> None:
    got = sample("(0 or 1)^6", 2, seed=5, cards=DECK)
    assert len(got.steps) == 6
    assert sorted(s.cards for s in got.steps) == [0, 0, 0, 0, 1, 1]


def test_large_n_and_limits() -> None:
    got = sample("(1 or 2)^?", 3000, seed=2)
    assert sum(s.cards for s in got.steps) == 3000
    assert got.ways == term("(1 or 2)^?", 3000)
    with pytest.raises(NoWayToDeal, match="no way to deal 3 cards"):
        sample("5", 3)
    with pytest.raises(InputError, match="cannot deal 5 cards from a list of 2"):
        sample("5", 5, cards=["As", "Kd"])
    with pytest.raises(InputError, match="more than 100000 steps"):
        sample("0^200000", 0)
    with pytest.raises(InputError, match="more than 10 steps"):
        sample("(0 or 1)^20", 3, max_steps=10)
    with pytest.raises(InputError, match="number of cards must be 0 or more"):
        sample("5", -1)
