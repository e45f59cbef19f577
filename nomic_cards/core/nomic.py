"""The :class:`Nomic`: one nomic's Cards database opened for use (the handle), with its clock and
settings, and the two doors every use case goes through. The caller owns the transaction::

    from nomic_cards.core import api

    with api.Nomic("cards.db") as nomic:
        with nomic.write(actor="PurpleBob") as tx:   # the ledger lock, one transaction
            api.deal(tx, "Ienne")
        with nomic.read() as tx:                      # one snapshot
            print(api.hand(tx, "Ienne").cards)

A use case takes the transaction it is given and never commits: the command line opens one per
command, the server one per request, a script one per unit of work it wants kept whole. A
write opened inside another write of the same thread is a savepoint of it; a read opened inside
a write reads that write's transaction.
"""

from __future__ import annotations

import getpass
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from types import TracebackType

from nomic_cards.core.clock import Clock, FixedClock, SystemClock
from nomic_cards.core.settings import GameSettings
from nomic_cards.core.store.connect import Database
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.urls import display_url, resolve_url, sqlite_path
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import RuleViolation
from nomic_cards.inputs import MAX_ACTOR, check_text

__all__ = ["NO_GAME", "Nomic", "Reads", "Tx", "default_actor"]

NO_GAME = "this database holds no game yet: run `nomic-cards init`"
#: how far ahead of the real time a write may be dated (clocks that disagree a little)
FUTURE_SKEW = timedelta(minutes=5)


def default_actor() -> str:
    """Who is acting: ``NOMIC_CARDS_ACTOR``, else the login name."""
    env = os.environ.get("NOMIC_CARDS_ACTOR")
    if env:
        return check_text(env, "NOMIC_CARDS_ACTOR", MAX_ACTOR)
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # pragma: no cover - no login name
        return "unknown"


