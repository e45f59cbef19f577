"""The game state that the ledger's events fold into, and the changes a fold makes.

The same :class:`State` is produced two ways: by replaying every event from scratch
(:func:`nomic_cards.core.ledger.replay.replay`) and by reading the projection tables (the
store's loader). ``verify`` compares the two. History (deals, rolls, notices, votes, reports)
is only kept when ``history`` is set, so that everyday transactions load just the live part.

The fold changes a state only through the methods of :class:`State`; with ``track`` set each
method also appends a :data:`Change` to ``changes``, which the store's projector writes to the
tables. A new event kind that uses these methods therefore needs no projection code.

While a card game's event is applied the state holds its :class:`Lane`: the methods then
refuse (:class:`LaneError`) a card of packs not bound to that game, a part of the live state
not its own, and every change only the core's events make (docs/games.md, "What a game may
change").
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from nomic_cards.cards import CARDS_PER_PACK, pack_numbers
from nomic_cards.core.calendar import Calendar
from nomic_cards.core.installed import spec as rule_spec
from nomic_cards.core.ledger.events import GENESIS_HASH
from nomic_cards.core.ruleset import ParamValue
from nomic_cards.core.settings import StoredSettings
from nomic_cards.errors import RuleViolation


@dataclass
class PackState:
    number: int
    name: str
    back: str
    added_seq: int
    #: the ``pack.retired`` event that took it out of play (None: in play)
    retired_seq: int | None = None

    def in_play_at(self, seq: int) -> bool:
        """Whether the pack was in play just after event ``seq``."""
        return self.added_seq <= seq and (self.retired_seq is None or self.retired_seq > seq)


@dataclass
class PlayerState:
    id: int
    name: str
    email: str | None
    active: bool
    joined_seq: int
    retired_seq: int | None = None


@dataclass
class DealerTermState:
    player: str
    start_seq: int
    end_seq: int | None = None


@dataclass
class PeriodState:
    id: int
    commitment: str
    opened_seq: int
    revealed_seed: str | None = None
    revealed_seq: int | None = None
    rolls_used: int = 0


@dataclass(frozen=True)
class RollRecord:
    position: int
    value: int
    sides: int
    source: str
    period: int | None
    index: int | None


@dataclass(frozen=True)
class DealRecord:
    seq: int
    player: str
    card: int | None
    reason: str
    refused: str | None
    rolls: tuple[RollRecord, ...]
    nweek: int | None = None


@dataclass
class ClockStop:
    stopped_at: datetime
    stop_seq: int
    started_at: datetime | None = None
    start_seq: int | None = None


@dataclass(frozen=True)
class VoteRecord:
    seq: int
    player: str
    proposal: str
    at: datetime


@dataclass
class BallotState:
    """A ballot as recorded (``seq``: its ``ballot.cast``), and the later one that replaced it
    (``replaced_seq``; None while it stands)."""

    seq: int
    decision: str
    player: str
    at: datetime
    option: str | None
    endorse: str | None
    as_cast: str
    source: str
    comment: str
    replaced_seq: int | None = None


@dataclass
class DecisionState:
    """A decision of the nomic: when it opened (event and time) and closes, what its opening
    set (``params``, JSON-ready: title, author, coauthors, class, ai, quorum,
    strength_default, strengths by player, changes, source), its resolution, and the ballots
    standing, by player (those of an open decision in the live state; of every decision with
    ``history``)."""

    id: str
    opened_seq: int
    opened_at: datetime
    closes: datetime
    params: dict[str, Any]
    resolved_seq: int | None = None
    outcome: str | None = None
    #: the ``decision.reminded`` event, once the players who had not voted were told
    reminded_seq: int | None = None
    ballots: dict[str, BallotState] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class StrengthState:
    """A Player's voting strength set by ``strength set`` (event ``seq``), and why."""

    strength: int
    reason: str
    seq: int


@dataclass(frozen=True)
class ReportRecord:
    nweek: int
    seq: int
    text: str
    markdown: str
    json: str

    def body(self, fmt: str) -> str:
        """The report in one of its published forms (text, markdown or json)."""
        return {"text": self.text, "markdown": self.markdown, "json": self.json}[fmt]


@dataclass
class NoticeRecord:
    seq: int
    player: str
    text: str
    sent_seq: int | None = None
    failed_seq: int | None = None  # the latest notice.failed event for it
    failed_to: str | None = None  # the address that event says was refused


