"""The Ness Enumeration: the paper's example and a round trip over every hand."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from nomic_cards.errors import InputError
from nomic_cards.poker import ne_rank, ne_rank_batch, ne_unrank, ne_unrank_batch
from nomic_cards.poker.counting import all_hands
from tests.poker.conftest import load

PAPER = load("ness_paper.json")


def test_paper_example() -> None:
    ex = PAPER["example"]
    assert ne_rank(ex["hand"]) == ex["ne"]
    assert ne_rank(ex["codes"]) == ex["ne"]
    assert ne_unrank(ex["ne"]) == ex["sorted"]


def test_ends_of_the_enumeration() -> None:
    for n, hand in PAPER["ne_ends"].items():
        assert ne_unrank(int(n)) == hand
        assert ne_rank(hand) == int(n)


def test_counts_by_lowest_card_match_the_paper() -> None:
    # the first Comb(51,4) hands begin with card 0, then Comb(50,4) with card 1, ...
    from math import comb

    start = 0
    for low in range(48):
        assert ne_unrank(start)[0] == low
        start += comb(51 - low, 4)
    assert start == 2598960


def test_round_trip_over_all_2598960_hands() -> None:
    ns = np.arange(2598960, dtype=np.int64)
    hands = ne_unrank_batch(ns)
    assert (np.diff(hands, axis=1) > 0).all()  # each row a sorted hand of 5 different cards
    assert (ne_rank_batch(hands) == ns).all()
    # rows come in lexicographic order, so they are all different: NE is a bijection
    lex = np.stack(all_hands(), axis=1).astype(np.int64)
    assert (hands == lex).all()


def test_scalar_and_batch_agree_with_itertools_order_on_a_sample() -> None:
    every = list(combinations(range(52), 5))
    rng = np.random.default_rng(4)
    for n in rng.integers(0, len(every), 200).tolist():
        assert ne_unrank(n) == list(every[n])
        assert ne_rank(list(reversed(every[n]))) == n


@pytest.mark.parametrize(("hand", "message"), [
    ("As Ks Qs Js", "NE numbers 5-card hands; got 4 cards"),
    ("As Ks Qs Js Jk", "NE numbers hands from one 52-card pack; a joker has no NE"),
    ("As As Qs Js Ts", "NE numbers hands of five different cards; this hand repeats a card"),
])
def test_bad_hands(hand: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        ne_rank(hand)
    assert str(err.value) == message


def test_bad_numbers() -> None:
    for n in (-1, 2598960):
        with pytest.raises(InputError):
            ne_unrank(n)
