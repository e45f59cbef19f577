"""cards.py: both numberings and the string forms, each round-tripped over its whole domain."""

from __future__ import annotations

import pytest

from nomic_cards.cards import (
    Card,
    Rank,
    Suit,
    format_card,
    format_pack_card,
    ness_card,
    ness_code,
    parse_card,
    parse_pack_card,
    spoon_card,
    spoon_number,
)
from nomic_cards.errors import InputError

ALL_FACES = [Card(s, r) for s in Suit for r in Rank]


def test_spoon_numbering_matches_the_proposal() -> None:
    # Rule 5: Diamonds 0, Spades 1, Hearts 2, Clubs 3; Ace 1 ... King 13; pack*52 + suit*13 + rank
    assert spoon_number(0, Suit.DIAMONDS, Rank.ACE) == 1
    assert spoon_number(0, Suit.CLUBS, Rank.KING) == 52
    assert spoon_number(1, Suit.HEARTS, Rank.QUEEN) == 52 + 26 + 12
    assert spoon_number(3, Suit.CLUBS, Rank.KING) == 208


@pytest.mark.parametrize("packs", [1, 4, 20])
def test_spoon_round_trip_whole_domain(packs: int) -> None:
    numbers = range(1, 52 * packs + 1)
    seen = set()
    for n in numbers:
        pack, face = spoon_card(n)
        assert 0 <= pack < packs
        assert spoon_number(pack, face.suit, face.rank) == n
        seen.add((pack, face))
    assert len(seen) == 52 * packs


def test_ness_encoding_round_trip_and_values() -> None:
    assert [ness_code(ness_card(c)) for c in range(52)] == list(range(52))
    assert sorted(ness_code(f) for f in ALL_FACES) == list(range(52))
    # C = D + 13*S with 2..A -> 0..12 and S,H,D,C -> 0..3
    assert ness_code(parse_card("2s")) == 0
    assert ness_code(parse_card("As")) == 12
    assert ness_code(parse_card("2h")) == 13
    assert ness_code(parse_card("Ac")) == 51


@pytest.mark.parametrize("ten", ["10", "T"])
def test_parse_format_round_trip_whole_domain(ten: str) -> None:
    for face in ALL_FACES:
        text = format_card(face, ten=ten)
        assert parse_card(text) == face
        assert parse_card(text.upper()) == face
        assert parse_card(text.lower()) == face


def test_pack_card_round_trip() -> None:
    names = ["Red", "Blue", "Fish", "Corporate"]
    for pack, name in enumerate(names):
        for face in ALL_FACES:
            assert parse_pack_card(format_pack_card(name, face), names) == (pack, face)
    assert parse_pack_card("Red 4C", names) == (0, Card(Suit.CLUBS, Rank.FOUR))


@pytest.mark.parametrize("bad", ["", "A", "1x", "11h", "Zs", "As s"])
def test_parse_card_rejects_bad_input(bad: str) -> None:
    with pytest.raises(InputError, match="not a card"):
        parse_card(bad)


def test_spoon_card_rejects_zero() -> None:
    with pytest.raises(InputError):
        spoon_card(0)
