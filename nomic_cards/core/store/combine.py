"""Writes that share a transaction: the threads of a server worker writing through one Game
take turns in one transaction, and one commit ends it for all of them.

Every write holds the ledger lock from its first statement to its commit, so a worker's writes
go one at a time however many threads ask; what each costs under load is mostly waiting: for
the lock, for each round trip, for the commit. A thread that asks while a write is under way
waits in :class:`WriteQueue`; the thread whose write is under way (the *leader*), once its own
work is done, hands the open unit of work to the first waiting thread, which does its own work
in it, in its own thread, as if it had its own transaction, and hands it on to the next; the
last hands it back, and the leader commits once. Each waiting thread's work starts at a
savepoint: if it fails, what it wrote is rolled back to there (and the live state reloaded, if
it had recorded anything), the others' work stays, and its error is its own. If the commit
fails, every thread whose work was in it gets the error. None of them returns before the
transaction has ended (a refused action may answer from what another's commit wrote: a retry
with the same key).

A thread that writes inside its own write (a nested write) does not wait here: it opens a
transaction of its own and meets the database's lock, as every nested write always did.

Rows written outside the ledger lock after a write (an action's first answer) are grouped the
same way by :class:`GroupWrite`: each thread hands its row in, and whichever thread writes next
writes every row handed in so far, in one transaction.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Generic, TypeVar

from nomic_cards.errors import DatabaseError, NomicCardsError

if TYPE_CHECKING:
    from nomic_cards.core.clock import Clock
    from nomic_cards.core.store.uow import UnitOfWork

__all__ = ["MAX_SHARED", "GroupWrite", "WriteQueue", "shared_error"]

#: the most writes one transaction takes (the leader's and those it hands on)
MAX_SHARED = 32


class _Turn:
    """One waiting thread's write."""

    def __init__(self, actor: str, clock: Clock) -> None:
        self.actor, self.clock = actor, clock
        self.handed = threading.Event()  # a unit of work to use, or the lead, is here
        self.lead = False
        self.shared: _Shared | None = None
        self.view: UnitOfWork | None = None
        self.finished = threading.Event()  # the transaction it was in has ended
        self.error: BaseException | None = None


class _Shared:
    """A transaction the leader's unit of work holds, and the writes that took a turn in it.
    Each hands it to the next waiting thread itself; the last wakes the leader to commit."""

    def __init__(self, uow: UnitOfWork, queue: WriteQueue) -> None:
        self.uow, self.queue = uow, queue
        self.turns: list[_Turn] = []
        self.over = threading.Event()
        self.error: BaseException | None = None

    def pass_on(self) -> None:
        """Hand the transaction to the next waiting thread, or, with none (or enough turns
        taken), back to the leader."""
        turn = self.queue.next_waiting() if len(self.turns) + 1 < self.queue.limit else None
        if turn is None:
            self.over.set()
            return
        try:
            turn.view = self.uow.joined(actor=turn.actor, clock=turn.clock)
        except BaseException as exc:
            self.queue.put_back(turn)
            self.error = exc
            self.over.set()
            return
        self.turns.append(turn)
        turn.shared = self
        turn.handed.set()

    def back(self, turn: _Turn, *, failed: bool) -> None:
        """``turn``'s work is over: take its changes (or undo them), then pass on."""
        assert turn.view is not None
        try:
            self.uow.rejoin(turn.view, failed=failed)
        except BaseException as exc:
            self.error = exc
            self.over.set()
            return
        self.pass_on()


def shared_error(exc: BaseException) -> BaseException:
    """The error a write gets when the transaction its work was in failed to commit."""
    if isinstance(exc, NomicCardsError):
        try:
            return type(exc)(str(exc))
        except TypeError:  # an error class made with other arguments
            pass
    return DatabaseError(f"the transaction this write shared failed: {exc}")


class WriteQueue:
    """The writes of one Game (and its acting views), in shared transactions (see the module
    docstring)."""

    def __init__(self, limit: int = MAX_SHARED) -> None:
        self.limit = limit
        self._mutex = threading.Lock()
        self._waiting: deque[_Turn] = deque()
        self._busy = False
        self._inside = threading.local()

    def next_waiting(self) -> _Turn | None:
        with self._mutex:
            return self._waiting.popleft() if self._waiting else None

    def put_back(self, turn: _Turn) -> None:
        with self._mutex:
            self._waiting.appendleft(turn)

    @contextmanager
    def turn(self, open_unit: Callable[[], AbstractContextManager[UnitOfWork]], *,
             actor: str, clock: Clock) -> Iterator[UnitOfWork]:
        """A unit of work for one write: a transaction of its own (``open_unit``) or a share
        of another thread's, as ``actor`` on ``clock``."""
        if getattr(self._inside, "writing", False):  # a write inside this thread's write
            with open_unit() as uow:
                yield uow
            return
        me = _Turn(actor, clock)
        with self._mutex:
            if self._busy:
                self._waiting.append(me)
            else:
                self._busy = me.lead = True
        if not me.lead:
            me.handed.wait()
        self._inside.writing = True
        try:
            if me.lead:
                with self._leading(open_unit) as uow:
                    yield uow
            else:
                yield from self._following(me)
        finally:
            self._inside.writing = False

    def _following(self, me: _Turn) -> Iterator[UnitOfWork]:
        shared, view = me.shared, me.view
        assert shared is not None and view is not None
        try:
            yield view
        except BaseException:
            shared.back(me, failed=True)
            me.finished.wait()  # what it answers may read what the others' commit wrote
            raise
        shared.back(me, failed=False)
        me.finished.wait()
        if me.error is not None:
            raise me.error

    @contextmanager
    def _leading(self, open_unit: Callable[[], AbstractContextManager[UnitOfWork]]
                 ) -> Iterator[UnitOfWork]:
        shared: _Shared | None = None
        try:
            with open_unit() as uow:
                yield uow
                shared = _Shared(uow, self)
                shared.pass_on()
                shared.over.wait()
                if shared.error is not None:
                    raise shared.error
        except BaseException as exc:
            for turn in shared.turns if shared is not None else ():
                turn.error = shared_error(exc)
            raise
        finally:
            for turn in shared.turns if shared is not None else ():
                turn.finished.set()
            with self._mutex:
                following = self._waiting.popleft() if self._waiting else None
                if following is None:
                    self._busy = False
            if following is not None:
                following.lead = True
                following.handed.set()


T = TypeVar("T")


class _Handed(Generic[T]):
    def __init__(self, item: T) -> None:
        self.item = item
        self.done = False
        self.error: BaseException | None = None


class GroupWrite(Generic[T]):
    """Rows that threads hand in, written together: a thread that hands its row in while
    another writes waits, then writes its own row and every other waiting one in one call of
    ``write`` (one transaction), or finds its row written already. An error of that call is
    every one of its rows' error."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._writing = threading.Lock()
        self._pending: list[_Handed[T]] = []

    def write(self, item: T, write: Callable[[list[T]], None]) -> None:
        mine = _Handed(item)
        with self._mutex:
            self._pending.append(mine)
        with self._writing:
            if not mine.done:
                with self._mutex:
                    batch, self._pending = self._pending, []
                try:
                    write([handed.item for handed in batch])
                except BaseException as exc:
                    for handed in batch:
                        if handed is not mine:
                            handed.error = shared_error(exc)
                    raise
                finally:
                    for handed in batch:
                        handed.done = True
        if mine.error is not None:
            raise mine.error
