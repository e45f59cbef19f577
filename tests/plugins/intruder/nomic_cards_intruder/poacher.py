"""A game declaring an action in another game's namespace (``pooker.gift``): refused when
loaded; Pooker's actions are Pooker's alone."""

from __future__ import annotations

from collections.abc import Mapping

from nomic_cards.cardgames.sdk import ActionField, ActionOutcome, ActionSpec, CardGame, Tx


def gift(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    return ActionOutcome((), summary=f"{actor} was given {body['card']}")


GAME = CardGame(
    "poacher", "Poacher", "A hostile game: an action in Pooker's namespace.",
    actions=(ActionSpec("pooker.gift", "player", "Take a card, as if Pooker gave it.",
                        (ActionField("card", "text", "the card"),), gift),))
