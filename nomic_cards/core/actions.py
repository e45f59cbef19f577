"""Actions: what a player or an officer may do, declared once for every adapter.

A game (the Cards rules themselves, or any installed card game) declares each act a person
may take as an :class:`ActionSpec`: its name (``"<game>.<action>"``), who may take it (a player
acting for emself, or an officer holding a scope), whether the act is a private notification
(seen by its author and the Dealer only until it is matched or resolved) or public, the fields
of its body, and the use case that carries it out. The CLI, the server's ``POST
/api/v1/me/actions`` and its OpenAPI document are all built from these declarations, so a new
action is written in one place; :func:`nomic_cards.core.services.acting.registry` gathers them
all.

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
    #: what the action tells its actor alone, in its answer and nowhere public (a deal's
    #: card and rolls, told the Dealer as the command line prints them)
    private: Mapping[str, object] | None = None


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
    #: how players write the action in a message to the game (docs/mail.md): regular
    #: expressions, each matched against a whole line without regard to case, whose named
    #: groups give the fields as ``KEY=VALUE`` words give them (:func:`field_value`); a line
    #: naming the action as ``nomic-cards act`` does is always read too
    phrases: tuple[str, ...] = ()


def field_value(kind: FieldKind | str, values: list[str]) -> object:
    """A field's value from the ``KEY=VALUE`` words that give it (``nomic-cards act``, a line of
    a message), as the field's kind wants it: a whole number in ASCII digits; text; a list of
    cards, comma-separated or the key repeated; Poker Hands, cards comma-separated and hands
    separated by ``;``. Raises :class:`~nomic_cards.errors.InputError`."""
    from nomic_cards.errors import InputError
    from nomic_cards.inputs import ascii_int

    if kind == "int":
        if len(values) != 1:
            raise InputError("a number is given once")
        number = ascii_int(values[0].strip(), "the value", signed=True)
        if number is None:
            raise InputError(f"{values[0]!r} is not a whole number in ASCII digits")
        return number
    if kind == "cards":
        return [c.strip() for v in values for c in v.split(",") if c.strip()]
    if kind == "card-lists":
        return [[c.strip() for c in hand.split(",") if c.strip()]
                for v in values for hand in v.split(";") if hand.strip()]
    if len(values) != 1:
        raise InputError("this field is given once")
    return values[0]


def body_from_pairs(action: str, pairs: list[str],
                    declared: Mapping[str, str]) -> dict[str, object]:
    """The body of ``action`` from ``KEY=VALUE`` words (``declared``: each field's kind): each
    value read by :func:`field_value`; a key the action does not declare is kept as given, for
    the declaration's own check to refuse by name."""
    from nomic_cards.errors import InputError

    given: dict[str, list[str]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"{pair!r}: give each field as KEY=VALUE")
        given.setdefault(key, []).append(value)
    body: dict[str, object] = {"action": action}
    for key, values in given.items():
        kind = declared.get(key)
        if kind is None:
            body[key] = values[0]
            continue
        try:
            body[key] = field_value(kind, values)
        except InputError as exc:
            raise InputError(f"{action}: {key}: {exc}") from None
    return body
