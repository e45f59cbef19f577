"""Players' bearer tokens on the wire, and the limit on failed attempts per client address.

Whatever is wrong with a token -- missing, malformed, unknown, wrong, revoked, a retired
player's -- the answer is the same 401 with the same body, after the same database query (see
:mod:`nomic_cards.core.services.tokens`). Failures are counted per client address in a sliding
window; past the limit the client gets 429 with ``Retry-After`` until the window clears.
"""

from __future__ import annotations

import fcntl
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Mapping
from types import MappingProxyType

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from nomic_cards.core.services.tokens import split_token
from nomic_cards.server.common import PRIVATE, json_response

UNAUTHORIZED_BODY = MappingProxyType(
    {"error": "a valid player token is needed (Authorization: Bearer TOKEN)"})


def bearer(request: Request) -> str:
    """The token of an ``Authorization: Bearer`` header ('' when there is none)."""
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def unauthorized() -> JSONResponse:
    return JSONResponse(dict(UNAUTHORIZED_BODY), status_code=401,
                        headers={"WWW-Authenticate": 'Bearer realm="nomic-cards"',
                                 "Cache-Control": "no-store"})


#: Headers a proxy adds: without a trusted proxy configured, a request carrying one came
#: through a proxy whose address many clients share.
FORWARDING_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")


def client_address(request: Request) -> str:
    """The client's address: the real one when the proxy is trusted (uvicorn has put it in
    ``request.client``), else the peer's -- never a header's word."""
    return request.client.host if request.client else "unknown"


def failure_key(request: Request, selector: str, *, trusted_proxy: bool) -> str:
    """Whom a failed attempt is counted against: the client's address
    (:func:`client_address`), or, for a request that came through a proxy that is not
    configured as trusted, the proxy's address *and* the token's selector -- so that wrong
    tokens sent through a shared proxy block only the token they name, never everyone behind
    the proxy (docs/server.md)."""
    client = client_address(request)
    if trusted_proxy or not any(h in request.headers for h in FORWARDING_HEADERS):
        return client
    return f"{client} {selector}"


class FailureLimiter:
    """At most ``limit`` failed attempts per key (see :func:`failure_key`) in ``window``
    seconds, in this process."""

    def __init__(self, limit: int = 20, window: float = 60.0) -> None:
        self.limit = limit
        self.window = window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        q = self._failures.setdefault(client, deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        return q

    def retry_after(self, client: str) -> int | None:
        """Seconds to wait when the client is over the limit, else None."""
        now = time.monotonic()
        with self._lock:
            q = self._recent(client, now)
            if len(q) < self.limit:
                if not q:
                    self._failures.pop(client, None)
                return None
            return max(1, int(q[0] + self.window - now) + 1)

    def fail(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._recent(client, now).append(now)
            if len(self._failures) > 100_000:  # a flood of addresses: forget the oldest
                self._failures.pop(next(iter(self._failures)))


class SharedFailureLimiter:
    """The same limit, kept in a small SQLite file that every worker process of one server
    opens (``serve`` makes it in a private temporary folder and names it in
    ``NOMIC_CARDS_LIMITS``): the limit holds across workers. Each request thread has its own
    connection to the file (WAL: readers never wait on each other or on a writer), so the check
    every private request makes takes no lock in the process."""

    def __init__(self, path: str, limit: int = 20, window: float = 60.0) -> None:
        self.path = path
        self.limit = limit
        self.window = window
        self._local = threading.local()
        self._writes = 0
        db = self._db()
        # workers start together: one at a time makes the file (SQLite answers a second
        # switch to WAL "locked" at once, whatever its busy timeout)
        with open(f"{path}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            db.execute("PRAGMA journal_mode=WAL").fetchall()
            db.execute("CREATE TABLE IF NOT EXISTS failures (key TEXT NOT NULL, "
                       "at REAL NOT NULL)")
            db.execute("CREATE INDEX IF NOT EXISTS failures_key ON failures (key, at)")

    def _db(self) -> sqlite3.Connection:
        """This thread's connection to the file."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=5)
            self._local.db = db
        return db

    def retry_after(self, client: str) -> int | None:
        now = time.time()
        count, first = self._db().execute(
            "SELECT count(*), min(at) FROM failures WHERE key = ? AND at > ?",
            (client, now - self.window)).fetchone()
        if count < self.limit:
            return None
        return max(1, int(first + self.window - now) + 1)

    def fail(self, client: str) -> None:
        now = time.time()
        db = self._db()
        db.execute("INSERT INTO failures (key, at) VALUES (?, ?)", (client, now))
        self._writes += 1  # a count for tidying only: a lost increment costs nothing
        if self._writes % 1000 == 0:  # forget what is past the window
            db.execute("DELETE FROM failures WHERE at <= ?", (now - self.window,))


Limiter = FailureLimiter | SharedFailureLimiter


def make_limiter(environ: Mapping[str, str]) -> Limiter:
    """The shared limiter when ``NOMIC_CARDS_LIMITS`` names its file, else one per process."""
    path = environ.get("NOMIC_CARDS_LIMITS")
    return SharedFailureLimiter(path) if path else FailureLimiter()


def _client(request: Request) -> str:
    """Whom a failed attempt of this request counts against (see :func:`failure_key`)."""
    return failure_key(request, split_token(bearer(request))[0],
                       trusted_proxy=request.app.state.trusted_proxy)


def limited(request: Request) -> Response | None:
    """429 with ``Retry-After`` while the client's address is past the limit of failed
    attempts; None when it may try."""
    limiter: Limiter = request.app.state.limiter
    wait = limiter.retry_after(_client(request))
    if wait is None:
        return None
    return json_response({"error": "too many failed attempts from this address; try again "
                                   "later"},
                         status=429, headers={"Retry-After": str(wait), **PRIVATE})


def refuse(request: Request) -> Response:
    """The 401 for a token that is not valid, counted against the client's address."""
    request.app.state.limiter.fail(_client(request))
    return unauthorized()
