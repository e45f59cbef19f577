"""The kinds of event the ledger knows: one frozen dataclass per kind, and the records they are
stored in.

Each class names its kind (``card.dealt``) and types its payload fields; :mod:`.codec` turns an
event into its JSON payload and back, and :data:`EVENT_TYPES` maps kind names to classes. The
fields that only the player concerned and the Dealer may know are listed in ``PRIVATE``: they are
stored apart, and the hash chain covers only a salted commitment to them. To add a kind: a class
here registered with :func:`kind`, the rule that emits it, and its step in :mod:`.replay` -- see
docs/ledger.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

GENESIS_HASH = "0" * 64

#: A JSON object as the standard library reads it.
JsonObject = dict[str, Any]


class Event:
    """Base of every event kind (subclasses are frozen dataclasses registered with
    :func:`kind`)."""

    KIND: ClassVar[str] = ""
    #: payload fields that only the player concerned and the Dealer may see
    PRIVATE: ClassVar[frozenset[str]] = frozenset()
    #: whether events of this kind move Points (``points history`` reads them)
    MOVES_POINTS: ClassVar[bool] = False

    def subject(self) -> str | None:
        """The player the event concerns (for filtering the log), if any."""
        return None

    def points_moves(self) -> tuple[Any, ...]:
        """The movements of Points this event made (:class:`~.points.PointsMove`; a kind
        that makes any sets :attr:`MOVES_POINTS`)."""
        return ()

    def summary(self, state: Any, *, reveal: bool) -> str | None:
        """The line ``nomic-cards log`` prints for a card game's event (None: the payload's
        fields); a private field only with ``reveal``. The core's own kinds are described by
        :mod:`nomic_cards.core.services.summaries`."""
        return None


E = TypeVar("E", bound=type[Event])

_REGISTRY: dict[str, type[Event]] = {}
#: kind name -> event class (read-only; :func:`kind` registers)
EVENT_TYPES: Mapping[str, type[Event]] = MappingProxyType(_REGISTRY)


def kind(name: str, *, private: tuple[str, ...] = ()) -> Callable[[E], E]:
    """Class decorator: register an event class under its kind name."""

    def register(cls: E) -> E:
        if name in _REGISTRY:
            raise ValueError(f"event kind {name!r} registered twice")
        cls.KIND = name
        cls.PRIVATE = frozenset(private)
        _REGISTRY[name] = cls
        return cls

    return register


def event_type(kind: str) -> type[Event] | None:
    """The class of an event kind, if installed code knows it. A card game's kind is
    ``<game>.<what>``: one not known yet loads the game of that name, if it is installed
    (:mod:`nomic_cards.core.installed`), which registers its kinds."""
    found = _REGISTRY.get(kind)
    if found is None and "." in kind:
        from nomic_cards.core import installed

        try:
            installed.load(kind.split(".", 1)[0])
        except installed.GameError:
            return None
        found = _REGISTRY.get(kind)
    return found


@cache
def core_prefixes() -> frozenset[str]:
    """The first words of the core's own kinds (``card``, ``player``, ...): a kind unknown
    with one of these is not a card game's."""
    return frozenset(k.split(".", 1)[0] for k, cls in _REGISTRY.items()
                     if cls.__module__.startswith("nomic_cards.core."))


def game_of(kind: str) -> str:
    """The card game a kind unknown to the core would belong to: the first word of
    ``<game>.<what>``."""
    return kind.split(".", 1)[0]


def json_name(name: str) -> dict[str, str]:
    """Field metadata: the payload key when it differs from the field name (``from``)."""
    return {"json": name}


# --- values carried inside events ---------------------------------------------------------


@dataclass(frozen=True)
class PackSpec:
    name: str
    back: str


@dataclass(frozen=True)
class DiceUse:
    """The dice a deal rolled, as the public record shows them: the source, the die, and for
    committed-seed dice the period and the index of the first roll (the rolls of one deal are
    consecutive)."""

    source: str
    sides: int
    period: int | None
    first: int | None
    count: int


@dataclass(frozen=True)
class VoteEntry:
    player: str
    proposal: str
    at: datetime


