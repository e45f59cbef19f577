"""Alembic, driven from Python (no subprocess): upgrade to head and check the revision.

The migration scripts live in the top-level ``migrations/`` folder, installed as the package
``nomic_cards.migrations`` so that they ship inside the wheel.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from nomic_cards.core.store.engine import display_url
from nomic_cards.errors import DatabaseError


def alembic_config() -> Config:
    """A programmatic Alembic config; the connection is handed over in ``attributes``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("nomic_cards.migrations")))
    return cfg


@lru_cache(maxsize=1)
def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except OperationalError as exc:
        raise DatabaseError(
            f"cannot reach database {display_url(str(engine.url))}: {_first_line(exc)}"
        ) from None


def upgrade(engine: Engine) -> None:
    """Create or upgrade the schema to the newest revision."""
    cfg = alembic_config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    except SQLAlchemyError as exc:
        raise DatabaseError(f"cannot migrate {display_url(str(engine.url))}: "
                            f"{_first_line(exc)}") from None
    except DatabaseError as exc:  # a migration that refuses the data it finds
        raise DatabaseError(f"cannot upgrade {display_url(str(engine.url))}: {exc}") from None


def require_current(engine: Engine) -> None:
    """Raise a one-line :class:`DatabaseError` naming the fix if the schema is not at head."""
    rev = current_revision(engine)
    where = display_url(str(engine.url))
    if rev is None:
        raise DatabaseError(f"database {where} is not initialised: run `nomic-cards init`")
    if rev != head_revision():
        raise DatabaseError(
            f"database {where} has schema revision {rev}, this nomic-cards needs "
            f"{head_revision()}: run `nomic-cards init` to upgrade it"
        )


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    return str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
