"""Database URLs: the ``--db`` value made into a URL, the SQLite file behind one, and the form
shown to people. SQLite paths are handled without SQLAlchemy (a read command does not load it);
other URLs are parsed by SQLAlchemy's URL parser, loaded only then."""

from __future__ import annotations

from pathlib import Path

from nomic_cards.core.settings import DEFAULT_DATABASE_FILE
from nomic_cards.errors import InputError

_SQLITE_SCHEMES = ("sqlite://", "sqlite+pysqlite://")


def resolve_url(db: str | None) -> str:
    """The SQLAlchemy URL for a ``--db`` value: nothing means the default file in the working
    directory; a plain path means a SQLite file; a URL is taken as it is (``postgresql://`` is
    read through psycopg 3)."""
    if db is not None and not db.strip():
        raise InputError("the database is given as an empty string (--db ''): name a SQLite "
                         "file or a database URL")
    raw = (db or DEFAULT_DATABASE_FILE).strip()
    if "://" not in raw:
        if not raw:
            raise InputError("empty database path")
        return f"sqlite:///{Path(raw).expanduser().resolve()}"
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(raw)
        url.port  # noqa: B018  (a bad port raises here)
    except (ArgumentError, ValueError):
        raise InputError(f"bad database URL {raw!r}") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    if url.drivername not in ("sqlite", "sqlite+pysqlite", "postgresql+psycopg"):
        raise InputError(
            f"unsupported database URL {raw!r}: use a SQLite path or a postgresql:// URL"
        )
    return url.render_as_string(hide_password=False)


def _sqlite_database(url: str) -> str | None:
    """The database part of a SQLite URL (None: not a SQLite URL)."""
    for scheme in _SQLITE_SCHEMES:
        if url.startswith(scheme):
            rest = url[len(scheme):]
            if not rest.startswith("/"):  # sqlite://host/... is not a file URL
                return None
            return rest[1:].split("?", 1)[0]
    return None


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL (None for PostgreSQL or in-memory SQLite)."""
    database = _sqlite_database(url)
    if not database or database == ":memory:":
        return None
    return Path(database)


def display_url(url: str) -> str:
    """A relative SQLite path, or the URL without its password."""
    path = sqlite_path(url)
    if path is not None:
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)
    if _sqlite_database(url) is not None:
        return url
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
