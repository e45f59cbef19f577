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
    #: the card game whose kind this is (None: the core's), as :func:`kind` registered it
    CARD_GAME: ClassVar[str | None] = None

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
    """Class decorator: register an event class under its kind name. A kind of the core's is
    declared in ``nomic_cards.core``; any other is a card game's, ``<game>.<what>``, declared
    by the game's own package (:func:`_claim`)."""

    def register(cls: E) -> E:
        core = cls.__module__.startswith("nomic_cards.core.")
        if core and name in _REGISTRY:
            raise ValueError(f"event kind {name!r} registered twice")
        game = None if core else _claim(name, cls)
        cls.KIND = name
        cls.PRIVATE = frozenset(private)
        cls.CARD_GAME = game
        _REGISTRY[name] = cls
        return cls

    return register


def _claim(name: str, cls: type[Event]) -> str:
    """The card game whose kind ``name`` is, or :class:`~nomic_cards.core.installed.Refused`
    when the package declaring it (``cls``'s module) reaches into a namespace not its own: the
    core's, or another game's. A game's namespace belongs to the package its entry point names
    (for a game declared from code, to the package of its first kind), whichever is loaded
    first. A module refused takes the kinds it declared so far with it."""
    from nomic_cards.core import installed

    module = cls.__module__
    game, _, what = name.partition(".")
    own = installed.game_at(module)
    home = installed.home(game)
    first = home or next((c.__module__ for k, c in _REGISTRY.items()
                          if k.startswith(f"{game}.") and game == c.CARD_GAME), module)
    prior = _REGISTRY.get(name)
    where = None
    if not what or not installed.NAME.fullmatch(game):
        where = "no card game's namespace (a kind is <game>.<what>)"
    elif game in core_prefixes():
        where = f"the core's namespace ({game}.*)"
    elif not _within(module, first if home is not None else first.rpartition(".")[0] or first):
        where = f"the namespace of card game {game} ({installed.origin(first)})"
    elif own is not None and own != game:
        where = f"a namespace not its own ({own}.* is)"
    elif prior is not None and (prior.__module__, prior.__qualname__) != \
            (module, cls.__qualname__):  # the same class again is its module imported again
        where = (f"the namespace of card game {game}, where {installed.origin(prior.__module__)}"
                 " declares it already")
    if where is not None:
        for k, c in list(_REGISTRY.items()):
            if c.__module__ == module and c.CARD_GAME is not None:
                del _REGISTRY[k]
        raise installed.Refused(installed.origin(module), f"event kind {name}", where)
    return game


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def game_of_event(event: Event) -> str | None:
    """The card game whose kind ``event`` is (None: a kind of the core's)."""
    return type(event).CARD_GAME


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


def core_prefixes() -> frozenset[str]:
    """The first words of the core's own kinds (``card``, ``player``, ...): a kind unknown
    with one of these is not a card game's."""
    return frozenset(k.split(".", 1)[0] for k, cls in _REGISTRY.items()
                     if cls.CARD_GAME is None)


def game_of(kind: str) -> str:
    """The card game a kind unknown to the core would belong to: the first word of
    ``<game>.<what>``."""
    return kind.split(".", 1)[0]


def json_name(name: str) -> dict[str, str]:
    """Field metadata: the payload key when it differs from the field name (``from``)."""
    return {"json": name}


# --- values carried inside events ---------------------------------------------------------

