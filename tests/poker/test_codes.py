"""Card codes, parsing, formatting and wild sets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.cards import Card, Rank, Suit, ness_card, ness_code
from nomic_cards.errors import InputError
from nomic_cards.poker import (
    JOKER,
    CardSyntaxError,
    format_cards,
    format_code,
    parse_cards,
    wild_set,
)
from nomic_cards.poker.codes import PRESETS
from tests.poker.conftest import corpus


@pytest.mark.parametrize(("text", "expected"), corpus("parse_valid.txt"))
def test_parse_valid_corpus(text: str, expected: str) -> None:
    assert format_cards(parse_cards(text)) == expected


@pytest.mark.parametrize(("text", "message"), corpus("parse_invalid.txt"))
def test_parse_invalid_corpus(text: str, message: str) -> None:
    with pytest.raises(CardSyntaxError) as err:
        parse_cards(text)
    assert str(err.value) == message


@settings(max_examples=400)
@given(st.text(alphabet="AKQJT1023456789shdcxkjoer ,;+*\n", max_size=30) | st.text(max_size=20))
def test_parsing_any_text_succeeds_or_raises_card_syntax_error(text: str) -> None:
    try:
        codes = parse_cards(text)
    except CardSyntaxError:
        return
    assert all(0 <= c <= JOKER for c in codes)
    assert parse_cards(format_cards(codes)) == codes


def test_ness_codes_follow_the_paper() -> None:
    # C = D + 13*S, 2...A -> 0...12, S, H, D, C -> 0...3
    assert parse_cards("2s As 2h Ac") == [0, 12, 13, 51]
    assert parse_cards("4C 9S 4D 4H 9C") == [41, 7, 28, 15, 46]


def test_format_round_trip_over_every_code() -> None:
    for code in range(52):
        assert parse_cards(format_code(code)) == [code]
        assert ness_code(ness_card(code)) == code
    assert format_code(JOKER) == "Jk" and parse_cards("Jk") == [JOKER]


def test_cards_objects_codes_and_mixed_lists() -> None:
    ace = Card(Suit.SPADES, Rank.ACE)
    assert parse_cards(ace) == [12]
    assert parse_cards([ace, "Kh", 0, 60]) == [12, 24, 0, JOKER]
    with pytest.raises(InputError):
        parse_cards([-1])
    with pytest.raises(InputError):
        parse_cards([1.5])  # type: ignore[list-item]


def test_wild_presets_and_card_lists() -> None:
    assert wild_set(None).cards == frozenset()
    assert wild_set("deuces").cards == frozenset(parse_cards("2s 2h 2d 2c"))
    assert wild_set("2c,2d,2h,2s") is PRESETS["deuces"]  # named when it equals a preset
    assert wild_set("one-eyed-jacks-axe").cards == frozenset(parse_cards("Jh Js Kd"))
    assert wild_set("baseball").cards == frozenset(parse_cards("3s 3h 3d 3c 9s 9h 9d 9c"))
    assert str(wild_set("Qs,Qh")) == "Qs,Qh"
    assert wild_set(["Jk", "As"]).cards == frozenset([12])  # jokers are wild anyway


def test_unknown_wild_set_names_the_presets() -> None:
    with pytest.raises(CardSyntaxError) as err:
        wild_set("sevens")
    assert "a wild set is cards or one of: none, deuces" in str(err.value)
