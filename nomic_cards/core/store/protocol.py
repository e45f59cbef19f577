"""What a read-only unit of work offers: :class:`ReadUnit`, satisfied both by the SQLAlchemy
:class:`~nomic_cards.core.store.uow.UnitOfWork` and by the plain DB-API
:class:`~nomic_cards.core.store.plain.PlainReadUnit`. The use cases that only read are written
against it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from nomic_cards.core.clock import Clock
    from nomic_cards.core.ledger.events import EventRecord, StoredEvent
    from nomic_cards.core.ledger.state import ReportRecord, State


@dataclass(frozen=True)
class NweekDeal:
    """A card dealt in an nweek: the deal's event, who got it, the card, and the dice that
    dealt it (the source, and the period of committed-seed dice)."""

    seq: int
    player: str
    card: int
    source: str
    period: int | None


class ReadUnit(Protocol):
    """The reads of one snapshot of the game."""

    actor: str
    clock: Clock

    @property
    def state(self) -> State:
        """The live state (no history)."""

    def full_state(self) -> State:
        """The projections including history (deals, rolls, notices, votes, reports)."""

    def stored_events(self, *, private: bool = True) -> Iterator[StoredEvent]:
        """Every event row as stored, with its private part unless ``private`` is false."""

    def events(self) -> Iterator[EventRecord]:
        """Every event, decoded."""

    def recent_events(self, *, subject: str | None = None, limit: int = 20,
                      kinds: tuple[str, ...] = ()) -> list[EventRecord]:
        """The newest ``limit`` events (of ``subject``, of ``kinds``), oldest first."""

    def events_from(self, start: datetime, end: datetime | None,
                    kinds: tuple[str, ...]) -> list[EventRecord]:
        """The events of ``kinds`` dated in [start, end) (no end: from ``start`` on), in
        ledger order, with their private parts."""

    def event_at(self, seq: int) -> EventRecord | None:
        """Event ``seq``, if there is one."""

    def event_time(self, seq: int) -> datetime | None:
        """When event ``seq`` was recorded, if there is one (the public record only)."""

    def event_hashes(self, seqs: Sequence[int]) -> dict[int, str]:
        """The chain hash of each of the given events."""

    def notice_sent(self, seq: int) -> bool:
        """Whether the notice recorded by event ``seq`` is recorded as sent."""

    def card_rows(self) -> list[tuple[int, int, int, int]]:
        """(number, pack, suit, rank) of every card, by number."""

    def voters_between(self, start: datetime, end: datetime) -> list[str]:
        """Names of the players with at least one vote at a time in [start, end), sorted."""

    def existing_votes(self, start: datetime, end: datetime) -> set[tuple[str, str, datetime]]:
        """(player, proposal, time) of the votes recorded in [start, end]."""

    def deals_in_nweek(self, nweek: int) -> list[NweekDeal]:
        """The cards dealt in ``nweek``, in event order."""

    def report(self, nweek: int) -> ReportRecord | None:
        """The report published for ``nweek``."""

    def latest_report(self) -> int | None:
        """The newest nweek with a published report."""

    def secret(self, period: int) -> str | None:
        """The secret seed of a committed-seed dice period, while it is kept."""