@dataclass(frozen=True)
class RuleChange:
    """A change to the rules in force: a rule enacted, amended or repealed by event ``seq`` at
    ``at``, citing ``proposal`` (``init`` for the rules the game was created with). ``params``
    are all of the rule's parameters after the change (a repealed rule keeps its last ones);
    ``from_nweek`` is the first nweek a new nweek length applies to (calendar rule only)."""

    seq: int
    at: datetime
    rule: str
    action: str
    in_force: bool
    version: int
    params: Mapping[str, ParamValue]
    proposal: str
    from_nweek: int | None = None


# --- changes, for the projector -------------------------------------------------------------


@dataclass(frozen=True)
class SettingsSet:
    settings: Mapping[str, str]


@dataclass(frozen=True)
class PackPut:
    pack: PackState
    cards: tuple[int, ...]


@dataclass(frozen=True)
class PackRetiredChange:
    pack: PackState
    cards: tuple[int, ...]


@dataclass(frozen=True)
class PlayerPut:
    player: PlayerState
    new: bool


@dataclass(frozen=True)
class EmailPut:
    """A player's address alone (what an address confirmed through the server writes: the
    server's account may change the address, never read it)."""

    player_id: int
    email: str | None


@dataclass(frozen=True)
class DealerTermPut:
    number: int  # 1-based
    term: DealerTermState
    new: bool


@dataclass(frozen=True)
class CardsMoved:
    cards: tuple[int, ...]
    owner: str | None
    seq: int


@dataclass(frozen=True)
class PeriodPut:
    period: PeriodState
    new: bool


@dataclass(frozen=True)
class DealAdded:
    deal: DealRecord


@dataclass(frozen=True)
class NoticeAdded:
    notice: NoticeRecord


@dataclass(frozen=True)
class NoticeMarkedSent:
    notice: int
    sent_seq: int


@dataclass(frozen=True)
class NoticeMarkedFailed:
    notice: int
    failed_seq: int
    failed_to: str


@dataclass(frozen=True)
class ClockStopPut:
    number: int  # 1-based
    stop: ClockStop
    new: bool


@dataclass(frozen=True)
class VotesAdded:
    votes: tuple[VoteRecord, ...]


@dataclass(frozen=True)
class NweekMarked:
    nweek: int
    seq: int


@dataclass(frozen=True)
class ReportAdded:
    report: ReportRecord


@dataclass(frozen=True)
class RuleChangeAdded:
    change: RuleChange


@dataclass(frozen=True)
class DecisionPut:
    decision: DecisionState
    new: bool


@dataclass(frozen=True)
class BallotAdded:
    ballot: BallotState
    #: the ballot it replaced (its ``seq``), if any
    replaced: int | None


@dataclass(frozen=True)
class StrengthPut:
    player: str
    strength: StrengthState | None


@dataclass(frozen=True)
class GameDataPut:
    """The whole live state of one part of the card games layer (``points``, a game's...):
    JSON-ready data, stored as one row (``data`` None: the part is gone, its row deleted)."""

    name: str
    data: Any
    seq: int


Change = (SettingsSet | PackPut | PackRetiredChange | PlayerPut | EmailPut | DealerTermPut
          | CardsMoved
          | PeriodPut | DealAdded | NoticeAdded | NoticeMarkedSent | NoticeMarkedFailed
          | ClockStopPut | VotesAdded | NweekMarked | ReportAdded | RuleChangeAdded | GameDataPut
          | DecisionPut | BallotAdded | StrengthPut)


#: the part of the games layer's live state holding the Points accounts (:mod:`.points`)
POINTS = "points"


class ReplayError(Exception):
    """An event that cannot be applied to the state it follows."""


class LaneError(ReplayError, RuleViolation):
    """A card game's event changing what is not its own: a card of packs not bound to it, a
    part of the live state not its own, Points other than through ``pay`` as that game, or
    what only the core's events change. Refused when recorded (in one line), and named by
    ``ledger verify`` in a ledger that holds it."""