class Nomic:
    """One nomic's Cards database opened for use (see the module docstring).

    ``db`` is a SQLite file path or a database URL (None: ``nomic-cards.db`` in the working
    directory). With ``create`` a missing SQLite file may be created (``init`` does that);
    otherwise it is an error. ``clock`` times the events (a :class:`FixedClock` before the
    ledger's last event makes every write refuse at once); ``actor`` is who the events name
    when a write does not say; ``settings`` are used only when a new game is created.
    ``server`` is a long-running process's: a pool of PostgreSQL connections with bounds, and
    no player's e-mail address read (its account may not). A write dated more than
    :data:`FUTURE_SKEW` after the real time is refused (the ledger would then refuse every
    write until that time came) unless ``allow_future``: for rehearsals on a scratch database.
    """

    def __init__(self, db: str | None = None, *, clock: Clock | None = None,
                 settings: GameSettings | None = None, actor: str | None = None,
                 create: bool = False, server: bool = False,
                 allow_future: bool = False) -> None:
        self.url = resolve_url(db)
        self.clock: Clock = clock or SystemClock()
        self.settings = settings or GameSettings()
        self.actor = actor or default_actor()
        path = sqlite_path(self.url)
        #: the SQLite file this Nomic created (removed by :meth:`discard_new_file`)
        self._new_file = path if create and path is not None and not path.exists() else None
        self.db = Database(self.url, create=create, server=server)
        self._emails = not server
        self._server = server
        self._allow_future = allow_future
        self._schema_checked = False
        self._local = threading.local()

    @property
    def database(self) -> str:
        """The database for display: a relative SQLite path, or the URL without password."""
        return display_url(self.url)

    def migrate(self) -> None:
        """Create or upgrade the schema to the newest revision (through Alembic)."""
        from nomic_cards.core.store.migrate import upgrade

        upgrade(self.url)
        self._schema_checked = True
        self.db.make_writers_lock()

    def _check_schema(self, r: Reads) -> None:
        if not self._schema_checked:
            from nomic_cards.core.store.schema import require_revision

            require_revision(r.revision(self.database), self.database)
            self._schema_checked = True
            if self._server:  # a game's database: its writers queue on a lock file
                self.db.make_writers_lock()

    def _open(self) -> Tx | None:
        tx: Tx | None = getattr(self._local, "tx", None)
        return tx

    @contextmanager
    def write(self, actor: str | None = None, *, catch_up: bool = True,
              need_game: bool = True,
              token: tuple[str, str | None] | None = None) -> Iterator[Tx]:
        """A writing transaction holding the ledger lock, as ``actor`` (default: the Nomic's):
        committed when the block ends, rolled back on an error. With ``need_game`` (the
        default) a database holding no game yet is refused (``init`` passes False).

        It first does the work due at every nweek boundary, and closes every card game window,
        that has passed and is not done yet (:func:`~nomic_cards.core.services.time.catch_up`),
        each as of its moment: what the ledger says happened at a boundary never depends on
        when anyone next wrote. ``catch_up`` false is for ``tick`` (which does that work
        itself), for ``init``, and for the server's actions (which check the token first).

        ``token`` (a token's selector and an ``Idempotency-Key``: the server's actions) is read
        with the lock, in the same round trip (:meth:`Tx.token_and_key`).

        Inside another write of this thread it is a savepoint of that write (``actor`` acts
        for the block alone)."""
        who = check_text(actor, "the actor", MAX_ACTOR) if actor is not None else None
        self._check_not_future()
        outer = self._open()
        if outer is not None:
            saved = outer.actor
            outer.actor = who or saved
            try:
                with outer.savepoint():
                    yield outer
            finally:
                outer.actor = saved
            return
        with self.db.transaction("write") as cur:
            tx = Tx(cur, postgres=self.db.postgres, actor=who or self.actor, clock=self.clock,
                    emails=self._emails)
            self._local.tx = tx
            try:
                self._check_schema(tx)
                tx.lock_head(token)
                if need_game and not tx.state.initialised:
                    raise RuleViolation(NO_GAME)
                if isinstance(tx.clock, FixedClock):
                    tx.check_clock()
                if catch_up and tx.state.initialised:
                    from nomic_cards.core.services.time import catch_up as boundary_work

                    tx.caught_up = list(boundary_work(tx))
                yield tx
            finally:
                self._local.tx = None

    def _check_not_future(self) -> None:
        when, now = self.clock.now(), SystemClock().now()
        if not self._allow_future and when > now + FUTURE_SKEW:
            shown = now.replace(microsecond=0).isoformat()
            raise RuleViolation(
                f"the time {when.isoformat()} is after now ({shown}): a write dated in the "
                "future would make the ledger refuse every write until then; rehearse on a "
                "scratch database with --allow-future")

    @contextmanager
    def read(self, *, need_game: bool = True, snapshot: bool = False) -> Iterator[Reads]:
        """A read of one snapshot of the game. With ``need_game`` (the default) a database
        holding no game yet is refused (which loads the state); the narrow reads of the
        server's hot paths pass False and, on PostgreSQL, run without a transaction (each of
        their statements its own snapshot) unless ``snapshot`` (``ledger verify``: one
        snapshot, the tables not read before it asks). Inside a write of this thread it reads
        that write's transaction."""
        outer = self._open()
        if outer is not None:
            yield outer
            return
        with self.db.transaction("read" if need_game or snapshot else "narrow") as cur:
            r = Reads(cur, postgres=self.db.postgres, actor=self.actor, clock=self.clock,
                      emails=self._emails)
            self._check_schema(r)
            if need_game and not r.state.initialised:
                raise RuleViolation(NO_GAME)
            yield r

    def discard_new_file(self) -> None:
        """Remove the SQLite file (and its journals) if this Nomic created it: an ``init``
        that failed leaves nothing behind."""
        if self._new_file is None:
            return
        self.db.close()
        for suffix in ("", "-wal", "-shm", "-journal", "-lock"):
            Path(f"{self._new_file}{suffix}").unlink(missing_ok=True)
        self._new_file = None

    def keep_new_file(self) -> None:
        """The file this Nomic created holds a game now: never discard it."""
        self._new_file = None

    def close(self) -> None:
        """Close every connection kept open."""
        self.db.close()

    def __enter__(self) -> Nomic:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

