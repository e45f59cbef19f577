"""Database URLs: the ``--db`` value made into a URL, the SQLite file behind one, and the form
shown to people. Handled with the standard library alone: a read command does not load
SQLAlchemy. The URL given is kept as it is but for its scheme (``postgresql://`` becomes
``postgresql+psycopg://``, the driver used), so SQLAlchemy's engine and the plain reads of
:mod:`.plain` read the same URL; a SQLite path is kept as written (relative to the working
directory when relative), so that messages show it as the user typed it."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from nomic_cards.core.settings import DEFAULT_DATABASE_FILE
from nomic_cards.errors import InputError

_SQLITE_SCHEMES = ("sqlite://", "sqlite+pysqlite://")
_PSYCOPG = "postgresql+psycopg://"
#: what SQLAlchemy accepts as a URL scheme (a dialect, and a driver after ``+``)
_SCHEME = re.compile(r"[\w+]+")


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
        # kept as given (a relative path stays relative to the working directory), so that
        # every message names the file as the user wrote it; only ``~`` is expanded
        return f"sqlite:///{Path(raw).expanduser() if raw.startswith('~') else raw}"
    scheme, _, rest = raw.partition("://")
    driver = scheme.lower()
    if driver in ("postgresql", "postgres", "postgresql+psycopg"):
        driver = "postgresql+psycopg"
    if driver not in ("sqlite", "sqlite+pysqlite", "postgresql+psycopg"):
        if not _SCHEME.fullmatch(scheme):
            raise InputError(f"bad database URL {raw!r}")
        raise InputError(
            f"unsupported database URL {raw!r}: use a SQLite path or a postgresql:// URL"
        )
    try:
        urlsplit(f"{driver}://{rest}").port  # noqa: B018  (a bad port raises here)
    except ValueError:
        raise InputError(f"bad database URL {raw!r}") from None
    return f"{driver}://{rest}"


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
    """The database as the user gave it: a SQLite file's path as written (relative or
    absolute), or the URL with the scheme ``postgresql://`` (not the driver's
    ``postgresql+psycopg://`` that :func:`resolve_url` puts in) and without its password."""
    database = _sqlite_database(url)
    if database and database != ":memory:":
        return database
    if url.startswith(_PSYCOPG):
        url = "postgresql://" + url[len(_PSYCOPG):]
    parts = urlsplit(url)
    if parts.password is not None:
        user, _, host = parts.netloc.rpartition("@")
        parts = parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}")
    if parts.query:  # libpq takes a password in the query too: ?password=...
        query = [(k, "***" if k.lower() == "password" else v)
                 for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        parts = parts._replace(query=urlencode(query, safe="*"))
    return urlunsplit(parts)
