"""Pooker's Poker Hands: categories, Score tables, the best arrangement, advice."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.errors import InputError
from nomic_cards.poker import parse_cards
from nomic_cards.poker.pookerhands import (
    CATEGORIES,
    DEFAULT_SCORES,
    Arrangement,
    advice,
    best_arrangement,
    category,
    hand_score,
    parse_scores,
)
from tests.poker import pooker_oracle as oracle

CASES = [
    ("As Ah Ad Ac As", "five-of-a-kind"),  # two packs: the ace of spades twice
    ("Ts Js Qs Ks As", "royal-flush"),
    ("As 2s 3s 4s 5s", "straight-flush"),  # the wheel, suited
    ("9h Th Jh Qh Kh", "straight-flush"),
    ("7c 7d 7h 7s", "four-of-a-kind"),
    ("7c 7d 7h 7s 2d", "four-of-a-kind"),
    ("7c 7c 7h 7s 7s", "five-of-a-kind"),
    ("Kc Kd Kh 2s 2d", "full-house"),
    ("Kc Kc Kd 2s 2s", "full-house"),
    ("2s 5s 9s Js Ks", "flush"),
    ("As As Ks Qs 2s", "flush"),  # a duplicated card does not spoil a flush
    ("Ks Ks Qs Qs 2s", "flush"),  # flush before two pair
    ("Ts Ts Js Qs Ks", "flush"),  # not five consecutive ranks: no straight flush
    ("As 2h 3d 4c 5s", "straight"),
    ("Ts Jh Qd Kc Ah", "straight"),
    ("Qs Kh Ad 2c 3s", "high-card"),  # no wrapping round the ace
    ("2s 3s 4s 5s", "high-card"),  # four cards make no straight or flush
    ("9c 9d 9h", "three-of-a-kind"),
    ("9c 9d 9h 2s 3s", "three-of-a-kind"),
    ("9c 9d 2h 2s", "two-pair"),
    ("9c 9c 2h 2s 5d", "two-pair"),
    ("9c 9c", "one-pair"),  # the same card from two packs
    ("9c 9d 5h", "one-pair"),
    ("Ac", "high-card"),
    ("2c 7d", "high-card"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_category(text: str, expected: str) -> None:
    codes = parse_cards(text)
    assert category(codes) == expected
    assert oracle.category(codes) == expected
    assert hand_score(codes) == DEFAULT_SCORES[expected]


def test_default_table_rule_397() -> None:
    assert CATEGORIES == oracle.NAMES
    assert [DEFAULT_SCORES[c] for c in CATEGORIES[:4]] == [80, 80, 70, 60]
    assert [DEFAULT_SCORES[c] for c in CATEGORIES[4:]] == [50, 40, 30, 20, 10, 5, 0]


hands = st.lists(st.integers(0, 51), min_size=1, max_size=5)


@given(hands)
@settings(max_examples=400, deadline=None)
def test_category_matches_the_statements(hand: list[int]) -> None:
    assert category(hand) == oracle.category(hand)


@pytest.mark.parametrize("bad", [[], [1, 2, 3, 4, 5, 6], [52], [-1]])
def test_category_refuses(bad: list[int]) -> None:
    with pytest.raises(InputError):
        category(bad)


def test_parse_scores() -> None:
    t = parse_scores("flush=41, one-pair = -3")
    assert t["flush"] == 41 and t["one-pair"] == -3 and t["royal-flush"] == 80
    assert set(t) == set(CATEGORIES)


@pytest.mark.parametrize(("text", "fragment", "column"), [
    ("", "empty Score table", 1),
    ("flush", "expected '='", 6),
    ("flush=40,,straight=3", "empty entry", 10),
    ("flush=40,pair=3", "unknown category 'pair'", 10),
    ("flush=x", "must be an integer, not 'x'", 7),
    ("flush=1,flush=2", "given twice", 9),
    ("flush=99999999999", "must be an integer", 7),
    ("flush=2000000000", "between", 7),
])
def test_parse_scores_errors(text: str, fragment: str, column: int) -> None:
    with pytest.raises(InputError) as err:
        parse_scores(text)
    assert fragment in str(err.value)
    assert f"column {column})" in str(err.value)
    assert "\n" not in str(err.value)


def _check(cards: list[int], table: dict[str, int], arr: Arrangement) -> tuple[int, int]:
    used = [i for h in arr.hands for i in h]
    assert len(used) == len(set(used)) and all(0 <= i < len(cards) for i in used)
    total = 0
    for h in arr.hands:
        assert 1 <= len(h) <= 5
        score = table[oracle.category([cards[i] for i in h])]
        assert score > 0  # hands that score nothing are left unshown
        total += score
    assert total == arr.score
    return total, len(used)


tables = st.lists(st.integers(-5, 30), min_size=len(CATEGORIES),
                  max_size=len(CATEGORIES)).map(lambda v: dict(zip(CATEGORIES, v, strict=True)))


@pytest.mark.slow
@given(st.lists(st.integers(0, 51), min_size=0, max_size=8), tables)
@settings(max_examples=60, deadline=None)
def test_best_arrangement_against_brute_force(cards: list[int], table: dict[str, int]) -> None:
    arr = best_arrangement(cards, table)
    assert _check(cards, table, arr) == oracle.brute_force(cards, table)


@pytest.mark.slow
@given(st.lists(st.sampled_from(parse_cards("Ts Js Qs Ks As 9s Th Jh Qh Kh 8s 7s")),
                min_size=5, max_size=8), tables)
@settings(max_examples=40, deadline=None)
def test_best_arrangement_dense_hands(cards: list[int], table: dict[str, int]) -> None:
    # few faces, many duplicates: straights, flushes and groups all compete
    arr = best_arrangement(cards, table)
    assert _check(cards, table, arr) == oracle.brute_force(cards, table)


def test_best_arrangement_examples() -> None:
    cards = parse_cards("As Ks Qs Js Ts 9h 9d 9c 2s 2h 5c 5d 5h 5s 7d")
    arr = best_arrangement(cards)
    assert arr.score == 80 + 50 + 60
    assert sorted(len(h) for h in arr.hands) == [4, 5, 5]  # the 7d stays unshown
    # a table where a pair is worth more than anything: pairs everywhere
    table = {**DEFAULT_SCORES, "one-pair": 100}
    arr = best_arrangement(parse_cards("As As Ah Ah Kd Kd"), table)
    assert arr.score == 300 and len(arr.hands) == 3


def test_advice_against_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(5):
        deck = list(range(52)) * 2
        rng.shuffle(deck)
        mine, unseen = deck[:5], deck[5:17]
        table = dict(zip(CATEGORIES, (rng.randint(-3, 20) for _ in CATEGORIES), strict=True))
        expected: Counter[int] = Counter()
        for c in unseen:
            expected[oracle.brute_force([*mine, c], table)[0]] += 1
        got = advice(mine, unseen, table)
        assert got == {s: Fraction(n, len(unseen)) for s, n in expected.items()}
        assert sum(got.values()) == 1


def test_advice_refuses_no_unseen() -> None:
    with pytest.raises(InputError, match="no unseen card"):
        advice([1, 2], [])
