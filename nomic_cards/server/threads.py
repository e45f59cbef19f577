"""Where a worker runs its requests' database work: in threads, in two lanes, with a deadline.

The database drivers block, so every read runs in a thread. Each statement gives up the
interpreter lock while the database works and must take it back to go on; the more threads
want it, the longer a request's tail of waits (docs/server.md, "Request threads").

- **The quick lane** (:data:`QUICK_THREADS`, one thread): the requests that a few indexed
  statements answer without loading the game -- ``/healthz``, the ledger head, ``/me/hand``
  now, the token check of a stream. One thread takes no lock from another of its kind, and
  the event loop parses the next requests while it waits on the database.
- **The general lane** (:data:`REQUEST_THREADS`): everything else -- a state load, a replay, a
  report -- so that a slow read never holds up the quick ones, and the quick ones never queue
  behind it.

Past :data:`REQUEST_DEADLINE` a request is answered 503 at once, its lane's place given back,
and the thread left to finish (the database watchdog,
:class:`~nomic_cards.core.store.engine.Watchdog`, wakes it if the database never answers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.datastructures import State
from starlette.requests import Request

from nomic_cards.errors import DatabaseError

T = TypeVar("T")

#: Seconds a request waits for its answer from the database before it is answered 503.
REQUEST_DEADLINE = 5.0
#: Threads of a worker's general lane. Few: with 16 the readers' p99 was twice what it is
#: with 4, for no more requests a second.
REQUEST_THREADS = 4
#: Threads of a worker's quick lane: one (with the quick reads in the general lane,
#: PostgreSQL ``/me/hand``'s p99 was twice what it is here).
QUICK_THREADS = 1


def set_up(state: State) -> None:
    """Size the general lane (anyio's default limiter) and make the quick lane, as
    ``state.quick``; called from the app's lifespan, on the event loop."""
    anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS
    state.quick = anyio.CapacityLimiter(QUICK_THREADS)


def quick(request: Request) -> anyio.CapacityLimiter:
    """The quick lane of ``request``'s worker."""
    lane: anyio.CapacityLimiter = request.app.state.quick
    return lane


async def in_thread(fn: Callable[..., T], *args: object,
                    lane: anyio.CapacityLimiter | None = None) -> T:
    """``fn(*args)`` in a thread of ``lane`` (default: the general lane), answered 503
    (:class:`~nomic_cards.errors.DatabaseError`) past the deadline."""
    try:
        with anyio.fail_after(REQUEST_DEADLINE):
            return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True,
                                                  limiter=lane)
    except TimeoutError:
        raise DatabaseError("the database did not answer in time") from None
