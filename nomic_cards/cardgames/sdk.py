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
(:meth:`State.move`, :meth:`State.put_game`) and :func:`pay`: the core holds each of the game's
events to the cards of its own packs, its own state and Points paid as that game, and refuses
the rest (docs/games.md, "What a game may change").

What the engine gives every game: its actions through ``nomic-cards act``, the server's action
endpoint (idempotent, one transaction, OpenAPI bodies) and the page's generic panel; its
windows closed by ``tick`` and by every write, as of their end; its events in ``log``, ``ledger
verify``, the streams and the public record, private fields under salted commitments; its
Points in ``points show``/``history``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from nomic_cards.core import installed
from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.engine import CardGame, Window
from nomic_cards.core.ledger.chain import card_commitment, new_nonce
from nomic_cards.core.ledger.codec import DataDecodeError, from_json, to_json
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
from nomic_cards.core.ledger.points import balance, pay, verify_pay
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
from nomic_cards.core.services.summaries import HIDDEN_NOTE
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import check_text

__all__ = [
    "BANK", "HIDDEN", "ActionField", "ActionOutcome", "ActionSpec", "CardGame", "CardView",
    "DataDecodeError", "Event", "InputError", "NotFound", "NoticeGiven", "Param", "ParamValue",
    "PointsMove", "Reads", "ReplayError", "RuleViolation", "SealedNotice", "State", "Tx",
    "Window", "balance", "can", "card_commitment", "card_label", "cards_text", "check_text",
    "format_end", "from_json", "game_state", "in_force", "is_player", "iso", "json_name", "kind",
    "new_nonce", "notice_text", "params_in_force", "parse_card_ref", "parse_time", "pay",
    "player_cards", "put_game_state", "require_player", "state_card", "step", "to_json",
    "verify_pay", "window_end",
]

#: what a log line says in place of a private field when it is not revealed
HIDDEN = HIDDEN_NOTE


T = TypeVar("T")


# --- a game's state ---------------------------------------------------------------------------


def game_state(state: State, game: str, cls: type[T]) -> T:
    """Card game ``game``'s own state as ``cls``: a dataclass of the types events use (text,
    whole numbers, booleans, times, tuples, ``dict[str, ...]``, nested dataclasses), every field
    with a default, so that before the game has recorded anything it is ``cls()``. Its JSON form
    is :func:`to_json`'s, read back by :func:`from_json`: ``from_json(cls, to_json(x), ...) ==
    x``. A change is kept only by :func:`put_game_state`."""
    data = state.game_data(game)
    return cls() if data is None else from_json(cls, data, f"card game {game}'s state")


def put_game_state(state: State, game: str, value: object, seq: int) -> None:
    """Keep ``value`` as card game ``game``'s state, changed by event ``seq`` (in a replay
    step)."""
    state.put_game(game, to_json(value), seq)


# --- helpers for a game's rules -------------------------------------------------------------


def can(check: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Whether a rule's check (a ``verify_...`` function raising :class:`RuleViolation`)
    passes: what a view asks to show a control only when its action would be taken."""
    try:
        check(*args, **kwargs)
    except RuleViolation:
        return False
    return True



def in_force(state: State, game: str) -> bool:
    return state.in_force(game)


def params_in_force(state: State, game: str) -> dict[str, ParamValue]:
    """The game's parameters in force (defaults filled in), or :class:`RuleViolation` when
    the game is not in force."""
    change = state.rule(game)
    spec = installed.spec(game)
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
