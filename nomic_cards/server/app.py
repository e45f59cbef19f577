"""The application factory: routes, the Nomic's lifespan, security headers, errors as JSON.

One :class:`~nomic_cards.core.nomic.Nomic` per process, made when the app starts (``lifespan``) and
closed when it stops; the handlers are plain functions that Starlette runs in its thread pool,
each opening its own transaction on the shared Nomic. Errors never show a traceback: bad input
is 400 with one line, a missing thing 404, an unreachable database 503 (and the next request
tries again).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from importlib import resources
from types import MappingProxyType
from urllib.parse import parse_qsl, quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nomic_cards.core.actions import ActionSpec
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.acting import registry
from nomic_cards.errors import (
    DatabaseError,
    InputError,
    NomicCardsError,
    NotFound,
    PermissionDenied,
)
from nomic_cards.server import actions as acts
from nomic_cards.server import api
from nomic_cards.server import live as streams
from nomic_cards.server import self_service as mine
from nomic_cards.server.auth import make_limiter
from nomic_cards.server.logs import install as redact_logs
from nomic_cards.server.logs import redact_target
from nomic_cards.server.openapi import openapi_document

log = logging.getLogger("nomic_cards.server")

#: The page's Content-Security-Policy: its own script and style only, nothing inline, no frames.
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_SECURITY = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
             (b"x-frame-options", b"DENY"))
_STATIC = MappingProxyType({"app.js": "text/javascript; charset=utf-8",
                            "render.js": "text/javascript; charset=utf-8",
                            "style.css": "text/css; charset=utf-8",
                            "favicon.svg": "image/svg+xml"})


class Guard:
    """Refuses what no endpoint takes (a body on a GET, other methods, an action's body
    declared larger than :data:`~nomic_cards.server.actions.MAX_BODY`) before any routing and
    before any of the body is read, closing the connection (its body is never read);
    redirects a known path written with a trailing ``/`` to the path without it (to the
    configured base URL, never to the request's Host); and adds the security headers to every
    response."""

    def __init__(self, app: ASGIApp, base_url: str | None = None) -> None:
        self.app = app
        self.base_url = base_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        method = scope["method"]
        problem = None
        allow = "GET, HEAD"
        path = str(scope.get("path", ""))
        # the resources that take a body (the actions' even for a GET: it takes nothing else)
        if path in _POSTS and (path == ACTIONS_PATH or method not in ("GET", "HEAD")):
            allow = _POSTS[path]
            if method != "POST":
                problem = (405, f"{method} is not allowed here: {path} takes a POST")
            elif _declared(headers) > acts.MAX_BODY:  # answered now, not after reading it
                problem = (413, f"the body is too large (at most {acts.MAX_BODY} bytes)")
        elif method not in ("GET", "HEAD"):
            problem = (405, f"{method} is not allowed here: the only resource that takes a "
                            f"POST is {ACTIONS_PATH}")
        elif headers.get(b"content-length", b"0") not in (b"0", b"") or \
                b"transfer-encoding" in headers:
            problem = (400, "a GET request takes no body")
        if problem is not None:
            status, text = problem
            extra = {"Allow": allow, "Cache-Control": "no-store"} if status == 405 else {}
            extra["Connection"] = "close"
            await JSONResponse({"error": text}, status_code=status,
                               headers=extra)(scope, receive, self._secure(send))
            return
        started = False
        secure = self._secure(send)
        target = self._slash_redirect(scope)
        if target is not None:
            await RedirectResponse(target, status_code=307)(scope, receive, secure)
            return
        unknown = self._unknown_parameter(scope)
        if unknown is not None:
            await JSONResponse({"error": unknown}, status_code=400)(scope, receive, secure)
            return

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await secure(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # noqa: BLE001 - answered as a 500, logged in one line
            log.error("internal error on %s %s: %s", method,
                      redact_target(scope.get("path", "?")), type(exc).__name__)
            if not started:
                await JSONResponse({"error": "internal error"},
                                   status_code=500)(scope, receive, secure)

    def _slash_redirect(self, scope: Scope) -> str | None:
        """Where ``/api/v1/me/hand/`` goes: the same resource without the trailing slash, as
        an address on the configured base URL or, without one, a path on this server. The
        Host header never makes an address."""
        path: str = scope["path"]
        if path == "/" or not path.endswith("/"):
            return None
        bare = path.rstrip("/")
        if not bare.startswith("/") or bare.startswith("//"):
            return None
        probe = {**scope, "path": bare}
        if not any(route.matches(probe)[0] is not Match.NONE for route in ROUTES):
            return None
        query = scope.get("query_string", b"").decode("latin-1")
        return f"{self.base_url or ''}{quote(bare)}" + (f"?{query}" if query else "")

    @staticmethod
    def _unknown_parameter(scope: Scope) -> str | None:
        """Why a query parameter that the API resource does not take is refused, or None: the
        OpenAPI document lists every parameter, and a misspelt one (``?asof=12``) must not be
        answered as if it were absent."""
        query = scope.get("query_string", b"")
        if not query:
            return None
        for route in ROUTES:
            if route.matches(scope)[0] is Match.FULL:
                allowed = QUERY_PARAMETERS.get(route.path)
                if allowed is None:
                    return None  # not an API resource: the page, static files, the feed
                names = {name for name, _ in parse_qsl(query.decode("latin-1"),
                                                       keep_blank_values=True)}
                for name in sorted(names - allowed):
                    takes = ", ".join(sorted(allowed)) or "none"
                    return f"unknown parameter {name[:MAX_NAME]!r} (this resource takes: {takes})"
                return None
        return None

    @staticmethod
    def _secure(send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY]
            await send(message)
        return wrapped


def _declared(headers: Mapping[bytes, bytes]) -> int:
    """The body's length as its ``Content-Length`` declares it (0 without one; the HTTP parser
    has refused one that is not a number)."""
    value = headers.get(b"content-length", b"0").strip()
    if not value.isdigit():
        return 0
    return int(value) if len(value) <= 18 else 10**18


async def _error(request: Request, exc: Exception) -> Response:
    """Project errors and Starlette's HTTP errors as one-line JSON."""
    if isinstance(exc, HTTPException):
        text = "no such resource" if exc.status_code == 404 else str(exc.detail)
        return JSONResponse({"error": text}, status_code=exc.status_code,
                            headers=dict(exc.headers or {}))
    if isinstance(exc, PermissionDenied):  # a grant missing: not the client's doing
        log.error("the database account may not read what %s %s needs: %s (docs/deploy.md "
                  "lists the server's grants)", request.method, redact_target(request.url.path),
                  exc)
        return JSONResponse({"error": "internal error"}, status_code=500)
    if isinstance(exc, DatabaseError):
        log.warning("database unavailable on %s %s", request.method,
                    redact_target(request.url.path))
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


