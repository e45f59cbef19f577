"""``serve --workers N``: N worker processes, each accepting connections on a listening socket
of its own, all bound to one port.

On Linux the sockets are bound with ``SO_REUSEPORT``: the kernel hands each new connection to
one of them by a hash of its addresses, so connections are spread evenly over the workers. (With
one socket shared by every worker, the worker that wakes first accepts every connection then
waiting: a burst of connections -- a client opening its pool -- can land in one process while
the other idles, and one process runs Python on one core.) Elsewhere the workers share one
socket.

The supervisor starts the workers, starts a worker again on its socket when it dies (connections
the kernel gave that socket meanwhile wait in its queue, and are served when the new worker
starts), stops when a worker cannot start at all (the application, not the process, is broken),
and on SIGINT or SIGTERM stops every worker gracefully: each finishes its requests and closes
its event streams within the grace period, then is killed.

With a writer (:mod:`nomic_cards.server.writer`), the supervisor starts it first and the workers
once it listens; it is started again when it dies, and stopped last, after the workers, so that
the actions they handed it are finished (it is given :data:`WRITER_GRACE` for them, and killed
only after that).

Each worker and the writer runs in a session of its own (:func:`own_session`): Linux's
autogroup scheduler, on by default in many distributions' kernels, shares the cores between
sessions before it shares them between processes, and PostgreSQL starts each backend in a
session of its own. A server whose processes shared one session had one share against every busy
backend, and under load stalled for up to two seconds (docs/server.md).

The writer is the one process through which every action passes, so the workers run at a lower
scheduling priority than it (:data:`WORKER_NICE` steps by default; ``serve --worker-nice``):
when the host's cores are busy with readers, an action waiting for the writer is run first.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
from multiprocessing.context import SpawnProcess
from types import FrameType
from typing import TYPE_CHECKING

from nomic_cards.errors import InputError

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("uvicorn.error")

#: seconds between the supervisor's looks at its workers
CHECK_EVERY = 0.5
#: a connection whose peer has not acknowledged what was sent for this long is closed by the
#: kernel (an event stream's ping is unacknowledged on a half-open connection)
USER_TIMEOUT_MS = 45_000
#: how much lower the workers' scheduling priority is than the writer's (``nice`` steps)
WORKER_NICE = 10
#: seconds a stopping writer is given to finish the actions under way, before it is killed
WRITER_GRACE = 10.0
#: one listening socket per worker, balanced by the kernel
REUSE_PORT = sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")


def reap_half_open(sock: socket.socket) -> None:
    """Options every accepted connection inherits from the listening socket (Linux): TCP
    keepalive probes on an idle connection, and ``TCP_USER_TIMEOUT``, so that a connection
    whose peer vanished (a phone gone out of range holding an event stream) is closed by the
    kernel within a minute instead of the retransmissions' quarter of an hour; the server then
    sees the disconnect and ends the stream."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3),
                        ("TCP_USER_TIMEOUT", USER_TIMEOUT_MS)):
        option = getattr(socket, name, None)
        if option is not None:
            sock.setsockopt(socket.IPPROTO_TCP, option, value)


