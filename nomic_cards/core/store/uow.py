"""Units of work: one transaction per use case, in which events are appended to the ledger and
their projections written.

A writing unit of work first takes the ledger lock (``SELECT ... FOR UPDATE`` on the single
``ledger_head`` row in PostgreSQL; ``BEGIN IMMEDIATE`` in SQLite), so appends from concurrent
processes are serialised and the hash chain never forks. Either everything a use case recorded
commits, or nothing does.

Given its Game's :class:`~.cached.StateCache`, a writing unit of work takes the live state the
Game's last write left instead of loading it, once it holds the lock and has read the ledger
head with it: as it is if the ledger is still at that state's head, brought up to the head by
folding in the events recorded since (by another process or Game) if there are at most
:data:`MAX_FOLD` of them, else not at all (the state is then loaded from the tables, as without
a cache). The state it ends with is kept for the next write just before the commit, still under
the lock; if the commit fails it is forgotten, and a kept state is only ever used once checked
against the ledger head (a state whose write never committed is at a head the ledger never
had, and the chain of the events folded in must start from it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.ledger.append import append, seal, too_early
from nomic_cards.core.ledger.events import Event, EventRecord, utc
from nomic_cards.core.ledger.state import NoticeAdded, State
from nomic_cards.core.store import sql
from nomic_cards.core.store.cached import Kept, StateCache
from nomic_cards.core.store.engine import display_url, writer_lock
from nomic_cards.core.store.migrate import (
    first_line,
    permission_hint,
    refused,
)
from nomic_cards.core.store.project import project
from nomic_cards.core.store.reads import Db, KeyRow, Reads, key_row
from nomic_cards.errors import DatabaseError, PermissionDenied, RuleViolation

__all__ = ["UnitOfWork", "reading", "unit_of_work"]

# the rows every event writes, as SQL text run on the driver's cursor (as the reads are: the
# same statements every time, with nothing for SQLAlchemy to build, compile or check)
_INSERT_EVENT = ("INSERT INTO events (seq, at, actor, kind, subject, payload, private, "
                 "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_PRIVATE = "INSERT INTO event_private (seq, nonce, data) VALUES (?, ?, ?)"
_MOVE_HEAD = "UPDATE ledger_head SET seq = ?, hash = ? WHERE ledger_head.id = 1"
#: the ledger lock, which reads the head it locks (in SQLite, ``BEGIN IMMEDIATE`` has taken
#: the lock already: the same read without ``FOR UPDATE``)
_LOCK_HEAD = ("SELECT ledger_head.seq, ledger_head.hash FROM ledger_head "
              "WHERE ledger_head.id = 1")
#: how many events behind the ledger head a kept state may be and still be brought up to it by
#: folding them in (further behind, loading it afresh is cheaper)
MAX_FOLD = 200


def _driver(session: Session) -> tuple[Any, bool]:
    """The session's own driver connection (in its transaction), and whether the database is
    PostgreSQL."""
    conn = session.connection()
    return conn.connection.driver_connection, conn.dialect.name == "postgresql"


class Probe:
    """A read that goes with the next round trip of a writing transaction (on PostgreSQL, in
    the pipeline of the next read or the commit; on SQLite at once); :meth:`rows` gives its
    rows, sending it first if it has not gone yet."""

    def __init__(self, writes: _Writes, text: str, params: Sequence[Any]) -> None:
        self._writes, self.text, self.params = writes, text, tuple(params)
        self.cursor: Any = None
        self._rows: list[Any] | None = None

    def send(self, driver: Any) -> None:
        self.cursor = driver.cursor()
        self.cursor.execute(self.text, self.params)

    def rows(self) -> list[Any]:
        if self._rows is None:
            if self.cursor is None:
                self._writes.flush()
            self._rows = list(self.cursor.fetchall())
            self.cursor.close()
        return self._rows


@dataclass
class _Writes(Db):
    """A writing transaction's connection. On PostgreSQL its writes wait in :attr:`pending`
    until a read needs the server (which must see them) or the commit; then they go in one
    pipeline, with the ``COMMIT`` at the end (one round trip for all of an action's rows, where
    each would take one). On SQLite, in process, each runs at once."""

    driver: Any = None
    pending: list[tuple[str, Sequence[Any], bool] | Probe] = field(default_factory=list)

    def probe(self, text: str, params: Sequence[Any] = ()) -> Probe:
        """A read whose rows are wanted later (see :class:`Probe`)."""
        probe = Probe(self, self.q(text), params)
        if self.postgres:
            self.pending.append(probe)
        else:
            probe.send(self.driver)
        return probe

    def run(self, text: str, params: Sequence[Any] = ()) -> None:
        if self.postgres:
            self.pending.append((self.q(text), tuple(params), False))
        else:
            super().run(text, params)

    def many(self, text: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement for each of ``rows``."""
        if not rows:
            return
        if self.postgres:
            self.pending.append((self.q(text), [tuple(r) for r in rows], True))
        else:
            cur: Any = self.cur
            cur.executemany(text, [tuple(r) for r in rows])

    def all(self, text: str, params: Sequence[Any] = ()) -> list[Any]:
        if not self.pending:
            return super().all(text, params)
        self._after_writes(text, params)
        return self.cur.fetchall()

    def one(self, text: str, params: Sequence[Any] = ()) -> Any:
        if not self.pending:
            return super().one(text, params)
        self._after_writes(text, params)
        return self.cur.fetchone()

    def _after_writes(self, text: str, params: Sequence[Any]) -> None:
        """Run a read after the writes waiting, in the same pipeline: one round trip."""
        with self.driver.pipeline():
            self._send()
            self.cur.execute(self.q(text), tuple(params))

    def _send(self) -> None:
        pending, self.pending = self.pending, []
        cur: Any = self.cur
        for item in pending:
            if isinstance(item, Probe):
                item.send(self.driver)
                continue
            text, params, many = item
            if many:
                cur.executemany(text, params)
            else:
                cur.execute(text, params)

    def savepoint(self, name: str) -> object:
        """Start savepoint ``name`` (on PostgreSQL it waits with the writes); returns what
        :meth:`rollback_to` takes."""
        marker = (f"SAVEPOINT {name}", (), False)
        if self.postgres:
            self.pending.append(marker)
        else:
            self.cur.execute(marker[0])
        return marker

    def rollback_to(self, name: str, marker: object) -> None:
        """Undo what was written since savepoint ``name``: on PostgreSQL, writes that have not
        gone yet are dropped (with the savepoint itself, if it has not gone either)."""
        for i, item in enumerate(self.pending):
            if item is marker:
                del self.pending[i:]
                return
        self.flush()
        self.cur.execute(f"ROLLBACK TO SAVEPOINT {name}")

    def flush(self, *, commit: bool = False) -> None:
        """Send the writes waiting (and with ``commit``, the ``COMMIT``) in one pipeline."""
        if not (self.pending or commit) or not self.postgres:
            return
        with self.driver.pipeline():
            self._send()
            if commit:
                self.driver.commit()