@dataclass(frozen=True)
class NotDealt:
    """A voter (or one of a voter's cards) not dealt at an nweek's start, and why. ``owed``:
    how many cards the voter is owed for it instead, to be dealt later (``cards-for-votes``
    ``absent=owe``; 0 when nothing is owed)."""

    player: str
    reason: str
    owed: int = field(default=0, metadata={"omit_default": True})


@dataclass(frozen=True)
class OwedPaid:
    """Cards for Votes owed to ``player`` for voting in nweek ``nweek`` (recorded owed by the
    ``nweek.started`` of nweek ``nweek + 1``), ``cards`` of which were dealt now."""

    player: str
    nweek: int
    cards: int


@dataclass(frozen=True)
class LateOwed:
    """A late vote's Cards for Votes owed later: ``player`` voted in nweek ``nweek``, the vote
    was recorded after that nweek's cards were dealt, and ``player`` was then the Dealer or
    retired under ``absent=owe``: ``cards`` are owed, paid like the debts of ``nweek.started``
    (docs/rules.md, "Late votes")."""

    player: str
    nweek: int
    cards: int


@dataclass(frozen=True)
class RenderedReport:
    text: str
    markdown: str
    json: str


# --- the kinds --------------------------------------------------------------------------


@kind("game.created")
@dataclass(frozen=True)
class GameCreated(Event):
    """Rules 2, 4, 7: the packs, every card in the Deck, the original Dealer."""

    packs: tuple[PackSpec, ...]
    dealer: str
    settings: Mapping[str, str]

    def subject(self) -> str | None:
        return self.dealer


@kind("player.registered", private=("email",))
@dataclass(frozen=True)
class PlayerRegistered(Event):
    name: str
    email: str | None

    def subject(self) -> str | None:
        return self.name


@kind("player.email_set", private=("email",))
@dataclass(frozen=True)
class PlayerEmailSet(Event):
    name: str
    email: str | None

    def subject(self) -> str | None:
        return self.name


@kind("player.retired", private=("returned",))
@dataclass(frozen=True)
class PlayerRetired(Event):
    """The player leaves; the cards in ``returned`` go back to the Deck."""

    name: str
    returned: tuple[int, ...]

    def subject(self) -> str | None:
        return self.name


@kind("player.rejoined")
@dataclass(frozen=True)
class PlayerRejoined(Event):
    """A retired player comes back, with an empty Hand (theirs went back to the Deck when they
    retired)."""

    name: str

    def subject(self) -> str | None:
        return self.name


@kind("dealer.elected", private=("merged",))
@dataclass(frozen=True)
class DealerElected(Event):
    """Rule 4; the new Dealer's hand (``merged``) joins the Deck (rule 7)."""

    name: str
    previous: str | None
    merged: tuple[int, ...]

    def subject(self) -> str | None:
        return self.name


@kind("pack.added")
@dataclass(frozen=True)
class PackAdded(Event):
    number: int
    name: str
    back: str


@dataclass(frozen=True)
class HandCount:
    """How many cards of a retired pack left one player's Hand (public: hand sizes are)."""

    player: str
    cards: int


@kind("pack.retired")
@dataclass(frozen=True)
class PackRetired(Event):
    """Rule 2 amended by ``proposal``: pack ``number`` leaves play. Its cards leave the Deck
    (``deck`` of them) and every Hand (``hands``: how many left whose Hand; the cards
    themselves are told to each holder alone, by a ``notice.given``), and the dealing die is
    over the packs still in play (docs/dice.md, "Retired packs")."""

    number: int
    name: str
    proposal: str
    deck: int
    hands: tuple[HandCount, ...]


@kind("dice.committed")
@dataclass(frozen=True)
class DiceCommitted(Event):
    period: int
    commitment: str


@kind("dice.revealed")
@dataclass(frozen=True)
class DiceRevealed(Event):
    period: int
    seed: str


