"""Database URLs and engines.

``resolve_url`` turns the ``--db`` value into a SQLAlchemy URL: nothing means the default file
(``nomic-cards.db``) in the working directory; a plain path means a SQLite file; a URL is taken as
it is (``postgresql://`` is read through psycopg 3). SQLite gets foreign keys on, WAL journaling
and ``BEGIN IMMEDIATE`` transactions so that writers queue instead of failing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from nomic_cards.core.settings import DEFAULT_DATABASE_FILE
from nomic_cards.errors import DatabaseError, InputError

#: Connections a server process keeps open (and threads it runs requests in).
SERVER_POOL = 16
#: Execution option of read-only transactions (plain ``BEGIN`` on SQLite).
READ_ONLY = "nomic_cards_read_only"


def resolve_url(db: str | None) -> str:
    """The SQLAlchemy URL for a ``--db`` value (see module docstring)."""
    if db is not None and not db.strip():
        raise InputError("the database is given as an empty string (--db ''): name a SQLite "
                         "file or a database URL")
    raw = (db or DEFAULT_DATABASE_FILE).strip()
    if "://" not in raw:
        if not raw:
            raise InputError("empty database path")
        return f"sqlite:///{Path(raw).expanduser().resolve()}"
    try:
        url = make_url(raw)
    except ArgumentError:
        raise InputError(f"bad database URL {raw!r}") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    if url.drivername not in ("sqlite", "sqlite+pysqlite", "postgresql+psycopg"):
        raise InputError(
            f"unsupported database URL {raw!r}: use a SQLite path or a postgresql:// URL"
        )
    return url.render_as_string(hide_password=False)


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL (None for PostgreSQL or in-memory SQLite)."""
    u = make_url(url)
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
        return None
    return Path(u.database)


def display_url(url: str) -> str:
    u = make_url(url)
    path = sqlite_path(url)
    if path is not None:
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)
    return u.render_as_string(hide_password=True)


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        # readers take no lock under WAL; writers queue for the one write lock at once
        read_only = conn.get_execution_options().get(READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")


def _create_private(path: Path) -> None:
    """Create an empty SQLite file readable by its owner alone: it will hold unrevealed dice
    seeds and private fields. SQLite gives its -wal and -shm files the same permissions."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise DatabaseError(f"cannot create {path}: {exc.strerror}") from None


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
    # a server keeps SERVER_POOL connections open and never opens one per request (its
    # thread pool is as large, so requests wait for a thread, not for a new connection)
    pool = {"pool_size": SERVER_POOL, "max_overflow": 0, "pool_timeout": 30} if server else {}
    try:
        if path is not None or url.startswith("sqlite"):
            engine = create_engine(url, **pool)
            _sqlite_setup(engine)
        else:
            engine = create_engine(url, **pool,
                                   connect_args={"connect_timeout": 5} if server else {})
    except (ArgumentError, ImportError) as exc:
        raise InputError(f"bad database URL {display_url(url)!r}: {exc}") from None
    return engine


def env_url() -> str | None:
    return os.environ.get("NOMIC_CARDS_DB")
