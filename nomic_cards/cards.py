"""Cards, and the two numberings that name them.

* The Spoon Nomic Cards proposal numbers a card ``pack*52 + suit*13 + rank`` with suits
  Diamonds 0, Spades 1, Hearts 2, Clubs 3 and ranks Ace 1 ... King 13, so numbers run
  1 ... 52*packs.  :func:`spoon_number` / :func:`spoon_card`.
* David Ness's "Near Poker" paper encodes a card ``C = D + 13*S`` with denominations 2...A as
  0...12 and suits S, H, D, C as 0...3, so codes run 0...51.  :func:`ness_code` /
  :func:`ness_card`.

Both live here so that there is one place that converts, each pair with a round-trip test over
its whole domain. :func:`parse_card` / :func:`format_card` read and write the usual short forms
(``As``, ``10h``, ``Th``, ``Qd``); :func:`parse_pack_card` reads ``Red 4C`` given pack names.

This module imports nothing from the rest of the project.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from nomic_cards.errors import InputError


class Suit(enum.IntEnum):
    """Suits, valued by the proposal's numbering (Diamonds 0, Spades 1, Hearts 2, Clubs 3)."""

    DIAMONDS = 0
    SPADES = 1
    HEARTS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return self.name[0].lower()

    @property
    def title(self) -> str:
        return self.name.capitalize()


class Rank(enum.IntEnum):
    """Ranks, valued by the proposal's numbering (Ace 1, 2 ... 10, Jack 11, Queen 12, King 13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOL[self]

    @property
    def title(self) -> str:
        return _RANK_TITLE[self]


_RANK_SYMBOL = {
    Rank.ACE: "A", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K", Rank.TEN: "10",
    **{Rank(v): str(v) for v in range(2, 10)},
}
_RANK_TITLE = {
    Rank.ACE: "Ace", Rank.JACK: "Jack", Rank.QUEEN: "Queen", Rank.KING: "King",
    **{Rank(v): str(v) for v in range(2, 11)},
}
_RANK_BY_TEXT = {
    "a": Rank.ACE, "k": Rank.KING, "q": Rank.QUEEN, "j": Rank.JACK, "t": Rank.TEN,
    "1": Rank.ACE, **{str(v): Rank(v) for v in range(2, 11)},
}
_SUIT_BY_LETTER = {s.letter: s for s in Suit}

#: Ness's suit order S, H, D, C -> 0..3.
NESS_SUIT_ORDER: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_NESS_SUIT_INDEX = {s: i for i, s in enumerate(NESS_SUIT_ORDER)}

CARDS_PER_PACK = 52


@dataclass(frozen=True, order=True)
class Card:
    """A suit and a rank (no pack): the face of a card."""

    suit: Suit
    rank: Rank

    def __str__(self) -> str:
        return format_card(self)

    @property
    def title(self) -> str:
        """``Queen of Hearts``."""
        return f"{self.rank.title} of {self.suit.title}"


def spoon_number(pack: int, suit: Suit | int, rank: Rank | int) -> int:
    """The proposal's number of a card: ``pack*52 + suit*13 + rank`` (1-based within a pack)."""
    if pack < 0:
        raise InputError(f"pack number must be 0 or more, not {pack}")
    if not 0 <= int(suit) <= 3:
        raise InputError(f"suit number must be 0..3, not {int(suit)}")
    if not 1 <= int(rank) <= 13:
        raise InputError(f"rank number must be 1..13, not {int(rank)}")
    return pack * CARDS_PER_PACK + int(suit) * 13 + int(rank)


def pack_numbers(pack: int) -> range:
    """The numbers of every card of a pack, in order: ``pack*52 + 1`` ... ``pack*52 + 52``."""
    first = spoon_number(pack, 0, 1)
    return range(first, first + CARDS_PER_PACK)


def spoon_card(number: int) -> tuple[int, Card]:
    """Inverse of :func:`spoon_number`: ``(pack, Card)`` for a card number 1, 2, ..."""
    if number < 1:
        raise InputError(f"card number must be 1 or more, not {number}")
    pack, rest = divmod(number - 1, CARDS_PER_PACK)
    suit, rank0 = divmod(rest, 13)
    return pack, Card(Suit(suit), Rank(rank0 + 1))


def ness_code(card: Card) -> int:
    """Ness's code ``D + 13*S`` (2...A -> 0...12; S, H, D, C -> 0...3)."""
    d = 12 if card.rank == Rank.ACE else int(card.rank) - 2
    return d + 13 * _NESS_SUIT_INDEX[card.suit]


def ness_card(code: int) -> Card:
    """Inverse of :func:`ness_code` for codes 0...51."""
    if not 0 <= code < CARDS_PER_PACK:
        raise InputError(f"Ness card code must be 0..51, not {code}")
    s, d = divmod(code, 13)
    rank = Rank.ACE if d == 12 else Rank(d + 2)
    return Card(NESS_SUIT_ORDER[s], rank)


def parse_card(text: str) -> Card:
    """Parse ``As``, ``10h``, ``Th``, ``qD``, ``1c`` (ace) into a :class:`Card`."""
    t = text.strip()
    if len(t) < 2:
        raise InputError(f"not a card: {text!r} (expected rank then suit, like 'As' or '10h')")
    rank = _RANK_BY_TEXT.get(t[:-1].lower())
    suit = _SUIT_BY_LETTER.get(t[-1].lower())
    if rank is None or suit is None:
        raise InputError(f"not a card: {text!r} (expected rank then suit, like 'As' or '10h')")
    return Card(suit, rank)


def format_card(card: Card, *, ten: str = "10") -> str:
    """``As``, ``10h`` (or ``Th`` with ``ten="T"``)."""
    sym = ten if card.rank == Rank.TEN else card.rank.symbol
    return f"{sym}{card.suit.letter}"


def parse_pack_card(text: str, pack_names: Sequence[str]) -> tuple[int, Card]:
    """Parse ``Red 4C`` / ``red 10h`` into ``(pack_number, Card)`` given the packs' names."""
    parts = text.split()
    if len(parts) != 2:
        raise InputError(f"not a card: {text!r} (expected a pack name and a card, like 'Red 4C')")
    lowered = [n.lower() for n in pack_names]
    if parts[0].lower() not in lowered:
        raise InputError(f"unknown pack {parts[0]!r} in {text!r}")
    return lowered.index(parts[0].lower()), parse_card(parts[1])


def format_pack_card(pack_name: str, card: Card) -> str:
    """``Red 4c``."""
    return f"{pack_name} {format_card(card)}"
