r"""The card game engine: what a card game declares (:class:`CardGame`, its :class:`Window`\ s),
every installed game's declaration (from the ``nomic_cards.games`` entry points,
:mod:`nomic_cards.core.installed`), and what the engine does with them -- the windows closed
time-true, the cards the games hold, their actions, views, panels and commands. The rest of the
core and the adapters name no game: they ask here. A card game imports all of this through its
SDK (:mod:`nomic_cards.cardgames.sdk`).

Windows close time-true: every write, before its own work, resolves each window whose end has
passed, in time order and interleaved with the nweek boundaries
(:func:`nomic_cards.core.services.time.catch_up`), each dated at its end. So a late ``tick``
resolves exactly what an on-time one would have (docs/games.md, "Windows").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nomic_cards.core import installed
from nomic_cards.core.actions import ActionSpec
from nomic_cards.core.ledger.events import (
    Event,
    RuleEnacted,
    core_prefixes,
    event_type,
    game_of,
)
from nomic_cards.core.ledger.state import State
from nomic_cards.core.ruleset import RULES, Param
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import RuleViolation

__all__ = ["CardGame", "Window", "actions", "close_windows", "due_windows", "game", "games",
           "held", "in_force", "not_installed", "panel_source", "register", "require_installed"]


@dataclass(frozen=True)
class Window:
    """A moment on the game clock at which ``close`` resolves something of card game ``game``
    (``what``: for the record, e.g. "Showdown 2 ends"). Every write, before its own work,
    closes each window that has ended, in time order, each dated at its end."""

    game: str
    end: datetime
    what: str
    close: Callable[[Tx], None]


def _no_windows(state: State) -> list[Window]:
    return []


def _nothing_held(state: State) -> Mapping[int, str]:
    return {}


@dataclass(frozen=True)
class CardGame:
    """A card game, declared once: everything the engine and the adapters need of it."""

    #: the game's name: lower-case letters, digits and hyphens; its event kinds and actions
    #: are ``<name>.<what>``
    name: str
    title: str
    doc: str
    #: the rule's parameters (``game enact/amend --set KEY=VALUE``; ``packs`` is every game's)
    params: tuple[Param, ...] = ()
    #: the versions of the game's code; a new enactment takes the last (``game amend
    #: --version`` moves a game in force), the replay honours each event's
    versions: tuple[int, ...] = (1,)
    #: the parameter (a yes/no choice) that lets this game's payments take a Player's Points
    #: below zero, if it has one
    overdraw: str | None = None
    #: what each version after the first does differently (one line each)
    version_docs: tuple[str, ...] = ()
    actions: tuple[ActionSpec, ...] = ()
    #: the windows open in a state (called while the game is in force)
    windows: Callable[[State], list[Window]] = _no_windows
    #: the windows ending at or before a moment, which every write walks (None: those of
    #: ``windows``); a game with many windows finds them by an index of its own
    due: Callable[[State, datetime], list[Window]] | None = None
    #: the cards the game holds now (card -> why, naming its rule): no transfer may move them
    held: Callable[[State], Mapping[int, str]] = _nothing_held
    #: whether what the game's event ``seq`` (``event``) asked of ``player`` -- the event a
    #: notice's ``waits`` names, its ``By:`` the deadline -- still waits for em: a sending
    #: of the notices asks, so that a digest counts as waiting only what still does (None:
    #: a notice waits until its deadline passes)
    waiting: Callable[[State, Event, int, str], bool] | None = None
    #: what one player sees of the game (read while it is in force), and its dataclass
    view: Callable[[Reads, str], Any] | None = None
    view_type: type | None = None
    #: ``package:file`` of a script drawing the game's page panel (else the generic panel)
    panel: str | None = None
    #: ``module:attribute`` of a Typer app the command line mounts as ``nomic-cards <name>``
    commands: str | None = None
    #: no longer read: each event's sentence is its kind's ``summary`` (the log, the streams,
    #: the page and the feed all carry it); accepted so that a game declaring it still loads
    describe: Mapping[str, str] = field(default_factory=dict)



def _declared(found: object) -> CardGame:
    if not isinstance(found, CardGame):
        raise installed.GameError(f"card game {getattr(found, 'name', '?')}: its entry point "
                                  "names no CardGame (nomic_cards.cardgames.sdk)")
    return found


def register(game_: CardGame) -> CardGame:
    """Declare a card game from code (tests, scripts); an installed package uses the entry
    point ``nomic_cards.games`` instead."""
    installed.register(game_)
    return game_


def game(name: str) -> CardGame | None:
    """The installed card game ``name`` (None: not installed)."""
    found = installed.load(name)
    return None if found is None else _declared(found)


def games() -> dict[str, CardGame]:
    """Every installed card game, by name."""
    return {name: _declared(g) for name, g in installed.load_all().items()}


def not_installed(reads: Reads, name: str, package: str | None = None) -> str:
    """The sentence for a card game in force (or named by an event) that is not installed:
    which package would bring it (``package``, else as its ``game enact`` recorded it); for a
    game installed but refused, the line refusing it."""
    try:
        installed.load(name)
    except installed.GameError as exc:
        return str(exc)
    if package is None:
        change = reads.state.rules.get(name)
        first = next((c for c in reads.state.rule_changes
                      if c.rule == name and c.action == "enacted"), change)
        if first is not None:
            rec = reads.event_at(first.seq)
            if rec is not None and isinstance(rec.event, RuleEnacted):
                package = rec.event.package or None
    fix = f"install {package}" if package else "install the package that declares it"
    return f"card game {name} is not installed: {fix} (entry point group " \
           f"{installed.ENTRY_POINTS})"


def require_installed(reads: Reads, enacted: Mapping[str, str] | None = None) -> None:
    """Refuse, in one line, a ledger holding events of a card game that is not installed (its
    events cannot be read, so neither the log nor a replay could be whole). With ``enacted``
    (each rule the log's ``rule.enacted`` events name, with the package they name: for
    ``verify``, which reads no table first) only the kinds of a game the log enacted are
    refused: any other kind the core does not know is a problem for the caller to report."""
    for kind in sorted(reads.kinds()):
        name = game_of(kind)
        if event_type(kind) is not None or name in core_prefixes():
            continue
        if enacted is None or name in enacted:
            package = None if enacted is None else enacted[name] or None
            raise RuleViolation(f"events of kind {kind} cannot be read: "
                                f"{not_installed(reads, name, package)}")


def in_force(tx: Reads) -> list[CardGame]:
    """The card games in force, each installed; a game in force that is not installed stops
    every write, in one line (its windows could not be closed)."""
    state = tx.state
    out = []
    for name, change in sorted(state.rules.items()):
        if not change.in_force or name in _PROPOSAL_RULES:
            continue
        found = game(name)
        if found is None:
            raise RuleViolation(not_installed(tx, name))
        out.append(found)
    return out


_PROPOSAL_RULES = frozenset(r.name for r in RULES)


#: windows of the core's own beside the card games' (the nomic's decisions): the state and the
#: moment -> those ending by then
CoreWindows = Callable[[State, datetime], list[Window]]


def due_windows(tx: Reads, upto: datetime, also: CoreWindows | None = None) -> list[Window]:
    """The windows of the games in force (and ``also``'s) that end at or before ``upto``,
    earliest first."""
    state: State = tx.state
    out = [w for g in in_force(tx)
           for w in (g.due(state, upto) if g.due is not None else g.windows(state))
           if w.end <= upto]
    if also is not None:
        out += also(state, upto)
    return sorted(out, key=lambda w: w.end)


def close_windows(tx: Tx, upto: datetime,
                  on_close: Callable[[str], None] | None = None,
                  also: CoreWindows | None = None) -> int:
    """Resolve every window ending at or before ``upto`` (the card games' and ``also``'s), one
    at a time in time order (the state after one decides the next), each dated at its end; how
    many were closed (``on_close``: told a line for each)."""
    closed = 0
    seen: set[tuple[str, datetime, str]] = set()
    while True:
        due = due_windows(tx, upto, also)
        if not due:
            return closed
        first = due[0]
        key = (first.game, first.end, first.what)
        if key in seen:  # a game whose close left its window open: a bug, not a loop
            raise RuntimeError(f"card game {first.game}: closing {first.what!r} left it open")
        seen.add(key)
        with tx.as_of(first.end):
            first.close(tx)
        closed += 1
        if on_close is not None:
            who = f"card game {first.game}: " if game(first.game) is not None else ""
            on_close(f"{who}{first.what} ({first.end.strftime('%Y-%m-%dT%H:%M:%SZ')})")


def held(tx: Reads) -> dict[int, str]:
    """The cards the card games in force hold now (card -> why): no transfer moves them."""
    state = tx.state
    out: dict[int, str] = {}
    for g in in_force(tx):
        out.update(g.held(state))
    return out


def panel_source(name: str) -> bytes | None:
    """The page panel script of installed game ``name`` (None: it declares none)."""
    from importlib import resources

    found = game(name)
    if found is None or found.panel is None:
        return None
    package, _, filename = found.panel.partition(":")
    return resources.files(package).joinpath(filename).read_bytes()


def actions() -> list[ActionSpec]:
    """Every action of every installed card game (for the CLI, the server and its OpenAPI)."""
    return [a for g in games().values() for a in g.actions]
