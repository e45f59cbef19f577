"""The game state that the ledger's events fold into.

The same :class:`State` is produced two ways: by replaying every event from scratch
(:func:`nomic_cards.ledger.replay.replay`) and by reading the projection tables (the store's
loader). ``verify`` compares the two. History (deals, rolls, notices) is only kept when
``history`` is set, so that everyday units of work load just the live part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from nomic_cards.cards import CARDS_PER_PACK
from nomic_cards.ledger.events import GENESIS_HASH


@dataclass
class PackState:
    number: int
    name: str
    back: str
    added_seq: int


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


@dataclass(frozen=True)
class ReportRecord:
    nweek: int
    seq: int
    text: str
    markdown: str
    json: str


@dataclass
class NoticeRecord:
    seq: int
    player: str
    text: str
    sent_seq: int | None = None


@dataclass
class State:
    history: bool = False
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

    @property
    def initialised(self) -> bool:
        return bool(self.packs)

    @property
    def dealer(self) -> str | None:
        if self.dealer_terms and self.dealer_terms[-1].end_seq is None:
            return self.dealer_terms[-1].player
        return None

    @property
    def sides(self) -> int:
        """Sides of the dealing die: 52 x (number of packs)."""
        return CARDS_PER_PACK * len(self.packs)

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
