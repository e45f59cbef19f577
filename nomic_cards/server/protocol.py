"""The HTTP protocol ``serve`` runs: uvicorn's own (httptools), with the bounds that no slow or
greedy client gets round.

- **The header's time**: a request's header is complete within :data:`HEADER_TIMEOUT`
  seconds of the connection's opening (the first request) or of the request's first byte (a
  later one on a kept-alive connection), or the connection is closed. (uvicorn alone waits for
  ever: a connection that sends nothing, or a byte every few seconds, stays open.)
- **The header's size**: at most :data:`MAX_HEADER` bytes; past that, ``431`` in plain text
  and the connection closed, before the parser has held any of it. (httptools alone takes a
  header of any size into memory.)
- **Connections**: a worker holds at most :func:`connection_limit` connections; one accepted
  past that is closed at once, with a warning in the log at most once a minute.

What happens once the header is in -- the body's time and size, the streams' shares -- is the
app's (:mod:`nomic_cards.server.app`, :mod:`nomic_cards.server.actions`,
:mod:`nomic_cards.server.live`). Under plain uvicorn: ``--http
nomic_cards.server.protocol:HttpProtocol``.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: seconds a request's header may take to arrive
HEADER_TIMEOUT = 5.0
#: bytes a request's header may hold (request line and fields)
MAX_HEADER = 64 * 1024
#: connections a worker holds at most, when its open-file limit allows
CONNECTIONS = 6000
#: open files kept for everything but connections (the database, the log, the listening socket)
RESERVE = 100
#: seconds between two warnings that connections are being refused
WARN_EVERY = 60.0

log = logging.getLogger("nomic_cards.server")

_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
              b"content-type: text/plain; charset=utf-8\r\ncontent-length: 24\r\n"
              b"connection: close\r\n\r\nRequest header too large")


def connection_limit() -> int:
    """:data:`CONNECTIONS`, or fewer when the process may not open that many files."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return CONNECTIONS
    return max(1, min(CONNECTIONS, soft - RESERVE))


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the header's time and size and the worker's
    connections bounded (see the module docstring)."""

    _limit: int | None = None  # the worker's, computed on its first connection
    _warned = -WARN_EVERY  # when the last refusal was logged (monotonic seconds)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        super().connection_made(transport)
        cls = type(self)
        if cls._limit is None:
            cls._limit = connection_limit()
        if len(self.connections) > cls._limit:
            now = time.monotonic()
            if now - cls._warned >= WARN_EVERY:
                cls._warned = now
                log.warning("%d connections open, the most a worker holds: new ones are closed",
                            cls._limit)
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is not None:  # a header under way: count it before parsing
            self._header_bytes += len(data)
            if self._header_bytes > MAX_HEADER:
                self._disarm()
                self.transport.write(_TOO_LARGE)
                self.transport.close()
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_timer is None:  # a later request: its time counts from its first byte
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._header_bytes = 0
        self._header_timer = self.loop.call_later(HEADER_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()
