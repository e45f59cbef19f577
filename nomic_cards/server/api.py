"""The JSON API (``/api/v1``), the Atom feed and the health check: thin handlers over the use
cases in :mod:`nomic_cards.core.services`. Read-only: no endpoint changes game state.

Handlers are plain functions, run in the thread pool; each makes one transaction (the hot
ones, one query). Public resources carry an ETag keyed to the ledger head.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from nomic_cards.core.game import Game, Reads
from nomic_cards.core.ledger.events import parse_time
from nomic_cards.core.report import FORMATS
from nomic_cards.core.services import player_games, public
from nomic_cards.core.services.dice import dice_periods
from nomic_cards.core.services.reports import report as report_view
from nomic_cards.core.services.rules import rules_show
from nomic_cards.core.services.tokens import accepted, split_token
from nomic_cards.errors import InputError, NotFound
from nomic_cards.plain import plain
from nomic_cards.server.auth import Limiter, bearer, failure_key, unauthorized
from nomic_cards.server.feed import atom
from nomic_cards.server.openapi import NWEEK_MAX

PRIVATE = MappingProxyType({"Cache-Control": "no-store"})
MAX_PARAM = 64
_MEDIA = MappingProxyType({"text": "text/plain; charset=utf-8",
                           "markdown": "text/markdown; charset=utf-8",
                           "json": "application/json"})


def _json(data: Any, *, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def game_of(request: Request) -> Game:
    game: Game = request.app.state.game
    return game


def param(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    if value is not None and len(value) > MAX_PARAM:
        raise InputError(f"the {name} parameter is too long (at most {MAX_PARAM} characters)")
    return value


# --- public resources, revalidated by ETag --------------------------------------------------


def _public(request: Request, build: Callable[[Reads], tuple[bytes, str]], *,
            need_game: bool = True, moment: Callable[[Reads], str] | None = None) -> Response:
    """A public resource, with an ETag from the ledger head (and from ``moment``, for a
    resource that changes with the clock as well), read with its body in one snapshot: 304
    when the client's copy is current."""
    with game_of(request).read(need_game=need_game) as r:
        etag = public.ledger_head(r).etag
        if moment is not None:
            etag = f'{etag[:-1]}-{moment(r)}"'
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        wanted = request.headers.get("if-none-match")
        if wanted and (wanted.strip() == "*" or etag in (t.strip() for t in wanted.split(","))):
            return Response(status_code=304, headers=headers)
        body, media = build(r)
    return Response(body, media_type=media, headers=headers)


def _as_json(data: Any) -> tuple[bytes, str]:
    return json.dumps(plain(data), ensure_ascii=False).encode("utf-8"), "application/json"


def players(request: Request) -> Response:
    def build(r: Reads) -> tuple[bytes, str]:
        h = public.public_holdings(r)
        return _as_json({"as_of": h.head.event, "players": h.players})
    return _public(request, build)


def deck(request: Request) -> Response:
    def build(r: Reads) -> tuple[bytes, str]:
        h = public.public_holdings(r)
        dealer = next((p.name for p in h.players if p.dealer), None)
        return _as_json({"as_of": h.head.event, "dealer": dealer, "total": h.deck_total,
                         "sides": h.sides, "by_back": h.deck})
    return _public(request, build)


def _position(r: Reads) -> str:
    """Where the game Clock stands, for the ETag of ``/game``: the nweek and nday, and whether
    the Clock runs. A copy of ``/game`` is current only while these are, never just because no
    event was recorded since (``now`` is the time of the answer; ``Date`` says it too)."""
    info = public.game_info(r)
    return f"{info.nweek or 0}.{info.nday or 0}{'' if info.clock_running else '-off'}"


def game(request: Request) -> Response:
    return _public(request, lambda r: _as_json(public.game_info(r)), moment=_position)


def reports(request: Request) -> Response:
    return _public(request, lambda r: _as_json(public.reports_index(r)), need_game=False)


