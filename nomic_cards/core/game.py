"""The :class:`Game`: one game database opened for use, with its clock and settings.

Every use case in :mod:`nomic_cards.core.services` takes a Game as its first argument. A Game
owns its SQLAlchemy engine (a pool of connections, made when first needed), so one Game may be
shared by many threads: each use case runs in its own unit of work on its own connection. A use
case that only reads runs in :meth:`Game.read`, which outside a server opens one plain DB-API
connection instead (:mod:`nomic_cards.core.store.plain`), so that a read command never loads
SQLAlchemy. A use case that records something runs in :meth:`Game.write`. Build one Game per
process (the CLI builds one per invocation; the server one per worker) and close it when done::

    from nomic_cards.core import api

    with api.Game("cards.db") as game:
        api.deal(game, "Ienne")
"""

from __future__ import annotations

import copy
import getpass
import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.settings import GameSettings
from nomic_cards.core.store.cached import StateCache
from nomic_cards.core.store.combine import GroupWrite, WriteQueue
from nomic_cards.core.store.urls import display_url, resolve_url, sqlite_path
from nomic_cards.errors import DatabaseError, RuleViolation
from nomic_cards.inputs import MAX_ACTOR, check_text

if TYPE_CHECKING:
    from nomic_cards.core.services.time import NweekStart
    from nomic_cards.core.store.engine import Engine
    from nomic_cards.core.store.reads import Reads
    from nomic_cards.core.store.uow import UnitOfWork

NO_GAME = "this database holds no game yet: run `nomic-cards init`"


class WriteHook(Protocol):
    """Work an adapter adds to every writing unit of work of a :meth:`Game.acting` view:
    ``begin`` once the ledger lock is held (before the nweek boundary work), ``end`` just
    before the commit. The server's actions check ``If-Match`` and the ``Idempotency-Key``
    there, so both are decided under the lock and recorded in the action's own transaction."""

    def begin(self, uow: UnitOfWork) -> None: ...

    def end(self, uow: UnitOfWork) -> None: ...


