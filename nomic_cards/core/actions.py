"""Actions: what a player or an officer may do, declared once for every adapter.

A game (the Cards rules themselves, Pooker, any registered card game) declares each act a person
may take as an :class:`ActionSpec`: its name (``"<game>.<action>"``), who may take it (a player
acting for emself, or an officer holding a scope), whether the act is a private notification
(seen by its author and the Dealer only until it is matched or resolved) or public, the fields
of its body, and the use case that carries it out. The CLI, the server's ``POST
/api/v1/me/actions`` and its OpenAPI document are all built from these declarations, so a new
action is written in one place.

A use case receives the :class:`~nomic_cards.core.game.Game`, the acting person's name and the
body already checked against the declared fields, and returns an :class:`ActionOutcome`: the
ledger sequence numbers it recorded, and whether the act waits for something (a trade
notification waiting for its match) rather than having taken effect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from nomic_cards.core.game import Game

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
    whether it waits (a notification recorded, not yet matched: HTTP 202) or took effect
    (HTTP 201)."""

    seqs: tuple[int, ...]
    waiting: bool = False
    #: a short public summary for the adapter to show (no secret in it)
    summary: str = ""


#: the use case behind an action: (game, actor, checked body) -> outcome
Runner = Callable[["Game", str, Mapping[str, object]], ActionOutcome]


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