def _game_panel(request: Request) -> Response:
    """An installed card game's own panel script (``/static/games/<name>.js``)."""
    from nomic_cards.core.engine import panel_source

    name = str(request.path_params["name"])
    body = panel_source(name.removesuffix(".js")) if name.endswith(".js") else None
    if body is None:
        raise NotFound("no such file")
    return Response(body, media_type=_STATIC["app.js"], headers={"Cache-Control": "no-cache"})


def _openapi(request: Request) -> Response:
    return JSONResponse(request.app.state.openapi)


ACTIONS_PATH = "/api/v1/me/actions"
#: the paths that take a POST, and the methods each allows
_POSTS: Mapping[str, str] = MappingProxyType({ACTIONS_PATH: "POST", **mine.POSTS})

ROUTES = (
    Route("/", _page),
    Route(ACTIONS_PATH, acts.post_action, methods=["POST"]),
    Route("/api/v1/me/events", acts.my_events),
    Route("/api/v1/events", acts.events),
    Route("/static/{name}", _static),
    Route("/static/games/{name}", _game_panel),
    Route("/healthz", api.healthz),
    Route(mine.CONFIRM_PATH, mine.confirm, methods=["GET", "HEAD", "POST"]),
    Route(mine.TOKEN_PATH, mine.ask_token, methods=["POST"]),
    Route("/reports.atom", api.feed),
    Route("/log.atom", api.log_feed),
    Route("/api/v1/openapi.json", _openapi),
    Route("/api/v1/me", api.me),
    Route("/api/v1/me/hand", api.my_hand),
    Route("/api/v1/me/notices", api.my_notices),
    Route("/api/v1/me/votes", api.my_votes),
    Route("/api/v1/me/games", api.my_games),
    Route("/api/v1/players", api.players),
    Route("/api/v1/deck", api.deck),
    Route("/api/v1/game", api.game),
    Route("/api/v1/reports", api.reports),
    Route("/api/v1/reports/{nweek}", api.report),
    Route("/api/v1/dice", api.dice),
    Route("/api/v1/decisions", api.decisions),
    Route("/api/v1/decisions/{id}", api.decision),
    Route("/api/v1/log", api.log),
    Route("/api/v1/games", api.games),
    Route("/api/v1/rules", api.rules),
    Route("/api/v1/points", api.points),
    Route("/api/v1/points/bank", api.bank_points),
    Route("/api/v1/points/players/{name}", api.player_points),
    Route("/api/v1/ledger/head", api.head),
)