@dataclass
class Lane:
    """What the event of card game ``game`` being applied may change: the cards of
    ``packs`` (those its rule in force binds as the event begins, Rule 399), its own parts
    of the live state (``game``, ``game/...``), and Points through ``pay`` alone (``paid``:
    each payment made, ``accounts``: the accounts as the last one left them). What the
    methods did is kept (``moved``, ``paid``) for the check made once the step returns."""

    game: str
    packs: frozenset[int]
    #: each card moved by State.move, to whom (None: the Deck)
    moved: dict[int, str | None] = field(default_factory=dict)
    paid: list[tuple[str | None, str | None, int]] = field(default_factory=list)
    accounts: Any = None
    paying: bool = False

    def foreign(self, state: State, cards: Iterable[int]) -> str | None:
        """Why moving ``cards`` is not this game's to do (None: each is of its packs)."""
        for card in cards:
            pack = (card - 1) // CARDS_PER_PACK
            if pack in self.packs:
                continue
            name = state.packs[pack].name if 0 <= pack < len(state.packs) else f"{pack}"
            other = state.games().get(pack)
            whose = f"which card game {other}'s rule binds" if other else \
                "which no card game in force binds"
            bound = ", ".join(state.packs[p].name for p in sorted(self.packs)) or \
                "none: it is not in force"
            return (f"card game {self.game}'s event moved a card of pack {name}, {whose}, not "
                    f"one of the packs bound to it ({bound})")
        return None


#: what each change only the core's events make is a change of, as a refusal says it
_CORE_CHANGES: Mapping[type, str] = MappingProxyType({
    SettingsSet: "the game's settings", PackPut: "the packs", PackRetiredChange: "the packs",
    PlayerPut: "the players", EmailPut: "the players", DealerTermPut: "the Dealer",
    PeriodPut: "the dice",
    DealAdded: "the deals", NoticeAdded: "the notices", NoticeMarkedSent: "the notices",
    NoticeMarkedFailed: "the notices", ClockStopPut: "the Clock", VotesAdded: "the votes",
    NweekMarked: "the nweeks", ReportAdded: "the Reports", RuleChangeAdded: "the rules"})


