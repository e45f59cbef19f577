"""The card game SDK: everything a card game imports, and nothing of the store or the services'
internals (docs/games.md, "Write a card game").

A card game is one package declaring one :class:`CardGame`, named by an entry point of the group
``nomic_cards.games``::

    [project.entry-points."nomic_cards.games"]
    snap = "nomic_cards_snap:GAME"

The declaration holds the game's rules (its parameters, the packs bound to it by ``game
enact``), its actions (:class:`ActionSpec`: what a player or the Dealer may do, run in the
transaction the adapter opened), its windows on the game clock (:class:`Window`: what resolves
by itself when its time comes, closed time-true by every write), its player view (what
``GET /api/v1/me/games`` and the page show a player) and, optionally, a page panel and command
line commands. Its event kinds (``<game>.<what>``) are frozen dataclasses registered with
:func:`kind` when the package is imported, each with its replay step (:func:`step`), which
checks the event against the state and changes the state only through its methods
(:meth:`State.move`, :meth:`State.put_game`) and :func:`pay`.

What the engine gives every game: its actions through ``nomic-cards act``, the server's action
endpoint (idempotent, one transaction, OpenAPI bodies) and the page's generic panel; its
windows closed by ``tick`` and by every write, as of their end; its events in ``log``, ``ledger
verify``, the streams and the public record, private fields under salted commitments; its
Points in ``points show``/``history``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from nomic_cards.core import ruleset
from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.ledger.chain import card_commitment, new_nonce
from nomic_cards.core.ledger.events import (
    BANK,
    Event,
    NoticeGiven,
    PointsMove,
    SealedNotice,
    json_name,
    kind,
    parse_time,
)
from nomic_cards.core.ledger.points import balance, overdraft_allowed, pay
from nomic_cards.core.ledger.replay import step
from nomic_cards.core.ledger.state import ReplayError, State
from nomic_cards.core.rules.cards_proposal import notice_text
from nomic_cards.core.ruleset import Param, ParamValue
from nomic_cards.core.services.common import (
    CardView,
    card_label,
    iso,
    parse_card_ref,
    require_player,
    state_card,
)
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import check_text

__all__ = [
    "BANK", "HIDDEN", "ActionField", "ActionOutcome", "ActionSpec", "CardGame", "CardView",
    "Event", "InputError", "NotFound", "NoticeGiven", "Param", "ParamValue", "PointsMove",
    "Reads", "ReplayError", "RuleViolation", "SealedNotice", "State", "Tx", "Window", "balance",
    "card_commitment", "card_label", "cards_text", "check_text", "format_end", "in_force",
    "is_player", "iso", "json_name", "kind", "new_nonce", "notice_text", "params_in_force",
    "parse_card_ref", "parse_time", "pay", "player_cards", "require_player", "state_card",
    "step", "verify_pay", "window_end",
]

#: what a log line says in place of a private field when it is not revealed
HIDDEN = "(hidden: use --reveal)"


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
    #: what one player sees of the game (read while it is in force), and its dataclass
    view: Callable[[Reads, str], Any] | None = None
    view_type: type | None = None
    #: ``package:file`` of a script drawing the game's page panel (else the generic panel)
    panel: str | None = None
    #: ``module:attribute`` of a Typer app the command line mounts as ``nomic-cards <name>``
    commands: str | None = None
    #: what a page or a client shows for each of its event kinds (kind -> a short sentence
    #: template naming payload fields in braces); optional
    describe: Mapping[str, str] = field(default_factory=dict)


# --- helpers for a game's rules -------------------------------------------------------------


def in_force(state: State, game: str) -> bool:
    return state.in_force(game)


def params_in_force(state: State, game: str) -> dict[str, ParamValue]:
    """The game's parameters in force (defaults filled in), or :class:`RuleViolation` when
    the game is not in force."""
    change = state.rule(game)
    spec = ruleset.spec(game)
    if change is None or not change.in_force or spec is None:
        raise RuleViolation(f"card game {game} is not in force (game enact {game} --packs ...)")
    return {p.name: spec.value(change.params, p.name) for p in spec.params}


def is_player(state: State, name: str) -> bool:
    """Whether ``name`` is an active player (the Dealer included)."""
    player = state.players.get(name)
    return player is not None and player.active


def player_cards(state: State, game: str, player: str) -> list[int]:
    """The cards of ``game`` (of the packs bound to it) in ``player``'s Hand."""
    cards = state.pcards(game)
    return [c for c in state.hand(player) if c in cards]


def cards_text(state: State, numbers: Sequence[int]) -> str:
    """Cards as a log line names them (``Red As, Blue 2c``)."""
    return ", ".join(card_label(state, n) for n in numbers) if numbers else "none"


def format_end(at: datetime) -> str:
    """A window's end as events write it: ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def window_end(now: datetime, days: int) -> str:
    """The end of a window ``days`` after ``now``, as events write it."""
    return format_end(now + timedelta(days=days))


def verify_pay(state: State, player: str, points: int, why: str) -> None:
    """Raise unless ``player`` may pay ``points`` now (no balance goes below zero unless a
    card game in force allows it)."""
    if balance(state, player) < points and not overdraft_allowed(state):
        raise RuleViolation(f"{player} holds {balance(state, player)} Point(s) and cannot pay "
                            f"{points} {why}: no balance goes below zero unless a rule "
                            "allows it")
