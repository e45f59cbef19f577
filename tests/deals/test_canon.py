"""Equivalence and canonical form."""

from __future__ import annotations

import random

from nomic_cards.deals import canonical, first_difference, generating_function, same, terms
from tests.deals.gen import random_deal


def test_same_and_different() -> None:
    assert same("2 * 5", "5 or 5")
    assert same("(0 or 1) 2^?", "...")
    assert same("...1...", "1 ... ...")
    assert same("(1 or 2)^? (1 or 2)^?", "((1 or 2)^?)^2")
    assert not same("(1 or 2)^?", "(1 or 2 or 3)^?")
    assert first_difference("(1 or 2)^?", "(1 or 2 or 3)^?") == 3
    assert first_difference("5", "5") is None
    assert first_difference("0 * 1", "1^1-?") == 1


def test_canonical_forms() -> None:
    assert canonical("5 or 5") == "2 * 5"
    assert canonical("5^2-4") == "10 or 15 or 20"
    assert canonical("(1 or 2)^?") == "(1 or 2)^?"
    assert canonical("...") == "1^?"
    assert canonical("...^2") == "(1^?)^2"
    assert canonical("...1...") == "1 (1^?)^2"
    assert canonical("0 * 5") == "0 * 0"
    assert canonical("0^0-3") == "4 * 0"
    assert canonical("1... or 2") == "1 or 2 * 2 or 3 1^?"
    # cyclotomic factors gathered into 1 - x^d
    assert canonical("1^? 2^?") == "1^? 2^?"
    assert canonical("2^? 1^? ... 3^?") == "(1^?)^2 2^? 3^?"
    assert canonical("6^? 4^?") == "4^? 6^?"
    assert canonical("(1 or 2)^? 3^? (1 or 2)^?") == "((1 or 2)^?)^2 3^?"
    # no deal shape fits: the reduced generating function is the form
    assert canonical("2^? or 3^?") == "(2 + 2x + x^2) / (1 + x - x^3 - x^4)"
    assert canonical("(1 or 2)^? or 3^?") == (
        "(2 - x - x^2 - x^3) / (1 - x - x^2 - x^3 + x^4 + x^5)"
    )


def test_equal_sequences_get_equal_forms_and_forms_mean_the_deal() -> None:
    rng = random.Random(99)
    deals = [random_deal(rng) for _ in range(150)]
    forms = {}
    for deal in deals:
        form = canonical(deal)
        if "x" not in form:  # a deal expression
            assert same(form, deal), (deal.text, form)
            assert canonical(form) == form
        forms.setdefault(generating_function(deal), set()).add(form)
    assert all(len(f) == 1 for f in forms.values())
    # different sequences, different forms
    by_form = {}
    for gf, fs in forms.items():
        by_form.setdefault(next(iter(fs)), set()).add(gf)
    assert all(len(g) == 1 for g in by_form.values())


def test_pairs_that_are_equal_in_different_dress() -> None:
    pairs = [
        ("(1 or 2)^?", "2^? (1 2^?)^?"),
        ("(1 or 2)^?", "1^? (2 1^?)^?"),
        ("... ...", "(0 or 1) ... 2^?"),
        ("(0 or 1)^6", "(0 or 1)^2 (0 or 1)^4"),
        ("3 * 1^?", "1^? or 2 * ..."),
    ]
    for a, b in pairs:
        assert same(a, b), (a, b)
        assert terms(a, 40) == terms(b, 40)
        assert canonical(a) == canonical(b)
    assert not same("(1 or 2)^?", "1^? (2 2^?)^?")
    assert canonical("(1 or 2)^?") != canonical("1^? (2 2^?)^?")
