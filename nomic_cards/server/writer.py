"""The action writer of ``serve --workers N``: one process that takes every worker's actions.

A worker answers HTTP, checks the token, the rate and the body's form, and reads; the action
itself -- the use case, under the ledger lock -- runs in the writer, a process of its own that
serves no reader. Two reasons:

- Every statement of a write gives up the interpreter lock while the database works, and must
  take it back to go on. In a worker busy with readers, taking it back waits for a reader
  thread to give it up (up to the switch interval, 5 ms), once per statement, all while the
  ledger lock is held: every writer waits too. In the writer no reader holds it.
- The writer's threads share their transactions (:class:`~nomic_cards.core.store.combine
  .WriteQueue`): with one writer, every action in flight on the host can share one commit,
  where each worker's writes took turns with the other's for the ledger lock.

The workers reach the writer on a Unix socket in the server's private folder. Each connection
first sends the key made for this server (compared in constant time; nothing else is read from
a connection that has not sent it), then calls: a frame of 4 bytes (the length) and a pickle,
each way. A worker keeps its connections open and calls from its event loop, so an action takes
no thread of the worker's pool. A writer that dies is started again by the supervisor; a
request whose writer died, or that took longer than its deadline, is answered 503 and may be
retried with the same ``Idempotency-Key`` (the action is done at most once).

Without a writer (one worker, or the application served some other way) the worker takes its
actions itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import pickle
import signal
import socket
import struct
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

from nomic_cards.errors import DatabaseError, NomicCardsError

if TYPE_CHECKING:
    import uvicorn

    from nomic_cards.core.actions import ActionSpec
    from nomic_cards.core.game import Game
    from nomic_cards.core.services.acting import ActionAnswer
    from nomic_cards.server.actions import RateLimit, Refusal

log = logging.getLogger("uvicorn.error")

#: the writer's socket (set by ``serve`` for its workers)
ADDRESS_VARIABLE = "NOMIC_CARDS_WRITER"
#: the key that authenticates a worker to the writer, in hex
KEY_VARIABLE = "NOMIC_CARDS_WRITER_KEY"
#: the name the writer process gives itself (``/proc/<pid>/comm`` on Linux)
PROCESS_NAME = "nomic-writer"
#: the length before each frame; the longest frame either side sends
_LENGTH = struct.Struct("!I")
MAX_FRAME = 1 << 22


@dataclass(frozen=True)
class ActionCall:
    """One action as a worker hands it over: the request's token, the body's media type, the
    body as sent (None: longer than allowed), its ``Idempotency-Key`` and ``If-Match``."""

    token: str
    media: str
    raw: bytes | None
    key: str | None
    if_match: str | None


class WriterUnavailable(DatabaseError):
    """The writer did not answer: it died, or the request's deadline passed first."""


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it can cross to the worker as it is; else an error of the same kind."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - an exception class that does not pickle
        return RuntimeError(f"{type(exc).__name__} in the action writer")
    return exc


class _InFlight:
    """The actions under way in the writer, so that a stop can wait for them."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def one(self) -> Iterator[None]:
        with self._changed:
            self._count += 1
        try:
            yield
        finally:
            with self._changed:
                self._count -= 1
                self._changed.notify_all()

    def wait(self, timeout: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._count == 0, timeout)


def _receive(conn: socket.socket) -> bytes:
    """One frame (EOFError: the other side hung up, or sent more than a frame may hold)."""
    def exactly(n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return bytes(data)
    return exactly(_length(exactly(_LENGTH.size)))


def _length(header: bytes) -> int:
    """The length a frame's header gives (EOFError: more than a frame may hold)."""
    length: int = _LENGTH.unpack(header)[0]
    if length > MAX_FRAME:
        raise EOFError
    return length


def _frame(data: bytes) -> bytes:
    return _LENGTH.pack(len(data)) + data


def _serve_connection(conn: socket.socket, key: bytes, game: Game,
                      actions: Mapping[str, ActionSpec], limits: RateLimit,
                      in_flight: _InFlight) -> None:
    """Answer one worker connection's calls until it hangs up (nothing at all unless its
    first frame is the key)."""
    from nomic_cards.server.actions import decide

    with conn:
        try:
            if not hmac.compare_digest(_receive(conn), key):
                return
            while True:
                call = pickle.loads(_receive(conn))
                with in_flight.one():
                    try:
                        reply: tuple[str, object] = ("answer",
                                                     decide(game, call, actions, limits))
                    except Exception as exc:  # noqa: BLE001 - the worker raises it
                        if not isinstance(exc, NomicCardsError):  # not a refusal: a fault
                            log.error("the action writer failed on an action: %s",
                                      type(exc).__name__)
                        reply = ("raise", _portable(exc))
                conn.sendall(_frame(pickle.dumps(reply)))
        except (EOFError, OSError):  # the worker went away (it died, or its deadline passed)
            return


