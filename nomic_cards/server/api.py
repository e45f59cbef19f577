"""The JSON API (``/api/v1``), the Atom feed and the health check: thin handlers over the use
cases in :mod:`nomic_cards.core.services`. Read-only: no endpoint changes game state.

Handlers are plain functions, run in the thread pool; each makes one unit of work (the hot
ones, one query). Public resources carry an ETag keyed to the ledger head.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from nomic_cards.core.game import Game
from nomic_cards.core.ledger.events import parse_time
from nomic_cards.core.report import FORMATS
from nomic_cards.core.services import player_games, public
from nomic_cards.core.services.dice import dice_periods
from nomic_cards.core.services.reports import report as report_view
from nomic_cards.core.services.rules import rules_show
from nomic_cards.core.services.tokens import split_token
from nomic_cards.errors import InputError, NotFound
from nomic_cards.plain import plain
from nomic_cards.server.auth import Limiter, bearer, failure_key, unauthorized
from nomic_cards.server.feed import atom
from nomic_cards.server.openapi import NWEEK_MAX
from nomic_cards.server.replays import RETRY_AFTER, ReplayBusy, Replays

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


class BodyCache:
    """Bodies of public resources by (resource, ETag): rebuilt only when the ledger moves."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], tuple[bytes, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> tuple[bytes, str] | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], value: tuple[bytes, str]) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)


def _public(request: Request, key: str,
            build: Callable[[Game], tuple[bytes, str]]) -> Response:
    game = game_of(request)
    etag = public.ledger_head(game).etag
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    wanted = request.headers.get("if-none-match")
    if wanted and (wanted.strip() == "*" or etag in (t.strip() for t in wanted.split(","))):
        return Response(status_code=304, headers=headers)
    cache: BodyCache = request.app.state.cache
    found = cache.get((key, etag))
    if found is None:
        found = build(game)
        cache.put((key, etag), found)
    body, media = found
    return Response(body, media_type=media, headers=headers)


def _as_json(data: Any) -> tuple[bytes, str]:
    return json.dumps(plain(data), ensure_ascii=False).encode("utf-8"), "application/json"


def players(request: Request) -> Response:
    def build(game: Game) -> tuple[bytes, str]:
        h = public.public_holdings(game)
        return _as_json({"as_of": h.head.event, "players": h.players})
    return _public(request, "players", build)


def deck(request: Request) -> Response:
    def build(game: Game) -> tuple[bytes, str]:
        h = public.public_holdings(game)
        dealer = next((p.name for p in h.players if p.dealer), None)
        return _as_json({"as_of": h.head.event, "dealer": dealer, "total": h.deck_total,
                         "sides": h.sides, "by_back": h.deck})
    return _public(request, "deck", build)


def game(request: Request) -> Response:
    return _public(request, "game", lambda g: _as_json(public.game_info(g)))


def reports(request: Request) -> Response:
    return _public(request, "reports", lambda g: _as_json(public.reports_index(g)))


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

    def build(g: Game) -> tuple[bytes, str]:
        view = report_view(g, nweek, fmt=fmt, published_only=True)
        if not view.published:
            raise NotFound(f"the Dealer's Report for nweek {nweek} is not published yet")
        return view.body.encode("utf-8"), _MEDIA[fmt]
    return _public(request, f"report/{nweek}/{fmt}", build)


def rules(request: Request) -> Response:
    """The rules in force (now, or at ``?at=TIME``): public, like the rules themselves."""
    at = param(request, "at")
    if at is not None:
        try:
            parse_time(at)
        except ValueError:
            raise InputError(f"at must be an ISO 8601 time, not {at!r}") from None
    return _public(request, f"rules?at={at}",
                   lambda g: _as_json(rules_show(g, at=at)))


def dice(request: Request) -> Response:
    return _public(request, "dice", lambda g: _as_json(dice_periods(g)))


def head(request: Request) -> Response:
    h = public.ledger_head(game_of(request))
    return _json({"event": h.event, "hash": h.hash}, headers={"ETag": h.etag,
                                                              "Cache-Control": "no-cache"})


def feed(request: Request) -> Response:
    base: str | None = request.app.state.base_url  # configured; never the request's Host

    def build(g: Game) -> tuple[bytes, str]:
        entries = [(e, report_view(g, e.nweek, fmt="text", published_only=True).body)
                   for e in public.reports_index(g)]
        return atom(base, public.game_id(g), entries), "application/atom+xml"
    return _public(request, "feed", build)


def healthz(request: Request) -> Response:
    h = public.ledger_head(game_of(request))
    return _json({"status": "ok", "ledger": h.event}, headers=PRIVATE)


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


def _player(request: Request) -> str | None:
    return public.player_for_token(game_of(request), bearer(request))


def my_hand(request: Request) -> Response:
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    as_of = param(request, "as_of")
    if as_of is None:
        hand = public.hand_for_token(game_of(request), bearer(request))
        if hand is None:
            return _refuse(request)
        return _json(plain(hand), headers=PRIVATE)
    player = _player(request)
    if player is None:
        return _refuse(request)
    g = game_of(request)
    replays: Replays = request.app.state.replays
    number = public.as_of_event(g, as_of)
    hands = replays.cached(number)
    if hands is None:
        try:
            with replays.slot(player):
                hands = replays.cached(number)
                if hands is None:
                    hands = public.hands_at(g, number)
                    replays.keep(hands)
        except ReplayBusy as busy:
            return _json({"error": busy.message}, status=busy.status,
                         headers={"Retry-After": str(RETRY_AFTER), **PRIVATE})
    if player not in hands.players:
        raise NotFound(f"{player} was not a player at event {hands.event}")
    return _json(plain(hands.hand(player)), headers=PRIVATE)


def _own(request: Request, view: Callable[[Game, str], Any]) -> Response:
    """A private resource: the token's player's ``view``, or 429/401."""
    blocked = _limited(request)
    if blocked is not None:
        return blocked
    player = _player(request)
    if player is None:
        return _refuse(request)
    return _json(plain(view(game_of(request), player)), headers=PRIVATE)


def my_notices(request: Request) -> Response:
    return _own(request, public.notices_for)


def me(request: Request) -> Response:
    return _own(request, public.me)


def my_votes(request: Request) -> Response:
    return _own(request, public.votes_for)


def my_games(request: Request) -> Response:
    """The player's view of each card game in force (Pooker: eir PCards, best arrangement,
    Points, eir own notifications and those naming em, the Motion, the Showdown)."""
    return _own(request, player_games.games_for)