class UnitOfWork(Reads):
    """A session in one transaction, with the live state and a :meth:`record` method. Its
    reads are :class:`~.reads.Reads`' on the session's own driver connection."""

    def __init__(self, session: Session, *, actor: str, clock: Clock,
                 emails: bool = True) -> None:
        driver, postgres = _driver(session)
        cursor = driver.cursor()
        super().__init__(cursor, postgres=postgres, actor=actor, clock=clock, emails=emails)
        self._db: _Writes = _Writes(cursor, postgres, driver)
        self._session = session
        self._cursor = cursor
        self._last_at: datetime | None = None
        self.recorded: list[EventRecord] = []
        #: what each event recorded here wrote: its public payload as stored, and the notice
        #: it recorded (its player and text), if any
        self.written: dict[int, tuple[str, tuple[str, str] | None]] = {}
        #: views made for shared writes (:meth:`joined`), and this view's savepoint
        self._shares = 0
        self._share = ""
        self._entry: tuple[int, object] = (0, None)

    @property
    def session(self) -> Session:
        """The SQLAlchemy session of this transaction, for statements built with it (the
        writes waiting go first, so they run in the order they were made)."""
        self._db.flush()
        return self._session

    def joined(self, *, actor: str, clock: Clock) -> UnitOfWork:
        """A view of this unit of work for another write sharing its transaction (see
        :mod:`.combine`), as ``actor`` on ``clock``: the same connection and live state, its
        own events recorded, from a savepoint of its own."""
        view = copy.copy(self)
        view._state = self.state
        view.actor, view.clock = actor, clock
        view.recorded, view.written = [], {}
        self._shares += 1
        view._share = f"nomic_cards_share_{self._shares}"
        view._entry = (view._state.seq, self._db.savepoint(view._share))
        return view

    def rejoin(self, view: UnitOfWork, *, failed: bool) -> None:
        """Take back the transaction after ``view``'s write: with what it did, or, if it
        ``failed``, without (its writes rolled back to its savepoint, and the live state loaded
        again if it had recorded events into it)."""
        seq, marker = view._entry
        if not failed:
            self._state, self._last_at = view._state, view._last_at
            return
        self._db.rollback_to(view._share, marker)
        if view._state is not self._state or self.state.seq != seq:
            self._state, self._last_at = None, None

    def commit_writes(self) -> None:
        """Send the writes waiting with the ``COMMIT`` (on PostgreSQL: in one round trip; the
        session's own commit then finds the transaction ended). Called last, under the lock."""
        self._db.flush(commit=True)

    #: the state records what changes, for the projector to write
    _tracks = True

    def close(self) -> None:
        self._cursor.close()

    def lock_head(self) -> tuple[int, str] | None:
        """Take the ledger lock (PostgreSQL; SQLite's is taken as the transaction begins) and
        read the head it guards: the last event's number and hash (None: no ledger yet)."""
        db = self._db
        row = db.one(_LOCK_HEAD + " FOR UPDATE" if db.postgres else _LOCK_HEAD)
        return None if row is None else (int(row[0]), str(row[1]))

    def key_later(self, player_id: int, key: str) -> Callable[[], KeyRow | None]:
        """A player's Idempotency-Key as stored (see :meth:`idempotency_key`), read with the
        transaction's next round trip rather than one of its own: call the result for it."""
        probe = self._db.probe(sql.IDEMPOTENCY_KEY, (player_id, key))
        return lambda: key_row(next(iter(probe.rows()), None))

    def execute(self, text: str, params: Sequence[Any] = ()) -> None:
        """Run a writing statement (SQL text with ``?`` placeholders) in this transaction (on
        PostgreSQL it waits to go with the next read or the commit)."""
        self._db.run(text, params)

    def time_param(self, at: datetime) -> object:
        """A time as :meth:`execute` stores it in a time column."""
        return self._db.param(at)

    def adopt(self, kept: Kept | None, head: tuple[int, str]) -> None:
        """Use ``kept`` as the live state if it is at ``head`` (the ledger head, read under the
        lock) or can be brought up to it by folding in the events recorded since (at most
        :data:`MAX_FOLD`); otherwise the state is loaded from the tables when first used."""
        if kept is None:
            return
        state, last_at = kept.state, kept.last_at
        if (state.seq, state.head_hash) != head:
            if not state.seq < head[0] <= state.seq + MAX_FOLD:
                return
            last_at = self.fold_newer(state, head)
            if last_at is None:
                return
            as_loaded(state, emails=self.emails)
        self._state, self._last_at = state, last_at

    def kept(self) -> Kept | None:
        """The live state as the next write may take it, if this one used it."""
        state = self._state
        if state is None:
            return None
        as_loaded(state, emails=self.emails)
        return Kept(state, self._last_at)

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
        state, db = self.state, self._db
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