def listen(host: str, port: int, count: int = 1) -> list[socket.socket]:
    """``count`` listening sockets on ``host:port`` (one per worker: see the module docstring;
    one shared socket where the kernel cannot balance them), made as TCP sockets (protocol
    IPPROTO_TCP), so that the event loop turns Nagle's algorithm off on every connection it
    accepts. (A socket made without the protocol number leaves Nagle on: each response then
    waits for a delayed ACK, some 40 ms.) Binding them before the server starts makes a bad
    address or a port in use a one-line error; port 0 takes a free port, the same for all."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    made: list[socket.socket] = []
    reuse_port = REUSE_PORT and count > 1
    try:
        if reuse_port:
            # the port must be free: a socket bound with SO_REUSEPORT would join the listening
            # sockets of another process that set it too (a second server started on the same
            # port), where a socket without it is refused
            with socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((host, port))
                port = probe.getsockname()[1]  # port 0: a free port, the same for all
        for _ in range(count if reuse_port else 1):
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            made.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            reap_half_open(sock)
            sock.bind((host, port))
            port = sock.getsockname()[1]  # port 0 (one shared socket): the port it took
            sock.set_inheritable(True)
    except OSError as exc:
        for sock in made:
            sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return made


def own_session(nice: int = 0) -> None:
    """Make this process the leader of a session of its own (see the module docstring), and
    lower its priority by ``nice``: the session's, where the kernel shares the cores between
    sessions (``/proc/self/autogroup``), and the process's own, inherited by every thread it
    starts afterwards, where it does not. What the platform cannot do is left undone."""
    if hasattr(os, "setsid"):
        with contextlib.suppress(OSError):
            os.setsid()
    if nice:
        with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as group:
            group.write(str(nice))
        if hasattr(os, "nice"):
            os.nice(nice)


def _serve(config: uvicorn.Config, sock: socket.socket, nice: int = 0) -> None:
    """A worker process: one uvicorn server on its socket, in a session of its own, ``nice``
    steps below the writer."""
    import uvicorn

    own_session(nice)
    config.configure_logging()
    # Ctrl-C reaches the whole process group: a stop, not an error
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])


#: the module of the server's action writer
WRITER_MODULE = "nomic_cards.server.writer"


def _run_writer(address: str, key: bytes, db: str | None, config: uvicorn.Config) -> None:
    """The writer process (:mod:`nomic_cards.server.writer`), named as uvicorn names the
    application: the server's own modules are the server's to import."""
    import importlib

    own_session()
    importlib.import_module(WRITER_MODULE).run_writer(address, key, db, config,
                                                      grace=WRITER_GRACE)


class Supervisor:
    """Runs ``workers`` worker processes of ``config`` on ``sockets`` (see the module
    docstring)."""

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket],
                 workers: int, *, grace: float, writer: tuple[str, bytes] | None = None,
                 db: str | None = None, nice: int = 0) -> None:
        self.config = config
        self.nice = nice
        self.sockets = sockets
        self.workers = workers
        self.grace = grace
        self.writer = writer
        self.db = db
        self.stop = threading.Event()
        self._spawn = multiprocessing.get_context("spawn")

    def _start_writer(self) -> SpawnProcess:
        """The writer, once it listens (or has exited: it could not start)."""
        assert self.writer is not None
        address, key = self.writer
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address)
        process = self._spawn.Process(target=_run_writer,
                                      args=(address, key, self.db, self.config),
                                      name="nomic-cards writer")
        process.start()
        while process.is_alive() and not os.path.exists(address) \
                and not self.stop.wait(0.02):
            pass
        return process

    def _start(self, slot: int) -> SpawnProcess:
        sock = self.sockets[slot % len(self.sockets)]
        process = self._spawn.Process(target=_serve, args=(self.config, sock, self.nice),
                                      name=f"nomic-cards worker {slot + 1}")
        process.start()
        return process

    def _on_signal(self, number: int, _frame: FrameType | None) -> None:
        log.info("Received %s, stopping the workers.", signal.Signals(number).name)
        self.stop.set()

    def run(self) -> None:
        # the exit code of a uvicorn worker whose application failed to start
        from uvicorn.config import STARTUP_FAILURE

        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, self._on_signal)
        log.info("Started parent process [%d]", os.getpid())
        writer = self._start_writer() if self.writer is not None else None
        if writer is not None and not writer.is_alive() and writer.exitcode == STARTUP_FAILURE:
            log.error("The action writer failed to start; stopping.")
            raise SystemExit(STARTUP_FAILURE)
        processes = [self._start(slot) for slot in range(self.workers)]
        failed = False
        try:
            while not self.stop.wait(CHECK_EVERY):
                if writer is not None and not writer.is_alive():
                    writer.join()
                    if writer.exitcode == STARTUP_FAILURE:
                        log.error("The action writer failed to start; stopping.")
                        failed = True
                        self.stop.set()
                        break
                    log.warning("The action writer [%s] died (exit code %s); starting another.",
                                writer.pid, writer.exitcode)
                    writer = self._start_writer()
                for slot, process in enumerate(processes):
                    if process.is_alive():
                        continue
                    process.join()
                    if process.exitcode == STARTUP_FAILURE:
                        log.error("Worker process [%s] failed to start; stopping.",
                                  process.pid)
                        failed = True
                        self.stop.set()
                        break
                    log.warning("Worker process [%s] died (exit code %s); starting another "
                                "on its socket.", process.pid, process.exitcode)
                    processes[slot] = self._start(slot)
        finally:
            self._stop_all(processes, self.grace + 5)
            if writer is not None:  # after the workers: what they handed it is done
                self._stop_all([writer], WRITER_GRACE + 5)
            log.info("Stopping parent process [%d]", os.getpid())
        if failed:
            raise SystemExit(STARTUP_FAILURE)

    def _stop_all(self, processes: list[SpawnProcess], wait: float) -> None:
        """SIGTERM to every process (a graceful stop), then SIGKILL to any still running
        ``wait`` seconds later (its grace period and a little more)."""
        for process in processes:
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
        for process in processes:
            process.join(wait)
            if process.is_alive():
                log.warning("Process [%s] did not stop in time; killing it.", process.pid)
                process.kill()
                process.join()
