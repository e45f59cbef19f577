"""A player's own mail business on the server (docs/notices.md, "Your address, your token"):
the page a confirmation link opens (``GET /address/confirm?link=...``: a Confirm button; its
``POST`` makes the change), and asking for a new token (``POST /api/v1/token`` with
``{"player": NAME}``: mailed by the next sending to the registered address), both without a
token, limited as :mod:`nomic_cards.core.services.self_service` limits them."""

from __future__ import annotations

import html
from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import parse_qsl

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from nomic_cards.core.services import self_service
from nomic_cards.errors import DatabaseError, InputError, NomicCardsError, RuleViolation
from nomic_cards.inputs import read_json
from nomic_cards.server.actions import LATE, MAX_BODY, read_body

CONFIRM_PATH = "/address/confirm"
TOKEN_PATH = "/api/v1/token"
#: the paths of this module that take a POST, and the methods each allows
POSTS: Mapping[str, str] = MappingProxyType({CONFIRM_PATH: "GET, HEAD, POST",
                                             TOKEN_PATH: "POST"})
#: the confirmation page's policy: no script at all, its one form posted to itself
_CSP = ("default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'")
_HEADERS = MappingProxyType({"Content-Security-Policy": _CSP, "Cache-Control": "no-store"})


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
        "content=\"width=device-width\"><title>Spoon Nomic Cards: "
        f"{html.escape(title)}</title><link rel=\"stylesheet\" href=\"/static/style.css\">"
        f"</head><body><main><h1>{html.escape(title)}</h1>{body}</main></body></html>",
        status_code=status, headers=dict(_HEADERS))


async def _body(request: Request) -> bytes | int:
    """The body, bounded in size and time as an action's is, or the status refusing it (413
    too large, 408 too late)."""
    try:
        raw = await read_body(request)
    except TimeoutError:
        return 408
    return 413 if raw is None else raw


#: what a refused body's status says, and the header that closes its connection
_TOO = MappingProxyType({408: LATE, 413: f"the body is too large (at most {MAX_BODY} bytes)"})
_CLOSE = MappingProxyType({"Connection": "close"})


async def confirm(request: Request) -> Response:
    """GET: the page with the link's Confirm button (nothing changes); POST: the change."""
    if request.method in ("GET", "HEAD"):
        link = request.query_params.get("link", "")
        try:
            self_service.parse_link(link)
        except InputError as exc:
            return _page("Not a confirmation link", f"<p>{html.escape(str(exc))}</p>", 400)
        return _page("Confirm your new address", (
            "<p>Press Confirm to be mailed at the address you asked for from now on.</p>"
            f"<form method=\"post\" action=\"{CONFIRM_PATH}\"><input type=\"hidden\" "
            f"name=\"link\" value=\"{html.escape(link)}\"><button type=\"submit\">Confirm"
            "</button></form>"))
    raw = await _body(request)
    if isinstance(raw, int):
        page = _page("Not confirmed", f"<p>{html.escape(_TOO[raw])}</p>", raw)
        page.headers.update(_CLOSE)
        return page
    fields = dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
    return await anyio.to_thread.run_sync(_confirm, request, fields.get("link", ""))


def _confirm(request: Request, link: str) -> Response:
    try:
        with request.app.state.nomic.write() as tx:
            done = self_service.confirm_address(tx, link)
    except DatabaseError:
        raise
    except RuleViolation as exc:
        return _page("Not confirmed", f"<p>{html.escape(str(exc))}</p>", 409)
    except (InputError, NomicCardsError) as exc:
        return _page("Not confirmed", f"<p>{html.escape(str(exc))}</p>", 400)
    return _page("Address confirmed", f"<p>{html.escape(done.player)}, the game mails you at "
                                      f"{html.escape(done.address)} from now on (event "
                                      f"{done.event}).</p>")


async def ask_token(request: Request) -> Response:
    """``{"player": NAME}``: a new token for that player, mailed to eir registered address by
    the next sending (within minutes); 202, or 429 with ``Retry-After`` past the limits."""
    raw = await _body(request)
    if isinstance(raw, int):
        return JSONResponse({"error": _TOO[raw]}, status_code=raw, headers=dict(_CLOSE))
    try:
        body = read_json(raw, "the body") if raw.strip() else None
    except InputError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    player = body.get("player") if isinstance(body, dict) else None
    if not isinstance(player, str) or not player.strip():
        return JSONResponse({"error": "give the player's name: {\"player\": \"NAME\"}"},
                            status_code=400)
    return await anyio.to_thread.run_sync(_ask_token, request, player.strip())


def _ask_token(request: Request, player: str) -> Response:
    try:
        with request.app.state.nomic.write() as tx:
            asked = self_service.ask_token(tx, player)
    except DatabaseError:
        raise
    except self_service.TooSoon as exc:
        return JSONResponse({"error": str(exc)}, status_code=429,
                            headers={"Retry-After": str(max(1, round(exc.wait + 0.5)))})
    except RuleViolation as exc:
        return JSONResponse({"error": str(exc)}, status_code=409)
    except (InputError, NomicCardsError) as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    return JSONResponse({"player": asked.player, "event": asked.event,
                         "mailed": "to the registered address, within minutes"},
                        status_code=202, headers={"Cache-Control": "no-store"})
