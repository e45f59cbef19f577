"""Event records and the kinds of event the ledger knows.

An event is immutable: sequence number, time, actor, kind, subject (the player it concerns,
for filtering), a JSON payload and the hash of the previous event. See :mod:`.chain` for the
canonical encoding that is hashed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

GENESIS_HASH = "0" * 64

# Event kinds. The payload of each is documented in docs/ledger.md.
GAME_CREATED = "game.created"
PLAYER_REGISTERED = "player.registered"
PLAYER_RETIRED = "player.retired"
PLAYER_EMAIL_SET = "player.email_set"
DEALER_ELECTED = "dealer.elected"
PACK_ADDED = "pack.added"
DICE_COMMITTED = "dice.committed"
DICE_REVEALED = "dice.revealed"
CARD_DEALT = "card.dealt"
DEAL_REFUSED = "deal.refused"
CARD_TRANSFERRED = "card.transferred"
NOTICE_SENT = "notice.sent"
CLOCK_STOPPED = "clock.stopped"
CLOCK_STARTED = "clock.started"
VOTES_RECORDED = "votes.recorded"
NWEEK_STARTED = "nweek.started"
REPORT_PUBLISHED = "report.published"

KINDS = frozenset({
    GAME_CREATED, PLAYER_REGISTERED, PLAYER_RETIRED, PLAYER_EMAIL_SET, DEALER_ELECTED,
    PACK_ADDED, DICE_COMMITTED, DICE_REVEALED, CARD_DEALT, DEAL_REFUSED, CARD_TRANSFERRED,
    NOTICE_SENT, CLOCK_STOPPED, CLOCK_STARTED, VOTES_RECORDED, NWEEK_STARTED, REPORT_PUBLISHED,
})


def utc(at: datetime) -> datetime:
    """``at`` as an aware UTC datetime (naive values are taken to be UTC already)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def parse_time(text: str) -> datetime:
    """An ISO date or date-time (``Z`` allowed; naive means UTC) as an aware UTC datetime.
    Raises ValueError on anything else."""
    return utc(datetime.fromisoformat(text.strip().replace("Z", "+00:00")))


@dataclass(frozen=True)
class NewEvent:
    """An event a rule produced, before the ledger gives it a number, time and hash."""

    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    subject: str | None = None


@dataclass(frozen=True)
class EventRecord:
    """An event as stored in the ledger."""

    seq: int
    at: datetime
    actor: str
    kind: str
    subject: str | None
    payload: dict[str, Any]
    prev_hash: str
    hash: str