#: The query parameters each API resource takes (as its OpenAPI operation lists them).
QUERY_PARAMETERS: Mapping[str, frozenset[str]] = MappingProxyType({
    **{route.path: frozenset() for route in ROUTES
       if route.path.startswith("/api/v1/") or route.path == "/healthz"},
    "/api/v1/me/hand": frozenset({"as_of"}),
    "/api/v1/log": frozenset({"before", "limit"}),
    "/api/v1/reports/{nweek}": frozenset({"format"}),
    "/api/v1/decisions/{id}": frozenset({"format"}),
    "/api/v1/rules": frozenset({"at"}),
})
MAX_NAME = 64


def create_app(nomic: Nomic | None = None, *, db: str | None = None,
               base_url: str | None = None, actions: Mapping[str, ActionSpec] | None = None,
               ping: float | None = None, stream_max_age: float | None = None,
               watch_poll: float = 0.1, action_rate: tuple[float, int] | None = None
               ) -> Starlette:
    """The ASGI app. Without ``nomic``, one is opened at start-up from ``db`` (default: the
    ``NOMIC_CARDS_DB`` environment variable, else ``nomic-cards.db``) and closed at shutdown;
    a ``nomic`` passed in is the caller's to close. ``base_url`` (default: the
    ``NOMIC_CARDS_BASE_URL`` environment variable; empty counts as unset) is the server's public
    URL: the feed's links and ids and the redirects are made from it, never from a request.
    ``actions`` (default: every declared action, :func:`~nomic_cards.core.services.acting.registry`)
    are what ``POST /api/v1/me/actions`` takes; ``ping`` and ``stream_max_age`` (seconds;
    default ``NOMIC_CARDS_SSE_PING``, else 15, and an hour) time the event streams;
    ``action_rate`` is (actions a second, burst) per player (default
    ``NOMIC_CARDS_ACTION_RATE``, ``RATE,BURST``, else 10 a second in bursts of 20)."""
    from nomic_cards.core.mail import BASE_URL_VARIABLE, check_base_url

    redact_logs()  # no token a client puts in an address reaches the access log
    configured = base_url if base_url is not None else os.environ.get(BASE_URL_VARIABLE)
    base = check_base_url(configured) if configured else None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own = nomic is None
        app.state.nomic = nomic or Nomic(db or os.environ.get("NOMIC_CARDS_DB"), server=True)
        app.state.broadcast = streams.Broadcast(app.state.nomic, poll=watch_poll)
        try:
            yield
        finally:
            app.state.broadcast.stop()
            if own:
                app.state.nomic.close()

    app = Starlette(routes=ROUTES, lifespan=lifespan,
                    middleware=[Middleware(Guard, base_url=base)],
                    exception_handlers={NomicCardsError: _error, HTTPException: _error})
    app.router.redirect_slashes = False  # the Guard redirects, to the configured URL only
    app.state.base_url = base
    app.state.limiter = make_limiter(os.environ)
    app.state.trusted_proxy = bool(os.environ.get("NOMIC_CARDS_TRUSTED_PROXY"))
    app.state.actions = registry() if actions is None else actions
    app.state.openapi = openapi_document(app.state.actions)
    env_ping = os.environ.get("NOMIC_CARDS_SSE_PING")
    app.state.ping = ping if ping is not None else float(env_ping) if env_ping else streams.PING
    app.state.max_age = stream_max_age if stream_max_age is not None else streams.MAX_AGE
    rate, burst = action_rate or acts.rate_from(os.environ.get("NOMIC_CARDS_ACTION_RATE"))
    app.state.action_rate = acts.RateLimit(rate, burst)
    return app
