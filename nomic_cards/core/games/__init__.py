"""The card games layer's engine: what every card game played with the dealt cards gets.

A card game is a :class:`GameModule`: its rules' declaration (a
:class:`~nomic_cards.core.cardgames.CardGame`: name, parameters; registered as the entry point
``nomic_cards.games``), its actions (:class:`~nomic_cards.core.actions.ActionSpec`: who may take
each, private notification or public, the use case; each use case checks with a ``verify``,
asks ``can`` and records the events a ``do`` returns), and its *windows* on the game clock: the
moments at which something of the game resolves by itself (the end of a Showdown's showing, a
trade notification's expiry), each with the code that resolves it.

The engine closes windows time-true: every writing transaction, before its own work, resolves
each window whose end has passed, in time order and interleaved with the nweek boundaries
(:func:`nomic_cards.core.services.time.catch_up`), each dated at its end (``tx.as_of``). So a
late ``tick`` resolves exactly what an on-time one would have (docs/games.md, "Windows").

The engine also gives every game rule-cited card movements (events that move cards name the
rule: the replay refuses cards not held), private notices (``notice.given``) and the privacy
filter: a game's event kinds list their private fields, which no public channel shows
(docs/games.md, "Privacy").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from nomic_cards.core.actions import ActionSpec
from nomic_cards.core.cardgames import CardGame
from nomic_cards.core.ledger.state import State

if TYPE_CHECKING:
    from nomic_cards.core.store.reads import Reads
    from nomic_cards.core.store.writes import Tx

#: what one player sees of a game: (a read of the game, the player's registered name) -> a
#: result dataclass; the player's own cards, eir own notifications, and the public state
PlayerView = Callable[["Reads", str], Any]


@dataclass(frozen=True)
class Window:
    """A moment on the game clock at which ``close`` resolves something of game ``game``
    (``what``: for the record, e.g. "Showdown 2 ends")."""

    game: str
    end: datetime
    what: str
    close: Callable[[Tx], None]


@dataclass(frozen=True)
class GameModule:
    """A card game as the engine runs it."""

    game: CardGame
    actions: tuple[ActionSpec, ...]
    #: the windows open in a state (the game in force)
    windows: Callable[[State], list[Window]]
    #: what a player sees of the game (``GET /api/v1/me/games``: read while the game is in
    #: force), and the dataclass it returns (for the OpenAPI document); None: no view
    view: PlayerView | None = None
    view_type: type | None = None


_MODULES: dict[str, GameModule] = {}


def register(module: GameModule) -> GameModule:
    """Make a game's module known to the engine, and its rules to the ledger (the built-in
    ones register on first use)."""
    from nomic_cards.core import cardgames

    if module.game.name not in cardgames.BUILTIN:
        cardgames.register(module.game)
    _MODULES[module.game.name] = module
    return module


def modules() -> dict[str, GameModule]:
    """Every registered game module, the built-in ones included."""
    if "pooker" not in _MODULES:
        from nomic_cards.core.games import pooker
        register(pooker.MODULE)
    return dict(_MODULES)


def views() -> dict[str, tuple[PlayerView, type]]:
    """Every registered game's player view, and its result type, by game name."""
    return {name: (m.view, m.view_type) for name, m in modules().items()
            if m.view is not None and m.view_type is not None}


def actions() -> list[ActionSpec]:
    """Every action of every registered game (for the CLI, the server and its OpenAPI)."""
    return [a for m in modules().values() for a in m.actions]


def due_windows(state: State, upto: datetime) -> list[Window]:
    """The windows of the games in force that end at or before ``upto``, earliest first."""
    out: list[Window] = []
    for name, module in modules().items():
        if state.in_force(name):
            out.extend(w for w in module.windows(state) if w.end <= upto)
    return sorted(out, key=lambda w: w.end)


def close_windows(tx: Tx, upto: datetime,
                  on_close: Callable[[str], None] | None = None) -> int:
    """Resolve every window ending at or before ``upto``, one at a time in time order (the
    state after one decides the next), each dated at its end; how many were closed
    (``on_close``: told a line for each)."""
    closed = 0
    seen: set[tuple[str, datetime, str]] = set()
    while True:
        due = due_windows(tx.state, upto)
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
            on_close(f"card game {first.game}: {first.what} "
                     f"({first.end.strftime('%Y-%m-%dT%H:%M:%SZ')})")
