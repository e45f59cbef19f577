"""Pooker's Scores, by the poker library (imported here only: dealing a card, or replaying
anything but a Showdown's close, loads no poker module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nomic_cards.cardgames.sdk import ParamValue
from nomic_cards.cards import ness_code, spoon_card
from nomic_cards.poker.pookerhands import hand_score


def code(card: int) -> int:
    """A card's Ness code (the poker library's numbering; the pack is forgotten)."""
    return ness_code(spoon_card(card)[1])


def scores(values: Mapping[str, ParamValue]) -> dict[str, int]:
    """The score table in force: category -> Score."""
    return {key.removeprefix("score-"): int(v) for key, v in values.items()
            if key.startswith("score-")}


def score_of(table: Mapping[str, int], hands: Sequence[Sequence[int]]) -> int:
    """The total Score of Poker Hands (each a list of card numbers) under ``table``."""
    return sum(int(hand_score([code(c) for c in hand], dict(table))) for hand in hands)
