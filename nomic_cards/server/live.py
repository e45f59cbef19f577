"""Live event streams (Server-Sent Events): ``GET /api/v1/events`` (the public record) and
``GET /api/v1/me/events`` (the same, with the token's player's own notices).

Each frame's ``id:`` is the event's ledger number, so a client that reconnects with
``Last-Event-ID`` resumes from the ledger itself: nothing is lost across a dropped connection
or a restart.

One :class:`Broadcast` per worker process: a thread learns that the ledger moved
(:mod:`nomic_cards.core.store.notify`: PostgreSQL ``LISTEN``, SQLite's head polled), and the
broadcast reads each new event once, from its own position, with every notice it recorded, and
hands it to every open stream of the worker as a frame serialised once: the public frame, or,
for the streams of a player the event recorded a notice for, that player's own frame (the same
projection as ``/api/v1/me/notices``). A stream that resumes from further back reads
its own backlog, in batches, then takes the broadcast's events. Nothing a client sends moves the
broadcast. The token of a private stream is checked again every :data:`RECHECK` seconds (one
query for all the worker's streams), and before any private frame is given it: a revoked
token's or a retired player's stream ends, and is given nothing private after the change.

A comment line (``: ping``) goes out every :data:`PING` seconds when nothing else did; a stream
ends after :data:`MAX_AGE` seconds (the client reconnects with ``Last-Event-ID``), and when its
client falls :data:`QUEUE` events behind.

Shares: a worker holds at most :data:`PER_WORKER` streams, :data:`PER_PLAYER` of them a
player's own; of the public ones at most :data:`PER_ADDRESS` from one client address
(:func:`~nomic_cards.server.auth.client_address`: the real one behind a trusted proxy) and
:data:`PUBLIC` in all, so that the rest stays for players' own streams: no flood of public
streams refuses a player's.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from types import MappingProxyType

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import live
from nomic_cards.core.services.tokens import split_token
from nomic_cards.errors import DatabaseError, InputError
from nomic_cards.server.auth import client_address, limited, refuse

#: seconds between comment pings on an idle stream
PING = 15.0
#: seconds a stream lasts before the server ends it (the client reconnects, losing nothing)
MAX_AGE = 3600.0
#: seconds between checks of the open streams' tokens
RECHECK = 2.0
#: events a stream may have waiting to be sent before it is ended (a client that stopped
#: reading; it resumes with Last-Event-ID)
QUEUE = 1000
#: streams one player may hold open in one worker, and streams per worker
PER_PLAYER = 8
PER_WORKER = 4000
#: public streams one client address may hold open in one worker, and public streams per
#: worker: the rest of PER_WORKER is kept for players' own streams
PER_ADDRESS = 16
PUBLIC = 3000

SSE_HEADERS = MappingProxyType({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

_END = object()  # what a stream's queue is given to end it


class Stream:
    """One open stream: whom it is for, the frames waiting to be sent (each with its event's
    number), and the last event sent or skipped (``after``)."""

    def __init__(self, viewer: live.Viewer | None, token: str | None, address: str) -> None:
        self.viewer = viewer
        self.player_id = viewer.player_id if viewer is not None else None
        self.selector = split_token(token)[0] if token else None
        #: whose share it takes: the player's, or for a public stream the client address's
        self.share = ("player", viewer.player) if viewer is not None else ("address", address)
        self.queue: asyncio.Queue[object] = asyncio.Queue()
        self.after = 0
        self.joined = False

    def offer(self, seq: int, data: bytes) -> None:
        """Queue the frame of event ``seq``; end the stream when its client has fallen too far
        behind."""
        if self.queue.qsize() >= QUEUE:
            self.end()
            return
        self.queue.put_nowait((seq, data))

    def end(self) -> None:
        self.queue.put_nowait(_END)


class Broadcast:
    """A worker's reader of new events and the streams it feeds (see the module docstring)."""

    def __init__(self, nomic: Nomic, *, poll: float = 0.1, recheck: float = RECHECK) -> None:
        self.nomic = nomic
        self.poll = poll
        self.recheck = recheck
        self.position = -1
        self.streams: set[Stream] = set()
        #: open streams per ("player", name) and per ("address", client address)
        self.shares: dict[tuple[str, str], int] = {}
        self.public = 0
        self._wake = asyncio.Event()
        self._stop = threading.Event()
        self._starting = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Start watching the ledger (once, on the first stream)."""
        async with self._starting:
            if not self._tasks:
                self.position = await anyio.to_thread.run_sync(self._head)
                self._watch()

    def _watch(self) -> None:
        loop = asyncio.get_running_loop()

        def moved(head: int) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._wake.set)

        threading.Thread(target=live.watch_ledger, args=(self.nomic, moved, self._stop),
                         kwargs={"poll": self.poll}, name="nomic-cards-ledger-watch",
                         daemon=True).start()
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._check())]

    def refusal(self, viewer: live.Viewer | None, address: str) -> Response | None:
        """The answer when a new stream would take more than its share, else None."""
        if viewer is not None:
            if self.shares.get(("player", viewer.player), 0) >= PER_PLAYER:
                return _too_many(429, f"at most {PER_PLAYER} open streams per player")
        else:
            if self.shares.get(("address", address), 0) >= PER_ADDRESS:
                return _too_many(429, f"at most {PER_ADDRESS} open public streams from one "
                                      "address")
            if self.public >= PUBLIC:
                return _too_many(503, "too many open public streams; try again shortly")
        if len(self.streams) >= PER_WORKER:
            return _too_many(503, "too many open streams; try again shortly")
        return None

    def join(self, stream: Stream) -> None:
        """Register ``stream`` at the broadcast's position: every later event is offered to
        it, every earlier one is its backlog."""
        self.streams.add(stream)
        self.shares[stream.share] = self.shares.get(stream.share, 0) + 1
        self.public += stream.viewer is None
        stream.joined = True

    def leave(self, stream: Stream) -> None:
        """Give back what ``stream`` took (once, however it ended)."""
        if not stream.joined:
            return
        stream.joined = False
        self.streams.discard(stream)
        self.public -= stream.viewer is None
        self.shares[stream.share] -= 1
        if not self.shares[stream.share]:
            del self.shares[stream.share]

    def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()

    def _head(self) -> int:
        with self.nomic.read(need_game=False) as r:
            return live.head_seq(r)

    def _batch(self) -> list[tuple[live.LiveEvent, dict[int, str]]]:
        with self.nomic.read(need_game=False) as r:
            return live.events_with_notices(r, self.position)

    async def _read(self) -> None:
        """Each new event, read once, to every stream."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            while True:
                try:
                    batch = await anyio.to_thread.run_sync(self._batch)
                except DatabaseError:
                    await asyncio.sleep(1.0)
                    self._wake.set()
                    break
                await self._still_good(batch)
                for event, notices in batch:
                    public = frame(event)  # serialised once, and once per notice
                    own: dict[int | None, bytes] = {
                        pid: frame(replace(event, notice=text)) for pid, text in notices.items()}
                    for stream in list(self.streams):
                        if event.event > stream.after:
                            stream.offer(event.event, own.get(stream.player_id, public))
                if batch:
                    self.position = batch[-1][0].event
                if len(batch) < live.BATCH:
                    break

    async def _still_good(self, batch: list[tuple[live.LiveEvent, dict[int, str]]]) -> None:
        """Before a private frame goes out, its stream's token is checked again: a token
        revoked (or a player retired, by this very batch) since the last check ends the stream
        before it is given anything more."""
        ids = {pid for _event, notices in batch for pid in notices}
        needy = [s for s in self.streams if s.selector is not None and s.viewer is not None
                 and s.viewer.player_id in ids]
        if not needy:
            return
        try:
            good = await anyio.to_thread.run_sync(
                self._live, {s.selector for s in needy if s.selector})
        except DatabaseError:
            good = set()  # not known to be good: they end, and their clients come back
        for stream in needy:
            if stream.selector not in good:
                self.streams.discard(stream)
                stream.end()

    def _live(self, selectors: set[str]) -> set[str]:
        with self.nomic.read(need_game=False) as r:
            return r.live_selectors(sorted(selectors))

    async def _check(self) -> None:
        """End the streams whose token is no longer good (revoked, a retired player's)."""
        while True:
            await asyncio.sleep(self.recheck)
            private = [s for s in self.streams if s.selector is not None]
            if not private:
                continue
            try:
                good = await anyio.to_thread.run_sync(
                    self._live, {s.selector for s in private if s.selector})
            except DatabaseError:
                continue
            for stream in private:
                if stream.selector not in good:
                    stream.end()


