"""Plain DB-API connections, for processes that only read (the CLI's read commands).

SQLAlchemy costs a command-line process more to import than the whole read takes, so a read
opens the database with the driver alone: :mod:`sqlite3` for a SQLite file, psycopg for
PostgreSQL, and reads it through :class:`~.reads.Reads` (the SQL text lives in :mod:`.sql`).

One read is one consistent snapshot: on SQLite a deferred ``BEGIN`` (under WAL it takes no
lock and never waits for a writer; ``busy_timeout`` covers the moments a checkpoint holds the
file), on PostgreSQL a ``REPEATABLE READ READ ONLY`` transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Any

from nomic_cards.core.clock import Clock, SystemClock
from nomic_cards.core.store import sql
from nomic_cards.core.store.migrate import (
    first_line,
    one_revision,
    permission_hint,
    require_revision,
)
from nomic_cards.core.store.migrate import (
    refused as permission_refused,
)
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.urls import display_url, sqlite_path
from nomic_cards.errors import DatabaseError, PermissionDenied

#: How long a SQLite read waits for a lock held by a checkpoint (as the SQLAlchemy engine).
BUSY_TIMEOUT_MS = 30000
#: Seconds the command line waits to open a PostgreSQL connection (the server: less).
CLI_CONNECT_TIMEOUT = 10
#: TCP keepalive on PostgreSQL connections: a peer gone silent is found within about 25 s.
KEEPALIVE = MappingProxyType({"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
                              "keepalives_count": 3})


def _connect_sqlite(url: str) -> Any:
    import sqlite3

    path = sqlite_path(url)
    if path is None:
        raise DatabaseError(f"database {display_url(url)}: an in-memory SQLite database holds "
                            "no game")
    if not Path(path).exists():
        raise DatabaseError(f"no database at {display_url(url)}: run `nomic-cards init` "
                            "(or pass --db / set NOMIC_CARDS_DB)")
    # autocommit mode: the transaction is begun and ended here, explicitly
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


def _connect_postgres(url: str) -> Any:
    import psycopg

    conninfo = "postgresql://" + url.split("://", 1)[1]
    return psycopg.connect(conninfo, autocommit=True, connect_timeout=CLI_CONNECT_TIMEOUT,
                           keepalives=1, keepalives_idle=KEEPALIVE["keepalives_idle"],
                           keepalives_interval=KEEPALIVE["keepalives_interval"],
                           keepalives_count=KEEPALIVE["keepalives_count"])


def _errors(postgres: bool) -> tuple[type[BaseException], type[BaseException]]:
    """(the driver's operational error, its base error)."""
    if postgres:
        import psycopg

        return psycopg.OperationalError, psycopg.Error
    import sqlite3

    return sqlite3.OperationalError, sqlite3.Error


@contextmanager
def plain_read(url: str, *, actor: str = "cli", clock: Clock | None = None,
               check_schema: bool = False) -> Iterator[Reads]:
    """A read-only snapshot transaction on a new connection to ``url`` (a URL as made by
    :func:`.urls.resolve_url`); with ``check_schema`` the schema revision is checked first,
    in the same transaction."""
    postgres = not url.startswith("sqlite")
    operational, base = _errors(postgres)
    where = display_url(url)
    try:
        conn = _connect_postgres(url) if postgres else _connect_sqlite(url)
    except operational as exc:
        raise DatabaseError(f"cannot reach database {where}: {first_line(exc)}") from None
    except base as exc:
        raise DatabaseError(f"cannot read database {where}: {first_line(exc)}") from None
    try:
        cur = conn.cursor()
        try:
            cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" if postgres
                        else "BEGIN")
            if check_schema:
                require_current(cur, postgres, where)
        except operational as exc:
            raise DatabaseError(f"cannot reach database {where}: {first_line(exc)}") from None
        except base as exc:
            raise _error_for(exc)(f"cannot read database {where}: {first_line(exc)}"
                                f"{permission_hint(exc)}") from None
        try:
            yield Reads(cur, postgres=postgres, actor=actor, clock=clock or SystemClock())
            cur.execute("COMMIT")
        except operational as exc:
            raise DatabaseError(f"database {where} failed: {first_line(exc)}") from None
        except base as exc:
            raise _error_for(exc)(f"database error: {first_line(exc)}{permission_hint(exc)}") \
                from None
    finally:
        conn.close()


def current_revision(cur: Any, postgres: bool, where: str) -> str | None:
    """The schema revision (None when there is none yet); see :mod:`.migrate`."""
    cur.execute(sql.REVISION_TABLE_POSTGRESQL if postgres else sql.REVISION_TABLE_SQLITE)
    exists = cur.fetchone()
    if exists is None or not exists[0]:
        return None
    cur.execute(sql.REVISION)
    return one_revision([str(r[0]) for r in cur.fetchall()], where)


def require_current(cur: Any, postgres: bool, where: str) -> None:
    require_revision(current_revision(cur, postgres, where), where)


def _error_for(exc: BaseException) -> type[DatabaseError]:
    return PermissionDenied if permission_refused(exc) else DatabaseError