def report(request: Request) -> Response:
    raw = request.path_params["nweek"]
    given = param(request, "format")
    fmt = "json" if given is None else given
    if fmt not in FORMATS:
        raise InputError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if not (raw.isascii() and raw.isdigit()):
        raise InputError(f"an nweek is a whole number, not {raw[:MAX_PARAM]!r}")
    if len(raw.lstrip("0")) > len(str(NWEEK_MAX)) or not 1 <= int(raw) <= NWEEK_MAX:
        raise InputError(f"an nweek is from 1 to {NWEEK_MAX}, not {raw[:MAX_PARAM]}")
    nweek = int(raw)

    def build(r: Reads) -> tuple[bytes, str]:
        view = report_view(r, nweek, fmt=fmt, published_only=True)
        if not view.published:
            raise NotFound(f"the Dealer's Report for nweek {nweek} is not published yet")
        return view.body.encode("utf-8"), _MEDIA[fmt]
    return _public(request, build)


def rules(request: Request) -> Response:
    """The rules in force (now, or at ``?at=TIME``): public, like the rules themselves."""
    at = param(request, "at")
    if at is not None:
        try:
            parse_time(at)
        except ValueError:
            raise InputError(f"at must be an ISO 8601 time, not {at!r}") from None
    return _public(request, lambda r: _as_json(rules_show(r, at=at)))


def dice(request: Request) -> Response:
    return _public(request, lambda r: _as_json(dice_periods(r)))


def games(request: Request) -> Response:
    """Every installed card game: in force or not, its panel, its actions and their fields."""
    return _public(request, lambda r: _as_json(public.card_games(r)))


def _head(request: Request) -> public.Head:
    with game_of(request).read(need_game=False) as r:
        return public.ledger_head(r)


def head(request: Request) -> Response:
    h = _head(request)
    return _json({"event": h.event, "hash": h.hash}, headers={"ETag": h.etag,
                                                              "Cache-Control": "no-cache"})


def feed(request: Request) -> Response:
    base: str | None = request.app.state.base_url  # configured; never the request's Host

    def build(r: Reads) -> tuple[bytes, str]:
        entries = [(e, report_view(r, e.nweek, fmt="text", published_only=True).body)
                   for e in public.reports_index(r)]
        return atom(base, public.game_id(r), entries), "application/atom+xml"
    return _public(request, build)


def healthz(request: Request) -> Response:
    return _json({"status": "ok", "ledger": _head(request).event}, headers=PRIVATE)


# --- a player's own view, with a token ------------------------------------------------------


def _client(request: Request) -> str:
    """Whom a failed attempt of this request counts against (see ``auth.failure_key``)."""
    return failure_key(request, split_token(bearer(request))[0],
                       trusted_proxy=request.app.state.trusted_proxy)


def _limited(request: Request) -> Response | None:
    limiter: Limiter = request.app.state.limiter
    wait = limiter.retry_after(_client(request))
    if wait is None:
        return None
    return _json({"error": "too many failed attempts from this address; try again later"},
                 status=429, headers={"Retry-After": str(wait), **PRIVATE})


def _refuse(request: Request) -> Response:
    request.app.state.limiter.fail(_client(request))
    return unauthorized()


def my_hand(request: Request) -> Response:
    """The token's player's hand: now (one statement: the token and the cards), or as of an
    event or a time (``?as_of=``, from where each card has been)."""
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    as_of = param(request, "as_of")
    with game_of(request).read(need_game=False) as r:
        if as_of is None:
            hand = public.hand_for_token(r, bearer(request))
        else:
            player = public.player_for_token(r, bearer(request))
            hand = None if player is None else public.hand_as_of(r, player, as_of)
    if hand is None:
        return _refuse(request)
    return _json(plain(hand), headers=PRIVATE)


def _own(request: Request, view: Callable[[Reads, str], Any]) -> Response:
    """A private resource: the token's player's ``view``, or 429/401."""
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    with game_of(request).read() as r:
        player = public.player_for_token(r, bearer(request))
        if player is None:
            return _refuse(request)
        return _json(plain(view(r, player)), headers=PRIVATE)


def my_notices(request: Request) -> Response:
    return _own(request, public.notices_for)


def me(request: Request) -> Response:
    """The token's player, and the token's scope (``dealer``: an officer token)."""
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    with game_of(request).read() as r:
        row = accepted(r, bearer(request))
        if row is None:
            return _refuse(request)
        return _json(plain(public.me(r, row.player, scope=row.scope)), headers=PRIVATE)


def my_votes(request: Request) -> Response:
    return _own(request, public.votes_for)


def my_games(request: Request) -> Response:
    """The player's view of each card game in force, as each game declares it."""
    return _own(request, player_games.games_for)
