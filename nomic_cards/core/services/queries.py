"""Use cases that only read: hands, the Deck, the log, the private notices."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from nomic_cards.cards import Card, spoon_card
from nomic_cards.core.engine import require_installed
from nomic_cards.core.ledger.events import DiceRevealed, EventRecord, JsonObject, parse_time
from nomic_cards.core.ledger.replay import replay
from nomic_cards.core.ledger.state import State
from nomic_cards.core.services.common import (
    CardView,
    HandView,
    card_label,
    require_player,
    state_card,
)
from nomic_cards.core.services.summaries import HIDDEN_NOTE, summary
from nomic_cards.core.store.reads import Reads
from nomic_cards.errors import InputError, NotFound
from nomic_cards.inputs import ascii_int, show_number

__all__ = [
    "BackCount",
    "CardView",
    "DeckView",
    "EventView",
    "HandView",
    "NoticeView",
    "ShownHand",
    "cards_of",
    "deck",
    "hand",
    "hand_faces",
    "log",
    "notices",
]


#: The largest event number an as-of point may name (18 digits: within the database's 64-bit
#: integer, and the server's OpenAPI document says so).
AS_OF_EVENT_MAX = 10**18 - 1


def parse_as_of(text: str) -> tuple[int | None, datetime | None]:
    """An as-of point (the command line's ``--as-of``, the server's ``as_of``): an event number
    or an ISO time. The messages name no adapter's option."""
    t = text.strip()
    seq = ascii_int(t, "an as-of event number")
    if seq is not None:
        return seq, None
    try:
        return None, parse_time(t)
    except ValueError:
        raise InputError(f"an as-of point is an event number or an ISO time, not {text!r}"
                         ) from None


def check_as_of(text: str, *, last: int, now: datetime) -> tuple[int | None, datetime | None]:
    """An as-of point parsed; refused when it names no possible event (an :class:`InputError`),
    or an event past the end of the log (which runs 1..``last``) or a time after ``now`` (a
    :class:`NotFound`: the answer would be today's, not the one asked for)."""
    seq, at = parse_as_of(text)
    if seq is not None and not 1 <= seq <= AS_OF_EVENT_MAX:
        raise InputError(f"as of event {show_number(seq)}: events are numbered from 1 to at "
                         f"most {AS_OF_EVENT_MAX}")
    if seq is not None and seq > last:
        raise NotFound(f"as of event {show_number(seq)}: the ledger runs from event 1 to event "
                       f"{last}")
    if at is not None and at > now:
        raise NotFound(f"as of {text.strip()}: that is in the future (it is now "
                       f"{now.isoformat()})")
    return seq, at


def hand(tx: Reads, player: str, *, as_of: str | None = None) -> HandView:
    """A player's hand now, or as of an event number or time (a replay of the log)."""
    state = tx.state
    if as_of is not None:
        seq, at = check_as_of(as_of, last=state.seq, now=tx.clock.now())
        state = replay(tx.events(), upto_seq=seq, upto_time=at, history=False)
    player = require_player(state, player,
                            when=" at that point" if as_of is not None else "")
    if state.dealer == player:
        return HandView(player, state.seq, (), dealer=True)
    return HandView(player, state.seq, tuple(state_card(state, c) for c in state.hand(player)),
                    dealer=False)


@dataclass(frozen=True)
class ShownHand:
    """A player's hand for a showdown: the faces that rank it and the labels that show it."""

    #: the player's name as registered
    player: str
    #: suit and rank only (two packs' ``Jd`` are the same face)
    faces: tuple[Card, ...]
    #: each card with its pack, in the same order (``Red Jd``, ``Blue Jd``)
    labels: tuple[str, ...]


def hand_faces(tx: Reads, players: list[str]) -> list[ShownHand]:
    """Each named player's hand, in the order named. A player named twice (by any spelling
    that designates them: ``Wonko`` and ``wonko``) is an :class:`InputError`."""
    state = tx.state
    given: dict[str, list[str]] = {}
    for name in players:
        given.setdefault(require_player(state, name), []).append(name)
    twice = [f"{player} (as {' and '.join(repr(n) for n in spellings)})"
             for player, spellings in given.items() if len(spellings) > 1]
    if twice:
        raise InputError(f"player named twice: {'; '.join(twice)}")
    return [ShownHand(player, tuple(spoon_card(c)[1] for c in state.hand(player)),
                      tuple(card_label(state, c) for c in state.hand(player)))
            for player in given]


def cards_of(tx: Reads, owner: str | None) -> list[str]:
    """Labels (``Red Qh``) of a player's hand, or of the Deck when ``owner`` is None."""
    state = tx.state
    if owner is None:
        return [card_label(state, c) for c in sorted(state.deck)]
    owner = require_player(state, owner)
    return [card_label(state, c) for c in state.hand(owner)]


@dataclass(frozen=True)
class BackCount:
    pack: str
    back: str
    cards: int


@dataclass(frozen=True)
class DeckView:
    dealer: str | None
    total: int
    sides: int
    by_back: tuple[BackCount, ...]
    cards: tuple[CardView, ...] | None


def deck(tx: Reads, *, show_cards: bool = False) -> DeckView:
    """The Deck: counts by Back (and the cards themselves with ``show_cards``)."""
    state = tx.state
    counts = {p.number: 0 for p in state.in_play()}
    for c in state.deck:
        counts[spoon_card(c)[0]] += 1
    by_back = tuple(BackCount(p.name, p.back, counts[p.number]) for p in state.in_play())
    cards = tuple(state_card(state, c) for c in sorted(state.deck)) if show_cards else None
    return DeckView(state.dealer, len(state.deck), state.sides, by_back, cards)


@dataclass(frozen=True)
class EventView:
    event: int
    at: str
    actor: str
    kind: str
    subject: str | None
    payload: JsonObject
    hash: str
    #: what happened, in one line (:mod:`.summaries`)
    summary: str = ""


HIDDEN = HIDDEN_NOTE


def event_view(rec: EventRecord, state: State, *, reveal: bool) -> EventView:
    """An event for display: its public payload, and its private fields only with ``reveal``
    (otherwise each is shown as hidden, as are revealed dice seeds), and its one-line summary
    (``state`` names the packs of revealed cards)."""
    p = dict(rec.payload)
    for key, value in rec.private.items():
        p[key] = value if reveal else HIDDEN
    if isinstance(rec.event, DiceRevealed) and not reveal:
        p["seed"] = HIDDEN
    return EventView(rec.seq, rec.at.isoformat(), rec.actor, rec.kind, rec.subject, p, rec.hash,
                     summary(rec, state, reveal=reveal))


def log(tx: Reads, *, player: str | None = None, limit: int = 20,
        reveal: bool = False) -> list[EventView]:
    """Recent events; card faces in deal and transfer events only with ``reveal``."""
    if limit < 1:
        raise InputError("--limit must be at least 1")
    if player is not None:
        player = require_player(tx.state, player)
    require_installed(tx)
    recs = tx.recent_events(subject=player, limit=limit)
    return [event_view(r, tx.state, reveal=reveal) for r in recs]


@dataclass(frozen=True)
class NoticeView:
    event: int
    player: str
    text: str
    sent: bool
    refused: int | None = None  # the latest notice.failed event (the server refused it for good)


def notices(tx: Reads, player: str | None = None) -> list[NoticeView]:
    """The private notices (all, or one player's) and whether each was e-mailed."""
    state = tx.full_state()
    if player is not None:
        player = require_player(state, player)
    return [NoticeView(n.seq, n.player, n.text, n.sent_seq is not None, n.failed_seq)
            for n in state.notices.values() if player is None or n.player == player]
