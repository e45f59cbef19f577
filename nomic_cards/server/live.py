"""Live event streams (Server-Sent Events): ``GET /api/v1/events`` (the public record) and
``GET /api/v1/me/events`` (the same, with the token's player's own notices).

Each frame's ``id:`` is the event's ledger number, so a client that reconnects with
``Last-Event-ID`` resumes from the ledger itself: nothing is lost across a dropped connection
or a restart. New events reach a worker through :func:`~nomic_cards.core.services.live.
watch_ledger` (PostgreSQL ``LISTEN/NOTIFY``; on SQLite the ledger head watched), in one thread
per worker; every stream of the worker then reads them from one shared read of the database
(:class:`LedgerWatch`), each taking its own player's notices alone. A comment line (``: ping``)
goes out every :data:`PING` seconds when nothing else did; a stream ends after
:data:`MAX_AGE` seconds (the client reconnects with ``Last-Event-ID``), and a connection whose
peer has vanished is closed by the kernel (``serve`` sets ``TCP_USER_TIMEOUT`` on its socket).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, replace
from types import MappingProxyType

import anyio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from nomic_cards.core.game import Game
from nomic_cards.core.services import live
from nomic_cards.errors import DatabaseError, InputError
from nomic_cards.server.threads import in_thread, quick

#: seconds between comment pings on an idle stream
PING = 15.0
#: seconds a stream lasts before the server ends it (the client reconnects, losing nothing)
MAX_AGE = 3600.0
#: streams one player may hold open in one worker, and streams per worker
PER_PLAYER = 8
PER_WORKER = 4000
#: events kept in the shared cache of a worker
KEEP = 2000


class LedgerWatch:
    """A worker's view of the ledger head, fed by a watcher thread, and a cache of the newest
    events (public part and notices) shared by its streams."""

    def __init__(self, game: Game, *, poll: float = 0.1) -> None:
        self.game = game
        self.poll = poll
        self.head = -1
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._cache: list[tuple[live.LiveEvent, dict[int, str]]] = []
        self._hi = -1  # the cache holds every event from _cache[0] to _hi
        self._lock: asyncio.Lock | None = None
        self.open: dict[str, int] = {}
        self.total = 0

    def start(self) -> None:
        if self._thread is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        self._lock = asyncio.Lock()
        self._thread = threading.Thread(
            target=live.watch_ledger, args=(self.game, self._from_thread, self._stop),
            kwargs={"poll": self.poll}, name="nomic-cards-ledger-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _from_thread(self, seq: int) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._bump, seq)

    def _bump(self, seq: int) -> None:
        if seq > self.head:
            self.head = seq
            assert self._changed is not None
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()

    async def wait(self, after: int, timeout: float) -> bool:
        """Wait until the head passes ``after`` (True) or ``timeout`` passes (False)."""
        if self.head > after:
            return True
        assert self._changed is not None
        changed = self._changed
        with anyio.move_on_after(timeout):
            await changed.wait()
        return self.head > after

    def _covers(self, after: int) -> bool:
        if not self._cache:
            if after >= self._hi:
                self._hi = after  # an empty cache starts where a stream stands
                return True
            return False
        return self._cache[0][0].event <= after + 1 and after <= self._hi

    async def events(self, after: int, viewer: live.Viewer | None
                     ) -> list[live.LiveEvent]:
        """The events after ``after`` (a batch), projected for ``viewer``: from the shared
        cache when it holds them (one read of the database for every stream), else read for
        this stream alone (a stream resuming from far back)."""
        if not self._covers(after):
            return list(await in_thread(live.events_after, self.game, after, viewer))
        if self._hi < self.head:
            assert self._lock is not None
            async with self._lock:
                while self._hi < self.head:
                    more = await in_thread(live.events_with_notices, self.game, self._hi)
                    if not more:
                        break
                    self._cache.extend(more)
                    self._hi = more[-1][0].event
                del self._cache[:-KEEP]
            if not self._covers(after):
                return list(await in_thread(live.events_after, self.game, after, viewer))
        pid = viewer.player_id if viewer is not None else None
        out: list[live.LiveEvent] = []
        for event, notices in self._cache:
            if event.event > after:
                own = notices.get(pid) if pid is not None else None
                out.append(event if own is None else replace(event, notice=own))
                if len(out) >= live.BATCH:
                    break
        return out


def last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id")
    if raw is None:
        return None
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise InputError("Last-Event-ID is the number of the last event received")
    return int(text)


def frame(event: live.LiveEvent) -> bytes:
    data = json.dumps(asdict(event), ensure_ascii=False, separators=(",", ":"))
    return f"id: {event.event}\nevent: ledger\ndata: {data}\n\n".encode()


SSE_HEADERS = MappingProxyType({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def open_stream(request: Request, viewer: live.Viewer | None) -> Response:
    """The stream for ``viewer`` (None: the public one), from ``Last-Event-ID`` or now."""
    watch: LedgerWatch = request.app.state.watch
    watch.start()
    given = last_event_id(request)
    after = given if given is not None else await in_thread(live.head_seq, watch.game,
                                                               lane=quick(request))
    who = viewer.player if viewer is not None else ""
    if viewer is not None and watch.open.get(who, 0) >= PER_PLAYER:
        return Response(json.dumps({"error": f"at most {PER_PLAYER} open streams per player"}),
                        status_code=429, media_type="application/json",
                        headers={"Retry-After": "5", "Cache-Control": "no-store"})
    if watch.total >= PER_WORKER:
        return Response(json.dumps({"error": "too many open streams; try again shortly"}),
                        status_code=503, media_type="application/json",
                        headers={"Retry-After": "5", "Cache-Control": "no-store"})
    ping = request.app.state.ping
    max_age = request.app.state.max_age
    watch.open[who] = watch.open.get(who, 0) + 1
    watch.total += 1

    async def body() -> AsyncIterator[bytes]:
        nonlocal after
        ends = time.monotonic() + max_age
        try:
            yield b"retry: 2000\n: connected\n\n"
            while time.monotonic() < ends:
                try:
                    events = await watch.events(after, viewer)
                except DatabaseError:
                    return  # the client reconnects with Last-Event-ID
                for event in events:
                    yield frame(event)
                    after = event.event
                if len(events) >= live.BATCH:
                    continue
                if not await watch.wait(after, min(ping, max(0.0, ends - time.monotonic()))):
                    yield b": ping\n\n"
        finally:
            watch.open[who] -= 1
            if not watch.open[who]:
                del watch.open[who]
            watch.total -= 1

    return StreamingResponse(body(), media_type="text/event-stream", headers=dict(SSE_HEADERS))