def as_loaded(state: State, *, emails: bool) -> None:
    """Put a state folded by events into the shape :func:`~.reads.load_state` gives: the
    changes of the rules in the tables' order, and without ``emails`` no player's address."""
    state.rule_changes.sort(key=lambda c: (c.seq, c.rule))
    if not emails:
        for player in state.players.values():
            player.email = None


@contextmanager
def unit_of_work(
    engine: Engine, *, actor: str = "cli", clock: Clock | None = None, emails: bool = True,
    cache: StateCache | None = None, queue: bool = False,
) -> Iterator[UnitOfWork]:
    """Open a writing transaction, taking the ledger lock; commit on success. Without
    ``emails`` the state is loaded without the players' addresses (the server's account may
    not read them). With ``cache`` the live state is taken from it and kept in it (see the
    module docstring). With ``queue`` (a server's writes) a SQLite writer first takes the
    writers' lock (:func:`~.engine.writer_lock`), on which the workers' writes queue."""
    kept: Kept | None = None
    with translated(engine), writer_lock(engine) if queue else nullcontext(), \
            Session(engine, expire_on_commit=False) as session:
        try:
            with session.begin():
                uow = UnitOfWork(session, actor=actor, clock=clock or SystemClock(),
                                 emails=emails)
                try:
                    head = uow.lock_head()
                    if cache is not None and head is not None:
                        uow.adopt(cache.take(), head)
                    yield uow
                    if cache is not None:
                        kept = uow.kept()
                        if kept is not None:
                            cache.keep(kept)
                    uow.commit_writes()
                finally:
                    uow.close()
        except BaseException:
            if cache is not None and kept is not None:
                cache.forget(kept.state)
            raise


