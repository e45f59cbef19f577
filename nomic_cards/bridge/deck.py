"""Bridge constants shared by the dealer-language modules: seats, suits, ranks, cards.

Seats are numbered North 0, East 1, South 2, West 3; suits Spades 0, Hearts 1, Diamonds 2,
Clubs 3 (the order in which bridge prints them); ranks deuce 0 ... ace 12. A hand's holding in
one suit is a 13-bit mask with bit ``r`` set when it holds rank ``r``.
"""

from __future__ import annotations

SEATS = ("north", "east", "south", "west")
SEAT_LETTERS = "NESW"
SUITS = ("spades", "hearts", "diamonds", "clubs")
SUIT_LETTERS = "SHDC"
RANKS = "23456789TJQKA"
STRAINS = "SHDCN"
FULL_SUIT = (1 << 13) - 1


def seat_index(letter: str) -> int:
    """The seat for ``N``/``E``/``S``/``W`` (any case)."""
    return SEAT_LETTERS.index(letter.upper())


def holding_text(mask: int, *, lowercase: bool = False) -> str:
    """The ranks of a 13-bit suit mask, highest first (``AKT2``)."""
    ranks = RANKS.lower() if lowercase else RANKS
    return "".join(ranks[r] for r in range(12, -1, -1) if mask >> r & 1)


def card_name(suit: int, rank: int) -> str:
    """``SA`` for the ace of spades."""
    return SUIT_LETTERS[suit] + RANKS[rank]
