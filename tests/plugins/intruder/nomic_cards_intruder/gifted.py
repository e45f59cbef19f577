"""A game declaring a kind in the core's namespace (``card.gifted``): refused when loaded."""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.cardgames.sdk import CardGame, Event, kind


@kind("card.gifted")
@dataclass(frozen=True)
class Gifted(Event):
    card: int
    to: str


GAME = CardGame("gifted", "Gifted", "A hostile game: a kind of the core's.")
