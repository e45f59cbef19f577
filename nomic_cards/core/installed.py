"""The card games installed, as the rules of the ledger know them (Rule 399: a card game is a
rule of its own, binding packs whose cards are its cards).

A card game is one declaration (:class:`nomic_cards.cardgames.sdk.CardGame`) named by an entry
point of the group :data:`ENTRY_POINTS` -- the games shipped here among them, in this
distribution's own metadata, like any other game's. A game is loaded by its name when something
first needs it: its rules (``game enact``, the replay of a rule event), its events (an event
kind is ``<game>.<what>``, so a kind names the game that decodes it), or, through
:func:`load_all`, the whole set (the actions, the page, a replay). Loading a declaration imports
the game's package, which registers its event kinds and their replay steps.

Each game's kinds and actions live in its own namespace, ``<name>.<what>``: the namespace of
a game's name belongs to the package its entry point names (a kind's namespace is checked when
the kind is declared, :func:`nomic_cards.core.ledger.events.kind`; an action's when the game is
loaded). A package reaching into another's (or the core's) is refused in one line naming both,
and :func:`load_all` goes on without it: every other game keeps loading (:func:`refused` lists
the games left out, each with its line).

Nothing here imports a game or the card game engine: this module is below the ledger, which
asks it for the code of a kind it does not know.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Protocol

from nomic_cards.core.ruleset import RULES, Param, RuleSpec
from nomic_cards.errors import NomicCardsError

__all__ = ["CORE_ACTIONS", "ENTRY_POINTS", "NAME", "GameError", "GameRules", "Refused",
           "as_rule", "game_at", "home", "known", "load", "load_all", "origin", "package",
           "refused", "register", "spec", "unregister"]

#: the entry point group of card games (each entry point: a game's declaration)
ENTRY_POINTS = "nomic_cards.games"

#: a game's name: lower-case letters, digits and hyphens, as the rules' short names
NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")

#: the namespace of the Cards rules' own actions (``cards.deal``, ``cards.vote``, ...): no card
#: game takes the name
CORE_ACTIONS = "cards"

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
    """An installed card game that cannot be loaded (a broken entry point, or a package
    refused)."""


class Refused(GameError, ValueError):
    """A package declaring an event kind in a namespace not its own (the core's, or another
    game's): ``who`` (the package, as :func:`origin` names it) declares ``what``, in
    ``where``."""

    def __init__(self, who: str, what: str, where: str) -> None:
        self.who, self.what, self.where = who, what, where
        super().__init__(f"{who} declares {what}, in {where}: a card game's kinds are named "
                         "after it")

    def sentence(self, game: str) -> str:
        """The line refusing card game ``game`` for it."""
        return (f"card game {game} ({self.who}) is refused: it declares {self.what}, in "
                f"{self.where}: a card game's kinds are named after it ({game}.<what>)")


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


def _check(game: object, who: str | None = None) -> GameRules:
    """``game`` as a declaration, or GameError: its name, its fields, and its actions, each
    ``<name>.<action>`` (``who``: the package declaring it, as :func:`origin` names it)."""
    name = getattr(game, "name", None)
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise GameError(f"a card game's name is lower-case letters, digits and hyphens, not "
                        f"{name!r}")
    if name in _RESERVED:
        raise GameError(f"card game {name}: the name is the Cards rules' own (a rule of the "
                        f"proposal, or the namespace of their actions, {CORE_ACTIONS}.*)")
    for field in ("title", "doc", "params", "versions", "overdraw"):
        if not hasattr(game, field):
            raise GameError(f"card game {name}: its declaration has no {field}")
    refused = f"card game {name}{f' ({who})' if who else ''} is refused: it declares action"
    seen: set[str] = set()
    for action in getattr(game, "actions", ()):
        named = str(getattr(action, "name", ""))
        prefix, _, what = named.partition(".")
        if prefix != name or not what:
            if prefix == CORE_ACTIONS:
                where = f"the core's namespace ({CORE_ACTIONS}.*)"
            elif prefix in known():
                where = f"the namespace of card game {prefix} ({_owner(prefix)})"
            else:
                where = "a namespace not its own"
            raise GameError(f"{refused} {named}, in {where}: a card game's actions are named "
                            f"after it ({name}.<action>)")
        if named in seen:
            raise GameError(f"{refused} {named} twice")
        seen.add(named)
    checked: GameRules = game  # type: ignore[assignment]
    return checked


@cache
def _entry_points() -> dict[str, list[Any]]:
    """The entry points of the card games by name (two packages may both claim one)."""
    from importlib.metadata import entry_points

    found: dict[str, list[Any]] = {}
    for ep in entry_points(group=ENTRY_POINTS):
        same = found.setdefault(ep.name, [])
        if all(e.value != ep.value for e in same):
            same.append(ep)
    return found


def _dist(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return f"package {dist.name}" if dist is not None else f"entry point {ep.value}"


def _entry_point(name: str) -> Any | None:
    """The entry point of card game ``name`` (None: none), or GameError when two packages
    claim the name."""
    eps = _entry_points().get(name) if NAME.fullmatch(name) else None
    if not eps:
        return None
    if len(eps) > 1:
        raise GameError(f"card game {name} is claimed by {' and by '.join(map(_dist, eps))}: "
                        "uninstall all but one")
    return eps[0]


def home(name: str) -> str | None:
    """The module of card game ``name``'s entry point: every kind ``<name>.<what>`` is
    declared in it or below it (None: no single package installs the game)."""
    eps = _entry_points().get(name)
    return str(eps[0].module) if eps is not None and len(eps) == 1 else None


def _within(module: str, package_: str) -> bool:
    return module == package_ or module.startswith(package_ + ".")


def game_at(module: str) -> str | None:
    """The installed card game whose package holds ``module`` (the most specific, None:
    none)."""
    found = [(len(m), name) for name in _entry_points()
             if (m := home(name)) is not None and _within(module, m)]
    return max(found)[1] if found else None


@cache
def _distributions() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return dict(packages_distributions())


def origin(module: str) -> str:
    """The package ``module`` comes from, as a refusal names it (``package nomic-cards``;
    ``module tests.x`` for code no distribution installs)."""
    game = game_at(module)
    if game is not None:
        return _owner(game)
    dists = _distributions().get(module.partition(".")[0])
    return f"package {dists[0]}" if dists else f"module {module}"


def _owner(name: str) -> str:
    eps = _entry_points().get(name)
    return _dist(eps[0]) if eps else "registered from code"


@cache
def load(name: str) -> GameRules | None:
    """The declaration of the card game ``name`` (None: no such game is installed)."""
    found = _REGISTERED.get(name)
    if found is not None:
        return found
    ep = _entry_point(name)
    if ep is None:
        return None
    try:
        game = ep.load()
    except Refused as exc:  # a kind in another's namespace
        raise GameError(exc.sentence(name)) from None
    except Exception as exc:  # noqa: BLE001 - a broken game names itself, in one line
        raise GameError(f"card game {name} (entry point {ep.value}) cannot be loaded: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                        ) from None
    checked = _check(game, _dist(ep))
    if checked.name != name:
        raise GameError(f"the entry point {name!r} names card game {checked.name!r}")
    return checked


@cache
def load_all() -> dict[str, GameRules]:
    """Every card game installed (and registered from code), by name; a game that cannot be
    loaded is left out (:func:`refused`), and every other is loaded without it."""
    out: dict[str, GameRules] = {}
    for name in sorted(_entry_points()):
        try:
            game = load(name)
        except GameError:
            continue
        if game is not None:
            out[name] = game
    out.update(_REGISTERED)
    return out


def refused() -> dict[str, str]:
    """The installed card games that cannot be loaded (refused, or broken), each with the one
    line saying why."""
    out = {}
    for name in sorted(set(_entry_points()) - set(load_all())):
        try:
            load(name)
        except GameError as exc:
            out[name] = str(exc)
    return out


def known() -> list[str]:
    """The names of the card games installed."""
    return sorted({*_entry_points(), *_REGISTERED})


def package(name: str) -> str | None:
    """The distribution that installs card game ``name`` (None: registered from code, or not
    installed)."""
    eps = _entry_points().get(name)
    dist = getattr(eps[0], "dist", None) if eps else None
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


_PROPOSAL = {r.name: r for r in RULES}
#: names no card game may take: the proposal's rules', and the namespace of their actions
_RESERVED = frozenset({CORE_ACTIONS, *_PROPOSAL})


def spec(name: str) -> RuleSpec | None:
    """The rule with this short name, if the code knows it: a rule of the proposal, or an
    installed card game."""
    return _PROPOSAL.get(name) or rule(name)
