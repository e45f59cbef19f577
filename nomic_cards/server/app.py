"""The application factory: routes, the Game's lifespan, security headers, errors as JSON.

One :class:`~nomic_cards.core.Game` per process, made when the app starts (``lifespan``) and
closed when it stops; handlers share it from the thread pool (it is safe to share). Errors never
show a traceback: bad input is 400 with one line, a missing thing 404, an unreachable database
503 (and the next request tries again).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from types import MappingProxyType

import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nomic_cards.core.game import Game
from nomic_cards.core.store.engine import SERVER_POOL
from nomic_cards.errors import DatabaseError, InputError, NomicCardsError, NotFound
from nomic_cards.server import api
from nomic_cards.server.auth import FailureLimiter
from nomic_cards.server.openapi import openapi_document

log = logging.getLogger("nomic_cards.server")

#: The page's Content-Security-Policy: its own script and style only, nothing inline, no frames.
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_SECURITY = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
             (b"x-frame-options", b"DENY"))
_STATIC = MappingProxyType({"app.js": "text/javascript; charset=utf-8",
                            "style.css": "text/css; charset=utf-8",
                            "favicon.svg": "image/svg+xml"})


class Guard:
    """Refuses what no endpoint takes (a body on a GET, other methods) before any routing,
    and adds the security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        method = scope["method"]
        problem = None
        if method not in ("GET", "HEAD"):
            problem = (405, f"{method} is not allowed: the server is read-only")
        elif headers.get(b"content-length", b"0") not in (b"0", b"") or \
                b"transfer-encoding" in headers:
            problem = (400, "a GET request takes no body")
        if problem is not None:
            status, text = problem
            extra = {"Allow": "GET, HEAD"} if status == 405 else {}
            await JSONResponse({"error": text}, status_code=status,
                               headers=extra)(scope, receive, self._secure(send))
            return
        started = False
        secure = self._secure(send)

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await secure(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # noqa: BLE001 - answered as a 500, logged in one line
            log.error("internal error on %s %s: %s", method, scope.get("path", "?"),
                      type(exc).__name__)
            if not started:
                await JSONResponse({"error": "internal error"},
                                   status_code=500)(scope, receive, secure)

    @staticmethod
    def _secure(send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY]
            await send(message)
        return wrapped


async def _error(request: Request, exc: Exception) -> Response:
    """Project errors and Starlette's HTTP errors as one-line JSON."""
    if isinstance(exc, HTTPException):
        text = "no such resource" if exc.status_code == 404 else str(exc.detail)
        return JSONResponse({"error": text}, status_code=exc.status_code,
                            headers=dict(exc.headers or {}))
    if isinstance(exc, DatabaseError):
        log.warning("database unavailable on %s %s", request.method, request.url.path)
        return JSONResponse({"error": "the game database is not answering; try again shortly"},
                            status_code=503, headers={"Retry-After": "5",
                                                      "Cache-Control": "no-store"})
    if isinstance(exc, NotFound):
        return JSONResponse({"error": str(exc)}, status_code=404)
    if isinstance(exc, InputError | NomicCardsError):
        return JSONResponse({"error": str(exc).splitlines()[0]}, status_code=400)
    raise exc  # not ours: the Guard answers 500 and logs one line


def _page(request: Request) -> Response:
    body = resources.files("nomic_cards.server").joinpath("static/index.html").read_bytes()
    return Response(body, media_type="text/html; charset=utf-8",
                    headers={"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-cache"})


def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _STATIC:
        raise NotFound("no such file")
    body = resources.files("nomic_cards.server").joinpath(f"static/{name}").read_bytes()
    return Response(body, media_type=_STATIC[name], headers={"Cache-Control": "no-cache"})


def _openapi(request: Request) -> Response:
    return JSONResponse(request.app.state.openapi)


ROUTES = (
    Route("/", _page),
    Route("/static/{name}", _static),
    Route("/healthz", api.healthz),
    Route("/reports.atom", api.feed),
    Route("/api/v1/openapi.json", _openapi),
    Route("/api/v1/me", api.me),
    Route("/api/v1/me/hand", api.my_hand),
    Route("/api/v1/me/notices", api.my_notices),
    Route("/api/v1/players", api.players),
    Route("/api/v1/deck", api.deck),
    Route("/api/v1/game", api.game),
    Route("/api/v1/reports", api.reports),
    Route("/api/v1/reports/{nweek}", api.report),
    Route("/api/v1/dice", api.dice),
    Route("/api/v1/rules", api.rules),
    Route("/api/v1/ledger/head", api.head),
)


def create_app(game: Game | None = None, *, db: str | None = None) -> Starlette:
    """The ASGI app. Without ``game``, one is opened at start-up from ``db`` (default: the
    ``NOMIC_CARDS_DB`` environment variable, else ``nomic-cards.db``) and closed at shutdown;
    a ``game`` passed in is the caller's to close."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # as many request threads as pooled connections: none waits on a connection
        anyio.to_thread.current_default_thread_limiter().total_tokens = SERVER_POOL
        own = game is None
        app.state.game = game or Game(db or os.environ.get("NOMIC_CARDS_DB"), server=True)
        try:
            yield
        finally:
            if own:
                app.state.game.close()

    app = Starlette(routes=ROUTES, lifespan=lifespan, middleware=[Middleware(Guard)],
                    exception_handlers={NomicCardsError: _error, HTTPException: _error})
    app.state.limiter = FailureLimiter()
    app.state.cache = api.BodyCache()
    app.state.openapi = openapi_document()
    return app
