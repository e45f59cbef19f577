"""The one connection layer: DB-API connections to a game's database, and the transactions every
read and write runs in, for SQLite (:mod:`sqlite3`) and PostgreSQL (psycopg).

A :class:`Database` hands out a :class:`Cursor` in one transaction
(:meth:`Database.transaction`); on PostgreSQL its ``BEGIN`` and the statements that return
nothing go to the server with the next statement, in one round trip:

- a **read** is one snapshot: SQLite's deferred ``BEGIN`` (under WAL it takes no lock and never
  waits for a writer), PostgreSQL's ``REPEATABLE READ READ ONLY``; a narrow read that needs no
  two statements to agree runs in autocommit on PostgreSQL (no ``BEGIN``/``COMMIT`` round trips);
- a **write** takes the ledger lock: on SQLite ``BEGIN IMMEDIATE``, first queueing on an
  exclusive ``flock`` of the file ``<database>-lock`` when there is one (``init`` and a server
  make it); on PostgreSQL an advisory lock of the transaction, keyed by the schema's
  ``ledger_head`` table (taken by the writing transaction itself, :mod:`.writes`). SQLite's
  lock alone makes a waiting writer sleep in its busy handler, in naps growing to 100 ms
  however soon the lock comes free (a p99 of 0.64 s for 16 writers on two workers, 0.08 s
  with the ``flock``): a process's writers queue on a lock of their
  own, and one at a time asks for the ``flock`` every 0.5-2 ms; after 30 s both give up in
  one line, as SQLite's lock does (a manual-dice deal asking for its rolls holds the lock
  meanwhile).

Connections are kept between transactions: a server's PostgreSQL connections in a
``psycopg_pool`` pool (bounded, with a timeout to wait for one, broken ones replaced), every
other (SQLite, the command line) in a short list of idle ones. A connection that failed is
closed, never reused. Driver errors come out as one-line :class:`~nomic_cards.errors.
DatabaseError` (or :class:`~nomic_cards.errors.PermissionDenied` for a missing grant).

SQLAlchemy is not imported here: it makes the schema (:mod:`.migrate`, through Alembic) and
nothing else.
"""

from __future__ import annotations

import fcntl
import os
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from nomic_cards.core.store.failures import first_line, permission_hint, refused
from nomic_cards.core.store.urls import display_url, sqlite_path
from nomic_cards.errors import DatabaseError, PermissionDenied

__all__ = ["Cursor", "Database", "Mode"]

#: how a transaction begins: a snapshot read, a read of one statement, or a write
Mode = Literal["read", "narrow", "write"]

#: How long a SQLite statement waits for a lock (writers queue here).
BUSY_TIMEOUT_MS = 30000
#: Seconds the command line waits to open a PostgreSQL connection (a server: less).
CLI_CONNECT_TIMEOUT = 10
SERVER_CONNECT_TIMEOUT = 3
#: A server's PostgreSQL connections, and how long a request waits for one.
SERVER_POOL = 10
SERVER_POOL_TIMEOUT = 3.0
#: PostgreSQL's limit on one statement of a server.
SERVER_STATEMENT_TIMEOUT_MS = 5000
#: Seconds a server may hold a PostgreSQL connection before its socket is shut: a database
#: that stops answering without closing the connection (the kernel still acknowledges what is
#: sent, so neither TCP keepalive nor a server-side timeout can tell) would otherwise keep the
#: request's thread and connection forever.
SERVER_HOLD_LIMIT = 6.0
#: Idle connections kept for the next transaction (SQLite, and PostgreSQL outside a server).
KEEP_IDLE = 8
#: TCP keepalive on PostgreSQL connections: a peer gone silent is found within about 25 s.
KEEPALIVE: Mapping[str, Any] = MappingProxyType({"keepalives": 1, "keepalives_idle": 10,
                                                "keepalives_interval": 5,
                                                "keepalives_count": 3})

