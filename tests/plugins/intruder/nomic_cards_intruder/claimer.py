"""A game declaring a kind that Pooker declares itself (``pooker.traded``): whichever of the
two is loaded first, this one is refused and Pooker loads."""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.cardgames.sdk import CardGame, Event, kind


@kind("pooker.traded")
@dataclass(frozen=True)
class Traded(Event):
    a: str
    b: str


GAME = CardGame("claimer", "Claimer", "A hostile game: one of Pooker's own kinds.")
