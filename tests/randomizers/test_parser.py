"""Blackjack parser: the corpus (every seed example), exact error messages, fuzz and round trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.errors import LanguageError
from nomic_cards.randomizers import BlackjackError, Spec, parse
from nomic_cards.randomizers.parser import KEYWORDS
from tests.randomizers.strategies import specs

DATA = Path(__file__).resolve().parents[1] / "data" / "randomizers"
CORPUS = json.loads((DATA / "corpus.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CORPUS["valid"], ids=lambda c: c["note"])
def test_valid_corpus(case: dict[str, Any]) -> None:
    spec = parse(case["text"])
    assert str(spec) == case["canonical"]
    assert spec == Spec(kind=case["kind"], pieces=tuple(case["pieces"]), deal=case["deal"],
                        history=case["history"], rolls=case["rolls"],
                        first=tuple(case["first"]), initial=tuple(case["initial"]))
    assert parse(str(spec)) == spec


def test_corpus_holds_every_seed_example() -> None:
    seed_page = [c for c in CORPUS["valid"] if c["from_seed"]]
    assert len(seed_page) == 13  # the Examples section of TetrisWiki "Blackjack"


@pytest.mark.parametrize("case", CORPUS["invalid"], ids=lambda c: repr(c["text"]))
def test_invalid_corpus(case: dict[str, Any]) -> None:
    with pytest.raises(BlackjackError) as info:
        parse(case["text"])
    assert str(info.value) == case["message"]


def test_error_is_a_language_error_with_caret() -> None:
    with pytest.raises(BlackjackError) as info:
        parse("bag I")
    err = info.value
    assert isinstance(err, LanguageError) and isinstance(err, ValueError)
    assert (err.line, err.column) == (1, 5)
    assert err.context() == "bag I\n    ^"


def test_non_text_is_rejected() -> None:
    with pytest.raises(BlackjackError, match="a spec must be text, not int"):
        parse(7)  # type: ignore[arg-type]


# -- decisions where the seed is silent ------------------------------------------------------
def test_n_bag_larger_than_the_list_is_an_error() -> None:
    with pytest.raises(BlackjackError, match="cannot deal 8 pieces from a bag of 7"):
        parse("8 bag of I,J,L,O,S,T,Z")
    assert parse("7 bag of I,J,L,O,S,T,Z") == parse("bag of I,J,L,O,S,T,Z")


def test_strict_history_without_candidates_is_a_parse_error() -> None:
    with pytest.raises(BlackjackError, match="leaves no piece to choose"):
        parse("S,Z with 2 history")
    parse("S,Z with 2 history 3 rolls")  # with rolls there is always a piece
    parse("S,S,Z with 2 history")  # entries, not names: three entries, history of two


def test_initial_history_is_a_trailing_clause_completing_the_seed_examples() -> None:
    seed = "I,J,L,O,S,T,Z with 4 history 4 rolls first I,J,L,T"
    spec = parse(seed + " history Z,Z,Z,Z")
    assert spec.initial == ("Z",) * 4
    assert spec == parse("I,J,L,O,S,T,Z with 4 history 4 rolls history Z,Z,Z,Z first I,J,L,T")
    with pytest.raises(BlackjackError, match="initial history has 5 pieces"):
        parse(seed + " history Z,Z,Z,Z,Z")


# -- fuzz and round trip -----------------------------------------------------------------------
_ALPHABET = st.sampled_from(list("IJLOSTZ, 0123456789\t\n\x00-") + [
    "bag", "of", "with", "history", "rolls", "roll", "first", "sequence", " bag ", " of ",
    " with ", " history ", " rolls ", " first ", "BAG", "\u200b", "é"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=25).map("".join))
def test_fuzz_tokens_parse_or_raise_blackjack_error(text: str) -> None:
    try:
        spec = parse(text)
    except BlackjackError as err:
        assert 0 <= err.pos <= len(text)
        return
    assert parse(str(spec)) == spec


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_any_text_parses_or_raises_blackjack_error(text: str) -> None:
    try:
        spec = parse(text)
    except BlackjackError as err:
        assert str(err)
        return
    assert isinstance(spec, Spec)


@settings(max_examples=300, deadline=None)
@given(specs())
def test_canonical_text_round_trips(spec: Spec) -> None:
    assert parse(str(spec)) == spec


def test_keywords_are_reserved_in_any_case() -> None:
    for word in KEYWORDS:
        with pytest.raises(BlackjackError, match="found keyword"):
            parse(f"I,{word.upper()}")
