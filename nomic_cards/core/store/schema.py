"""The schema revision a database must be at, and the check of it: the one query's rows
(:meth:`.reads.Reads.revision`) against :data:`HEAD_REVISION`. Nothing here imports Alembic or
SQLAlchemy (:mod:`.migrate` upgrades the schema).
"""

from __future__ import annotations

from nomic_cards.errors import DatabaseError

#: The newest revision in ``migrations/versions/`` (kept equal to Alembic's head by a test).
HEAD_REVISION = "0013"
#: Every revision this version of nomic-cards can upgrade from, oldest first.
KNOWN_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009",
                   "0010", "0011", "0012", "0013")


def head_revision() -> str:
    """The schema revision this version of nomic-cards works with."""
    return HEAD_REVISION


def one_revision(rows: list[str], where: str) -> str | None:
    """The revision the rows of ``alembic_version`` name (None: no row)."""
    if len(rows) > 1:
        raise DatabaseError(f"database {where} has {len(rows)} schema revisions "
                            f"({', '.join(rows)}): it was not made by nomic-cards")
    return rows[0] if rows else None


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
