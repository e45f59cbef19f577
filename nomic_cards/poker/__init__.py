"""Near Poker: David Ness's hand ranking, with wild cards, five of a kind and low hands.

Cards are Ness codes ``C = D + 13*S`` (2...A -> 0...12; S, H, D, C -> 0...3; jokers 52).
The stable surface:

* :func:`parse_cards` -- text or cards to codes;
* :func:`ne_rank` / :func:`ne_unrank` -- the Ness Enumeration of 5-card hands;
* :func:`evaluate` -- the value (V, T, CV, label) of the best five of any hand, with wild cards,
  in the high game or a low game; :func:`evaluate_batch` -- the same for numpy arrays;
* :func:`table` -- counts of every hand by category, by enumeration;
* :func:`showdown` -- winners and exact shares of a pot.

Importing this package is cheap (pure Python, a few milliseconds): numpy loads with the first
batch, and single-hand evaluation reads precomputed tables shipped with the package.
"""

from __future__ import annotations

from nomic_cards.poker.classes import GAMES, HandValue, Type
from nomic_cards.poker.codes import (
    JOKER,
    CardSyntaxError,
    WildSet,
    format_cards,
    format_code,
    parse_cards,
    wild_set,
)
from nomic_cards.poker.counting import Table, TableRow, table
from nomic_cards.poker.evaluate import evaluate, evaluate_batch
from nomic_cards.poker.ne import ne_rank, ne_rank_batch, ne_unrank, ne_unrank_batch
from nomic_cards.poker.shipped import value_of
from nomic_cards.poker.showdown import SHOWDOWN_GAMES, PlayerResult, Showdown, showdown

__all__ = [
    "GAMES",
    "JOKER",
    "SHOWDOWN_GAMES",
    "CardSyntaxError",
    "HandValue",
    "PlayerResult",
    "Showdown",
    "Table",
    "TableRow",
    "Type",
    "WildSet",
    "evaluate",
    "evaluate_batch",
    "format_cards",
    "format_code",
    "ne_rank",
    "ne_rank_batch",
    "ne_unrank",
    "ne_unrank_batch",
    "parse_cards",
    "showdown",
    "table",
    "value_of",
    "wild_set",
]
