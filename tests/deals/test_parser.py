"""The deal language's syntax: corpus of valid and invalid inputs, round trips, fuzzing."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.deals import DealError, generating_function, parse, terms
from nomic_cards.errors import InputError, LanguageError
from tests.deals.gen import random_deal

DATA = Path(__file__).resolve().parent.parent / "data" / "deals"
VALID = json.loads((DATA / "valid.json").read_text(encoding="utf-8"))["cases"]
INVALID = json.loads((DATA / "invalid.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", VALID, ids=lambda c: repr(c["deal"]))
def test_valid_corpus(case: dict) -> None:
    deal = parse(case["deal"])
    assert str(deal) == case["normal"]
    assert terms(deal, len(case["terms"])) == case["terms"]
    # the normal form means the same deal
    assert generating_function(case["normal"]) == generating_function(deal)


@pytest.mark.parametrize("case", INVALID, ids=lambda c: repr(c["deal"]))
def test_invalid_corpus(case: dict) -> None:
    with pytest.raises(DealError) as info:
        parse(case["deal"])
    assert str(info.value) == case["error"]


def test_error_is_a_language_error_with_caret() -> None:
    with pytest.raises(DealError) as info:
        parse("(0 or 1)^?")
    err = info.value
    assert isinstance(err, LanguageError) and isinstance(err, InputError)
    assert isinstance(err, ValueError)
    assert err.column == 9
    assert err.context() == "(0 or 1)^?\n        ^"


def test_nesting_limit() -> None:
    assert terms("(" * 100 + "1" + ")" * 100, 3) == [0, 1, 0]
    with pytest.raises(DealError, match=r"brackets nested more than 100 deep \(at column 101\)"):
        parse("(" * 101 + "1" + ")" * 101)


def test_spaces_only_matter_between_numbers() -> None:
    assert str(parse("...1...")) == str(parse("... 1 ..."))
    assert str(parse("5 10 1")) == "5 10 1"
    assert str(parse("5101")) == "5101"
    assert str(parse("(1)(2)")) == "(1) (2)"
    assert str(parse("5^2 3")) == "5^2 3"
    assert str(parse("5^23")) == "5^23"
    assert str(parse("1or2OR3")) == "1 or 2 or 3"
    assert str(parse(" 2 *\t5 ")) == "2 * 5"


def test_parse_accepts_a_parsed_deal_and_refuses_non_text() -> None:
    deal = parse("5 or 5")
    assert parse(deal) is deal
    with pytest.raises(TypeError):
        parse(5)  # type: ignore[arg-type]


def test_reprinted_random_deals_parse_to_the_same_tree_shape() -> None:
    rng = random.Random(20240601)
    for _ in range(200):
        deal = random_deal(rng)
        again = parse(str(deal))
        assert str(again) == str(deal)
        assert generating_function(again) == generating_function(deal)


_ALPHABET = "0123456789.()^-?* orOR\n\t*x#²"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=30))
def test_any_text_parses_or_raises_the_language_error(text: str) -> None:
    try:
        deal = parse(text)
    except DealError:
        return
    assert parse(str(deal)) is not None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.()^-? or*", max_size=24))
def test_any_accepted_text_has_a_generating_function_or_a_language_error(text: str) -> None:
    try:
        gf = generating_function(text)
    except DealError:
        return
    assert gf.denominator[0] == 1
    assert terms(text, 6) == gf.terms(6)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20))
def test_arbitrary_unicode_parses_or_raises_the_language_error(text: str) -> None:
    try:
        parse(text)
    except DealError as err:
        assert err.reason
