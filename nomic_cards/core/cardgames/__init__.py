"""Card games as rules (the Cards proposal's Rule 399: which packs a card game uses is a rule of
its own). A card game is a rule of the ledger like the proposal's: ``game enact`` records a
``rule.enacted`` of the game's name whose parameter ``packs`` binds packs to it (a card of those
packs is that game's card, a PCard for Pooker), ``game amend`` and ``game repeal`` the other
rule events. A pack belongs to at most one game in force.

The game's rules are a registered module: a :class:`CardGame` declaring its parameters, found
among the built-in games here or, failing that, in the entry point group ``nomic_cards.games``
(an installed package may add a game). The entry points are read only for a name that is not
built in, so start-up stays fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from nomic_cards.core.cardgames import pooker
from nomic_cards.core.ruleset import Param, RuleSpec

#: the entry point group of card game modules (each entry point: a :class:`CardGame`)
ENTRY_POINTS = "nomic_cards.games"

#: a game's name: lower-case letters, digits and hyphens, as the rules' short names
NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")


@dataclass(frozen=True)
class CardGame:
    """A card game's rules as a module declares them."""

    name: str
    title: str
    doc: str
    params: tuple[Param, ...]
    versions: tuple[int, ...] = (1,)


#: the parameter binding packs to a game: pack numbers, ascending, comma-separated
PACKS = Param("packs", "packs", "", "the packs whose cards are this game's cards (numbered as "
                                    "`pack list` numbers them); a pack belongs to at most one "
                                    "game")


def as_rule(game: CardGame) -> RuleSpec:
    """The game as a rule of the ledger (no number: Rule 399 names it)."""
    return RuleSpec("", game.name, game.title, game.doc, (PACKS, *game.params),
                    game.versions, repealable=True, game=True)


#: Pooker's declaration (also registered as the entry point ``nomic_cards.games: pooker``)
POOKER = CardGame(pooker.NAME, pooker.TITLE, pooker.DOC, pooker.PARAMS)

BUILTIN: dict[str, CardGame] = {g.name: g for g in (POOKER,)}

#: games declared by code at run time (:func:`register`), besides the built-in ones
_REGISTERED: dict[str, CardGame] = {}


def register(game: CardGame) -> None:
    """Declare a card game from code (a game module registered with the engine,
    ``nomic_cards.core.games.register``); an installed package uses the entry point instead."""
    if not NAME.fullmatch(game.name):
        raise ValueError(f"a card game's name is lower-case letters, digits and hyphens, not "
                         f"{game.name!r}")
    _REGISTERED[game.name] = game
    find.cache_clear()


@cache
def find(name: str) -> RuleSpec | None:
    """The card game registered under ``name``, as a rule, if any."""
    game = BUILTIN.get(name) or _REGISTERED.get(name)
    if game is None and NAME.fullmatch(name):
        from importlib.metadata import entry_points
        for ep in entry_points(group=ENTRY_POINTS, name=name):
            loaded = ep.load()
            if isinstance(loaded, CardGame):
                game = loaded
                break
    return as_rule(game) if game is not None else None


def known() -> list[str]:
    """The names of the built-in games and those registered from code."""
    return sorted({*BUILTIN, *_REGISTERED})
