"""What several use cases share: card labels and references, the game calendar, time input."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from nomic_cards.cards import format_pack_card, parse_pack_card, spoon_card, spoon_number
from nomic_cards.core.calendar import Calendar
from nomic_cards.core.ledger.events import parse_time, utc
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import names
from nomic_cards.core.rules.cards_proposal import check_in_play
from nomic_cards.core.settings import StoredSettings
from nomic_cards.errors import InputError, RuleViolation
from nomic_cards.inputs import ascii_int


@dataclass(frozen=True)
class CardView:
    """A card as its holder reads it (a hand, the Deck's cards, the cards votes earned)."""

    #: the card's number, 1 .. 52 x packs
    number: int
    #: its pack and face: ``Red Ad``
    card: str
    #: ``Ace of Diamonds``
    name: str
    #: the pack whose Back it has: ``Red``
    back: str


@lru_cache(maxsize=8192)
def card_view(number: int, pack: str) -> CardView:
    """Card ``number`` of the pack named ``pack`` (a frozen value, kept for the next ask)."""
    face = spoon_card(number)[1]
    return CardView(number, format_pack_card(pack, face), face.title, pack)


@dataclass(frozen=True)
class HandView:
    """A player's hand, now or as of an event: the one shape the command line's ``hand --json``
    and the server's ``/api/v1/me/hand`` both give."""

    #: the player's name as registered
    player: str
    #: the last event the hand reflects
    as_of: int
    #: the cards, by number (none for the Dealer: eir cards are the Deck)
    cards: tuple[CardView, ...]
    #: whether the player was the Dealer then
    dealer: bool


def state_card(state: State, number: int) -> CardView:
    """Card ``number`` as its holder sees it, its pack named as in ``state``."""
    return card_view(number, state.packs[spoon_card(number)[0]].name)


def card_label(state: State, number: int) -> str:
    """``Red Qh``."""
    pack, face = spoon_card(number)
    return format_pack_card(state.packs[pack].name, face)


def parse_card_ref(state: State, text: str) -> int:
    """A card by number (``90``) or by pack and face (``Red Qh``)."""
    t = text.strip()
    n = ascii_int(t, "a card number")
    if n is not None:
        check_in_play(state, n)
        return n
    pack, face = parse_pack_card(t, [p.name for p in state.packs])
    n = spoon_number(pack, face.suit, face.rank)
    check_in_play(state, n)
    return n


def calendar(state: State) -> Calendar:
    """The game calendar from the settings and the Clock's history."""
    cal = state.calendar()
    if cal is None:
        raise RuleViolation("this game has no valid epoch setting: nweeks are unknown")
    return cal


def has_calendar(state: State) -> bool:
    return StoredSettings.parse(state.settings) is not None


def moment(state: State, now: datetime) -> tuple[str, int | None]:
    """``now`` for a notice: the ISO time and the nweek it falls in (None before the game's
    calendar is known)."""
    return iso(now) or "", calendar(state).nweek_of(now) if has_calendar(state) else None


def require_player(state: State, name: str, *, when: str = "") -> str:
    """The registered name ``name`` designates (the same without regard to case and Unicode
    normalisation: docs/rules.md, "Names"), or :class:`NotFound`."""
    return names.resolve(state.players, name, when=when)


def require_active(state: State, name: str) -> str:
    """The registered name of the active player ``name`` designates (:func:`require_player`),
    or a :class:`RuleViolation` saying e has retired."""
    name = require_player(state, name)
    if not state.players[name].active:
        raise RuleViolation(f"{name} has retired and is no longer a player")
    return name


def parse_when(text: str, what: str = "time") -> datetime:
    """An ISO date or date-time; naive means UTC."""
    try:
        return parse_time(text)
    except ValueError:
        raise InputError(f"bad {what} {text!r}: use ISO form, e.g. 2026-11-22T18:00:00Z") \
            from None


def iso(at: datetime | None) -> str | None:
    """``2026-11-22T18:00:00Z`` (whole seconds), or None."""
    return None if at is None else utc(at).strftime("%Y-%m-%dT%H:%M:%SZ")
