"""The writing transaction, :class:`Tx`: the ledger lock, the live state, and :meth:`Tx.record`,
which appends events and writes their projections.

A ``Tx`` is a :class:`~.reads.Reads` on the cursor of a writing transaction
(:meth:`.connect.Database.transaction`): it first takes the ledger lock (on PostgreSQL an
advisory lock of the transaction, ``sql.LEDGER_LOCK_POSTGRESQL``; on SQLite ``BEGIN IMMEDIATE``
took it), so appends from every process are serialised and the hash chain never forks. It loads
the live state from the projection tables when first asked, appends each event (sealed by the
ledger's pure :func:`~nomic_cards.core.ledger.append.seal`, folded by ``append``) and writes the
event row, its private part, the projections (:mod:`.project`) and the head. Whoever opened the
transaction commits it: a ``Tx`` never does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from nomic_cards.core.clock import Clock, FixedClock
from nomic_cards.core.ledger.append import append, seal, too_early
from nomic_cards.core.ledger.events import Event, EventRecord, utc
from nomic_cards.core.ledger.state import NoticeAdded
from nomic_cards.core.store import sql
from nomic_cards.core.store.project import project
from nomic_cards.core.store.reads import (
    KeyRow,
    Reads,
    TokenRow,
    key_row,
    live_reads,
    state_from,
    stored_time,
    token_row,
)
from nomic_cards.errors import RuleViolation

if TYPE_CHECKING:
    from nomic_cards.core.store.connect import Cursor

__all__ = ["Tx"]

_INSERT_EVENT = ("INSERT INTO events (seq, at, actor, kind, subject, payload, private, "
                 "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_PRIVATE = "INSERT INTO event_private (seq, nonce, data) VALUES (?, ?, ?)"
_MOVE_HEAD = "UPDATE ledger_head SET seq = ?, hash = ? WHERE ledger_head.id = 1"


def _token_and_key(rows: list[Any]) -> tuple[TokenRow | None, KeyRow | None]:
    """The rows of ``sql.TOKEN_AND_KEY``: the token and the key as kept (None: none)."""
    if not rows:  # no such token, or no ledger yet
        return None, None
    row = rows[0]
    return token_row(row), (key_row(row[6:]) if row[6] is not None else None)


class Tx(Reads):
    """A writing transaction (see the module docstring), as ``actor`` on ``clock``. Its
    ``recorded`` events and what each ``written`` (the public payload as stored, and the notice
    it recorded: player and text) let an adapter answer without reading them back;
    ``caught_up`` holds the nweek starts its opening did first (the command line says so),
    ``windows_closed`` a line for each card game's or decision's window its boundary work
    closed (a tick says them all)."""

    def __init__(self, cursor: Cursor, *, postgres: bool, actor: str, clock: Clock,
                 emails: bool = True) -> None:
        super().__init__(cursor, postgres=postgres, actor=actor, clock=clock, emails=emails)
        self._last_at: datetime | None = None
        self.recorded: list[EventRecord] = []
        self.written: dict[int, tuple[str, tuple[str, str] | None]] = {}
        self.caught_up: list[Any] = []
        self.windows_closed: list[str] = []
        self._savepoints = 0
        self._token: tuple[tuple[str, str | None], tuple[TokenRow | None, KeyRow | None]] \
            | None = None

    #: the state records what changes, for the projector to write
    _tracks = True

    def lock_head(self, token: tuple[str, str | None] | None = None) -> None:
        """Take the ledger lock (PostgreSQL; SQLite's came with ``BEGIN IMMEDIATE``) and load,
        under it, the live state and the time of the last event, and with ``token`` (a
        selector and an ``Idempotency-Key``) what :meth:`token_and_key` reads: one batch of
        statements (one round trip on PostgreSQL, :meth:`~.reads.Db.batch`)."""
        db = self.db
        if db.postgres:
            db.run(sql.LEDGER_LOCK_POSTGRESQL)  # goes first, with the batch (as BEGIN does)
        rows = db.batch([*live_reads(emails=self.emails), sql.HEAD_AT,
                         *([(sql.TOKEN_AND_KEY, token)] if token is not None else [])])
        if token is not None:
            self._token = token, _token_and_key(rows.pop())
        at = rows.pop()
        self._last_at = stored_time(at[0][0]) if at else None
        self._state = state_from(db, rows)
        self._state.track = self._tracks

    def token_and_key(self, selector: str, key: str | None) -> tuple[TokenRow | None,
                                                                    KeyRow | None]:
        """The token with ``selector`` (None: no such token) and its player's
        ``Idempotency-Key`` ``key`` as kept (None: not kept, or no key): read with the lock
        if :meth:`lock_head` was given them, else one statement."""
        if self._token is not None and self._token[0] == (selector, key):
            return self._token[1]
        return _token_and_key(self.db.all(sql.TOKEN_AND_KEY, (selector, key)))

    def execute(self, text: str, params: Sequence[Any] = ()) -> int:
        """Run a writing statement (``?`` placeholders) at once, after those waiting; the rows
        it changed (a statement whose count is not needed goes with the next: ``db.run``)."""
        self.db.cur.execute(self.db.q(text), tuple(params))
        return max(self.db.cur.rowcount, 0)

    def time_param(self, at: datetime) -> object:
        """A time as :meth:`execute` stores it in a time column."""
        return self.db.param(at)

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Undo what is written inside if it fails (a nested write): the rows, the events
        recorded, and the live state (loaded again when next used)."""
        self._savepoints += 1
        name = f"nomic_cards_{self._savepoints}"
        seq, recorded, last_at = (self._state.seq if self._state is not None else None,
                                  len(self.recorded), self._last_at)
        self.db.run(f"SAVEPOINT {name}")
        try:
            yield
            # the block's waiting statements go now: an error in one is the block's
            self.db.cur.execute(f"RELEASE SAVEPOINT {name}")
        except BaseException:
            self.db.run(f"ROLLBACK TO SAVEPOINT {name}")
            if len(self.recorded) > recorded or (self._state is not None
                                                 and self._state.seq != seq):
                self._state = None
                for rec in self.recorded[recorded:]:
                    self.written.pop(rec.seq, None)
                del self.recorded[recorded:]
            self._last_at = last_at
            raise

    def _last_time(self) -> datetime | None:
        """The time of the newest event (None in an empty ledger)."""
        if self._last_at is None and self.state.seq:
            self._last_at = self.event_time(self.state.seq)
        return self._last_at

    def check_clock(self) -> None:
        """Refuse at once if the clock is before the ledger's last event."""
        when, last = utc(self.clock.now()), self._last_time()
        if last is not None and when < last:
            raise RuleViolation(too_early(self.state, when, last))

    @contextmanager
    def as_of(self, when: datetime) -> Iterator[None]:
        """Record what is done inside at ``when`` (work due at a boundary, done late, is dated
        at its boundary), or at the ledger's last event when that is later (a ledger written
        before boundary work was done first: docs/nweeks.md, "Time-true")."""
        saved, last = self.clock, self._last_time()
        self.clock = FixedClock(when if last is None or when >= last else last)
        try:
            yield
        finally:
            self.clock = saved

    def record(self, new: Event | Sequence[Event], *,
               subject: str | None = None) -> list[EventRecord]:
        """Append events to the ledger, apply them to the state and write their projections.
        ``subject`` overrides the events' own (for a kind whose payload does not name it)."""
        items = [new] if isinstance(new, Event) else list(new)
        state, db = self.state, self.db
        out: list[EventRecord] = []
        for event in items:
            sealed = seal(state, event, at=self.clock.now(), actor=self.actor,
                          last_at=self._last_time(), subject=subject)
            changes = append(state, sealed)
            rec = sealed.record
            db.run(_INSERT_EVENT, (rec.seq, db.param(rec.at), rec.actor, rec.kind, rec.subject,
                                   sealed.text, sealed.commitment, rec.prev_hash, rec.hash))
            if sealed.opening is not None:
                db.run(_INSERT_PRIVATE, (rec.seq, sealed.opening.nonce, sealed.opening.data))
            self.written[rec.seq] = (sealed.text, next(
                ((c.notice.player, c.notice.text) for c in changes
                 if isinstance(c, NoticeAdded)), None))
            project(db, state, changes)
            self._last_at = rec.at
            out.append(rec)
        if out:
            db.run(_MOVE_HEAD, (state.seq, state.head_hash))
        self.recorded.extend(out)
        return out

    def save_secret(self, period: int, seed_hex: str) -> None:
        self.execute("INSERT INTO dice_secrets (period_id, seed) VALUES (?, ?)",
                     (period, seed_hex))