def last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id")
    if raw is None:
        return None
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise InputError("Last-Event-ID is the number of the last event received")
    return int(text)


def frame(event: live.LiveEvent) -> bytes:
    data = json.dumps(event.as_dict(), ensure_ascii=False, separators=(",", ":"))
    return f"id: {event.event}\nevent: ledger\ndata: {data}\n\n".encode()


def _too_many(status: int, text: str) -> Response:
    return Response(json.dumps({"error": text}), status_code=status,
                    media_type="application/json",
                    headers={"Retry-After": "5", "Cache-Control": "no-store"})


async def open_stream(request: Request, token: str | None) -> Response:
    """The stream for the player of ``token`` (None: the public one), from ``Last-Event-ID``
    or now."""
    broadcast: Broadcast = request.app.state.broadcast
    given = last_event_id(request)
    viewer = None
    if token is not None:
        blocked = await anyio.to_thread.run_sync(limited, request)
        if blocked is not None:
            return blocked

        def who() -> live.Viewer | None:
            with broadcast.nomic.read(need_game=False) as r:
                return live.viewer_for_token(r, token)

        viewer = await anyio.to_thread.run_sync(who)
        if viewer is None:
            return await anyio.to_thread.run_sync(refuse, request)
    await broadcast.start()
    address = client_address(request)
    refused = broadcast.refusal(viewer, address)
    if refused is not None:
        return refused
    stream = Stream(viewer, token, address)
    # checked and registered at the broadcast's position, with no await between
    start = broadcast.position
    stream.after = given if given is not None else start
    broadcast.join(stream)
    ping, max_age = request.app.state.ping, request.app.state.max_age

    def backlog(after: int) -> list[live.LiveEvent]:
        with broadcast.nomic.read(need_game=False) as r:
            return live.events_after(r, after, viewer, min(live.BATCH, start - after))

    async def body() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 2000\n: connected\n\n"
            after = stream.after
            with anyio.move_on_after(max_age):
                while after < start:  # the backlog, read for this stream alone
                    events = await anyio.to_thread.run_sync(backlog, after)
                    if not events:
                        break
                    for event in events:
                        yield frame(event)
                    after = events[-1].event
                while True:
                    got: object = None
                    with anyio.move_on_after(ping):
                        got = await stream.queue.get()
                    if got is None:
                        yield b": ping\n\n"
                        continue
                    # what else is waiting goes in the same write
                    items = [got, *(stream.queue.get_nowait() for _ in
                                    range(stream.queue.qsize()))]
                    frames = []
                    for item in items:
                        if isinstance(item, tuple) and item[0] > after:
                            frames.append(item[1])
                            after = item[0]
                    if frames:
                        yield b"".join(frames)
                    if _END in items:
                        return
        except DatabaseError:
            return  # the client reconnects with Last-Event-ID
        finally:
            broadcast.leave(stream)

    return _Streaming(body(), lambda: broadcast.leave(stream))


class _Streaming(StreamingResponse):
    """An event stream's response, which gives its stream's share back when it ends however
    it ends -- even when the client left before the body was begun, which would leave the
    body's own ``finally`` unrun."""

    def __init__(self, body: AsyncIterator[bytes], done: Callable[[], None]) -> None:
        super().__init__(body, media_type="text/event-stream", headers=dict(SSE_HEADERS))
        self.done = done

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.done()
