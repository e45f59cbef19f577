"""The card games installed, as the rules of the ledger know them (Rule 399: a card game is a
rule of its own, binding packs whose cards are its cards).

A card game is one declaration (:class:`nomic_cards.cardgames.sdk.CardGame`) named by an entry
point of the group :data:`ENTRY_POINTS` -- the games shipped here among them, in this
distribution's own metadata, like any other game's. A game is loaded by its name when something
first needs it: its rules (``game enact``, the replay of a rule event), its events (an event
kind is ``<game>.<what>``, so a kind names the game that decodes it), or, through
:func:`load_all`, the whole set (the actions, the page, a replay). Loading a declaration imports
the game's package, which registers its event kinds and their replay steps.

Nothing here imports a game or the card game engine: this module is below the ledger, which
asks it for the code of a kind it does not know.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Protocol

from nomic_cards.core.ruleset import Param, RuleSpec
from nomic_cards.errors import NomicCardsError

__all__ = ["ENTRY_POINTS", "NAME", "GameRules", "as_rule", "known", "load", "load_all",
           "package", "register", "unregister"]

#: the entry point group of card games (each entry point: a game's declaration)
ENTRY_POINTS = "nomic_cards.games"

#: a game's name: lower-case letters, digits and hyphens, as the rules' short names
NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")

#: the parameter binding packs to a game: pack numbers, ascending, comma-separated
PACKS = Param("packs", "packs", "", "the packs whose cards are this game's cards (numbered as "
                                    "`pack list` numbers them); a pack belongs to at most one "
                                    "game")


class GameRules(Protocol):
    """What the ledger needs of a card game's declaration: its name and rules."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def doc(self) -> str: ...

    @property
    def params(self) -> tuple[Param, ...]: ...

    @property
    def versions(self) -> tuple[int, ...]: ...

    @property
    def overdraw(self) -> str | None:
        """The parameter (a yes/no choice) that lets a payment of this game take a Player's
        Points below zero, if the game has one."""


class GameError(NomicCardsError):
    """An installed card game that cannot be loaded (a broken entry point)."""


#: games declared by code (tests, scripts) rather than by an installed entry point
_REGISTERED: dict[str, GameRules] = {}


def register(game: GameRules) -> GameRules:
    """Declare a card game from code (an installed package uses the entry point instead)."""
    _check(game)
    _REGISTERED[game.name] = game
    load.cache_clear()
    load_all.cache_clear()
    rule.cache_clear()
    return game


def unregister(name: str) -> None:
    """Forget a card game declared from code (a test's)."""
    _REGISTERED.pop(name, None)
    load.cache_clear()
    load_all.cache_clear()
    rule.cache_clear()


def _check(game: object) -> GameRules:
    name = getattr(game, "name", None)
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise GameError(f"a card game's name is lower-case letters, digits and hyphens, not "
                        f"{name!r}")
    for field in ("title", "doc", "params", "versions", "overdraw"):
        if not hasattr(game, field):
            raise GameError(f"card game {name}: its declaration has no {field}")
    checked: GameRules = game  # type: ignore[assignment]
    return checked


@cache
def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}


@cache
def load(name: str) -> GameRules | None:
    """The declaration of the card game ``name`` (None: no such game is installed)."""
    found = _REGISTERED.get(name)
    if found is not None:
        return found
    ep = _entry_points().get(name) if NAME.fullmatch(name) else None
    if ep is None:
        return None
    try:
        game = ep.load()
    except Exception as exc:  # noqa: BLE001 - a broken game names itself, in one line
        raise GameError(f"card game {name} (entry point {ep.value}) cannot be loaded: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                        ) from None
    checked = _check(game)
    if checked.name != name:
        raise GameError(f"the entry point {name!r} names card game {checked.name!r}")
    return checked


@cache
def load_all() -> dict[str, GameRules]:
    """Every card game installed (and registered from code), by name."""
    out = {name: game for name in sorted(_entry_points())
           if (game := load(name)) is not None}
    out.update(_REGISTERED)
    return out


def known() -> list[str]:
    """The names of the card games installed."""
    return sorted({*_entry_points(), *_REGISTERED})


def package(name: str) -> str | None:
    """The distribution that installs card game ``name`` (None: registered from code, or not
    installed)."""
    ep = _entry_points().get(name)
    dist = getattr(ep, "dist", None)
    return None if dist is None else str(dist.name)


def as_rule(game: GameRules) -> RuleSpec:
    """The game as a rule of the ledger (no number: Rule 399 names it)."""
    return RuleSpec("", game.name, game.title, game.doc, (PACKS, *game.params),
                    game.versions, tuple(getattr(game, "version_docs", ())), repealable=True,
                    game=True, overdraw=game.overdraw)


@cache
def rule(name: str) -> RuleSpec | None:
    """The card game ``name``, as a rule, if it is installed."""
    game = load(name)
    return None if game is None else as_rule(game)
