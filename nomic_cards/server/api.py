"""The JSON API (``/api/v1``), the Atom feed and the health check: thin handlers over the use
cases in :mod:`nomic_cards.core.services`. Read-only: no endpoint changes game state.

Handlers are plain functions, run in the thread pool; each makes one transaction (the hot
ones, one query). Public resources carry an ETag keyed to the ledger head.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from nomic_cards.core.ledger.events import parse_time
from nomic_cards.core.nomic import Reads
from nomic_cards.core.report import FORMATS
from nomic_cards.core.resolution import check_id
from nomic_cards.core.services import decisions as decision_uses
from nomic_cards.core.services import live, player_games, public
from nomic_cards.core.services import points as point_uses
from nomic_cards.core.services.dice import dice_periods
from nomic_cards.core.services.reports import report as report_view
from nomic_cards.core.services.rules import rules_show
from nomic_cards.core.services.tokens import accepted
from nomic_cards.errors import InputError, NotFound
from nomic_cards.inputs import MAX_SAFE_INT
from nomic_cards.plain import plain
from nomic_cards.server.auth import bearer, limited, refuse
from nomic_cards.server.common import PRIVATE, json_response, nomic_of
from nomic_cards.server.feed import LOG, REPORTS, Entry, Feed, atom
from nomic_cards.server.openapi import NWEEK_MAX

MAX_PARAM = 64
_MEDIA = MappingProxyType({"text": "text/plain; charset=utf-8",
                           "markdown": "text/markdown; charset=utf-8",
                           "json": "application/json"})


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
    with nomic_of(request).read(need_game=need_game) as r:
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


def _whole(request: Request, name: str, low: int, high: int) -> int | None:
    """A query parameter that is a whole number from ``low`` to ``high`` (None: not given)."""
    raw = param(request, name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise InputError(f"{name} must be a whole number from {low} to {high}, not "
                         f"{raw[:MAX_PARAM]!r}")
    return int(raw)


def log(request: Request) -> Response:
    """The public log, newest first: ``?limit=`` events (default 50) before ``?before=``
    (an event number; default: the newest), each with its sentence."""
    before = _whole(request, "before", 1, MAX_SAFE_INT)
    limit = _whole(request, "limit", 1, live.LOG_PAGE)
    return _public(request, lambda r: _as_json(
        [e.as_dict() for e in live.public_log(r, before=before, limit=limit or 50)]),
        need_game=False)


def decisions(request: Request) -> Response:
    """Every decision of the nomic, newest first, with its status."""
    return _public(request, lambda r: _as_json(decision_uses.decisions_list(r)))


def decision(request: Request) -> Response:
    """One decision whole (``?format=json``, the default): every ballot standing, as cast and
    where, and its resolution; ``?format=agora``: its block as the Assessor publishes it."""
    raw = request.path_params["id"]
    given = param(request, "format")
    fmt = "json" if given is None else given
    if fmt not in ("json", "agora"):
        raise InputError(f"format must be json or agora, not {fmt[:MAX_PARAM]!r}")
    check_id(raw[:MAX_PARAM])

    def build(r: Reads) -> tuple[bytes, str]:
        if fmt == "agora":
            return decision_uses.agora_block(r, raw).encode("utf-8"), _MEDIA["text"]
        return _as_json(decision_uses.decision_show(r, raw))
    return _public(request, build)


def _history(account: str, bank: bool) -> str:
    return "/api/v1/points/bank" if bank else f"/api/v1/points/players/{quote(account, safe='')}"


def points(request: Request) -> Response:
    """The standings: every Player's Points, the most first, then the Bank's; each account
    with the path of its history."""
    def build(r: Reads) -> tuple[bytes, str]:
        *players, bank = point_uses.standings(r)
        rows = [{"account": b.player, "bank": False, "points": b.points,
                 "history": _history(b.player, False)} for b in players]
        rows.append({"account": bank.player, "bank": True, "points": bank.points,
                     "history": _history(bank.player, True)})
        return _as_json({"as_of": public.ledger_head(r).event, "standings": rows})
    return _public(request, build)


def _account(request: Request, player: str | None) -> Response:
    def build(r: Reads) -> tuple[bytes, str]:
        balance, moves = point_uses.account_movements(r, player)
        return _as_json({"as_of": public.ledger_head(r).event, "account": balance.player,
                         "bank": player is None, "points": balance.points, "movements": moves})
    return _public(request, build)


def bank_points(request: Request) -> Response:
    """The Bank's Points and its history, newest first."""
    return _account(request, None)