@dataclass
class State:
    history: bool = False
    track: bool = False
    seq: int = 0
    head_hash: str = GENESIS_HASH
    settings: dict[str, str] = field(default_factory=dict)
    packs: list[PackState] = field(default_factory=list)
    players: dict[str, PlayerState] = field(default_factory=dict)
    dealer_terms: list[DealerTermState] = field(default_factory=list)
    owner: dict[int, str | None] = field(default_factory=dict)
    owner_seq: dict[int, int] = field(default_factory=dict)
    deck: set[int] = field(default_factory=set)
    periods: dict[int, PeriodState] = field(default_factory=dict)
    deals: list[DealRecord] = field(default_factory=list)
    notices: dict[int, NoticeRecord] = field(default_factory=dict)
    clock_stops: list[ClockStop] = field(default_factory=list)
    nweeks: dict[int, int] = field(default_factory=dict)  # nweek -> event that started it
    votes: list[VoteRecord] = field(default_factory=list)
    reports: dict[int, ReportRecord] = field(default_factory=dict)
    #: with ``history``: every (event, card, holder) that put a card somewhere (None: the Deck)
    moves: set[tuple[int, int, str | None]] = field(default_factory=set)
    #: every change to the rules, in ledger order (kept in the live state too: there are few)
    rule_changes: list[RuleChange] = field(default_factory=list)
    #: the newest change of each rule: the rules in force now (and those repealed)
    rules: dict[str, RuleChange] = field(default_factory=dict)
    #: Cards for Votes owed and not dealt yet: (player, nweek voted in) -> cards still owed,
    #: from the ``nweek.started`` events and the late votes owed by ``votes.recorded``
    #: (docs/rules.md, "Owed later")
    owed: dict[tuple[str, int], int] = field(default_factory=dict)
    #: the card games layer's live state (points accounts, each game's own data): name ->
    #: JSON-ready data (string keys), changed only by :meth:`put_game`
    games_data: dict[str, Any] = field(default_factory=dict)
    #: every decision of the nomic, by id (:class:`DecisionState`)
    decisions: dict[str, DecisionState] = field(default_factory=dict)
    #: with ``history``: every ballot ever cast, in ledger order
    ballots: list[BallotState] = field(default_factory=list)
    #: the voting strengths ``strength set`` gave, by player
    strengths: dict[str, StrengthState] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    #: the card game whose event is being applied, and what it may change (None: the core's)
    lane: Lane | None = field(default=None, compare=False, repr=False)

    # --- queries ---------------------------------------------------------------------------

    @property
    def initialised(self) -> bool:
        return bool(self.packs)

    @property
    def dealer(self) -> str | None:
        if self.dealer_terms and self.dealer_terms[-1].end_seq is None:
            return self.dealer_terms[-1].player
        return None

    def in_play(self, seq: int | None = None) -> list[PackState]:
        """The packs in play (just after event ``seq``; default: now), in pack order."""
        if seq is None:
            return [p for p in self.packs if p.retired_seq is None]
        return [p for p in self.packs if p.in_play_at(seq)]

    @property
    def sides(self) -> int:
        """Sides of the dealing die: 52 x (number of packs in play)."""
        if all(p.retired_seq is None for p in self.packs):
            return CARDS_PER_PACK * len(self.packs)
        return CARDS_PER_PACK * len(self.in_play())

    def card_of_face(self, face: int, seq: int | None = None) -> int:
        """The card a face of the dealing die names (just after event ``seq``; default: now):
        faces run over the packs in play in pack order, 52 to a pack, so while no pack is
        retired face N is card N (docs/dice.md, "Retired packs"). 0 for a face off the die."""
        packs = self.packs if all(p.retired_seq is None for p in self.packs) \
            else self.in_play(seq)
        slot, offset = divmod(face - 1, CARDS_PER_PACK)
        if face < 1 or slot >= len(packs):
            return 0
        return packs[slot].number * CARDS_PER_PACK + offset + 1

    def retired_pack_of(self, card: int) -> PackState | None:
        """The retired pack a card belongs to, if it does."""
        n = (card - 1) // CARDS_PER_PACK
        if card >= 1 and n < len(self.packs) and self.packs[n].retired_seq is not None:
            return self.packs[n]
        return None

    def hand(self, player: str) -> list[int]:
        return sorted(c for c, o in self.owner.items() if o == player)

    def next_player_id(self) -> int:
        return max((p.id for p in self.players.values()), default=0) + 1

    @property
    def clock_running(self) -> bool:
        return not self.clock_stops or self.clock_stops[-1].started_at is not None

    @property
    def last_nweek(self) -> int:
        """The newest nweek whose start has been processed (0: none yet)."""
        return max(self.nweeks, default=0)

    def current_period(self) -> PeriodState | None:
        """The newest dice period not yet revealed, if any."""
        open_ = [p for p in self.periods.values() if p.revealed_seed is None]
        return max(open_, key=lambda p: p.id) if open_ else None

    def rule(self, name: str) -> RuleChange | None:
        """The newest change of rule ``name`` (None: never enacted)."""
        return self.rules.get(name)

    def games(self) -> dict[int, str]:
        """Pack number -> the card game in force that it belongs to (Rule 399)."""
        out: dict[int, str] = {}
        for name, change in self.rules.items():
            found = rule_spec(name)
            if change.in_force and found is not None and found.game:
                for n in str(change.params.get("packs", "")).split(","):
                    if n:
                        out[int(n)] = name
        return out

    def binding_problem(self, game: str, packs: str) -> str | None:
        """Why ``game`` cannot have ``packs`` (pack numbers "0,3"), or None."""
        if not packs:
            return f"card game {game} must be given at least one pack"
        bound = self.games()
        for n in (int(x) for x in packs.split(",")):
            if n >= len(self.packs):
                return (f"card game {game}: there is no pack {n} (the packs in play are "
                        f"numbered 0 to {len(self.packs) - 1})")
            if self.packs[n].retired_seq is not None:
                return f"card game {game}: pack {n} ({self.packs[n].name}) is retired"
            if bound.get(n, game) != game:
                return (f"card game {game}: pack {n} ({self.packs[n].name}) belongs to card "
                        f"game {bound[n]} (a pack belongs to at most one game)")
        return None

    def retire_problem(self, number: int) -> str | None:
        """Why pack ``number`` cannot be retired now, or None."""
        if not 0 <= number < len(self.packs):
            return (f"there is no pack {number} (the packs are numbered 0 to "
                    f"{len(self.packs) - 1})")
        pack = self.packs[number]
        if pack.retired_seq is not None:
            return f"pack {number} ({pack.name}) was already retired (event {pack.retired_seq})"
        if len(self.in_play()) == 1:
            return (f"pack {number} ({pack.name}) is the last pack in play: rule 5 needs a die "
                    "of at least 52 sides")
        game = self.games().get(number)
        if game is not None:
            return (f"pack {number} ({pack.name}) belongs to card game {game} in force: amend or "
                    "repeal the game first (`nomic-cards game amend|repeal`)")
        return None

    def in_force(self, name: str) -> bool:
        change = self.rules.get(name)
        return change is not None and change.in_force

    def rules_at(self, at: datetime) -> dict[str, RuleChange]:
        """The newest change of each rule made at or before ``at``."""
        out: dict[str, RuleChange] = {}
        for change in self.rule_changes:
            if change.at > at:
                break
            out[change.rule] = change
        return out

    def nweek_lengths(self) -> tuple[tuple[int, int], ...]:
        """(first nweek, days) of every change of the nweek's length, in ledger order."""
        return tuple((c.from_nweek, int(c.params["days"])) for c in self.rule_changes
                     if c.rule == "nweeks" and c.from_nweek is not None and "days" in c.params)

    def calendar(self) -> Calendar | None:
        """The game calendar: the epoch and first nweek length from the settings, the lengths
        the calendar rule set since, and the Clock's history (None: the game has no valid
        settings)."""
        stored = StoredSettings.parse(self.settings)
        if stored is None:
            return None
        stops = tuple((s.stopped_at, s.started_at) for s in self.clock_stops)
        return Calendar(stored.epoch, stored.nweek_days, stops, self.nweek_lengths())

    def game_data(self, name: str) -> Any:
        """A copy of one part of the games layer's live state (None: never written)."""
        return copy.deepcopy(self.games_data.get(name))

    def part(self, name: str, sections: tuple[str, ...]) -> dict[str, Any]:
        """A copy of the core's own part ``name`` of the live state, kept as a card game's is
        (the players' mail business, the claims of error), each of ``sections`` in it (empty
        when nothing was recorded there)."""
        data: dict[str, Any] = self.game_data(name) or {}
        for key in sections:
            data.setdefault(key, {})
        return data

    def put_part(self, name: str, data: dict[str, Any], seq: int) -> None:
        """Keep the core's own part ``name`` (:meth:`part`), its empty sections left out (none
        left: the part is gone)."""
        kept = {k: v for k, v in data.items() if v}
        self.put_game(name, kept or None, seq)

    def pcards(self, game: str) -> set[int]:
        """The cards of the packs bound to card game ``game`` in force."""
        packs = {p for p, name in self.games().items() if name == game}
        return {n for n in self.owner if (n - 1) // CARDS_PER_PACK in packs}

    def take_changes(self) -> list[Change]:
        out, self.changes = self.changes, []
        return out

    # --- the only ways the fold changes a state --------------------------------------------

    def _note(self, change: Change) -> None:
        if self.lane is not None and not isinstance(change, (CardsMoved, GameDataPut)):
            self._core_only(_CORE_CHANGES.get(type(change), type(change).__name__))
        if self.track:
            self.changes.append(change)

    def _core_only(self, what: str) -> None:
        if self.lane is not None:
            raise LaneError(f"card game {self.lane.game}'s event changed {what}, which only "
                            "the core's events do")

    def set_settings(self, settings: Mapping[str, str]) -> None:
        self.settings = dict(settings)
        self._note(SettingsSet(dict(settings)))

    def add_pack(self, name: str, back: str, seq: int) -> None:
        """A pack numbered next, every card of it in the Deck."""
        pack = PackState(len(self.packs), name, back, seq)
        self.packs.append(pack)
        cards = pack_numbers(pack.number)
        for card in cards:
            self.owner[card] = None
            self.owner_seq[card] = seq
            self.deck.add(card)
        if self.history:
            self.moves.update((seq, card, None) for card in cards)
        self._note(PackPut(pack, tuple(cards)))

    def retire_pack(self, number: int, seq: int) -> tuple[int, ...]:
        """Pack ``number`` leaves play: its cards leave the Deck and every Hand (they are no
        longer owned by anyone). Returns its cards."""
        pack = self.packs[number]
        pack.retired_seq = seq
        cards = tuple(pack_numbers(number))
        for card in cards:
            self.owner.pop(card, None)
            self.owner_seq.pop(card, None)
            self.deck.discard(card)
        self._note(PackRetiredChange(pack, cards))
        return cards

    def register(self, name: str, email: str | None, seq: int) -> None:
        if name in self.players:
            raise ReplayError(f"player {name!r} registered twice")
        player = PlayerState(self.next_player_id(), name, email, True, seq)
        self.players[name] = player
        self._note(PlayerPut(player, True))

    def player(self, name: str) -> PlayerState:
        try:
            return self.players[name]
        except KeyError:
            raise ReplayError(f"no player named {name!r}") from None

    def set_email(self, name: str, email: str | None) -> None:
        player = self.player(name)
        player.email = email
        self._note(EmailPut(player.id, email))

    def retire(self, name: str, seq: int) -> None:
        player = self.player(name)
        player.active = False
        player.retired_seq = seq
        self._note(PlayerPut(player, False))

    def rejoin(self, name: str) -> None:
        player = self.player(name)
        if player.active:
            raise ReplayError(f"player {name!r} rejoined without having retired")
        player.active = True
        player.retired_seq = None
        self._note(PlayerPut(player, False))

    def start_dealer_term(self, name: str, seq: int) -> None:
        if self.dealer_terms and self.dealer_terms[-1].end_seq is None:
            self.dealer_terms[-1].end_seq = seq
            self._note(DealerTermPut(len(self.dealer_terms), self.dealer_terms[-1], False))
        self.dealer_terms.append(DealerTermState(name, seq))
        self._note(DealerTermPut(len(self.dealer_terms), self.dealer_terms[-1], True))

    def move(self, cards: Iterable[int], to: str | None, seq: int) -> None:
        """Cards to a player's hand, or to the Deck (``to`` None)."""
        moved = tuple(cards)
        for card in moved:
            if card not in self.owner:
                raise ReplayError(f"card {card} does not exist")
            if to is not None and to not in self.players:
                raise ReplayError(f"card {card} moved to {to!r}, who is not a player")
        if self.lane is not None:
            foreign = self.lane.foreign(self, moved)
            if foreign is not None:
                raise LaneError(foreign)
            self.lane.moved.update((card, to) for card in moved)
        for card in moved:
            if self.owner[card] is None:
                self.deck.discard(card)
            self.owner[card] = to
            self.owner_seq[card] = seq
            if to is None:
                self.deck.add(card)
        if moved:
            if self.history:
                self.moves.update((seq, card, to) for card in moved)
            self._note(CardsMoved(moved, to, seq))

    def open_period(self, period: int, commitment: str, seq: int) -> None:
        if period in self.periods:
            raise ReplayError(f"dice period {period} opened twice")
        self.periods[period] = PeriodState(period, commitment, seq)
        self._note(PeriodPut(self.periods[period], True))

    def _period(self, period: int) -> PeriodState:
        try:
            return self.periods[period]
        except KeyError:
            raise ReplayError(f"no dice period {period}") from None

    def reveal_period(self, period: int, seed: str, seq: int) -> None:
        p = self._period(period)
        p.revealed_seed, p.revealed_seq = seed, seq
        self._note(PeriodPut(p, False))

    def use_rolls(self, period: int, upto: int) -> None:
        """Roll indices below ``upto`` of a period have been used."""
        p = self._period(period)
        if upto > p.rolls_used:
            p.rolls_used = upto
            self._note(PeriodPut(p, False))

    def add_deal(self, deal: DealRecord) -> None:
        if self.history:
            self.deals.append(deal)
        self._note(DealAdded(deal))

    def add_notice(self, notice: NoticeRecord) -> None:
        if self.history:
            self.notices[notice.seq] = notice
        self._note(NoticeAdded(notice))

    def mark_notice_sent(self, notice: int, seq: int) -> None:
        if self.history:
            if notice not in self.notices:
                raise ReplayError(f"no notice recorded by event {notice}")
            self.notices[notice].sent_seq = seq
        self._note(NoticeMarkedSent(notice, seq))

    def mark_notice_failed(self, notice: int, seq: int, address: str) -> None:
        if self.history:
            if notice not in self.notices:
                raise ReplayError(f"no notice recorded by event {notice}")
            record = self.notices[notice]
            record.failed_seq, record.failed_to = seq, address
        self._note(NoticeMarkedFailed(notice, seq, address))

    def stop_clock(self, at: datetime, seq: int) -> None:
        if not self.clock_running:
            raise ReplayError("the Clock was stopped while already Off")
        self.clock_stops.append(ClockStop(at, seq))
        self._note(ClockStopPut(len(self.clock_stops), self.clock_stops[-1], True))

    def start_clock(self, at: datetime, seq: int) -> None:
        if self.clock_running:
            raise ReplayError("the Clock was started while already On")
        stop = self.clock_stops[-1]
        stop.started_at, stop.start_seq = at, seq
        self._note(ClockStopPut(len(self.clock_stops), stop, False))

    def add_votes(self, votes: tuple[VoteRecord, ...]) -> None:
        if self.history:
            self.votes.extend(votes)
        if votes:
            self._note(VotesAdded(votes))

    def settle_owed(self, nweek: int, owed: Iterable[tuple[str, int]],
                    paid: Iterable[tuple[str, int, int]]) -> None:
        """At the start of ``nweek``: the debts ``paid`` (player, nweek voted in, cards) are
        dealt, and the voters ``owed`` (player, cards) of the nweek before are owed later."""
        self._core_only("the cards owed for votes")
        for player, voted, cards in paid:
            left = self.owed.get((player, voted), 0) - cards
            if left > 0:
                self.owed[(player, voted)] = left
            else:
                self.owed.pop((player, voted), None)
        for player, cards in owed:
            if cards:
                key = (player, nweek - 1)
                self.owed[key] = self.owed.get(key, 0) + cards

    def owe(self, player: str, nweek: int, cards: int) -> None:
        """A late vote's cards owed later: ``player`` voted in ``nweek`` (absent=owe)."""
        self._core_only("the cards owed for votes")
        if cards:
            self.owed[(player, nweek)] = self.owed.get((player, nweek), 0) + cards

    def mark_nweek(self, nweek: int, seq: int) -> None:
        if nweek in self.nweeks:
            raise ReplayError(f"nweek {nweek} started twice")
        self.nweeks[nweek] = seq
        self._note(NweekMarked(nweek, seq))

    def add_report(self, report: ReportRecord) -> None:
        if self.history:
            self.reports[report.nweek] = report
        self._note(ReportAdded(report))

    def put_game(self, name: str, data: Any, seq: int) -> None:
        """Replace one part of the games layer's live state (JSON-ready, string keys); None
        removes the part (a game keeping many small parts drops those left empty). A card
        game's event puts only its own parts (``game``, ``game/...``), and Points through
        ``pay``."""
        lane = self.lane
        if lane is not None and not lane.paying and name != lane.game and \
                not name.startswith(lane.game + "/"):
            raise LaneError(f"card game {lane.game}'s event changed Points other than by "
                            "paying them (the SDK's pay)" if name == POINTS else
                            f"card game {lane.game}'s event changed {name!r}, which is not its "
                            "own state")
        if data is None:
            if self.games_data.pop(name, None) is not None:
                self._note(GameDataPut(name, None, seq))
            return
        self.games_data[name] = copy.deepcopy(data)
        self._note(GameDataPut(name, copy.deepcopy(data), seq))

    def open_decision(self, decision: DecisionState) -> None:
        self.decisions[decision.id] = decision
        self._note(DecisionPut(decision, True))

    def add_ballot(self, ballot: BallotState) -> None:
        """``ballot`` stands for its player on its decision, replacing eir earlier one."""
        decision = self.decisions[ballot.decision]
        before = decision.ballots.get(ballot.player)
        if before is not None:
            before.replaced_seq = ballot.seq
        decision.ballots[ballot.player] = ballot
        if self.history:
            self.ballots.append(ballot)
        self._note(BallotAdded(ballot, before.seq if before is not None else None))

    def resolve_decision(self, id: str, seq: int, outcome: str) -> None:
        decision = self.decisions[id]
        decision.resolved_seq, decision.outcome = seq, outcome
        self._note(DecisionPut(decision, False))

    def remind_decision(self, id: str, seq: int) -> None:
        decision = self.decisions[id]
        decision.reminded_seq = seq
        self._note(DecisionPut(decision, False))

    def set_strength(self, player: str, strength: StrengthState | None) -> None:
        if strength is None:
            self.strengths.pop(player, None)
        else:
            self.strengths[player] = strength
        self._note(StrengthPut(player, strength))

    def change_rule(self, change: RuleChange) -> None:
        self.rule_changes.append(change)
        self.rules[change.rule] = change
        self._note(RuleChangeAdded(change))
