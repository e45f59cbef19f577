"""``POST /api/v1/me/actions`` and the event streams' endpoints: a player (or the Dealer, with
an officer token) acts through the server; every answer is a sentence, never a traceback.

The body is JSON, at most :data:`MAX_BODY` bytes (one declared larger is refused ``413`` before
it is read: :class:`~nomic_cards.server.app.Guard`), all of it within :data:`BODY_TIMEOUT`
seconds (else ``408``; both close the connection), read one way
(:func:`~nomic_cards.inputs.read_json`: no key twice, no NaN, no number past 2^53 - 1, no lone
surrogate, not nested deep), ``{"action": "<game>.<action>", ...}`` as the action's declaration
(:mod:`nomic_cards.core.actions`) says; ``Idempotency-Key`` and
``If-Match`` as :mod:`nomic_cards.core.services.acting` describes. Each action is one writing
transaction: the token (checked first in a read, and again under the ledger lock), the key, the
act and the answer kept with the key commit together or not at all; a request refused before
(a bad token, the player's rate, a bad body) takes no lock. Each player may take :data:`RATE`
actions a second on average (bursts of :data:`BURST`), counted in each worker process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from nomic_cards.core.services import acting
from nomic_cards.errors import DatabaseError, InputError, NomicCardsError, RuleViolation
from nomic_cards.inputs import read_json
from nomic_cards.server.auth import bearer, limited, refuse
from nomic_cards.server.common import PRIVATE, json_response, nomic_of
from nomic_cards.server.live import open_stream

MAX_BODY = 16 * 1024
#: seconds the whole body may take to arrive
BODY_TIMEOUT = 10.0
#: the refusal of a body that did not arrive in time (408)
LATE = f"the body did not arrive within {BODY_TIMEOUT:g} seconds"
RATE = 10.0
BURST = 20


def rate_from(text: str | None) -> tuple[float, int]:
    """``NOMIC_CARDS_ACTION_RATE`` (``RATE,BURST``) as numbers; the defaults without it, or
    for a value that is not two positive numbers."""
    try:
        rate, burst = (text or "").split(",")
        value = (float(rate), int(burst))
    except ValueError:
        return RATE, BURST
    return value if value[0] > 0 and value[1] > 0 else (RATE, BURST)


class RateLimit:
    """A token bucket per player, in this process."""

    def __init__(self, rate: float = RATE, burst: int = BURST) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, who: str) -> float | None:
        """None when ``who`` may act now, else the seconds to wait."""
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.get(who, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens < 1.0:
                self._buckets[who] = (tokens, now)
                return (1.0 - tokens) / self.rate
            self._buckets[who] = (tokens - 1.0, now)
            if len(self._buckets) > 100_000:
                self._buckets.pop(next(iter(self._buckets)))
            return None


class TooMany(acting.ActionRefused):
    """A player past the rate of actions."""

    status = 429

    def __init__(self, wait: float) -> None:
        super().__init__("too many actions; wait a moment and try again")
        self.wait = wait


#: refusals that leave some of the body unread: the connection is closed after them
_CLOSE = frozenset({408, 413})


def _error(status: int, text: str, headers: Mapping[str, str] | None = None) -> Response:
    close = {"Connection": "close"} if status in _CLOSE else {}
    return json_response({"error": text}, status=status,
                         headers={**PRIVATE, **close, **(headers or {})})


def _one_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or ["refused"])[0]


async def read_body(request: Request) -> bytes | None:
    """The body as sent, read up to :data:`MAX_BODY` bytes (None: it is longer) within
    :data:`BODY_TIMEOUT` seconds (else :class:`TimeoutError`)."""
    raw = b""
    with anyio.fail_after(BODY_TIMEOUT):
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                return None
    return raw


def _parsed(request: Request, raw: bytes | None) -> object:
    """The body as JSON, or the refusal that says what is wrong with it."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise _Refused(415, "the body must be JSON (Content-Type: application/json)")
    if raw is None:
        raise _Refused(413, f"the body is too large (at most {MAX_BODY} bytes)")
    return read_json(raw, "the body")


class _Refused(acting.ActionRefused):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


def act(request: Request, raw: bytes | None) -> Response:
    """In a thread: the failed-token limit of the client's address; the token, in a read; the
    player's rate; the body (:func:`~nomic_cards.core.services.acting.ask`) -- a request
    refused so far takes no lock -- then one writing transaction for the action
    (:func:`~nomic_cards.core.services.acting.perform`). A bad token is refused before
    anything in the body is looked at."""
    blocked = limited(request)
    if blocked is not None:
        return blocked
    state, game, token = request.app.state, nomic_of(request), bearer(request)
    try:
        with game.read(need_game=False) as r:
            viewer = acting.who_acts(r, token)
        wait = state.action_rate.take(viewer.player)
        if wait is not None:
            raise TooMany(wait)
        asked = acting.ask(viewer, token, _parsed(request, raw), actions=state.actions,
                           key=request.headers.get("idempotency-key"),
                           if_match=request.headers.get("if-match"))
        with game.write(catch_up=False, token=asked.token_read) as tx:
            answer = acting.perform(tx, asked)
    except acting.BadToken:
        return refuse(request)  # counted against the client's address
    except TooMany as exc:
        return _error(429, _one_line(exc), {"Retry-After": str(max(1, round(exc.wait + 0.5)))})
    except acting.ActionRefused as exc:
        return _error(exc.status, _one_line(exc))
    except DatabaseError:
        raise
    except RuleViolation as exc:
        return _error(409, _one_line(exc))
    except (InputError, NomicCardsError) as exc:
        return _error(400, _one_line(exc))
    headers = dict(PRIVATE)
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    return json_response(answer.body, status=answer.status, headers=headers)


async def post_action(request: Request) -> Response:
    """The body is read first (bounded in size and time, on the event loop); then the action
    is taken in a thread of the pool (:func:`act`)."""
    try:
        raw = await read_body(request)
    except TimeoutError:
        return _error(408, LATE)
    return await anyio.to_thread.run_sync(act, request, raw)


async def my_events(request: Request) -> Response:
    return await open_stream(request, bearer(request))


async def events(request: Request) -> Response:
    return await open_stream(request, None)
