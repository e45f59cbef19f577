"""Appending to the ledger: the chain is built here, not in the store.

:func:`seal` turns an event into the record that extends a state's chain -- the next sequence
number, the time (never before the ledger's last event), the public payload and the private
fields split apart, the salted commitment to the private fields and the chain hash -- and
:func:`append` applies the sealed record to the state (the fold of :mod:`.replay`) and moves the
state's head, returning the changes the store's projector writes. Both are pure, but for the
nonce (drawn from the operating system unless one is given), so the whole sequence is tested
without a database; the store only inserts the rows a :class:`Sealed` carries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core.ledger.chain import canonical_json, commitment, event_hash, new_nonce
from nomic_cards.core.ledger.codec import split
from nomic_cards.core.ledger.events import Event, EventRecord, Opening, utc
from nomic_cards.core.ledger.replay import apply_event
from nomic_cards.core.ledger.state import Change, State
from nomic_cards.errors import RuleViolation


@dataclass(frozen=True)
class Sealed:
    """An event sealed onto a chain: its record, the stored text of its public payload, and its
    private part (the opening of ``commitment``; None when the kind has no private fields)."""

    record: EventRecord
    text: str
    commitment: str | None
    opening: Opening | None


def too_early(state: State, at: datetime, last: datetime) -> str:
    """Why an event dated ``at`` cannot follow the ledger's last event, dated ``last``."""
    return (f"the time {at.isoformat()} is before the last event in the ledger (event "
            f"{state.seq}, {last.isoformat()}): events are recorded in time order")


def seal(state: State, event: Event, *, at: datetime, actor: str, last_at: datetime | None,
         subject: str | None = None, nonce: Callable[[], str] = new_nonce) -> Sealed:
    """The record that ``event``, done by ``actor`` at ``at``, adds after ``state``'s head
    (``last_at``: the time of the ledger's last event; ``subject`` overrides the event's own).
    Raises :class:`RuleViolation` when ``at`` is before ``last_at``."""
    when = utc(at)
    if last_at is not None and when < last_at:
        raise RuleViolation(too_early(state, when, last_at))
    seq = state.seq + 1
    about = subject if subject is not None else event.subject()
    public, private = split(event)
    text = canonical_json(public)
    opening = Opening(nonce(), canonical_json(private)) if private else None
    commit = commitment(opening.nonce, opening.data) if opening else None
    digest = event_hash(seq=seq, at=when, actor=actor, kind=event.KIND, subject=about,
                        prev_hash=state.head_hash, private=commit, payload=text)
    record = EventRecord(seq, when, actor, about, event, public, private, state.head_hash,
                         digest)
    return Sealed(record, text, commit, opening)


def append(state: State, sealed: Sealed) -> list[Change]:
    """Apply a sealed record to ``state`` and move its head there; the changes made, for the
    projector (empty unless the state tracks them)."""
    rec = sealed.record
    if rec.seq != state.seq + 1 or rec.prev_hash != state.head_hash:
        raise ValueError(f"event {rec.seq} was sealed after another head than this state's")
    apply_event(state, rec.seq, rec.event, rec.at)
    state.head_hash = rec.hash
    return state.take_changes()
