"""Read the event rows back as :class:`~nomic_cards.core.ledger.events.StoredEvent` (for
``verify`` and the log). The projection tables are read back into a state by
:func:`.plain.load_state`, one loader for both units of work.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import String, cast, select
from sqlalchemy import null as sql_null
from sqlalchemy.orm import Session

from nomic_cards.core.ledger.events import Opening, StoredEvent, utc
from nomic_cards.core.store import models as m
from nomic_cards.core.store.plain import stored_time


def to_stored(row: m.Event, private: m.EventPrivate | None = None) -> StoredEvent:
    opening = None if private is None else Opening(private.nonce, private.data)
    return StoredEvent(row.seq, utc(row.at), row.actor, row.kind, row.subject, row.payload,
                       row.private, row.prev_hash, row.hash, opening)


def iter_events(session: Session, *, batch: int = 2000,
                private: bool = True) -> Iterator[StoredEvent]:
    """Every event row in sequence order, as stored, streamed in batches; with ``private``,
    each with its private part. Reads plain values, so that a row edited by hand into
    something the model would refuse (a time that is not one) still comes out, for ``verify``
    to report."""
    e, p = m.Event, m.EventPrivate
    raw_at = e.at if session.get_bind().dialect.name != "sqlite" else cast(e.at, String)
    cols = [e.seq, raw_at, e.actor, e.kind, e.subject, e.payload, e.private, e.prev_hash,
            e.hash]
    last = 0
    while True:
        q = select(*cols, p.nonce, p.data).outerjoin(p, p.seq == e.seq) if private else \
            select(*cols, sql_null(), sql_null())
        rows = session.execute(q.where(e.seq > last).order_by(e.seq).limit(batch)).all()
        if not rows:
            return
        for row in rows:
            values: tuple[Any, ...] = tuple(row)
            seq, at, actor, kind, subject, payload, commit, prev, digest, nonce, data = values
            opening = Opening(nonce, data) if nonce is not None and data is not None else None
            yield StoredEvent(seq, stored_time(at), actor, kind, subject, payload, commit, prev,
                              digest, opening)
            last = seq