def player_points(request: Request) -> Response:
    """A Player's Points and eir history, newest first (404: no such player)."""
    name = request.path_params["name"]
    if len(name) > MAX_PARAM:
        raise InputError(f"a player's name is at most {MAX_PARAM} characters")
    return _account(request, name)


def dice(request: Request) -> Response:
    return _public(request, lambda r: _as_json(dice_periods(r)))


def games(request: Request) -> Response:
    """Every installed card game: in force or not, its panel, its actions and their fields."""
    return _public(request, lambda r: _as_json(public.card_games(r)))


def _head(request: Request) -> public.Head:
    with nomic_of(request).read(need_game=False) as r:
        return public.ledger_head(r)


def head(request: Request) -> Response:
    h = _head(request)
    return json_response({"event": h.event, "hash": h.hash}, headers={"ETag": h.etag,
                                                              "Cache-Control": "no-cache"})


def feed(request: Request) -> Response:
    """The Dealer's Reports, each with its text."""
    def entries(r: Reads) -> list[Entry]:
        return [Entry(f"report:{e.nweek}", f"/api/v1/reports/{e.nweek}",
                      f"/api/v1/reports/{e.nweek}?format=text",
                      f"Dealer's Report for nweek {e.nweek}", e.published, "text/plain",
                      report_view(r, e.nweek, fmt="text", published_only=True).body)
                for e in public.reports_index(r)]
    return _feed(request, REPORTS, entries)


def log_feed(request: Request) -> Response:
    """The newest events of the public log, each entry its event's sentence."""
    def entries(r: Reads) -> list[Entry]:
        return [Entry(f"event:{e.event}", f"/api/v1/log?before={e.event + 1}&limit=1",
                      f"/api/v1/log?before={e.event + 1}&limit=1", e.text, e.at,
                      "application/json")
                for e in live.public_log(r)]
    return _feed(request, LOG, entries)


def _feed(request: Request, which: Feed, entries: Callable[[Reads], list[Entry]]) -> Response:
    base: str | None = request.app.state.base_url  # configured; never the request's Host

    def build(r: Reads) -> tuple[bytes, str]:
        return atom(base, public.game_id(r), which, entries(r)), "application/atom+xml"
    return _public(request, build)


def healthz(request: Request) -> Response:
    return json_response({"status": "ok", "ledger": _head(request).event}, headers=PRIVATE)


# --- a player's own view, with a token ------------------------------------------------------


def my_hand(request: Request) -> Response:
    """The token's player's hand: now (one statement: the token and the cards), or as of an
    event or a time (``?as_of=``, from where each card has been)."""
    blocked = limited(request)
    if blocked is not None:
        return blocked
    as_of = param(request, "as_of")
    with nomic_of(request).read(need_game=False) as r:
        if as_of is None:
            hand = public.hand_for_token(r, bearer(request))
        else:
            player = public.player_for_token(r, bearer(request))
            hand = None if player is None else public.hand_as_of(r, player, as_of)
    if hand is None:
        return refuse(request)
    return json_response(plain(hand), headers=PRIVATE)


def _own(request: Request, view: Callable[[Reads, str], Any]) -> Response:
    """A private resource: the token's player's ``view``, or 429/401."""
    blocked = limited(request)
    if blocked is not None:
        return blocked
    with nomic_of(request).read() as r:
        player = public.player_for_token(r, bearer(request))
        if player is None:
            return refuse(request)
        return json_response(plain(view(r, player)), headers=PRIVATE)


def my_notices(request: Request) -> Response:
    return _own(request, public.notices_for)


def me(request: Request) -> Response:
    """The token's player, and the token's scope (``dealer``: an officer token)."""
    blocked = limited(request)
    if blocked is not None:
        return blocked
    with nomic_of(request).read() as r:
        row = accepted(r, bearer(request))
        if row is None:
            return refuse(request)
        return json_response(plain(public.me(r, row.player, scope=row.scope)), headers=PRIVATE)


def my_votes(request: Request) -> Response:
    return _own(request, public.votes_for)


def my_games(request: Request) -> Response:
    """The player's view of each card game in force, as each game declares it."""
    return _own(request, player_games.games_for)
