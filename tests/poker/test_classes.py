"""Type, CV and V: the paper's ranges and listings, CV order, the corrected formulas."""

from __future__ import annotations

from itertools import combinations

import pytest

from nomic_cards.errors import InputError
from nomic_cards.poker import Type, evaluate, parse_cards, value_of
from nomic_cards.poker.classes import PAPER_RANGES, high_cv, scale
from nomic_cards.poker.formulas import pairs, paper_two, rdc, three, two, v_from_cv
from tests.poker.conftest import load

PAPER = load("ness_paper.json")
TITLES = {t.title: t for t in Type}


def test_paper_example_cv() -> None:
    hv = evaluate(PAPER["example"]["hand"])
    assert hv is not None
    assert list(hv.cv) == PAPER["example"]["cv"]
    assert hv.label == "Full house, fours over nines"


def test_v_ranges_are_exactly_the_papers() -> None:
    by_t: dict[int, list[int]] = {}
    for hv in scale("high").values:
        by_t.setdefault(hv.t, []).append(hv.v)
    for title, (number, lo, hi) in PAPER["v_ranges"].items():
        vs = sorted(by_t[TITLES[title]])
        assert (len(vs), vs[0], vs[-1]) == (number, lo, hi), title
        assert vs == list(range(lo, hi + 1))
        assert PAPER_RANGES[TITLES[title]] == (lo, hi)
    # five of a kind extends the scale upward, twos to aces
    assert sorted(by_t[Type.FIVE_OF_A_KIND]) == list(range(7462, 7475))


def test_np_listings_at_both_ends_of_each_category() -> None:
    for title, ends in PAPER["np_listing"].items():
        t = TITLES[title]
        cvs = sorted((hv.cv for hv in scale("high").values if hv.t == t), reverse=True)
        assert [list(c) for c in cvs[: len(ends["first"])]] == ends["first"], title
        assert [list(c) for c in cvs[-len(ends["last"]):]] == ends["last"], title


def _independent_key(ranks: list[int], flush: bool) -> tuple[int, ...]:
    """Textbook poker order, written without CVs: category, then the cards that decide it."""
    counts = {r: ranks.count(r) for r in set(ranks)}
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups]
    order = [r for r, _ in groups]
    s = sorted(set(ranks))
    straight = len(s) == 5 and (s[4] - s[0] == 4 or s == [0, 1, 2, 3, 12])
    top = (3 if s == [0, 1, 2, 3, 12] else s[4]) if straight else -1
    if straight and flush:
        return (8, top)
    if shape == [4, 1]:
        return (7, *order)
    if shape == [3, 2]:
        return (6, *order)
    if flush:
        return (5, *sorted(ranks, reverse=True))
    if straight:
        return (4, top)
    cat = {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1, (1, 1, 1, 1, 1): 0}[tuple(shape)]
    return (cat, *order)


def test_v_order_agrees_with_cv_order_and_with_an_independent_ranking() -> None:
    sc = scale("high")
    classes = []
    for hv in sc.values[:7462]:
        classes.append(hv)
    assert [hv.v for hv in sorted(classes, key=lambda h: h.cv)] == list(range(7462))
    # every natural hand shape: V order == textbook order, ties exactly where textbook ties
    from itertools import combinations_with_replacement

    rows = []
    for ms in combinations_with_replacement(range(13), 5):
        if max(ms.count(r) for r in ms) <= 4:
            rows.append((_independent_key(list(ms), False), evaluate_ranks(ms, flush=False)))
    for ds in combinations(range(13), 5):
        rows.append((_independent_key(list(ds), True), evaluate_ranks(ds, flush=True)))
    rows.sort()
    for (k1, v1), (k2, v2) in zip(rows, rows[1:], strict=False):
        assert (v1 < v2) == (k1 < k2) and (v1 == v2) == (k1 == k2)


def evaluate_ranks(ranks: tuple[int, ...], *, flush: bool) -> int:
    suits = [0] * 5 if flush else [0, 1, 2, 3, 0]
    hv = evaluate([r + 13 * s for r, s in zip(ranks, suits, strict=True)])
    assert hv is not None
    return hv.v


