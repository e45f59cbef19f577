"""``POST /api/v1/me/actions`` and the event streams' endpoints: a player (or the Dealer, with
an officer token) acts through the server; every answer is a sentence, never a traceback.

The body is JSON, at most :data:`MAX_BODY` bytes, ``{"action": "<game>.<action>", ...}`` as the
action's declaration (:mod:`nomic_cards.core.actions`) says; ``Idempotency-Key`` and
``If-Match`` as :mod:`nomic_cards.core.services.acting` describes. Each player may take
:data:`RATE` actions a second on average (bursts of :data:`BURST`), counted where the actions
are taken: by the server's action writer (:mod:`nomic_cards.server.writer`) under ``serve
--workers N``, else in each process.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from nomic_cards.core.services import acting, live
from nomic_cards.errors import DatabaseError, InputError, NomicCardsError, RuleViolation
from nomic_cards.server import threads
from nomic_cards.server.api import PRIVATE, _json, _limited, _refuse, game_of
from nomic_cards.server.auth import bearer
from nomic_cards.server.live import open_stream
from nomic_cards.server.writer import ActionCall, WriterClient, WriterUnavailable

if TYPE_CHECKING:
    from nomic_cards.core.actions import ActionSpec
    from nomic_cards.core.game import Game

MAX_BODY = 16 * 1024
RATE = 10.0
BURST = 20
#: seconds an action may take before it is answered 503 (its thread finishes what it began)
ACTION_DEADLINE = 10.0


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


def _error(status: int, text: str, headers: Mapping[str, str] | None = None) -> Response:
    return _json({"error": text}, status=status, headers={**PRIVATE, **(headers or {})})


def _authenticate(request: Request) -> live.Viewer | Response:
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    viewer = live.viewer_for_token(game_of(request), bearer(request))
    return _refuse(request) if viewer is None else viewer


async def _checked(request: Request) -> live.Viewer | Response:
    return await threads.in_thread(_authenticate, request, lane=threads.quick(request))


def _one_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or ["refused"])[0]


async def _raw_body(request: Request) -> bytes | None:
    """The body as sent, read up to :data:`MAX_BODY` bytes (None: it is longer)."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            return None
    return raw


@dataclass(frozen=True)
class Refusal:
    """An action refused before its use case ran: the status, the sentence, any headers."""

    status: int
    text: str
    headers: tuple[tuple[str, str], ...] = ()


#: what :func:`decide` answers for a token that is not valid (the worker counts the failure
#: against the client's address and answers 401, as every private resource does)
BAD_TOKEN = Refusal(401, "")


def decide(game: Game, call: ActionCall, actions: Mapping[str, ActionSpec],
           limits: RateLimit) -> acting.ActionAnswer | Refusal:
    """Who is acting (the token first, then the rate), the body, then the action: the same
    in a worker (one process) and in the writer (``serve --workers N``). A bad token is
    refused before anything in the body is looked at; the action's own refusals are raised
    (:func:`post_action` answers them)."""
    who = acting.caller_for_token(game, call.token, call.key)
    if who is None:
        return BAD_TOKEN
    wait = limits.take(who.viewer.player)
    if wait is not None:
        return Refusal(429, "too many actions; wait a moment and try again",
                       (("Retry-After", str(max(1, round(wait + 0.5)))),))
    if call.media != "application/json":
        return Refusal(415, "the body must be JSON (Content-Type: application/json)")
    if call.raw is None:
        return Refusal(413, f"the body is too large (at most {MAX_BODY} bytes)")
    try:
        body = json.loads(call.raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Refusal(400, "the body is not valid JSON")
    return acting.perform(game, who, body, actions=actions, key=call.key,
                          if_match=call.if_match)


def _call(request: Request, raw: bytes | None) -> ActionCall:
    return ActionCall(bearer(request), request.headers.get("content-type", "").split(";")[0]
                      .strip().lower(), raw, request.headers.get("idempotency-key"),
                      request.headers.get("if-match"))


def _bad_token(outcome: acting.ActionAnswer | Refusal) -> bool:
    return isinstance(outcome, Refusal) and outcome.status == BAD_TOKEN.status


def _answered(request: Request,
              outcome: acting.ActionAnswer | Refusal) -> acting.ActionAnswer | Response:
    if _bad_token(outcome):
        return _refuse(request)  # counted against the client's address
    if isinstance(outcome, Refusal):
        return _error(outcome.status, outcome.text, dict(outcome.headers))
    return outcome


def _act(request: Request, raw: bytes | None) -> acting.ActionAnswer | Response:
    """In one worker thread: the failed-token limit of the client's address, then
    :func:`decide`."""
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    return _answered(request, decide(game_of(request), _call(request, raw),
                                     request.app.state.actions, request.app.state.action_rate))


async def _take(request: Request, raw: bytes | None) -> acting.ActionAnswer | Response:
    """The action taken here (in a thread of the pool), or handed to the server's action
    writer (:mod:`nomic_cards.server.writer`) from the event loop: the worker then only checks
    the client's failed-token limit (a read of the server's small limits file, whose readers
    never wait) and waits."""
    writer: WriterClient | None = request.app.state.writer
    if writer is None:
        return await anyio.to_thread.run_sync(_act, request, raw, abandon_on_cancel=True)
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    outcome = await writer.perform(_call(request, raw))
    if _bad_token(outcome):
        # the failure is written to the limits file: in a thread, never on the event loop
        return await anyio.to_thread.run_sync(_refuse, request)
    return _answered(request, outcome)


async def post_action(request: Request) -> Response:
    """The body is read first (bounded, on the event loop); then the token is checked and the
    action taken (:func:`_take`): a bad token is refused before anything in the body is looked
    at."""
    raw = await _raw_body(request)
    try:
        with anyio.fail_after(ACTION_DEADLINE):
            answer = await _take(request, raw)
    except (TimeoutError, WriterUnavailable):
        return _error(503, "the game database did not answer in time; retry with the same "
                           "Idempotency-Key", {"Retry-After": "5"})
    except acting.ActionRefused as exc:
        return _error(exc.status, _one_line(exc))
    except DatabaseError:
        raise
    except RuleViolation as exc:
        return _error(409, _one_line(exc))
    except (InputError, NomicCardsError) as exc:
        return _error(400, _one_line(exc))
    if isinstance(answer, Response):
        return answer
    headers = dict(PRIVATE)
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    return _json(answer.body, status=answer.status, headers=headers)


async def my_events(request: Request) -> Response:
    who = await _checked(request)
    if isinstance(who, Response):
        return who
    return await open_stream(request, who)


async def events(request: Request) -> Response:
    return await open_stream(request, None)