@kind("card.dealt", private=("card", "values", "notice", "salt"))
@dataclass(frozen=True)
class CardDealt(Event):
    """Rule 5: the dice rolled (public) and their faces, the card moved from the Deck and the
    notice to the player (private)."""

    player: str
    reason: str
    nweek: int | None
    dice: DiceUse
    card: int
    values: tuple[int, ...]
    notice: str
    #: a PCard (its pack bound to a card game): the card's own commitment (public) and its
    #: salt (private); "" for other cards and in events recorded before (docs/ledger.md)
    commit: str = field(default="", metadata={"omit_default": True})
    salt: str = field(default="", metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.player


@kind("deal.refused")
@dataclass(frozen=True)
class DealRefused(Event):
    """A deal the rules forbade (rule 5: the Deck is empty)."""

    player: str
    reason: str
    refused: str
    nweek: int | None = None

    def subject(self) -> str | None:
        return self.player


@kind("card.transferred", private=("card", "notice", "salt"))
@dataclass(frozen=True)
class CardTransferred(Event):
    """Any other movement of a card, with the rule that authorizes it (rule 1), and the
    private notice telling the receiving player which card they received (None when the card
    goes to the Deck)."""

    card: int
    from_: str | None = field(metadata=json_name("from"))
    to: str | None
    rule: str
    notice: str | None = None
    #: a PCard going to a Hand: its own commitment (public) and salt (private), as card.dealt
    commit: str = field(default="", metadata={"omit_default": True})
    salt: str = field(default="", metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.to or self.from_


@kind("notice.given", private=("notice",))
@dataclass(frozen=True)
class NoticeGiven(Event):
    """A private notice to a player about eir Hand that no other event carries: cards that
    left it (a transfer to someone else or to the Deck, a retirement, an election as Dealer)."""

    player: str
    notice: str

    def subject(self) -> str | None:
        return self.player


@kind("notice.sealed", private=("player", "notice"))
@dataclass(frozen=True)
class SealedNotice(Event):
    """A private notice whose addressee is private too: given where naming em publicly would
    tell others what only the players concerned may know (the other side a trade notification
    names). Its ``notice.sent`` names no one either."""

    player: str
    notice: str

    def subject(self) -> str | None:
        return None


@kind("notice.sent")
@dataclass(frozen=True)
class NoticeSent(Event):
    """The notice recorded by event ``notice`` was e-mailed (subject: its player)."""

    notice: int


@kind("notice.failed", private=("address", "reply"))
@dataclass(frozen=True)
class NoticeFailed(Event):
    """The mail server permanently refused the notice recorded by event ``notice`` when it was
    mailed to ``address`` (private), with the server's ``reply`` (private: it often quotes the
    address). The notice is not mailed to that address again (subject: its player)."""

    notice: int
    address: str
    reply: str


@kind("clock.stopped")
@dataclass(frozen=True)
class ClockStopped(Event):
    at: datetime


@kind("clock.started")
@dataclass(frozen=True)
class ClockStarted(Event):
    at: datetime


@kind("votes.recorded")
@dataclass(frozen=True)
class VotesRecorded(Event):
    votes: tuple[VoteEntry, ...]
    source: str
    #: late votes whose cards are owed later (absent=owe), not dealt now
    owed: tuple[LateOwed, ...] = field(default=(), metadata={"omit_default": True})


@kind("nweek.started")
@dataclass(frozen=True)
class NweekStarted(Event):
    """Rule 9 done for an nweek: who voted, in which order they were dealt, who was not."""

    nweek: int
    start: str | None
    period: int
    commitment: str
    order_rule: str
    voters: tuple[str, ...]
    dealt: tuple[str, ...]
    not_dealt: tuple[NotDealt, ...]
    #: cards owed from earlier nweeks and dealt at this start, before the voters' (absent=owe)
    paid: tuple[OwedPaid, ...] = field(default=(), metadata={"omit_default": True})


@kind("report.published")
@dataclass(frozen=True)
class ReportPublished(Event):
    """Rule 8: the Dealer's Report for an nweek, in every format exactly as published."""

    nweek: int
    report: JsonObject
    rendered: RenderedReport


@kind("reports.posted")
@dataclass(frozen=True)
class ReportsPosted(Event):
    """Published reports handed to the game's list (``report --new``, run by cron): a report
    is posted once, whichever command published it."""

    nweeks: tuple[int, ...]


@kind("rule.enacted")
@dataclass(frozen=True)
class RuleEnacted(Event):
    """A rule put in force (again) by ``proposal``, at the code ``version``, with ``params``
    (those not named take their defaults). The rules the game was created with are enacted by
    ``game.created`` itself (docs/rules.md, "Changing the rules"). For a card game, ``package``
    names the distribution that installed its code (so a ledger read where the game is not
    installed can say what to install)."""

    rule: str
    version: int
    params: Mapping[str, Any]
    proposal: str
    package: str = field(default="", metadata={"omit_default": True})


@kind("rule.amended")
@dataclass(frozen=True)
class RuleAmended(Event):
    """A rule in force changed by ``proposal``: the parameters in ``params`` take the values
    given, and ``version`` (when not None) is the version of its code now in force. In effect at
    once, except a new nweek length, which starts at the next nweek boundary."""

    rule: str
    params: Mapping[str, Any]
    version: int | None
    proposal: str


@kind("rule.repealed")
@dataclass(frozen=True)
class RuleRepealed(Event):
    """A rule taken out of force by ``proposal``."""

    rule: str
    proposal: str


# --- records ------------------------------------------------------------------------------


def utc(at: datetime) -> datetime:
    """``at`` as an aware UTC datetime (naive values are taken to be UTC already)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def parse_time(text: str) -> datetime:
    """An ISO 8601 date or date-time (a final ``Z`` means UTC; without a zone, UTC is assumed)
    as an aware UTC datetime. Raises ValueError on anything else, including a time whose UTC
    form falls outside the years 1..9999."""
    t = text.strip()
    if not t.isascii():  # fromisoformat refuses other scripts' digits; say so here too
        raise ValueError(f"not an ISO time: {text!r}")
    if t[-1:] in ("Z", "z"):
        t = t[:-1] + "+00:00"
    try:
        return utc(datetime.fromisoformat(t))
    except OverflowError:
        raise ValueError(f"time out of range: {text!r}") from None


@dataclass(frozen=True)
class Opening:
    """The private part of a stored event: a random nonce (hex) and the canonical JSON of the
    private fields, whose salted hash is the event's commitment (see :mod:`.chain`)."""

    nonce: str
    data: str


@dataclass(frozen=True)
class StoredEvent:
    """An event row exactly as stored: ``payload`` is the stored text of the public fields,
    ``private`` the commitment to the private ones (None: the kind has none), ``opening`` the
    private part when the reader may see it. ``at`` is None when the stored time is not one."""

    seq: int
    at: datetime | None
    actor: str
    kind: str
    subject: str | None
    payload: str
    private: str | None
    prev_hash: str
    hash: str
    opening: Opening | None = None


@dataclass(frozen=True)
class EventRecord:
    """A decoded event: the typed event, its public payload (exactly as stored and hashed) and
    its private fields."""

    seq: int
    at: datetime
    actor: str
    subject: str | None
    event: Event
    payload: JsonObject
    private: JsonObject
    prev_hash: str
    hash: str

    @property
    def kind(self) -> str:
        return self.event.KIND


# --- Points: an account per Player and the Bank (their step is in .points) ----------------

#: the name of the Bank in movements of Points (None in events; "Bank" when shown)
BANK = "Bank"


@dataclass(frozen=True)
class PointsMove:
    """One movement of Points an event made: from an account to another (None: the Bank),
    citing a rule."""

    source: str | None
    target: str | None
    points: int
    rule: str
    note: str = ""


@kind("points.moved")
@dataclass(frozen=True)
class PointsMoved(Event):
    """Points from one account to another (None: the Bank), citing the rule that moves them;
    ``note``: what the nomic's Scorekeeper reported, or why."""

    MOVES_POINTS = True

    from_: str | None = field(metadata=json_name("from"))
    to: str | None
    points: int
    rule: str
    note: str = field(default="", metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.to or self.from_

    def points_moves(self) -> tuple[PointsMove, ...]:
        return (PointsMove(self.from_, self.to, self.points, self.rule, self.note),)

    def summary(self, state: Any, *, reveal: bool) -> str:
        note = f" ({self.note})" if self.note else ""
        return (f"{self.points} Point(s): {self.from_ or BANK} -> {self.to or BANK} under "
                f"{self.rule!r}{note}")