def test_wheel_remap() -> None:
    assert high_cv([12, 0, 1, 2, 3]) == (4, 3, 2, 1, 0, 12)
    assert high_cv([12, 0, 1, 2, 3], flush=True) == (8, 3, 2, 1, 0, 12)
    wheel = evaluate("5h 4d 3c 2s Ah")
    six = evaluate("6h 5d 4c 3s 2h")
    assert wheel is not None and six is not None
    assert wheel.v == 5853 and wheel.label == "Straight, five high" and six.v == 5854


def test_corrected_formulas_give_v_for_every_class() -> None:
    for hv in scale("high").values:
        assert v_from_cv(hv.cv) == hv.v, hv


def test_paper_functions_as_printed() -> None:
    # Rdc example from the paper: D1=5, D2=8 maps [0..4, 6, 7, 9..12] onto 0..10
    assert [rdc(5, 8, d) for d in (0, 1, 2, 3, 4, 6, 7, 9, 10, 11, 12)] == list(range(11))
    pairs_of = [(a, b) for a in range(13) for b in range(13) if a != b]
    assert sorted(two(a, b) for a, b in pairs_of) == list(range(156))
    printed = sorted(paper_two(a, b) for a, b in pairs_of)
    assert printed[-1] == 167 and len(set(printed)) == 156  # the erratum: 13*D1 overshoots
    assert sorted(three(t, a, b) for t in range(13) for a in range(13) for b in range(a)
                  if t not in (a, b)) == list(range(858))
    assert sorted(pairs(h, lo, s) for h in range(13) for lo in range(h) for s in range(13)
                  if s not in (h, lo)) == list(range(858))


def test_counts_in_the_listings() -> None:
    from math import comb

    # 13 * 2!12 trips, 2!13 * 11 two pairs, 13 * 3!12 one pairs; 2300 values lost to deuces
    assert 13 * comb(12, 2) == 858 == comb(13, 2) * 11
    assert 13 * comb(12, 3) == 2860
    assert 7462 - 5162 == 2300


def test_labels() -> None:
    cases = {
        "As Ks Qs Js Ts": "Royal flush",
        "9h 8h 7h 6h 5h": "Straight flush, nine high",
        "Qs Qh Qd Qc 7s": "Four of a kind, queens with a seven",
        "As Ah Ad Ac 8s": "Four of a kind, aces with an eight",
        "Kd Kh Ks 3c 3d": "Full house, kings over threes",
        "Ad Jd 9d 6d 3d": "Flush, A-J-9-6-3",
        "Ts 9h 8d 7c 6s": "Straight, ten high",
        "7s 7h 7d Kc 2s": "Three of a kind, sevens with K-2",
        "Kd Kh 4s 4c 9d": "Two pair, kings and fours with a nine",
        "Jd Jh As 8c 3d": "One pair, jacks with A-8-3",
        "7d 5h 4s 3c 2d": "No pair, 7-5-4-3-2",
    }
    for hand, label in cases.items():
        hv = evaluate(hand)
        assert hv is not None and hv.label == label


def test_values_compare_within_a_game_only() -> None:
    a, b = evaluate("As Ks Qs Js Ts"), evaluate("2s 3h 4d 5c 7s")
    low = evaluate("2s 3h 4d 5c 7s", game="a5")
    assert a is not None and b is not None and low is not None
    assert b < a and a > b and a >= a and b <= a
    with pytest.raises(TypeError):
        _ = a < low


def test_value_of_and_bad_inputs() -> None:
    assert value_of(7461).label == "Royal flush"
    assert value_of(7474).label == "Five of a kind, aces"
    with pytest.raises(InputError):
        value_of(7475)
    with pytest.raises(InputError):
        high_cv(parse_cards("As"))
    with pytest.raises(InputError):
        evaluate("As Ks Qs Js")
    with pytest.raises(InputError):
        evaluate("As Ks Qs Js Ts", game="omaha")
