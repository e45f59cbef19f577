"""The fast paths against an independent reference: every 5-card hand, large 6/7-card samples.

The reference values a natural 5-card hand straight from the scale's class dictionaries (which
``test_classes`` checks against the paper) with numpy, and a larger hand as the best of its
5-card sub-hands -- no shipped table, no dynamic program, no rank index. Single hands go through
both the public call (the compiled accelerator when it is built) and the pure-Python path.
"""

from __future__ import annotations

import operator
import random
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import pytest
from numpy.typing import NDArray

from nomic_cards.errors import InputError
from nomic_cards.poker import JOKER, evaluate, evaluate_batch, value_of, wild_set
from nomic_cards.poker.batch import BLOCK
from nomic_cards.poker.classes import scale
from nomic_cards.poker.counting import all_hands
from nomic_cards.poker.evaluate import pure_evaluate

if TYPE_CHECKING:
    from nomic_cards.poker.accel import Evaluate

from tests.poker.oracle import oracle

SINGLE = [pytest.param(evaluate, id="evaluate"), pytest.param(pure_evaluate, id="pure")]


def reference5(cols: list[NDArray[np.int64]], game: str = "high") -> NDArray[np.int64]:
    """Value of natural 5-card hands given as five columns of codes (repeats allowed)."""
    sc = scale(game)
    ranks = [c % 13 for c in cols]
    key = sum(np.int64(8) ** r for r in ranks)
    keys = np.array(sorted(sc.nf5), dtype=np.int64)
    vals = np.array([sc.nf5[k] for k in keys.tolist()], dtype=np.int64)
    pos = np.searchsorted(keys, key)
    assert (keys[pos] == key).all()
    v = vals[pos]
    if sc.fl5 is not None:
        bits = np.zeros_like(key)
        for r in ranks:
            bits |= np.int64(1) << r
        one_suit = np.all([c // 13 == cols[0] // 13 for c in cols], axis=0)
        distinct = np.array([bin(b).count("1") for b in range(1 << 13)])[bits]
        flush = one_suit & (distinct == 5)
        table = np.full(1 << 13, -1, dtype=np.int64)
        table[list(sc.fl5)] = list(sc.fl5.values())
        v = np.where(flush, table[bits], v)
    return v


def reference(hands: NDArray[np.int64], game: str = "high") -> NDArray[np.int64]:
    """Best 5-card sub-hand of each row."""
    best = np.full(len(hands), -1, dtype=np.int64)
    for sub in combinations(range(hands.shape[1]), 5):
        best = np.maximum(best, reference5([hands[:, i] for i in sub], game))
    return best


def _singles(rows: NDArray[np.int64], ev: Evaluate = evaluate, **kw: str) -> list[int]:
    return [-1 if (hv := ev(h, **kw)) is None else hv.v for h in rows.tolist()]


def test_every_5_card_hand_batch_equals_the_reference() -> None:
    cols = [c.astype(np.int64) for c in all_hands()]
    assert (evaluate_batch(np.stack(cols, axis=1)) == reference5(cols)).all()


@pytest.mark.slow
@pytest.mark.parametrize("ev", SINGLE)
def test_every_5_card_hand_single_equals_the_reference(ev: Evaluate) -> None:
    cols = [c.astype(np.int64) for c in all_hands()]
    expected = reference5(cols)
    hands = np.stack(cols, axis=1)
    step = 200_000
    for start in range(0, len(hands), step):
        rows = hands[start:start + step]
        got = [ev(h) for h in rows.tolist()]
        want = [value_of(int(v)) for v in expected[start:start + step]]
        # the very objects value_of hands out: values are shared, not rebuilt per call
        assert all(map(operator.is_, got, want)), start


@pytest.mark.slow
@pytest.mark.parametrize("ev", SINGLE)
@pytest.mark.parametrize("n_cards", [6, 7])
def test_large_samples_of_6_and_7_card_hands(n_cards: int, ev: Evaluate) -> None:
    rng = np.random.default_rng(n_cards)
    hands = rng.random((100_000, 52)).argsort(axis=1)[:, :n_cards].astype(np.int64)
    expected = reference(hands)
    assert (evaluate_batch(hands) == expected).all()
    assert _singles(hands, ev) == expected.tolist()


@pytest.mark.parametrize("ev", SINGLE)
@pytest.mark.parametrize("game", ["a5", "low8", "27"])
def test_low_games_on_samples(game: str, ev: Evaluate) -> None:
    rng = np.random.default_rng(len(game))
    for n_cards in (5, 7):
        hands = rng.random((20_000, 52)).argsort(axis=1)[:, :n_cards].astype(np.int64)
        expected = reference(hands, game)
        assert (evaluate_batch(hands, game=game) == expected).all()
        assert _singles(hands, ev, game=game) == expected.tolist()


@pytest.mark.slow
@pytest.mark.parametrize("ev", SINGLE)
def test_hands_from_several_packs(ev: Evaluate) -> None:
    rng = np.random.default_rng(4)
    deck = np.tile(np.arange(52), 4)
    for n_cards in (5, 6, 7):
        hands = np.array([rng.choice(deck, n_cards, replace=False) for _ in range(20_000)])
        expected = reference(hands)
        assert (evaluate_batch(hands) == expected).all()
        assert _singles(hands, ev) == expected.tolist()


@pytest.mark.slow
@pytest.mark.parametrize("ev", SINGLE)
@pytest.mark.parametrize("wild", [None, "deuces", "one-eyed-jacks-axe", "2c,2d,2h,2s,3s,Jh"])
def test_single_equals_batch_across_blocks_with_wild_cards_and_jokers(wild: str | None,
                                                                      ev: Evaluate) -> None:
    """More rows than one batch block, jokers mixed in: both paths agree row by row."""
    rng = np.random.default_rng(5)
    deck = np.array([*range(52), JOKER, JOKER + 1])
    for n_cards in (5, 6, 7):
        hands = np.array([rng.choice(deck, n_cards, replace=False)
                          for _ in range(BLOCK + 1000)], dtype=np.uint8)
        batch = evaluate_batch(hands, wild=wild)
        assert batch.tolist() == _singles(hands.astype(np.int64), ev,
                                          **({"wild": wild} if wild else {}))
        # other dtypes and layouts give the same values
        assert (evaluate_batch(hands.astype(np.int64), wild=wild) == batch).all()
        assert (evaluate_batch(np.asfortranarray(hands), wild=wild) == batch).all()


@pytest.mark.slow
def test_jokers_and_wild_cards_against_the_oracle() -> None:
    rng = random.Random(12)
    deck = [*range(52), JOKER, JOKER]
    ws = wild_set("deuces")
    for n_cards in (5, 6, 7):
        for _ in range(60):
            hand = rng.sample(deck, n_cards)
            hv = evaluate(hand, wild="deuces")
            assert hv is not None and hv.v == oracle(hand, ws, "high"), hand


@pytest.mark.parametrize("ev", SINGLE)
def test_bad_codes_are_errors_not_cards(ev: Evaluate) -> None:
    """Negative codes never index a table from its end."""
    for hand in ([-150, 1, 2, 3, 4], [-1, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, -52, 5]):
        with pytest.raises(InputError, match="0 or more"):
            ev(hand)
        with pytest.raises(InputError, match="0 or more"):
            evaluate_batch(np.array([hand]))
    with pytest.raises(InputError, match="not a card"):
        ev([1.5, 2, 3, 4, 5])
    # every code from 52 up is a joker
    joker = ev([52, 1, 2, 3, 4])
    assert joker is not None and ev([100, 1, 2, 3, 4]) is joker
    assert evaluate_batch(np.array([[300, 1, 2, 3, 4]]))[0] == joker.v


@pytest.mark.parametrize("ev", SINGLE)
def test_ways_of_calling(ev: Evaluate) -> None:
    hand = [12, 25, 38, 51, 11, 24, 0]
    hv = ev(hand)
    assert hv is not None and hv.label == "Four of a kind, aces with a king"
    assert ev(tuple(hand)) is hv
    assert ev(hand, None, "high") is ev(hand, game="high") is ev(hand, wild=None) is hv
    assert ev([True, *hand[1:]]) is ev([1, *hand[1:]])  # bools are ints
    assert ev(hand, "deuces") is ev(hand, wild="deuces")
    assert ev(hand, game="a5") is not None and ev(hand, game="a5").game == "a5"
    with pytest.raises(TypeError):
        ev(hand, None, "high", "extra")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ev(hand, colour="red")  # type: ignore[call-arg]


def test_values_compare_only_with_values_of_the_same_game() -> None:
    hv = evaluate("As Ks Qs Js Ts")
    with pytest.raises(TypeError):
        hv < 3  # noqa: B015
    with pytest.raises(TypeError, match="cannot compare"):
        hv < evaluate("As Ks Qs Js Ts", game="27")  # noqa: B015
