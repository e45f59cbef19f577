"""The :class:`Game`: one game database opened for use, with its clock and settings.

Every use case in :mod:`nomic_cards.core.services` takes a Game as its first argument. A Game
owns its SQLAlchemy engine (a pool of connections), so one Game may be shared by many threads:
each use case runs in its own unit of work on its own connection. Build one per process (the
CLI builds one per invocation; the server one per worker) and close it when done::

    from nomic_cards.core import Game, services

    with Game("cards.db") as game:
        services.deal(game, "Ienne")
"""

from __future__ import annotations

import getpass
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.settings import GameSettings
from nomic_cards.core.store.engine import display_url, make_engine, resolve_url, sqlite_path
from nomic_cards.core.store.migrate import require_current, upgrade
from nomic_cards.core.store.reads import Reader
from nomic_cards.core.store.uow import UnitOfWork, reading, unit_of_work
from nomic_cards.errors import RuleViolation


def default_actor() -> str:
    """Who is acting: ``NOMIC_CARDS_ACTOR``, else the login name."""
    env = os.environ.get("NOMIC_CARDS_ACTOR")
    if env:
        return env
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # pragma: no cover - no login name
        return "unknown"


class Game:
    """A game database opened for use (see the module docstring).

    ``db`` is a SQLite file path or a database URL (None: ``nomic-cards.db`` in the working
    directory). With ``create`` a missing SQLite file may be created (``init`` does that);
    otherwise it is an error. A :class:`FixedClock` (``--at``) that is before the ledger's last
    event makes every writing unit of work refuse at once, whether or not it would record
    anything. ``settings`` are used only when a new game is created. ``server``
    tunes the connections for a long-running process (a connect timeout and a larger pool; a
    connection found broken discards the whole pool, so service resumes by itself when the
    database is back).
    """

    def __init__(self, db: str | None = None, *, clock: Clock | None = None,
                 settings: GameSettings | None = None, actor: str | None = None,
                 create: bool = False, server: bool = False) -> None:
        self.url = resolve_url(db)
        self.clock: Clock = clock or SystemClock()
        self.settings = settings or GameSettings()
        self.actor = actor or default_actor()
        path = sqlite_path(self.url)
        #: the SQLite file this Game created (removed by :meth:`discard_new_file`)
        self._new_file = path if create and path is not None and not path.exists() else None
        self._engine = make_engine(self.url, must_exist=not create, server=server)
        self._schema_checked = False
        self._lock = threading.Lock()

    @property
    def database(self) -> str:
        """The database for display: a relative SQLite path, or the URL without password."""
        return display_url(self.url)

    def migrate(self) -> None:
        """Create or upgrade the schema to the newest revision."""
        with self._lock:
            upgrade(self._engine)
            self._schema_checked = True

    def _check_schema(self) -> None:
        if self._schema_checked:
            return
        with self._lock:
            if not self._schema_checked:
                require_current(self._engine)
                self._schema_checked = True

    @contextmanager
    def unit_of_work(self, *, write: bool = True,
                     need_game: bool = True) -> Iterator[UnitOfWork]:
        """One transaction: the ledger lock when ``write``; commit on success, roll back on an
        error. With ``need_game`` a database holding no game yet is refused."""
        self._check_schema()
        with unit_of_work(self._engine, actor=self.actor, clock=self.clock,
                          write=write) as uow:
            if need_game and not uow.state.initialised:
                raise RuleViolation("this database holds no game yet: run `nomic-cards init`")
            if write and isinstance(self.clock, FixedClock):
                uow.check_clock()
            yield uow

    @contextmanager
    def reader(self) -> Iterator[Reader]:
        """A read-only transaction on one pooled connection, for the narrow queries of hot
        paths (no state is loaded)."""
        self._check_schema()
        with reading(self._engine) as reader:
            yield reader

    def discard_new_file(self) -> None:
        """Remove the SQLite file (and its journals) if this Game created it: an ``init``
        that failed leaves nothing behind."""
        if self._new_file is None:
            return
        self._engine.dispose()
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self._new_file}{suffix}").unlink(missing_ok=True)
        self._new_file = None

    def keep_new_file(self) -> None:
        """The file this Game created holds a game now: never discard it."""
        self._new_file = None

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

    def __enter__(self) -> Game:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
