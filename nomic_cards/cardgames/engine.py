"""The card game engine: every installed game's declaration (:class:`~.sdk.CardGame`, from the
``nomic_cards.games`` entry points, :mod:`nomic_cards.core.installed`), and what the engine does
with them -- the windows closed time-true, the actions, the players' views, the panels and
commands the adapters mount. The core and the adapters name no game: they ask here.

Windows close time-true: every write, before its own work, resolves each window whose end has
passed, in time order and interleaved with the nweek boundaries
(:func:`nomic_cards.core.services.time.catch_up`), each dated at its end. So a late ``tick``
resolves exactly what an on-time one would have (docs/games.md, "Windows").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from nomic_cards.cardgames.sdk import CardGame, Window
from nomic_cards.core import installed
from nomic_cards.core.actions import ActionSpec
from nomic_cards.core.ledger.events import RuleEnacted
from nomic_cards.core.ledger.state import State
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import RuleViolation

__all__ = ["actions", "close_windows", "due_windows", "game", "games", "held", "in_force",
           "not_installed", "panel_source", "register", "require_installed"]


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
    which package would bring it (``package``, else as its ``game enact`` recorded it)."""
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
    from nomic_cards.core.ledger.events import core_prefixes, event_type, game_of

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


def _proposal_rules() -> frozenset[str]:
    from nomic_cards.core.ruleset import RULES

    return frozenset(r.name for r in RULES)


_PROPOSAL_RULES = _proposal_rules()


def due_windows(tx: Reads, upto: datetime) -> list[Window]:
    """The windows of the games in force that end at or before ``upto``, earliest first."""
    state: State = tx.state
    out = [w for g in in_force(tx)
           for w in (g.due(state, upto) if g.due is not None else g.windows(state))
           if w.end <= upto]
    return sorted(out, key=lambda w: w.end)


def close_windows(tx: Tx, upto: datetime,
                  on_close: Callable[[str], None] | None = None) -> int:
    """Resolve every window ending at or before ``upto``, one at a time in time order (the
    state after one decides the next), each dated at its end; how many were closed
    (``on_close``: told a line for each)."""
    closed = 0
    seen: set[tuple[str, datetime, str]] = set()
    while True:
        due = due_windows(tx, upto)
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
