"""The schema revision: checked with one query, upgraded through Alembic (no subprocess).

Every command checks that the database's schema is at :data:`HEAD_REVISION` by reading the
``alembic_version`` table in a read-only transaction (through SQLAlchemy, or the plain DB-API
in :mod:`.plain`); Alembic itself is imported only by
``init`` (which creates or upgrades the schema) and by the tests, so a read command does not pay
for loading it. A test checks that :data:`HEAD_REVISION` is Alembic's head.

The migration scripts live in the top-level ``migrations/`` folder, installed as the package
``nomic_cards.migrations`` so that they ship inside the wheel.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from nomic_cards.core.store.urls import display_url
from nomic_cards.errors import DatabaseError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import Engine

#: The newest revision in ``migrations/versions/`` (kept equal to Alembic's head by a test).
HEAD_REVISION = "0010"
#: Every revision this version of nomic-cards can upgrade from, oldest first.
KNOWN_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009",
                   "0010")


def alembic_config() -> Config:
    """A programmatic Alembic config; the connection is handed over in ``attributes``."""
    import sys

    from alembic.config import Config

    # the stream is named explicitly: Config's default is sys.stdout as it was when Alembic was
    # first imported, which may be a stream captured and closed since
    cfg = Config(stdout=sys.stdout)
    cfg.set_main_option("script_location", str(resources.files("nomic_cards.migrations")))
    return cfg


def head_revision() -> str:
    """The schema revision this version of nomic-cards works with."""
    return HEAD_REVISION


def current_revision(engine: Engine) -> str | None:
    """The database's schema revision (None when it has none yet), read in a read-only
    transaction (one query; no Alembic)."""
    from sqlalchemy import inspect, text
    from sqlalchemy.exc import OperationalError, SQLAlchemyError

    from nomic_cards.core.store.engine import READ_ONLY

    where = display_url(str(engine.url))
    try:
        with engine.execution_options(**{READ_ONLY: True}).connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return None
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).all()
    except OperationalError as exc:
        raise DatabaseError(f"cannot reach database {where}: {first_line(exc)}") from None
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot read database {where}: {first_line(exc)}") from None
    return one_revision([str(r[0]) for r in rows], where)


def one_revision(rows: list[str], where: str) -> str | None:
    """The revision the rows of ``alembic_version`` name (None: no row)."""
    if len(rows) > 1:
        raise DatabaseError(f"database {where} has {len(rows)} schema revisions "
                            f"({', '.join(rows)}): it was not made by nomic-cards")
    return rows[0] if rows else None


def upgrade(engine: Engine) -> None:
    """Create or upgrade the schema to the newest revision (refusing a database whose revision
    this version does not know, such as one made by a newer nomic-cards)."""
    rev = current_revision(engine)
    if rev is not None and rev not in KNOWN_REVISIONS:
        raise DatabaseError(
            f"database {display_url(str(engine.url))} has schema revision {rev!r}, which this "
            f"nomic-cards does not know (it knows {KNOWN_REVISIONS[0]} to {HEAD_REVISION}): "
            "it was made by another version or another program"
        )
    if rev == HEAD_REVISION:
        return
    if rev is None:
        _require_empty(engine)
    from nomic_cards.core.store.engine import use_wal

    use_wal(engine)
    from alembic import command
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    cfg = alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot migrate {display_url(str(engine.url))}: "
                            f"{first_line(exc)}") from None
    except CommandError as exc:
        raise DatabaseError(f"cannot migrate {display_url(str(engine.url))}: "
                            f"{first_line(exc)}") from None
    except DatabaseError as exc:  # a migration that refuses the data it finds
        raise DatabaseError(f"cannot upgrade {display_url(str(engine.url))}: {exc}") from None


def _require_empty(engine: Engine) -> None:
    """Refuse to create the schema in a SQLite database that holds anything already: it is
    another program's, and stays exactly as it is (nothing written, its journal mode kept)."""
    if engine.dialect.name != "sqlite":
        return
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    from nomic_cards.core.store.engine import READ_ONLY

    where = display_url(str(engine.url))
    try:
        with engine.execution_options(**{READ_ONLY: True}).connect() as conn:
            names = [str(r[0]) for r in conn.execute(text(
                "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                "ORDER BY name"))]
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot read database {where}: {first_line(exc)}") from None
    if names:
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        raise DatabaseError(
            f"database {where} is not a nomic-cards database (it holds {shown}): init leaves "
            "it as it is; give another file with --db")


def require_current(engine: Engine) -> None:
    """Raise a one-line :class:`DatabaseError` naming the fix if the schema is not at head."""
    require_revision(current_revision(engine), display_url(str(engine.url)))


def require_revision(rev: str | None, where: str) -> None:
    """Raise a one-line :class:`DatabaseError` unless ``rev`` is :data:`HEAD_REVISION`."""
    if rev is None:
        raise DatabaseError(f"database {where} is not initialised: run `nomic-cards init`")
    if rev != HEAD_REVISION:
        fix = ("run `nomic-cards init` to upgrade it" if rev in KNOWN_REVISIONS
               else "it was made by another version or another program")
        raise DatabaseError(
            f"database {where} has schema revision {rev!r}, this nomic-cards needs "
            f"{HEAD_REVISION!r}: {fix}"
        )


def first_line(exc: BaseException) -> str:
    """The first line of a database error's message (of the driver's error that a SQLAlchemy
    error wraps), or its type's name when it has no message."""
    orig = getattr(exc, "orig", None) or exc
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__


def refused(exc: BaseException) -> bool:
    """Whether a database error is a refused permission (SQLSTATE 42501)."""
    orig = getattr(exc, "orig", None) or exc
    return getattr(orig, "sqlstate", None) == "42501"


def permission_hint(exc: BaseException) -> str:
    """What to do about a refused permission: the account in the URL lacks a grant that the
    documentation lists."""
    if refused(exc):
        return (" (the database account in the URL may not read this: docs/server.md and "
                "docs/dice.md list the grants of the server's and the players' accounts)")
    return ""
