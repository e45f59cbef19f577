"""The schema made and upgraded through Alembic (no subprocess).

Alembic and SQLAlchemy are imported only by ``init`` (which creates or upgrades the schema,
:func:`upgrade`) and by the tests, so no other command pays for loading them; every other
command checks the revision with one query (:mod:`.schema`). A test checks that
:data:`~.schema.HEAD_REVISION` is Alembic's head.

The migration scripts live in the top-level ``migrations/`` folder, installed as the package
``nomic_cards.migrations`` so that they ship inside the wheel.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nomic_cards.core.store.failures import first_line
from nomic_cards.core.store.schema import HEAD_REVISION, KNOWN_REVISIONS
from nomic_cards.core.store.urls import display_url
from nomic_cards.errors import DatabaseError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Engine

def alembic_config() -> Config:
    """A programmatic Alembic config; the connection is handed over in ``attributes``."""
    import sys

    from alembic.config import Config

    # the stream is named explicitly: Config's default is sys.stdout as it was when Alembic was
    # first imported, which may be a stream captured and closed since
    cfg = Config(stdout=sys.stdout)
    cfg.set_main_option("script_location", str(resources.files("nomic_cards.migrations")))
    return cfg


def migration_engine(url: str) -> Engine:
    """A SQLAlchemy engine for Alembic on ``url`` (SQLite: foreign keys on, and every
    transaction a ``BEGIN IMMEDIATE`` of its own, so a migration is all or nothing)."""
    from sqlalchemy import create_engine, event

    engine = create_engine(url, poolclass=_null_pool())
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # BEGIN is sent below
            dbapi_conn.execute("PRAGMA foreign_keys=ON")
            dbapi_conn.execute("PRAGMA busy_timeout=30000")

        @event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
    return engine


def _null_pool() -> Any:
    from sqlalchemy.pool import NullPool

    return NullPool


def upgrade(url: str) -> None:
    """Create or upgrade the schema of the database at ``url`` to the newest revision (a
    missing SQLite file is made), refusing a database whose revision this version does not
    know (one made by a newer nomic-cards) and a SQLite file that holds another program's
    tables."""
    from nomic_cards.core.store.connect import Database

    where = display_url(url)
    database = Database(url, create=True)
    try:
        with database.transaction("read") as cur:
            rev = _revision(cur, database.postgres, where)
            if rev is None and not database.postgres:
                _require_empty(cur, where)
    finally:
        database.close()
    if rev is not None and rev not in KNOWN_REVISIONS:
        raise DatabaseError(
            f"database {where} has schema revision {rev!r}, which this nomic-cards does not "
            f"know (it knows {KNOWN_REVISIONS[0]} to {HEAD_REVISION}): it was made by another "
            "version or another program")
    if rev == HEAD_REVISION:
        return
    if database.path is not None:
        _use_wal(database.path, where)
    from alembic import command
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    cfg = alembic_config()
    engine = migration_engine(url)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    except (SQLAlchemyError, CommandError) as exc:
        raise DatabaseError(f"cannot migrate {where}: {first_line(exc)}") from None
    except DatabaseError as exc:  # a migration that refuses the data it finds
        raise DatabaseError(f"cannot upgrade {where}: {exc}") from None
    finally:
        engine.dispose()


def _revision(cur: Any, postgres: bool, where: str) -> str | None:
    """The schema revision read on a cursor (None: none yet)."""
    from nomic_cards.core.clock import SystemClock
    from nomic_cards.core.store.reads import Reads

    return Reads(cur, postgres=postgres, actor="", clock=SystemClock()).revision(where)


def _use_wal(path: Path, where: str) -> None:
    """Switch a SQLite database to WAL journaling (kept in the file): readers never wait for
    a writer. Only for a database checked to be a nomic-cards one, or empty."""
    import sqlite3

    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot use {where}: {exc}") from None
    finally:
        conn.close()


def _require_empty(cur: Any, where: str) -> None:
    """Refuse to create the schema in a SQLite database that holds anything already: it is
    another program's, and stays exactly as it is (nothing written, its journal mode kept)."""
    cur.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                "ORDER BY name")
    names = [str(r[0]) for r in cur.fetchall()]
    if names:
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        raise DatabaseError(
            f"database {where} is not a nomic-cards database (it holds {shown}): init leaves "
            "it as it is; give another file with --db")