def _name_process() -> None:
    """``nomic-writer`` in ``ps`` and ``/proc/<pid>/comm`` (Linux), so it can be told from
    the workers."""
    import sys

    if sys.platform == "linux":
        import ctypes

        with contextlib.suppress(OSError):
            ctypes.CDLL(None).prctl(15, PROCESS_NAME.encode(), 0, 0, 0)  # PR_SET_NAME


def run_writer(address: str, key: bytes, db: str | None,
               config: uvicorn.Config | None = None, *, grace: float) -> None:
    """The writer process: open the game, listen on ``address``, answer each connection in a
    thread of its own; on SIGTERM or SIGINT stop listening and let the actions under way
    finish (up to ``grace`` seconds: the supervisor kills it only after that). ``config``: the
    workers' uvicorn configuration, whose logging the writer's log lines take."""
    from nomic_cards.core.actions import registry
    from nomic_cards.core.game import Game
    from nomic_cards.core.services.public import ledger_head
    from nomic_cards.server.actions import RateLimit, rate_from
    from nomic_cards.server.app import die_with_supervisor

    if config is not None:
        config.configure_logging()
    _name_process()
    die_with_supervisor(os.environ.get("NOMIC_CARDS_SUPERVISOR"))
    stop = threading.Event()
    try:
        game = Game(db or os.environ.get("NOMIC_CARDS_DB"), server=True)
        ledger_head(game)  # the database answers and its schema is current, or no start
        actions = registry()
        rate, burst = rate_from(os.environ.get("NOMIC_CARDS_ACTION_RATE"))
        limits = RateLimit(rate, burst)  # one per server: the writer sees every action
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address)  # a socket left by a writer that died
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(address)
        listener.listen(128)
    except Exception as exc:  # noqa: BLE001 - one line, and the supervisor stops the server
        log.error("the action writer cannot start: %s", str(exc).splitlines()[0] if str(exc)
                  else type(exc).__name__)
        from uvicorn.config import STARTUP_FAILURE

        raise SystemExit(STARTUP_FAILURE) from None

    def on_signal(_number: int, _frame: FrameType | None) -> None:
        stop.set()
        with contextlib.suppress(OSError):
            listener.close()

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, on_signal)
    in_flight = _InFlight()
    log.info("Action writer started [%d]", os.getpid())
    try:
        while not stop.is_set():
            try:
                conn, _address = listener.accept()
            except OSError:
                break  # closed by a stop
            threading.Thread(target=_serve_connection,
                             args=(conn, key, game, actions, limits, in_flight),
                             name="nomic-cards action", daemon=True).start()
    finally:
        in_flight.wait(grace)
        game.close()
        with contextlib.suppress(OSError):
            os.unlink(address)


class WriterClient:
    """A worker's way to the writer, from its event loop: connections kept open between
    calls, one per call under way."""

    def __init__(self, address: str, key: bytes) -> None:
        self.address, self.key = address, key
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            reader, writer = await asyncio.open_unix_connection(self.address)
        except OSError as exc:
            raise WriterUnavailable("the action writer is not running") from exc
        writer.write(_frame(self.key))
        return reader, writer

    async def perform(self, call: ActionCall) -> ActionAnswer | Refusal:
        """The writer's answer to ``call``, or the error the action raised there. Raises
        :class:`WriterUnavailable` when the writer is gone; a call cancelled (its deadline
        passed) closes its connection, whose answer, if it ever comes, no one reads."""
        reader, writer = self._idle.pop() if self._idle else await self._open()
        try:
            writer.write(_frame(pickle.dumps(call)))
            length = _length(await reader.readexactly(_LENGTH.size))
            kind, value = pickle.loads(await reader.readexactly(length))
        except BaseException as exc:
            writer.close()
            if isinstance(exc, OSError | EOFError):  # EOFError: IncompleteReadError too
                raise WriterUnavailable("the action writer stopped") from exc
            raise
        self._idle.append((reader, writer))
        if kind == "raise":
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[no-any-return]

    def close(self) -> None:
        for _reader, writer in self._idle:
            writer.close()
        self._idle.clear()


def client_from(environ: Mapping[str, str]) -> WriterClient | None:
    """The writer named by ``environ`` (set by ``serve``), if any."""
    address, key = environ.get(ADDRESS_VARIABLE), environ.get(KEY_VARIABLE)
    if not address or not key:
        return None
    return WriterClient(address, bytes.fromhex(key))


__all__ = ["ADDRESS_VARIABLE", "KEY_VARIABLE", "PROCESS_NAME", "ActionCall", "WriterClient",
           "WriterUnavailable", "client_from", "run_writer"]
