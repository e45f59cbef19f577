"""Evaluation against the brute-force oracle, single vs batch, multi-pack and low hands."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nomic_cards.errors import InputError
from nomic_cards.poker import JOKER, Type, evaluate, evaluate_batch, parse_cards, wild_set
from tests.poker.oracle import oracle

WILD_SETS = ["none", "deuces", "one-eyed-jacks-axe", "baseball", "Qs,7h"]


def _random_hands(rng: random.Random, n_cards: int, count: int, *, packs: int = 1,
                  jokers: int = 0) -> list[list[int]]:
    deck = list(range(52)) * packs + [JOKER] * jokers
    return [rng.sample(deck, n_cards) for _ in range(count)]


def _v(cards: list[int], wild: str, game: str) -> int:
    hv = evaluate(cards, wild=wild, game=game)
    return -1 if hv is None else hv.v


@pytest.mark.parametrize("game", ["high", "a5", "low8", "27"])
@pytest.mark.parametrize("wild", WILD_SETS)
def test_fast_paths_agree_with_the_oracle(game: str, wild: str) -> None:
    """Single-hand and batch evaluation equal trying every substitution of the wild cards."""
    rng = random.Random(f"{game}/{wild}")
    ws = wild_set(wild)
    for n_cards in (5, 6, 7):
        hands = (_random_hands(rng, n_cards, 12)
                 + _random_hands(rng, n_cards, 6, packs=2, jokers=2))
        batch = evaluate_batch(np.array(hands), wild=ws, game=game)
        for hand, b in zip(hands, batch.tolist(), strict=True):
            expected = oracle(hand, ws, game)
            assert _v(hand, wild, game) == expected == b, (hand, wild, game)


@pytest.mark.slow
def test_hands_rich_in_wild_cards_agree_with_the_oracle() -> None:
    rng = random.Random(11)
    ws = wild_set("deuces")
    deuces = parse_cards("2s 2h 2d 2c")
    for _ in range(30):
        w = rng.choice([2, 3, 4])
        nat = rng.sample([c for c in range(52) if c not in deuces], 5 - w)
        hand = nat + rng.sample(deuces, w)
        assert _v(hand, "deuces", "high") == oracle(hand, ws, "high"), hand


def test_large_hands_take_the_best_five() -> None:
    rng = random.Random(3)
    for game in ("high", "27"):
        for n_cards in (8, 9):
            for hand in _random_hands(rng, n_cards, 3, packs=4):
                expected = oracle(hand, wild_set("deuces"), game)
                assert _v(hand, "deuces", game) == expected
                assert evaluate_batch([hand], wild="deuces", game=game)[0] == expected


def test_five_of_a_kind_and_five_wild_cards() -> None:
    assert evaluate("Ah Ad Ac As 2d", wild="deuces").label == "Five of a kind, aces"
    assert evaluate("3h 3d 2c 2s 2d", wild="deuces").label == "Five of a kind, threes"
    hv = evaluate("Jk Jk Jk Jk Jk")
    assert hv is not None and hv.v == 7474 and hv.label == "Five of a kind, aces"
    # five of a kind beats a royal flush; a natural royal is the best hand without wild cards
    assert evaluate("Kd Kh Jk Kc Ks") > evaluate("As Ks Qs Js Ts")


def test_wild_cards_cannot_duplicate_a_card_in_the_hand() -> None:
    # As Ks Qs 9s + wild: the wild may not be another As, so this is the J-high flush A-K-Q-J-9
    hv = evaluate("As Ks Qs 9s Jk")
    assert hv is not None and hv.label == "Flush, A-K-Q-J-9"
    # ... but it can make the straight flush when one fits
    assert evaluate("As Ks Qs Js Jk").label == "Royal flush"


def test_multi_pack_hands() -> None:
    # the same card twice is a pair; five of one rank from several packs is five of a kind
    assert evaluate("As As Kd Qc 7h").label == "One pair, aces with K-Q-7"
    assert evaluate("As As Ah Ad Ac").label == "Five of a kind, aces"
    # a repeated card never makes a flush: five spades with a pair rank as the pair
    hv = evaluate("As As Ks Qs Js")
    assert hv is not None and hv.type == Type.ONE_PAIR
    # ... and the best five of a larger multi-pack hand still finds the flush
    assert evaluate("As As Ks Qs Js 9s").label == "Flush, A-K-Q-J-9"


def test_batch_accepts_rows_of_text_and_checks_shapes() -> None:
    out = evaluate_batch(["As Ks Qs Js Ts", "2s 3h 4d 5c 7s"])
    assert out.tolist() == [7461, 0]
    assert evaluate_batch(np.zeros((0, 5), dtype=np.uint8)).shape == (0,)
    with pytest.raises(InputError):
        evaluate_batch(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(InputError):
        evaluate_batch(np.array([[-1, 1, 2, 3, 4]]))
    with pytest.raises(InputError):
        evaluate_batch(["As Ks Qs Js Ts", "As Ks Qs Js Ts 9s"])


def test_low_hand_classics() -> None:
    def a5(h: str) -> int:
        hv = evaluate(h, game="a5")
        assert hv is not None
        return hv.v

    wheel = evaluate("5h 4d 3c 2s Ah", game="a5")
    assert wheel is not None and wheel.label == "5-4-3-2-A low (the wheel)" and wheel.v == 6187
    assert a5("5h 4h 3h 2h Ah") == wheel.v  # straights and flushes do not count
    assert a5("7d 5h 4s 3c 2d") > a5("7d 6h 4s 3c 2d")  # a 7-5 beats a 7-6
    assert a5("6d 4h 3s 2c Ad") > a5("6d 5h 4s 3c 2d")  # 6-4 beats 6-5
    assert a5("Kd Qh Js 9c 8d") > a5("2d 2h 3s 4c 5d")  # any no pair beats a pair
    assert a5("3d 3h 6s 4c 2d") > a5("3d 3h 6s 5c Ad")  # kickers decide equal pairs

    def d27(h: str) -> int:
        hv = evaluate(h, game="27")
        assert hv is not None
        return hv.v

    best = evaluate("7d 5h 4s 3c 2d", game="27")
    assert best is not None and best.v == 7474 and best.label == "7-5-4-3-2 low (number one)"
    six = evaluate("6d 5h 4s 3c 2d", game="27")
    assert six is not None and six.type == Type.STRAIGHT  # the "6-high wheel" is a straight
    a_high = evaluate("Ad 5h 4s 3c 2d", game="27")
    assert a_high is not None and a_high.type == Type.NO_PAIR  # the ace is high: no straight
    assert d27("Kd Qh Js 9c 8d") > a_high.v
    assert d27("7d 5d 4d 3d 2d") < d27("8d 7h 6s 5c 3d")  # a flush counts against the hand
    # wild cards play as the card that makes the lowest hand (and avoid flushes)
    assert evaluate("7h 5h 4h 3h Jk", game="27") == best
    assert evaluate("Jk 2s 3h 4d 5c", game="a5") == wheel


def test_eight_or_better_qualifier() -> None:
    assert evaluate("8d 7h 6s 5c 4d", game="low8").label == "8-7-6-5-4 low"
    assert evaluate("9d 5h 4s 3c 2d", game="low8") is None
    assert evaluate("8d 8h 4s 3c 2d", game="low8") is None
    # best low five of seven cards
    hv = evaluate("Kd Qh 8s 6c 4d 2h Ac", game="low8")
    assert hv is not None and hv.label == "8-6-4-2-A low"
