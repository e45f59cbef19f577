"""Pooker, the card game Spoon played with the Red and Blue packs (rule 399; docs/pooker.md; its
rules with their code and tests: docs/rules.md, "Pooker"): its declaration, named by this
distribution's entry point ``nomic_cards.games: pooker`` as any installed game's is.

The rules' parameters are those of P456 and "Really Fix the Showdown". The score table of rule
397 survives only to Four of a Kind; the rest continues in the usual poker order, each ten
points below the one before: Full House 50, Flush 40, Straight 30, Three of a Kind 20, Two
Pair 10, then One Pair 5 and High Card 0 (the poker library's ``DEFAULT_SCORES``, which scores
and arranges Poker Hands; a test keeps the two equal). Every entry is a parameter.

Importing this package registers Pooker's event kinds and replay steps; the poker library is
loaded only by what scores or arranges hands.
"""

from __future__ import annotations

from nomic_cards.cardgames.pooker import events as _events  # noqa: F401 - registers the kinds
from nomic_cards.cardgames.pooker.events import NAME, PENDING_PER_PLAYER
from nomic_cards.cardgames.pooker.rules import ACTIONS, due, held, waiting, windows
from nomic_cards.cardgames.pooker.view import PlayerPooker, player_view
from nomic_cards.cardgames.sdk import CardGame, Param

#: rule 397's table, the first statement that applies taking precedence (from the 5th: ours)
SCORES: tuple[tuple[str, int], ...] = (
    ("five-of-a-kind", 80), ("royal-flush", 80), ("straight-flush", 70),
    ("four-of-a-kind", 60), ("full-house", 50), ("flush", 40), ("straight", 30),
    ("three-of-a-kind", 20), ("two-pair", 10), ("one-pair", 5), ("high-card", 0))

PARAMS: tuple[Param, ...] = (
    Param("trade-fee", "int", 1, "Points each side of a Trade pays the Dealer", 0, 1000),
    Param("show-days", "int", 3, "days a Showdown leaves to show PCards", 1, 100),
    Param("trigger-pcards", "int", 10, "PCards that let a Player declare a Showdown without a "
                                       "Motion", 1, 520),
    Param("trigger-min-shown", "int", 2, "PCards that Player must then show", 1, 520),
    Param("motion-threshold", "choice", "majority", "Players needed to pass a Motion to Show "
          "Cards", choices=("majority", "two-thirds", "unanimity")),
    Param("motion-days", "int", 3, "days a Motion to Show Cards is open to votes; it fails "
          "then without a majority for it", 1, 100),
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
    Param("pending-per-player", "int", PENDING_PER_PLAYER, "trade notifications a Player may "
          "have waiting at once (rules version 3)", 1, 1000, implicit=True),
)

GAME = CardGame(
    NAME, "Pooker (a card game, rule 399)",
    "Players trade PCards and show Poker Hands; the highest total Score at a Showdown takes "
    "the prize.",
    PARAMS, (1, 2, 3), overdraw="points-below-zero",
    version_docs=("Motions end: one fails when a majority of Players votes against it or when "
                  "its voting (motion-days) ends, and only the votes of those who are Players "
                  "count; a shown card is held to its Showdown, and the close returns only the "
                  "scored shown cards still in their showers' Hands; a shower who retired or "
                  "was made the Dealer after showing is not scored",
                  "a Player may have at most pending-per-player trade notifications waiting "
                  "(the act and the replay refuse one more)"),
    actions=ACTIONS, windows=windows, due=due,
    held=held, waiting=waiting,
    view=player_view, view_type=PlayerPooker, panel="nomic_cards.cardgames.pooker:panel.js",
    commands="nomic_cards.cardgames.pooker.commands:app")

__all__ = ["GAME", "NAME", "PARAMS", "SCORES"]
