"""Players' bearer tokens on the wire, and the limit on failed attempts per client address.

Whatever is wrong with a token -- missing, malformed, unknown, wrong, revoked, a retired
player's -- the answer is the same 401 with the same body, after the same database query (see
:mod:`nomic_cards.core.services.tokens`). Failures are counted per client address in a sliding
window; past the limit the client gets 429 with ``Retry-After`` until the window clears.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from types import MappingProxyType

from starlette.requests import Request
from starlette.responses import JSONResponse

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


class FailureLimiter:
    """At most ``limit`` failed attempts per client address in ``window`` seconds."""

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
