"""The best arrangement of many cards, against an independent integer program (every minimal
hand listed explicitly, tests/poker/pooker_oracle.py) and against the exhaustive search."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nomic_cards.poker import _arrange, _arrange_mip, parse_cards
from nomic_cards.poker.pookerhands import CATEGORIES, DEFAULT_SCORES, best_arrangement
from tests.poker import pooker_oracle as oracle
from tests.poker.test_pookerhands import _check, tables

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

pytest.importorskip("highspy")

TWO_PACKS = list(range(52)) * 2


def _table(rng: random.Random) -> dict[str, int]:
    return dict(zip(CATEGORIES, (rng.randint(-5, 40) for _ in CATEGORIES), strict=True))


#: tables the default one does not cover: a flush or a straight worth more than a straight
#: flush (the program must then tell them apart), or groups worth more than anything
TABLES = [
    dict(DEFAULT_SCORES),
    {**DEFAULT_SCORES, "flush": 90, "straight": 85},
    {**DEFAULT_SCORES, "straight-flush": 0, "royal-flush": 1, "straight": 50, "flush": 45},
    {**DEFAULT_SCORES, "one-pair": 30, "two-pair": 20, "three-of-a-kind": 45, "high-card": 2},
]


@pytest.mark.parametrize("seed", range(6))
def test_against_integer_program(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(18, 30)
    cards = rng.sample(TWO_PACKS, n)
    for table in [*TABLES, _table(rng)]:
        arr = best_arrangement(cards, table)
        assert _check(cards, table, arr) == oracle.integer_program(cards, table)


@pytest.mark.parametrize("seed", range(4))
def test_one_suit_heavy_against_integer_program(seed: int) -> None:
    # runs of one suit in both packs: flushes, straight flushes and straights compete
    rng = random.Random(100 + seed)
    pool = [c for c in range(26)] * 2 + rng.sample(TWO_PACKS, 20)
    cards = rng.sample(pool, 22)
    for table in TABLES:
        arr = best_arrangement(cards, table)
        assert _check(cards, table, arr) == oracle.integer_program(cards, table)


def test_flush_worth_more_than_its_straight_flush() -> None:
    # one flush can only be the run 2...6 of spades: it is a straight flush, not a flush
    cards = parse_cards("2s 3s 4s 5s 6s")
    table = {**DEFAULT_SCORES, "flush": 90}
    assert best_arrangement(cards, table).score == 70
    # twice over (two packs): two flushes that are no runs, 2 2 3 3 4 and 4 5 5 6 6
    value, _ = _arrange_mip.solve(cards * 2, table, _arrange._weight(10))
    assert value == 180 * _arrange._weight(10) - 10
    assert oracle.integer_program(cards * 2, table) == (180, 10)
    # with one more spade a flush that is no run exists
    assert best_arrangement(parse_cards("2s 3s 4s 5s 6s 8s"), table).score == 90


def test_three_packs() -> None:
    # three copies of a face: the program still serves the default table
    rng = random.Random(5)
    cards = rng.sample(list(range(52)) * 3, 24)
    table = dict(DEFAULT_SCORES)
    assert _check(cards, table, best_arrangement(cards, table)) == oracle.integer_program(
        cards, table)


@pytest.mark.parametrize("seed", range(5))
def test_program_against_search(seed: int) -> None:
    rng = random.Random(200 + seed)
    cards = rng.sample(TWO_PACKS, 17)
    for table in [*TABLES, _table(rng)]:
        w = _arrange._weight(len(cards))
        value, _ = _arrange_mip.solve(cards, table, w)
        searched, _ = _arrange._search(cards, table)
        assert value == searched


def test_both_packs_whole() -> None:
    arr = best_arrangement(TWO_PACKS)
    total = _check(TWO_PACKS, dict(DEFAULT_SCORES), arr)[0]
    # an arrangement by hand: the 8 royal flushes, five of a kind of each rank 2...9, then four
    # full houses from the threes left: 640 + 640 + 200
    assert total >= 1480


@given(st.lists(st.sampled_from(parse_cards("2s 3s 4s 5s 6s 7s As 3h 4d 5c 9s Ks")),
                min_size=0, max_size=8), tables)
@settings(max_examples=60, deadline=None)
def test_program_on_small_hands_against_brute_force(cards: list[int],
                                                    table: dict[str, int]) -> None:
    # the program alone (the library uses it for larger hands), where runs, suits and
    # duplicates (two packs) crowd together, under random tables
    assume(all(cards.count(c) <= 2 for c in cards))
    w = _arrange._weight(len(cards))
    value, hands = _arrange_mip.solve(cards, table, w)
    score, shown = oracle.brute_force(cards, table)
    assert value == score * w - shown
    assert sum(table[oracle.category(h)] * w - len(h) for h in hands) == value
