"""Pooker's Scores, by the poker library (imported here only: dealing a card, or replaying
anything but a Showdown's close, loads no poker module), and a Player's best arrangement.

The best arrangement of a Hand into Poker Hands (the poker library's exact
``best_arrangement``) is a pure function of what the Hand holds -- the faces of its PCards, as
a multiset -- and of the score table in force. :func:`best_hands` computes it once for each
such content and keeps the answer (:data:`ARRANGEMENTS_KEPT` of them, the least recently used
forgotten first): a view read again while the Hand and the table are unchanged costs a look-up,
however many PCards the Hand holds. Nothing kept can go stale -- a Hand or a table that changes
is another key -- so each process (each server worker) keeps its own, with nothing to share or
invalidate; a worker computes a given Hand at most once while it keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from nomic_cards.cardgames.sdk import ParamValue
from nomic_cards.cards import ness_code, spoon_card
from nomic_cards.poker.pookerhands import Arrangement, best_arrangement, hand_score

#: how many Hands' best arrangements a process keeps (each about 4 KiB for 103 PCards, key included:
#: scripts/bench_games_view.py measures it)
ARRANGEMENTS_KEPT = 1024


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


@dataclass(frozen=True)
class BestHands:
    """The highest total Score of a Hand and Poker Hands that reach it (card numbers, each
    hand in ascending order, the hands by their first card); cards in no hand stay unshown."""

    score: int
    hands: tuple[tuple[int, ...], ...]


@lru_cache(maxsize=ARRANGEMENTS_KEPT)
def _arranged(codes: tuple[int, ...], table: tuple[tuple[str, int], ...]) -> Arrangement:
    """The exact best arrangement of ``codes`` (sorted: the Hand's content) under ``table``."""
    return best_arrangement(codes, dict(table))


def best_hands(cards: Sequence[int], table: Mapping[str, int]) -> BestHands:
    """The best arrangement of ``cards`` (card numbers) under the score table ``table``:
    computed once per content of the Hand and table, then kept (module docstring)."""
    ordered = sorted(cards, key=lambda c: (code(c), c))
    found = _arranged(tuple(code(c) for c in ordered), tuple(sorted(table.items())))
    hands = sorted(tuple(sorted(ordered[i] for i in hand)) for hand in found.hands)
    return BestHands(int(found.score), tuple(hands))


def arrangements_kept() -> int:
    """How many Hands' arrangements this process keeps now."""
    return _arranged.cache_info().currsize
