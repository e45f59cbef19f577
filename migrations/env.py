"""Alembic environment: runs migrations on the connection nomic-cards hands over (or on the
URL in the config when run by the ``alembic`` command)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from nomic_cards.core.store import models  # noqa: F401  (registers the tables)
from nomic_cards.core.store.base import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite:///nomic-cards.db")
    with engine.begin() as conn:
        _run(conn)


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"),
                      target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
