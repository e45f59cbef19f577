"""The ledger as a live stream: each event's public part, and the player's own private part
(the notice the event recorded for them), the same projection the API's other channels make
(``/api/v1/me/notices`` for the notices, the public record for the rest). Narrow queries on the
server's read connections: the events' public columns and the player's own notices, never
``event_private``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nomic_cards.core.ledger.chain import format_time
from nomic_cards.core.ledger.state import State
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.summaries import public_sentence
from nomic_cards.core.services.tokens import accepted
from nomic_cards.core.store.reads import PublicRow, Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError
from nomic_cards.inputs import MAX_SAFE_INT

__all__ = [
    "LiveEvent",
    "Viewer",
    "events_after",
    "events_with_notices",
    "head_seq",
    "public_log",
    "recorded_events",
    "viewer_for_token",
    "watch_ledger",
]

#: events read at once for a stream (a stream far behind catches up in batches)
BATCH = 200


@dataclass(frozen=True)
class LiveEvent:
    """One event as a stream carries it: public fields, and ``notice`` -- the text of the
    private notice this event recorded for the stream's player (None on the public stream and
    for everyone else)."""

    event: int
    at: str
    actor: str
    kind: str
    subject: str | None
    payload: dict[str, Any]
    notice: str | None = None
    #: what happened, in one line: the same sentence as ``nomic-cards log`` gives without
    #: ``--reveal`` (:func:`~nomic_cards.core.services.summaries.public_sentence`)
    text: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON carries them (the payload itself, not a copy)."""
        return {"event": self.event, "at": self.at, "actor": self.actor, "kind": self.kind,
                "subject": self.subject, "payload": self.payload, "notice": self.notice,
                "text": self.text}


@dataclass(frozen=True)
class Viewer:
    """Who a private stream or an action is for: the token's player, and its scope."""

    player: str
    player_id: int
    scope: str | None


def viewer_for_token(tx: Reads, token: str) -> Viewer | None:
    """The player (and scope) whose valid token this is, or None (the same check, and the
    same work, as every other private resource)."""
    row = accepted(tx, token)
    return None if row is None else Viewer(row.player, row.player_id, row.scope)


def head_seq(tx: Reads) -> int:
    return tx.head()[0]


def events_after(tx: Reads, after: int, viewer: Viewer | None = None,
                 limit: int = BATCH) -> list[LiveEvent]:
    """Up to ``limit`` events after event ``after``, each with the viewer's own notice."""
    rows = tx.events_after(after, limit)
    if not rows:
        return []
    own = tx.notices_in(viewer.player_id, after, rows[-1].seq) if viewer is not None else {}
    names = tx.naming()
    return [_live(row, names, own.get(row.seq)) for row in rows]


#: the most events one page of the public log holds
LOG_PAGE = 200


def public_log(tx: Reads, *, before: int | None = None, limit: int = 50) -> list[LiveEvent]:
    """The public log, newest first: up to ``limit`` events (1 to :data:`LOG_PAGE`) before
    event ``before`` (None: the newest), each as the streams carry it (no notice)."""
    if not 1 <= limit <= LOG_PAGE:
        raise InputError(f"limit must be from 1 to {LOG_PAGE}, not {limit}")
    rows = tx.events_before(before if before is not None else MAX_SAFE_INT, limit)
    if not rows:
        return []
    names = tx.naming()
    return [_live(row, names) for row in rows]


def _live(row: PublicRow, names: State, notice: str | None = None) -> LiveEvent:
    """An event as a stream carries it, its sentence naming cards by ``names``'s packs."""
    payload = json.loads(row.payload)
    text = public_sentence(row.seq, row.at, row.actor, row.kind, row.subject, payload, names)
    return LiveEvent(row.seq, format_time(row.at), row.actor, row.kind, row.subject, payload,
                     notice, text)


def recorded_events(tx: Tx, viewer: Viewer | None) -> list[LiveEvent]:
    """The events a writing transaction has recorded so far, as :func:`events_after` reads
    them once committed (the public columns, and the viewer's own notice), made from the rows the
    transaction wrote: no query, nothing added to the time it holds the ledger lock."""
    out = []
    for rec in tx.recorded:
        text, notice = tx.written[rec.seq]
        own = notice[1] if viewer is not None and notice is not None \
            and notice[0] == viewer.player else None
        row = PublicRow(rec.seq, rec.at, rec.actor, rec.kind, rec.subject, text)
        out.append(_live(row, tx.state, own))
    return out


def watch_ledger(nomic: Nomic, on_event: Callable[[int], None], stop: threading.Event, *,
                 poll: float = 0.1) -> None:
    """Call ``on_event(seq)`` as new events are committed, by any process (PostgreSQL
    ``LISTEN``; on SQLite the ledger head watched every ``poll`` seconds), until ``stop`` is
    set; runs in the calling thread (:mod:`nomic_cards.core.store.notify`)."""
    from nomic_cards.core.store.notify import watch

    watch(nomic.db, on_event, stop, poll=poll)


def events_with_notices(tx: Reads, after: int, limit: int = BATCH
                        ) -> list[tuple[LiveEvent, dict[int, str]]]:
    """Up to ``limit`` events after ``after``, each with the notices it recorded by player id
    (for a process serving many streams: one read for all of them; each stream takes its own
    player's notice alone)."""
    rows = tx.events_after(after, limit)
    if not rows:
        return []
    notices = tx.all_notices_in(after, rows[-1].seq)
    names = tx.naming()
    return [(_live(row, names), notices.get(row.seq, {})) for row in rows]