#: the rules every game created before ``game.created`` named its rules enacted
FIRST_RULES = ("properties", "packs", "dealer", "dealing", "hands", "deck", "report",
               "cards-for-votes", "nweeks")


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
    """Rules 2, 4, 7: the packs, every card in the Deck, the original Dealer; ``rules``, the
    rules it enacted (a game created before a rule was added to the code did not enact it)."""

    packs: tuple[PackSpec, ...]
    dealer: str
    settings: Mapping[str, str]
    rules: tuple[str, ...] = field(default=FIRST_RULES, metadata={"omit_default": True})

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
    """``name``'s address from now on (None: none). ``confirms``: the
    ``player.address_asked`` event whose confirmation link the player followed (0: an
    officer set it)."""

    name: str
    email: str | None
    confirms: int = field(default=0, metadata={"omit_default": True})

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
    """A private notice to a player that no other event carries: cards that left eir Hand (a
    transfer to someone else or to the Deck, a retirement, an election as Dealer), and what a
    card game or the nomic's decisions tell em. ``waits``: the event whose business waits for
    the player (a Motion to vote on, a decision's ballot), which the notice's ``By:`` line
    names the deadline of (0: nothing waits, or a notice recorded before notices said so);
    a sending asks whether it still waits (docs/notices.md)."""

    player: str
    notice: str
    waits: int = field(default=0, metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.player


@kind("notice.sealed", private=("player", "notice", "waits"))
@dataclass(frozen=True)
class SealedNotice(Event):
    """A private notice whose addressee is private too: given where naming em publicly would
    tell others what only the players concerned may know (the other side a trade notification
    names). Its ``notice.sent`` names no one either; ``waits`` (private) as
    :class:`NoticeGiven`'s."""

    player: str
    notice: str
    waits: int = field(default=0, metadata={"omit_default": True})

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


@dataclass(frozen=True)
class NoticeRefusal:
    """A notice the mail server refused for good at ``address``, with its ``reply``."""

    notice: int
    address: str
    reply: str


@kind("notices.mailed", private=("sealed", "refused"))
@dataclass(frozen=True)
class NoticesMailed(Event):
    """One sending of the due notices by e-mail (a run of ``notices send``), dated when it
    listed them, naming no one: ``notices``, the notices it mailed whose own events name their
    players, in notice order; privately, ``sealed``, the sealed notices it mailed, and
    ``refused``, those the mail server refused for good. One event whatever was mailed, so
    that neither its content, nor its order, nor its time pairs a sealed notice with the
    notices mailed with it, to its addressee (docs/notices.md). Recorded since sendings
    replaced ``notice.sent`` and ``notice.failed``, which older ledgers keep."""

    notices: tuple[int, ...]
    sealed: tuple[int, ...]
    refused: tuple[NoticeRefusal, ...]


# --- a player's own mail business: eir address, a new token, how often e is mailed ---------


#: how often a player's notices are mailed: at each sending (every few minutes), or once a day
MAIL_CHOICES = ("each", "daily")


@kind("player.mail_chosen")
@dataclass(frozen=True)
class MailChosen(Event):
    """``name`` chose how eir notices are mailed: ``each`` sending, or a ``daily`` digest."""

    name: str
    mail: str

    def subject(self) -> str | None:
        return self.name


@kind("player.address_asked", private=("email",))
@dataclass(frozen=True)
class AddressAsked(Event):
    """``name`` asked to be mailed at ``email`` (private) from now on: a confirmation link goes
    to that address, and the change is made when the link is followed."""

    name: str
    email: str

    def subject(self) -> str | None:
        return self.name


@kind("player.address_linked", private=("secret_sha256", "reply"))
@dataclass(frozen=True)
class AddressLinked(Event):
    """The confirmation link of the change asked by event ``request`` was mailed to the new
    address, to be followed by ``expires``; only the SHA-256 of its secret is kept (private).
    Or the mail server refused it for good (``reply``, private; ``expires`` empty): the change
    is dropped."""

    name: str
    request: int
    expires: str = ""
    secret_sha256: str = ""
    reply: str = field(default="", metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.name


@kind("player.token_asked")
@dataclass(frozen=True)
class TokenAsked(Event):
    """A new token was asked for ``name``, to be mailed to eir registered address."""

    name: str

    def subject(self) -> str | None:
        return self.name


@kind("player.token_mailed", private=("address", "selector", "reply"))
@dataclass(frozen=True)
class TokenMailed(Event):
    """The token asked by event ``request``: mailed to ``address`` (private) with ``selector``
    (private; its earlier player tokens revoked), or not: ``reply`` (private) says why (no
    address, retired, the mail server refused it for good)."""

    name: str
    request: int
    address: str = ""
    selector: str = ""
    reply: str = ""

    def subject(self) -> str | None:
        return self.name


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


@kind("list.posted")
@dataclass(frozen=True)
class ListPosted(Event):
    """A Dealer's Report (``what`` "report", ``ids`` its nweek) or a resolution ("resolution",
    ``ids`` its decisions) posted by SMTP to ``to`` (``report --post``, ``decision post``, cron
    when the list is configured), with the Message-ID of the message: ``to_list`` when ``to``
    is the game's list (each is posted to the list once), not for a copy to another
    address."""

    what: str
    ids: tuple[str, ...]
    message_id: str
    to: str
    to_list: bool = True


@kind("report.doubted")
@dataclass(frozen=True)
class ReportDoubted(Event):
    """A claim of error: ``player`` doubts the Dealer's Report for ``nweek`` posted to the
    list (rule 8's ``doubt_days`` on), saying why (``claim``), by ``source`` (a message)."""

    nweek: int
    player: str
    claim: str
    source: str = field(default="", metadata={"omit_default": True})


@kind("report.denied")
@dataclass(frozen=True)
class ReportDenied(Event):
    """The Dealer denies the claim of error ``doubt`` (its event), saying why."""

    doubt: int
    reason: str


@kind("report.revised")
@dataclass(frozen=True)
class ReportRevised(Event):
    """The Dealer grants the claim of error ``doubt`` and revises the report: ``correction``
    says what the report should have said."""

    doubt: int
    correction: str


@kind("report.withdrawn")
@dataclass(frozen=True)
class ReportDoubtWithdrawn(Event):
    """``player`` withdraws eir claim of error ``doubt``."""

    doubt: int
    player: str


@kind("report.ratified")
@dataclass(frozen=True)
class ReportRatified(Event):
    """The Dealer's Report for ``nweek`` stood undoubted for ``days`` days after it was
    posted (or its last doubt closed): what it says is so."""

    nweek: int
    days: int


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


# --- the nomic's decisions: proposals, ballots, resolutions (core/rules/decisions.py) -----


@dataclass(frozen=True)
class StrengthGiven:
    """A Player's voting strength on one decision, given when it was opened."""

    player: str
    strength: int


@dataclass(frozen=True)
class StrengthUsed:
    """A strength other than the decision's default that its resolution counted, and why."""

    player: str
    strength: int
    why: str


@dataclass(frozen=True)
class CarriedChange:
    """A change of the ledger's rules a decision carries, recorded when it is adopted, as the
    command writes it (``rules amend``, ``rules repeal``, ``rules enact``, ``game enact``,
    ``game amend``, ``game repeal``): ``sets`` its ``KEY=VALUE`` parameters."""

    action: str
    rule: str
    sets: tuple[str, ...] = ()
    version: int | None = None
    packs: str = ""


@kind("decision.opened")
@dataclass(frozen=True)
class DecisionOpened(Event):
    """A decision of the nomic put to a vote until ``closes`` (``YYYY-MM-DDTHH:MM:SSZ``): the
    proposal ``id``, its adoption index, quorum and voting strengths, and the rule changes it
    carries (recorded at its resolution when it is adopted)."""

    id: str
    title: str
    author: str
    coauthors: tuple[str, ...]
    klass: str = field(metadata=json_name("class"))
    ai: str = "1.0"
    quorum: int = 1
    closes: str = ""
    strength_default: int = 1
    strengths: tuple[StrengthGiven, ...] = ()
    text: str = field(default="", metadata={"omit_default": True})
    source: str = field(default="", metadata={"omit_default": True})
    changes: tuple[CarriedChange, ...] = field(default=(), metadata={"omit_default": True})


@kind("ballot.cast")
@dataclass(frozen=True)
class BallotCast(Event):
    """``player``'s ballot on decision ``decision``, cast at ``at``: an option, or an
    endorsement of another Player (``option`` None); it replaces eir earlier one. ``as_cast``
    the words as the Player wrote them, ``source`` where (a message, an archive's address),
    ``comment`` the officer's note published with the resolution. A ballot is a vote too (Cards
    for Votes); ``owed`` as ``votes.recorded``'s."""

    decision: str
    player: str
    at: datetime
    option: str | None
    endorse: str | None = field(default=None, metadata={"omit_default": True})
    as_cast: str = field(default="", metadata={"omit_default": True})
    source: str = field(default="", metadata={"omit_default": True})
    comment: str = field(default="", metadata={"omit_default": True})
    owed: tuple[LateOwed, ...] = field(default=(), metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.player


@kind("decision.resolved")
@dataclass(frozen=True)
class DecisionResolved(Event):
    """Decision ``decision`` resolved at its close: who counted as each option, the strengths
    FOR and AGAINST, the ballots, the popularity and the outcome (the replay recomputes each
    from the ballots and the strengths), and every strength other than the default, with
    why."""

    decision: str
    outcome: str
    quorum: int
    for_: tuple[str, ...] = field(metadata=json_name("for"))
    against: tuple[str, ...] = ()
    present: tuple[str, ...] = ()
    f: int = 0
    a: int = 0
    ballots: int = 0
    popularity: str = "0.000"
    default: int = 1
    strengths: tuple[StrengthUsed, ...] = ()


@kind("decision.reminded")
@dataclass(frozen=True)
class DecisionReminded(Event):
    """A day before decision ``decision`` closes, each active player who had cast no ballot
    on it (``players``) was told, by a notice."""

    decision: str
    players: tuple[str, ...]


@kind("strength.set")
@dataclass(frozen=True)
class StrengthSet(Event):
    """``player``'s voting strength from now on (None: the default again), and why: what the
    resolution of every decision closing later counts, unless the decision gave em another."""

    player: str
    strength: int | None
    reason: str

    def subject(self) -> str | None:
        return self.player


# --- Points: an account per Player and the Bank (the accounts in .points, the step in .replay) ---

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