def default_actor() -> str:
    """Who is acting: ``NOMIC_CARDS_ACTOR``, else the login name."""
    env = os.environ.get("NOMIC_CARDS_ACTOR")
    if env:
        return check_text(env, "NOMIC_CARDS_ACTOR", MAX_ACTOR)
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
        if path is not None and not create and not path.exists():
            raise DatabaseError(f"no database at {display_url(self.url)}: run `nomic-cards "
                                "init` (or pass --db / set NOMIC_CARDS_DB)")
        #: the SQLite file this Game created (removed by :meth:`discard_new_file`)
        self._new_file = path if create and path is not None and not path.exists() else None
        self._create = create
        self._server = server
        #: reads go through the plain DB-API (not in a server, which keeps its pool)
        self._plain_reads = not server and (path is not None or not self.url.startswith("sqlite"))
        self._made_engine: Engine | None = None
        self._schema_checked = False
        self._lock = threading.Lock()
        #: the nweek starts that writing units of work did first, as of their boundaries,
        #: before their own work (committed ones only; the CLI tells the officer of them)
        self.caught_up: list[NweekStart] = []
        self._hook: WriteHook | None = None
        #: the live state of the last write, for the next (shared with the acting views)
        self._states = StateCache()
        #: the writes of this Game and its acting views, in shared transactions (see
        #: :meth:`write`)
        self._writes = WriteQueue()
        #: the actions' first answers (``Idempotency-Key``), written together by
        #: :func:`~nomic_cards.core.services.acting.perform`: (player id, key, status, text)
        self.answers: GroupWrite[tuple[int, str, int, str]] = GroupWrite()
        if not self._plain_reads:
            self._make_engine()

    def _make_engine(self) -> Engine:
        """The SQLAlchemy engine, made on first use (a process that only reads never loads
        SQLAlchemy)."""
        engine = self._made_engine
        if engine is None:
            with self._lock:
                if self._made_engine is None:
                    from nomic_cards.core.store.engine import make_engine

                    self._made_engine = make_engine(self.url, must_exist=not self._create,
                                                    server=self._server)
                engine = self._made_engine
        return engine

    def acting(self, actor: str, hook: WriteHook | None = None) -> Game:
        """This Game as ``actor`` (recorded on every event it writes), sharing its connection
        pool; ``hook`` runs inside each of its writing units of work (:class:`WriteHook`).
        The server makes one per action; closing it closes nothing."""
        self._check_schema()  # once, here: each view would check it again for itself
        other = copy.copy(self)
        other.actor = check_text(actor, "the actor", MAX_ACTOR)
        other.caught_up = []
        other._hook = hook
        return other

    @property
    def _engine(self) -> Engine:
        return self._make_engine()

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for the store's long-running watchers: the server's event
        streams listen for new events on it)."""
        return self._make_engine()

    @property
    def database(self) -> str:
        """The database for display: a relative SQLite path, or the URL without password."""
        return display_url(self.url)

    def migrate(self) -> None:
        """Create or upgrade the schema to the newest revision."""
        from nomic_cards.core.store.migrate import upgrade

        engine = self._engine
        with self._lock:
            upgrade(engine)
            self._schema_checked = True

    def _check_schema(self) -> None:
        if self._schema_checked:
            return
        from nomic_cards.core.store.migrate import require_current

        engine = self._engine
        with self._lock:
            if not self._schema_checked:
                require_current(engine)
                self._schema_checked = True

    @contextmanager
    def write(self, *, catch_up: bool = True, need_game: bool = True
              ) -> Iterator[UnitOfWork]:
        """The door for every use case that records something: one transaction holding the
        ledger lock; commit on success, roll back on an error. With ``need_game`` (the
        default) a database holding no game yet is refused (``init`` passes False).

        It first does the work due at every nweek boundary that has passed and is not done yet
        (:func:`~nomic_cards.core.services.time.catch_up`), each as of its boundary: whatever
        it then records comes after, so what the ledger says happened at a boundary never
        depends on when ``tick`` ran. ``catch_up`` false is for ``tick``, which does that work
        itself an nweek per transaction, and for ``init``.

        The writes of one Game (and of its :meth:`acting` views) run one at a time, and those
        of threads that ask while one is under way share its transaction, each from a savepoint
        of its own, with one commit for all (:mod:`~nomic_cards.core.store.combine`): the
        threads of a server worker queue for their Game rather than for the database's lock,
        and the live state one transaction keeps is there for the next
        (:mod:`~nomic_cards.core.store.cached`)."""
        from nomic_cards.core.store.uow import translated, unit_of_work

        self._check_schema()
        started: list[NweekStart] = []

        def own_unit() -> AbstractContextManager[UnitOfWork]:
            return unit_of_work(self._engine, actor=self.actor, clock=self.clock,
                                emails=not self._server, cache=self._states,
                                queue=self._server)

        # a turn in another thread's transaction has its database errors told as one line too
        with translated(self._engine), \
                self._writes.turn(own_unit, actor=self.actor, clock=self.clock) as uow:
            if need_game and not uow.state.initialised:
                raise RuleViolation(NO_GAME)
            if isinstance(self.clock, FixedClock):
                uow.check_clock()
            hook = self._hook
            if hook is not None:
                hook.begin(uow)
            if catch_up and uow.state.initialised:
                from nomic_cards.core.services.time import catch_up as do_boundary_work

                started = do_boundary_work(uow)
            yield uow
            if hook is not None:
                hook.end(uow)
        self.caught_up.extend(started)

    @contextmanager
    def read(self, *, need_game: bool = True) -> Iterator[Reads]:
        """The door for every use case that only reads: a read-only transaction on one
        snapshot of the game, read through :class:`~nomic_cards.core.store.reads.Reads`: on a
        plain DB-API connection of its own, or (in a server, or an in-memory database) on a
        pooled one. With ``need_game`` (the default) a database holding no game yet is
        refused, which loads the state; the narrow reads of the server's hot paths pass False,
        and on PostgreSQL run without a transaction (each statement its own snapshot, less the
        round trips of a ``BEGIN`` and a ``COMMIT``: they read in one statement, or need no
        two statements to agree)."""
        if self._plain_reads:
            from nomic_cards.core.store.plain import plain_read

            with plain_read(self.url, actor=self.actor, clock=self.clock,
                            check_schema=not self._schema_checked) as unit:
                self._schema_checked = True
                if need_game and not unit.state.initialised:
                    raise RuleViolation(NO_GAME)
                yield unit
            return
        from nomic_cards.core.store.uow import reading

        self._check_schema()
        with reading(self._engine, actor=self.actor, clock=self.clock,
                     emails=not self._server, snapshot=need_game) as unit:
            if need_game and not unit.state.initialised:
                raise RuleViolation(NO_GAME)
            yield unit

    def discard_new_file(self) -> None:
        """Remove the SQLite file (and its journals) if this Game created it: an ``init``
        that failed leaves nothing behind."""
        if self._new_file is None:
            return
        if self._made_engine is not None:
            self._made_engine.dispose()
        for suffix in ("", "-wal", "-shm", "-journal", "-writer"):
            Path(f"{self._new_file}{suffix}").unlink(missing_ok=True)
        self._new_file = None

    def keep_new_file(self) -> None:
        """The file this Game created holds a game now: never discard it."""
        self._new_file = None

    def close(self) -> None:
        """Close every pooled connection."""
        if self._made_engine is not None:
            self._made_engine.dispose()

    def __enter__(self) -> Game:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
