"""Pooker, the Spoon Nomic card game (docs/rules.md, "Card games"): its rules' parameters as
revised by P456 and "Really Fix the Showdown". The game itself is nomic_cards.core.games.pooker.

The score table of rule 397 survives only to Four of a Kind; the rest continues in the usual
poker order, each ten points below the one before: Full House 50, Flush 40, Straight 30, Three
of a Kind 20, Two Pair 10, then One Pair 5 and High Card 0. The table is the poker library's
(:data:`nomic_cards.poker.pookerhands.DEFAULT_SCORES`, which also scores and arranges Poker
Hands); every entry is a parameter.
"""

from __future__ import annotations

from nomic_cards.core.ruleset import Param
from nomic_cards.poker.pookerhands import DEFAULT_SCORES

NAME = "pooker"
TITLE = "Pooker (a card game, rule 399)"
DOC = ("Players trade PCards and show Poker Hands; the highest total Score at a Showdown takes "
       "the prize.")

#: rule 397's table, the first statement that applies taking precedence (from the 5th: ours)
SCORES: tuple[tuple[str, int], ...] = tuple(DEFAULT_SCORES.items())

PARAMS: tuple[Param, ...] = (
    Param("trade-fee", "int", 1, "Points each side of a Trade pays the Dealer", 0, 1000),
    Param("show-days", "int", 3, "days a Showdown leaves to show PCards", 1, 100),
    Param("trigger-pcards", "int", 10, "PCards that let a Player declare a Showdown without a "
                                       "Motion", 1, 520),
    Param("trigger-min-shown", "int", 2, "PCards that Player must then show", 1, 520),
    Param("motion-threshold", "choice", "majority", "Players needed to pass a Motion to Show "
          "Cards", choices=("majority", "two-thirds", "unanimity")),
    Param("dealer-may-show", "choice", "no", "whether the Dealer may show eir cards",
          choices=("no", "yes")),
    Param("prize", "choice", "score", "the prize: Points from the Bank equal to the winning "
          "Score, split on a tie", choices=("score",)),
    *(Param(f"score-{hand}", "int", points, f"Score of {hand.replace('-', ' ').title()}",
            0, 10000) for hand, points in SCORES),
    Param("trade-expiry-days", "int", 7, "days a trade notification waits for the other "
          "side's before it lapses", 1, 1000, implicit=True),
    Param("points-below-zero", "choice", "no", "whether a payment may take a Player's Points "
          "below zero (the Bank's may always)", choices=("no", "yes"), implicit=True),
)
