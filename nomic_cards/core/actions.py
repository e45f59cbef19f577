"""Actions: what a player or an officer may do, declared once for every adapter.

A game (the Cards rules themselves, or any installed card game) declares each act a person
may take as an :class:`ActionSpec`: its name (``"<game>.<action>"``), who may take it (a player
acting for emself, or an officer holding a scope), whether the act is a private notification
(seen by its author and the Dealer only until it is matched or resolved) or public, the fields
of its body, and the use case that carries it out. The CLI, the server's ``POST
/api/v1/me/actions`` and its OpenAPI document are all built from these declarations, so a new
action is written in one place.

A use case receives the writing transaction (:class:`~nomic_cards.core.store.writes.Tx`, opened
and committed by the adapter), the acting person's name and the body already checked against
the declared fields, and returns an :class:`ActionOutcome`: the ledger sequence numbers it
recorded, and whether the act waits for something (a trade notification waiting for its match)
or was refused with its refusal recorded (a deal from an empty Deck) rather than having taken
effect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from nomic_cards.core.store.writes import Tx

#: the kinds of value a field may hold: text, a whole number, a player's name, a list of cards
#: as the CLI writes them ("Red As"), or a list of such lists (Poker Hands)
FieldKind = Literal["text", "int", "player", "cards", "card-lists"]

#: who may take an action: a player for emself, or an officer holding the named scope
Scope = Literal["player", "dealer"]


@dataclass(frozen=True)
class ActionField:
    """One field of an action's body."""

    name: str
    kind: FieldKind
    doc: str
    required: bool = True


@dataclass(frozen=True)
class ActionOutcome:
    """What an action did: the ledger events it recorded (sequence numbers, in order) and
    whether it waits (a notification recorded, not yet matched: HTTP 202), was refused with
    the refusal recorded (HTTP 409; ``summary`` says why) or took effect (HTTP 201)."""

    seqs: tuple[int, ...]
    waiting: bool = False
    #: a short public summary for the adapter to show (no secret in it)
    summary: str = ""
    refused: bool = False


#: the use case behind an action: (transaction, actor, checked body) -> outcome
Runner = Callable[["Tx", str, Mapping[str, object]], ActionOutcome]


@dataclass(frozen=True)
class ActionSpec:
    """An action as a game declares it."""

    name: str
    scope: Scope
    doc: str
    fields: tuple[ActionField, ...]
    run: Runner
    #: a private notification (its content seen by its author and the Dealer only)
    private: bool = False
    #: extra words for the OpenAPI document (an example body, say)
    example: Mapping[str, object] = field(default_factory=dict)


def registry() -> Mapping[str, ActionSpec]:
    """Every action by name: the Cards proposal's own (``cards.*``), then each installed card
    game's (``<game>.*``, named after its game). Each name is declared once."""
    from nomic_cards.cardgames import engine
    from nomic_cards.core.services.cards_actions import ACTIONS as CARDS

    found: dict[str, ActionSpec] = {spec.name: spec for spec in CARDS}
    games = engine.games()
    for spec in (a for g in games.values() for a in g.actions):
        if spec.name.partition(".")[0] not in games or spec.name in found:
            raise ValueError(f"action {spec.name!r} is declared twice, or not as <game>.<action>")
        found[spec.name] = spec
    return MappingProxyType(found)