@contextmanager
def translated(engine: Engine) -> Iterator[None]:
    """Database errors raised inside as :class:`DatabaseError` (one line): SQLAlchemy's, and
    the driver's own (the reads run on the driver's cursor)."""
    driver_error = _driver_error(engine)
    try:
        yield
    except OperationalError as exc:
        raise DatabaseError(f"database {display_url(str(engine.url))} failed: "
                            f"{first_line(exc)}") from None
    except SQLAlchemyError as exc:
        raise _error_for(exc)(f"database error: {str(exc).strip().splitlines()[0]}"
                            f"{permission_hint(exc)}") from None
    except driver_error as exc:
        raise _error_for(exc)(f"database error: {first_line(exc)}{permission_hint(exc)}") from None


def _driver_error(engine: Engine) -> type[Exception]:
    error: type[Exception] = engine.dialect.loaded_dbapi.Error
    return error


@contextmanager
def reading(engine: Engine, *, actor: str, clock: Clock, emails: bool,
            snapshot: bool = True) -> Iterator[Reads]:
    """A read on one pooled connection (a server's reads), read through
    :class:`~.reads.Reads` on its driver connection: on SQLite in a read-only transaction (a
    plain ``BEGIN``: one snapshot under WAL); on PostgreSQL, with ``snapshot`` (a read of
    several statements, such as the game's state) in a read-only ``REPEATABLE READ``
    transaction, every statement seeing the first one's snapshot; without it (the hot paths'
    reads of one statement) in none, the driver connection in autocommit while it reads,
    without the round trips of the ``BEGIN`` and the ``COMMIT``."""
    if engine.dialect.name != "postgresql":
        # the driver's own BEGIN and COMMIT: a read needs none of the engine's transaction
        # machinery, which costs more than the read itself
        with translated(engine):
            record = engine.raw_connection()
            try:
                cursor = record.driver_connection.cursor()  # type: ignore[union-attr]
                try:
                    cursor.execute("BEGIN")
                    yield Reads(cursor, postgres=False, actor=actor, clock=clock,
                                emails=emails)
                finally:
                    if record.driver_connection.in_transaction:  # type: ignore[union-attr]
                        cursor.execute("ROLLBACK")  # it wrote nothing: nothing to keep
                    cursor.close()
            finally:
                record.close()
        return
    with translated(engine), (one_snapshot(engine) if snapshot else autocommit(engine)) \
            as cursor:
        yield Reads(cursor, postgres=True, actor=actor, clock=clock, emails=emails)


@contextmanager
def one_snapshot(engine: Engine) -> Iterator[Any]:
    """A cursor of a PostgreSQL connection of the pool in a read-only ``REPEATABLE READ``
    transaction (one snapshot for all its statements), rolled back at the end."""
    import psycopg

    with _pooled(engine, isolation_level=psycopg.IsolationLevel.REPEATABLE_READ,
                 read_only=True) as driver:
        try:
            with driver.cursor() as cursor:
                yield cursor
        finally:
            driver.rollback()


@contextmanager
def autocommit(engine: Engine) -> Iterator[Any]:
    """A cursor of a PostgreSQL connection of the pool whose statements each commit by
    themselves (no ``BEGIN``, no ``COMMIT``: a round trip each)."""
    with _pooled(engine, autocommit=True) as driver, driver.cursor() as cursor:
        yield cursor


@contextmanager
def _pooled(engine: Engine, **settings: object) -> Iterator[Any]:
    """A PostgreSQL driver connection of the pool with ``settings`` (attributes of the
    connection) for the time it is held; put back as the pool holds them (one whose settings
    cannot be undone is dropped from the pool)."""
    with engine.connect() as conn:
        record = conn.connection
        driver: Any = record.driver_connection
        before = {name: getattr(driver, name) for name in settings}
        for name, value in settings.items():
            setattr(driver, name, value)
        try:
            yield driver
        finally:
            try:
                for name, value in before.items():
                    setattr(driver, name, value)
            except Exception:  # noqa: BLE001 - a connection that cannot be reset is dropped
                record.invalidate()


def _error_for(exc: BaseException) -> type[DatabaseError]:
    return PermissionDenied if refused(exc) else DatabaseError
