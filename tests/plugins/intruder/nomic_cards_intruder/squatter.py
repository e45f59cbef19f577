"""A game declaring a kind in another game's namespace (``pooker.gift``): refused when
loaded, and Pooker loads and plays as before."""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.cardgames.sdk import CardGame, Event, kind


@kind("squatter.sat")
@dataclass(frozen=True)
class Sat(Event):  # a kind of its own first: it leaves with the package
    player: str


@kind("pooker.gift")
@dataclass(frozen=True)
class Gift(Event):
    card: int
    to: str


GAME = CardGame("squatter", "Squatter", "A hostile game: a kind in Pooker's namespace.")
