"""Engines (the URLs themselves are handled in :mod:`.urls`).

SQLite gets foreign keys on, WAL journaling,
``BEGIN IMMEDIATE`` for writing transactions (so that writers queue instead of failing) and a
plain ``BEGIN`` for transactions run with the :data:`READ_ONLY` execution option (the schema
checks), which under WAL take no lock and never wait for a writer. Every other read begins
with a plain ``BEGIN`` too, sent on the driver's connection itself: a server's on a pooled
connection (:func:`~.uow.reading`), a command's on a connection of its own (:mod:`.plain`).
A server's writers first take :func:`writer_lock`, so that the workers' writes queue on a lock
that lets the next one in as soon as it is free: SQLite's own wait for its write lock sleeps in
steps of up to 100 ms. (The command line, one write per process, waits in
SQLite's; it leaves no lock file beside the database.)
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import ArgumentError

from nomic_cards.core.store.plain import CLI_CONNECT_TIMEOUT, KEEPALIVE
from nomic_cards.core.store.urls import display_url, resolve_url, sqlite_path
from nomic_cards.errors import DatabaseError, InputError

__all__ = ["READ_ONLY", "SERVER_POOL", "Engine", "display_url", "env_url", "make_engine",
           "resolve_url", "sqlite_path", "use_wal", "writer_lock"]

#: Connections a server process keeps open (more than its request threads: none waits for one).
SERVER_POOL = 16
#: Execution option of read-only transactions (plain ``BEGIN`` on SQLite).
READ_ONLY = "nomic_cards_read_only"

# Every wait on the database has a bound (docs/server.md, "When the database stops answering").
#: Seconds to open a PostgreSQL connection (the server; the command line waits longer).
SERVER_CONNECT_TIMEOUT = 3
#: Seconds a server request waits for a pooled connection.
SERVER_POOL_TIMEOUT = 3
#: PostgreSQL's limit on one statement of the server (it bounds a slow query on the database).
SERVER_STATEMENT_TIMEOUT_MS = 5000
#: Seconds a server may hold a PostgreSQL connection before the watchdog closes its socket:
#: a database (or a path to it) that stops answering without closing the connection -- the
#: kernel still acknowledges what is sent, so neither TCP keepalive nor a timeout on the
#: server side can tell -- would otherwise keep the request's thread and connection forever.
SERVER_HOLD_LIMIT = 6.0


def _ours(cur: Any) -> bool:
    """Whether the open SQLite database is a nomic-cards one at a revision this version knows
    (only such a database is switched to WAL: another program's file is left as it is)."""
    from nomic_cards.core.store.migrate import KNOWN_REVISIONS

    cur.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'")
    if cur.fetchone() is None:
        return False
    cur.execute("SELECT version_num FROM alembic_version")
    rows = cur.fetchall()
    return len(rows) == 1 and rows[0][0] in KNOWN_REVISIONS


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        if _ours(cur):  # a new database is switched by init (migrate.upgrade), once checked
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        # readers take no lock under WAL; writers queue for the one write lock at once
        read_only = conn.get_execution_options().get(READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def _sqlite_file(engine: Engine) -> str | None:
    """The file of a SQLite engine's database (None: PostgreSQL, or SQLite in memory)."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    return None if not database or database == ":memory:" else database


def use_wal(engine: Engine) -> None:
    """Switch a SQLite database to WAL journaling (it stays so: the mode is kept in the file).
    Only for a database checked to be a nomic-cards one, or empty (see :mod:`.migrate`). Done
    on a connection of its own, outside the engine's pool."""
    import sqlite3

    database = _sqlite_file(engine)
    if database is None:
        return
    conn = sqlite3.connect(database, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot use {database}: {exc}") from None
    finally:
        conn.close()


#: Seconds a SQLite writer waits for :func:`writer_lock` (as long as SQLite's busy timeout).
WRITER_WAIT = 30.0
#: The longest sleep between two tries of :func:`writer_lock`.
_WRITER_POLL = 0.002


@contextlib.contextmanager
def writer_lock(engine: Engine) -> Iterator[None]:
    """Hold the writers' lock of a SQLite database file (an ``flock`` on ``<file>-writer``,
    made beside it with the owner's permissions) while inside; nothing for PostgreSQL (its
    ledger lock is a row lock, whose waiters the server wakes) or an in-memory database.
    Tries again every :data:`_WRITER_POLL` seconds at most; after :data:`WRITER_WAIT` it goes
    on without the lock, and SQLite's own lock decides. A file that cannot be made (a folder
    the process may not write) means no lock: SQLite's alone serialises the writers then."""
    import fcntl

    database = _sqlite_file(engine)
    if database is None or database.startswith("file:"):
        yield
        return
    try:
        fd = os.open(f"{database}-writer", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        yield
        return
    try:
        deadline, pause = time.monotonic() + WRITER_WAIT, 0.0001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) \
                        or time.monotonic() > deadline:
                    break
                time.sleep(pause)
                pause = min(pause * 2, _WRITER_POLL)
        yield
    finally:
        os.close(fd)  # releases the lock


def _create_private(path: Path) -> None:
    """Create an empty SQLite file readable by its owner alone: it will hold unrevealed dice
    seeds and private fields. SQLite gives its -wal and -shm files the same permissions."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror}") from None


def _make_private(path: Path) -> None:
    try:
        os.chmod(path, 0o600)
    except OSError as exc:
        raise DatabaseError(f"cannot make {path} private: {exc.strerror}") from None


def make_engine(url: str, *, must_exist: bool = True, server: bool = False) -> Engine:
    """An engine for ``url``. With ``must_exist``, a missing SQLite file is an error (rather
    than silently creating an empty database)."""
    path = sqlite_path(url)
    if path is not None:
        if must_exist and not path.exists():
            raise DatabaseError(
                f"no database at {display_url(url)}: run `nomic-cards init` "
                "(or pass --db / set NOMIC_CARDS_DB)"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            _create_private(path)
        elif not must_exist and path.stat().st_size == 0:
            _make_private(path)  # an empty file made beforehand gets a new file's mode
    # a server keeps SERVER_POOL connections open and never opens one per request (its
    # thread pool is as large, so requests wait for a thread, not for a new connection)
    pool = {"pool_size": SERVER_POOL, "max_overflow": 0,
            "pool_timeout": SERVER_POOL_TIMEOUT} if server else {}
    try:
        if path is not None or url.startswith("sqlite"):
            engine = create_engine(url, **pool)
            _sqlite_setup(engine)
        else:
            timeout = SERVER_CONNECT_TIMEOUT if server else CLI_CONNECT_TIMEOUT
            engine = create_engine(url, **pool,
                                   connect_args={"connect_timeout": timeout, **KEEPALIVE})
            if server:
                _server_bounds(engine)
    except (ArgumentError, ImportError) as exc:
        raise InputError(f"bad database URL {display_url(url)!r}: {exc}") from None
    return engine


def _server_bounds(engine: Engine) -> None:
    """A statement timeout on every connection of a server, and the watchdog."""
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute(f"SET statement_timeout = {SERVER_STATEMENT_TIMEOUT_MS}")
        cur.close()
        dbapi_conn.commit()

    Watchdog(engine, SERVER_HOLD_LIMIT)


class Watchdog:
    """Closes the socket of a PostgreSQL connection checked out for longer than ``limit``
    seconds: the thread waiting on it then gets an error at once (and the connection is
    discarded), instead of waiting for a database that may never answer."""

    def __init__(self, engine: Engine, limit: float, *, every: float = 0.5) -> None:
        self.limit = limit
        self.every = every
        self._held: dict[int, tuple[float, Any]] = {}
        self._lock = threading.Lock()
        event.listen(engine, "checkout", self._checkout)
        event.listen(engine, "checkin", self._checkin)
        event.listen(engine, "close", self._checkin)
        threading.Thread(target=self._watch, name="nomic-cards-db-watchdog", daemon=True).start()

    def _checkout(self, dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        with self._lock:
            self._held[id(record)] = (time.monotonic(), dbapi_conn)

    def _checkin(self, _dbapi_conn: Any, record: Any) -> None:
        with self._lock:
            self._held.pop(id(record), None)

    def _watch(self) -> None:
        while True:
            time.sleep(self.every)
            now = time.monotonic()
            with self._lock:
                late = [(key, conn) for key, (since, conn) in self._held.items()
                        if now - since > self.limit]
                for key, _conn in late:
                    self._held.pop(key, None)
            for _key, conn in late:
                _cut(conn)


def _cut(dbapi_conn: Any) -> None:
    """Shut a psycopg connection's socket down (its waiting thread wakes with an error)."""
    try:
        fd = dbapi_conn.pgconn.socket
        with socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError, ValueError):  # already closed
        pass


def env_url() -> str | None:
    return os.environ.get("NOMIC_CARDS_DB")