_BEGIN_SQLITE: Mapping[Mode, str] = MappingProxyType(
    {"read": "BEGIN", "narrow": "BEGIN", "write": "BEGIN IMMEDIATE"})
_BEGIN_POSTGRES: Mapping[Mode, str | None] = MappingProxyType(
    {"read": "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "narrow": None,
     "write": "BEGIN"})

#: a job's lock on PostgreSQL (:meth:`Database.job_lock`): an advisory lock of the session,
#: keyed by the table of the game's schema that the job works on (another key than the ledger
#: lock's, whose table is ``ledger_head``), taken at once or not at all
_JOB_LOCK_POSTGRESQL = "SELECT pg_try_advisory_lock(%s::regclass::oid::bigint)"
_JOB_UNLOCK_POSTGRESQL = "SELECT pg_advisory_unlock(%s::regclass::oid::bigint)"


def create_private(path: Path) -> None:
    """Create an empty SQLite file readable by its owner alone (it will hold unrevealed dice
    seeds and private fields; SQLite gives its -wal and -shm files the same permissions). An
    empty file made beforehand gets the same mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if path.stat().st_size == 0:
            os.chmod(path, 0o600)
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror}") from None


def _pipeline_end_quiet(record: Any) -> bool:
    """A filter of psycopg's log: False for its warning that a pipeline failed to end when it
    ends because of an error already being raised (said in one line, as every driver error
    is). Without a handler of the program's own, Python writes that warning to stderr as a
    second line; whether it comes depends on how soon the error's result arrives, so a refused
    statement sometimes printed it."""
    return not str(record.msg).startswith("error ignored terminating")


class Database:
    """One game database: how to connect to it, and the connections kept open (see the module
    docstring). ``create`` lets a missing SQLite file be made (``init``); ``server`` gives a
    long-running process its pool and bounds (PostgreSQL)."""

    def __init__(self, url: str, *, create: bool = False, server: bool = False) -> None:
        self.url = url
        self.where = display_url(url)
        self._writer = threading.Lock()  # this process's SQLite writers queue here first
        self.postgres = not url.startswith("sqlite")
        self.path = sqlite_path(url)
        if not self.postgres and self.path is None:
            raise DatabaseError(f"database {self.where}: an in-memory SQLite database holds "
                                "no game")
        if self.path is not None:
            if not create and not self.path.exists():
                raise DatabaseError(f"no database at {self.where}: run `nomic-cards init` "
                                    "(or pass --db / set NOMIC_CARDS_DB)")
            if create:
                create_private(self.path)
        self._server = server
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._pool: Any = None
        self._held: dict[int, tuple[float, Any]] = {}
        if self.postgres:
            import logging  # psycopg imports it anyway

            import psycopg

            # added once, however many databases are opened (a filter is never added twice)
            logging.getLogger("psycopg").addFilter(_pipeline_end_quiet)
            self._errors: tuple[type[BaseException], type[BaseException]] = (
                psycopg.OperationalError, psycopg.Error)
        else:
            import sqlite3

            self._errors = (sqlite3.OperationalError, sqlite3.Error)

    # --- connections --------------------------------------------------------------------

    def conninfo(self) -> str:
        """The PostgreSQL URL as libpq reads it (without SQLAlchemy's driver name)."""
        return "postgresql://" + self.url.split("://", 1)[1]

    def _connect(self) -> Any:
        if not self.postgres:
            import sqlite3

            conn = sqlite3.connect(str(self.path), isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            return conn
        import psycopg

        return psycopg.connect(self.conninfo(), autocommit=True,
                               connect_timeout=CLI_CONNECT_TIMEOUT, **KEEPALIVE)

    def _make_pool(self) -> Any:
        from psycopg_pool import ConnectionPool

        def configure(conn: Any) -> None:
            conn.execute(f"SET statement_timeout = {SERVER_STATEMENT_TIMEOUT_MS}")

        kwargs: dict[str, Any] = {"autocommit": True,
                                  "connect_timeout": SERVER_CONNECT_TIMEOUT, **KEEPALIVE}
        pool = ConnectionPool(self.conninfo(), min_size=1, max_size=SERVER_POOL,
                              kwargs=kwargs, configure=configure,
                              timeout=SERVER_POOL_TIMEOUT, open=False, name="nomic-cards")
        pool.open(wait=False)
        return pool

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A DB-API connection in autocommit mode (the transactions are begun here, by
        :meth:`transaction`), given back afterwards; one that failed is closed."""
        operational, base = self._errors
        if self._server and self.postgres:
            with self._lock:
                if self._pool is None:
                    self._pool = self._make_pool()
                    threading.Thread(target=self._watch, name="nomic-cards-db-watchdog",
                                     daemon=True).start()
            from psycopg_pool import PoolTimeout

            try:
                with self._pool.connection() as conn:
                    key = id(conn)
                    self._held[key] = (time.monotonic(), conn)
                    try:
                        yield conn
                    finally:
                        self._held.pop(key, None)
            except PoolTimeout:
                raise DatabaseError(f"database {self.where}: no connection came free in "
                                    f"{SERVER_POOL_TIMEOUT:g} s") from None
            return
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            try:
                conn = self._connect()
            except operational as exc:
                raise DatabaseError(f"cannot reach database {self.where}: "
                                    f"{first_line(exc)}") from None
            except base as exc:
                raise DatabaseError(f"cannot open database {self.where}: "
                                    f"{first_line(exc)}") from None
        try:
            yield conn
        finally:
            with self._lock:
                if self._reusable(conn) and len(self._idle) < KEEP_IDLE:
                    self._idle.append(conn)
                    conn = None
            if conn is not None:
                conn.close()

    def _reusable(self, conn: Any) -> bool:
        """Whether a connection given back is sound and out of any transaction."""
        if not self.postgres:
            try:
                return not conn.in_transaction
            except self._errors[1]:  # closed
                return False
        from psycopg.pq import TransactionStatus

        return not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE

    def _watch(self) -> None:
        """Shut the socket of a pooled connection held past :data:`SERVER_HOLD_LIMIT`: the
        thread waiting on it then gets an error at once and the pool replaces it."""
        while self._pool is not None:
            time.sleep(0.5)
            now = time.monotonic()
            for key, (since, conn) in list(self._held.items()):
                if now - since > SERVER_HOLD_LIMIT and self._held.pop(key, None) is not None:
                    try:
                        with socket.socket(fileno=os.dup(conn.pgconn.socket)) as sock:
                            sock.shutdown(socket.SHUT_RDWR)
                    except (OSError, AttributeError, ValueError):  # closed already
                        pass

    # --- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self, mode: Mode) -> Iterator[Any]:
        """A cursor in one transaction of ``mode`` (see the module docstring): committed when
        the block ends, rolled back on an error; driver errors raised as one line."""
        begin = (_BEGIN_POSTGRES if self.postgres else _BEGIN_SQLITE)[mode]
        with self.translated(), self._writers_turn(mode), self.connection() as conn:
            cur = Cursor(conn, self.postgres)
            try:
                if begin is not None:
                    cur.later(begin)
                yield cur
                if begin is not None:
                    cur.execute("COMMIT")
            except BaseException:
                if begin is not None:
                    cur.drop_later()
                    self._rollback(cur)
                raise
            finally:
                cur.close()

    def make_writers_lock(self) -> None:
        """Make the file SQLite's writers queue on (``<database>-lock``, readable by its owner
        alone) beside a database known to be a game's; nothing on PostgreSQL."""
        if self.path is not None:
            # in a read-only folder none is made: the writers wait in SQLite's busy handler
            with suppress(OSError):
                os.close(os.open(f"{self.path}-lock", os.O_RDWR | os.O_CREAT, 0o600))

    @contextmanager
    def job_lock(self, job: str) -> Iterator[bool]:
        """Whether this process holds the lock of ``job`` on this database for the block: one
        process at a time holds it, and another asking meanwhile gets False at once (it never
        waits). Released when the block ends, or when the process dies. It is not the ledger
        lock, so no writer ever waits on it. On SQLite an exclusive ``flock`` of the file
        ``<database>-<job>-lock`` beside the database (made readable by its owner alone); on
        PostgreSQL an advisory lock of a session of its own, keyed by the schema's table named
        ``job`` (``notices``: the sending of the notices)."""
        if self.path is not None:
            name = f"{self.path}-{job}-lock"
            try:
                fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as exc:
                raise DatabaseError(f"cannot make the lock file {name}: "
                                    f"{exc.strerror or exc}") from None
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    yield False
                    return
                yield True
            finally:
                os.close(fd)  # releases the lock
            return
        with self.translated():
            conn = self._connect()
        try:
            with self.translated():
                held = bool(conn.execute(_JOB_LOCK_POSTGRESQL, (job,)).fetchone()[0])
            yield held
            if held:  # at once: a closed session's locks go only when its backend has ended
                with self.translated():
                    conn.execute(_JOB_UNLOCK_POSTGRESQL, (job,))
        finally:
            conn.close()  # the session ends, and its lock with it

    @contextmanager
    def _writers_turn(self, mode: Mode) -> Iterator[None]:
        """On SQLite, for a write: an exclusive ``flock`` of ``<database>-lock`` if there is
        one, held until the transaction ends (a file opened for this transaction alone, so
        the threads of one process queue too). The threads of this process first queue on a
        lock of their own (woken at once when it is free), so only one of them at a time asks
        for the file's, every millisecond or so; both waits give up as SQLite would, after
        :data:`BUSY_TIMEOUT_MS` (a write held that long, such as a ``deal --dice manual``
        waiting for its rolls, makes the others fail in one line, not wait without end)."""
        if mode != "write" or self.path is None:
            yield
            return
        try:
            fd = os.open(f"{self.path}-lock", os.O_RDWR)
        except OSError:  # none (a copied file, another program's): SQLite's lock alone
            yield
            return
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        try:
            if not self._writer.acquire(timeout=BUSY_TIMEOUT_MS / 1000):
                raise self._busy()
            try:
                self._flock_by(fd, deadline)
                yield
            finally:
                self._writer.release()
        finally:
            os.close(fd)  # releases the lock

    def _flock_by(self, fd: int, deadline: float) -> None:
        """An exclusive ``flock`` of ``fd``, asked for every 0.5-2 ms until ``deadline``."""
        nap = 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise self._busy() from None
                time.sleep(nap)
                nap = min(nap * 2, 0.002)

    def _busy(self) -> DatabaseError:
        return DatabaseError(f"database {self.where} is busy: another write has held it for "
                             f"{BUSY_TIMEOUT_MS // 1000} s; try again")

    def _rollback(self, cur: Cursor) -> None:
        try:
            cur.execute("ROLLBACK")
        except self._errors[1]:  # the connection is gone; closed by connection()
            pass

    @contextmanager
    def translated(self) -> Iterator[None]:
        """The driver's errors raised inside as one line (:class:`DatabaseError`, or
        :class:`PermissionDenied` for a refused grant)."""
        operational, base = self._errors
        try:
            yield
        except operational as exc:
            if self.postgres and not refused(exc):  # the connection, or the server, failed
                raise DatabaseError(f"database {self.where} failed: {first_line(exc)}") \
                    from None
            kind = PermissionDenied if refused(exc) else DatabaseError
            raise kind(f"database error: {first_line(exc)}{permission_hint(exc)}") from None
        except base as exc:
            kind = PermissionDenied if refused(exc) else DatabaseError
            raise kind(f"database error: {first_line(exc)}{permission_hint(exc)}") from None

    def close(self) -> None:
        """Close every connection kept open."""
        with self._lock:
            idle, self._idle = self._idle, []
            pool, self._pool = self._pool, None
        for conn in idle:
            conn.close()
        if pool is not None:
            pool.close()


class Cursor:
    """The cursor of one transaction (:meth:`Database.transaction`). A statement that returns
    nothing may wait (:meth:`later`): on PostgreSQL it goes to the server with the next
    statement, in the same round trip (bound on the client as psycopg's ``ClientCursor``
    binds, the waiting statements and the next sent as one query); on SQLite, where a
    statement costs no round trip, it runs at once. So a transaction's ``BEGIN`` goes with its
    first read, and its writes with its ``COMMIT``: a write by one ``cards.vote`` is three
    round trips under the ledger lock (docs/architecture.md). An error in a waiting statement
    is raised by the statement it went with, and the transaction is rolled back."""

    def __init__(self, conn: Any, postgres: bool) -> None:
        self.conn = conn
        self.postgres = postgres
        self.cur = conn.cursor()
        self._waiting: list[str] = []
        self._binder: Any = None

    def later(self, text: str, params: Sequence[Any] = ()) -> None:
        """Run a statement that returns nothing with the next one (see the class)."""
        if not self.postgres:
            self.cur.execute(text, tuple(params))
        else:
            self._waiting.append(self._bound(text, params))

    def later_many(self, text: str, rows: Sequence[Sequence[Any]]) -> None:
        """:meth:`later`, once for each of ``rows``."""
        if not self.postgres:
            self.cur.executemany(text, [tuple(r) for r in rows])
        else:
            self._waiting.extend(self._bound(text, r) for r in rows)

    def drop_later(self) -> None:
        """Forget the statements waiting (the transaction is being rolled back)."""
        self._waiting.clear()

    def _bound(self, text: str, params: Sequence[Any]) -> str:
        """The statement with its parameters bound on the client (as it is, without any)."""
        if not params:
            return text
        if self._binder is None:
            from psycopg import ClientCursor

            self._binder = ClientCursor(self.conn)
        return str(self._binder.mogrify(text, tuple(params)))

    def execute(self, text: str, params: Sequence[Any] = ()) -> None:
        """Run a statement after those waiting (in the same round trip); its rows are the
        cursor's to fetch."""
        if not self._waiting:
            self.cur.execute(text, tuple(params))
            return
        waiting, self._waiting = self._waiting, []
        self.cur.execute(";\n".join([*waiting, self._bound(text, params)]))
        for _ in waiting:  # to the last statement's result
            self.cur.nextset()

    def batch(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        """The rows of each of several statements (text and parameters), after those waiting:
        on PostgreSQL in one round trip (a pipeline of statements each prepared once per
        connection, so the server parses and plans none of them again), on SQLite one after
        another."""
        if not self.postgres:
            out = []
            for text, params in statements:
                self.cur.execute(text, tuple(params))
                out.append(self.cur.fetchall())
            return out
        waiting, self._waiting = self._waiting, []
        cursors = [self.conn.cursor() for _ in statements]
        try:
            with self.conn.pipeline():
                for text in waiting:
                    self.cur.execute(text)
                for cur, (text, params) in zip(cursors, statements, strict=True):
                    cur.execute(text, tuple(params) or None, prepare=True)
            return [cur.fetchall() for cur in cursors]
        finally:
            for cur in cursors:
                cur.close()

    def fetchall(self) -> list[Any]:
        return list(self.cur.fetchall())

    def fetchone(self) -> Any:
        return self.cur.fetchone()

    @property
    def rowcount(self) -> int:
        """The rows the last statement changed (-1: not known)."""
        return int(self.cur.rowcount)

    def close(self) -> None:
        self.cur.close()
