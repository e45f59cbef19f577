"""The OpenAPI document of ``/api/v1``, generated from the result dataclasses the handlers
return (their JSON Schemas come from pydantic). Tests validate every response against it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pydantic import TypeAdapter

from nomic_cards.core import engine
from nomic_cards.core.actions import ActionField, ActionSpec
from nomic_cards.core.services.acting import MAX_LIST, MAX_TEXT, NOT_BLANK
from nomic_cards.core.services.common import HandView
from nomic_cards.core.services.decisions import DecisionDetail, DecisionSummary
from nomic_cards.core.services.dice import PeriodView
from nomic_cards.core.services.live import LOG_PAGE, LiveEvent
from nomic_cards.core.services.points import Movement
from nomic_cards.core.services.public import (
    CardGameInfo,
    GameInfo,
    HeldBack,
    Me,
    OwnNotice,
    OwnVote,
    PublicPlayer,
    ReportEntry,
)
from nomic_cards.core.services.queries import AS_OF_EVENT_MAX
from nomic_cards.core.services.rules import RuleView
from nomic_cards.inputs import MAX_SAFE_INT

REF = "#/components/schemas/{model}"
#: The largest nweek number (the database's 32-bit integer).
NWEEK_MAX = 2**31 - 1
#: The largest event number as_of may name (18 digits: within the database's 64-bit integer).
EVENT_MAX = AS_OF_EVENT_MAX


@dataclass(frozen=True)
class PlayersOut:
    as_of: int
    players: tuple[PublicPlayer, ...]


@dataclass(frozen=True)
class DeckOut:
    as_of: int
    dealer: str | None
    total: int
    sides: int
    by_back: tuple[HeldBack, ...]


@dataclass(frozen=True)
class StandingOut:
    """One account of the standings: a Player's or the Bank's (``bank``), and where its
    history is."""

    account: str
    bank: bool
    points: int
    history: str


@dataclass(frozen=True)
class PointsOut:
    as_of: int
    standings: tuple[StandingOut, ...]


@dataclass(frozen=True)
class AccountOut:
    """One account's balance and every movement in or out of it, newest first."""

    as_of: int
    account: str
    bank: bool
    points: int
    movements: tuple[Movement, ...]


@dataclass(frozen=True)
class HeadOut:
    event: int
    hash: str


@dataclass(frozen=True)
class Health:
    status: str
    ledger: int


@dataclass(frozen=True)
class Error:
    error: str


PUBLIC = MappingProxyType({
    "/api/v1/players": (PlayersOut, "Every player: name, whether in the game, hand size by Back."),
    "/api/v1/deck": (DeckOut, "The Deck: how many cards of each Back it holds."),
    "/api/v1/game": (GameInfo, "The Dealer, the packs, the game Clock and the current nweek."),
    "/api/v1/reports": (list[ReportEntry], "Every published Dealer's Report, newest first."),
    "/api/v1/dice": (list[PeriodView], "Dice periods: commitments, and seeds once revealed."),
    "/api/v1/decisions": (list[DecisionSummary], "Every decision of the nomic, newest first: "
                                                 "open, or its outcome."),
    "/api/v1/log": (list[LiveEvent], "The public log, newest first: each event's public part "
                                     "and its sentence (what the streams carry)."),
    "/api/v1/games": (list[CardGameInfo], "Every installed card game: whether it is in force, "
                                          "its page panel, its actions and their fields."),
    "/api/v1/points": (PointsOut, "The standings: every Player's Points, the most first, then "
                                  "the Bank's; each with the path of its history."),
    "/api/v1/points/bank": (AccountOut, "The Bank's Points and every movement in or out of "
                                        "it, newest first."),
    "/api/v1/ledger/head": (HeadOut, "The ledger head: the last event's number and hash."),
    "/api/v1/rules": (list[RuleView], "The rules in force (now, or at a time): each rule, its "
                                      "parameters and the change that last touched it."),
})
#: each private resource's result type (None: ``/me/games``, whose schema is made from the
#: games' declared views) and what it is
PRIVATE: Mapping[str, tuple[Any, str]] = MappingProxyType({
    "/api/v1/me": (Me, "The player the token belongs to."),
    "/api/v1/me/hand": (HandView, "The player's hand: now, or as of an event or a time."),
    "/api/v1/me/notices": (list[OwnNotice], "The player's private notices, newest first: "
                                            "what they received, and how many rolls a deal "
                                            "took (never the numbers rolled)."),
    "/api/v1/me/votes": (list[OwnVote], "The player's own votes, newest first, each with the "
                                        "cards its nweek's votes earned (Cards for Votes)."),
    "/api/v1/me/games": (None, "The player's view of each card game in force, by game (only "
                               "the games in force are present), as each game declares it."),
})


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = TypeAdapter(tp).json_schema(ref_template=REF)
    defs.update(schema.pop("$defs", {}))
    return schema


def _response(tp: Any, text: str, defs: dict[str, Any]) -> dict[str, Any]:
    schema = _games_schema(defs) if tp is None else _schema(tp, defs)
    return {"description": text, "content": {"application/json": {"schema": schema}}}


def _games_schema(defs: dict[str, Any]) -> dict[str, Any]:
    """``/api/v1/me/games``: each installed game's view, under its name, from the result type
    its declaration names."""
    games = {name: _schema(g.view_type, defs) for name, g in sorted(engine.games().items())
             if g.view is not None and g.view_type is not None}
    return {"type": "object", "title": "OwnGames",
            "properties": {"player": {"type": "string"}, "as_of": {"type": "integer"},
                           "games": {"type": "object", "properties": games,
                                     "additionalProperties": False}},
            "required": ["player", "as_of", "games"], "additionalProperties": False}


@dataclass(frozen=True)
class ActionAnswerOut:
    """What an action did: its name, who the ledger says acted, whether it waits for a match
    (202), a public summary, the events it recorded (public part, and the acting player's
    own notice), and for a private notification what it notified."""

    action: str
    actor: str
    waiting: bool
    summary: str
    events: tuple[LiveEvent, ...]
    #: a private notification's own content, for its author (absent for public actions)
    notified: dict[str, Any] | None = None
    #: what the action tells its actor alone (a deal's card, number, rolls and a dice
    #: period's commitment opened first, and the sentence of it: the Dealer's answer only)
    private: dict[str, Any] | None = None


def _kind_schema(kind: str) -> dict[str, Any]:
    """Each kind of field as :func:`nomic_cards.core.services.acting.check_body` checks it (a
    fresh document each time)."""
    text = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": NOT_BLANK}
    card = {"type": "string", "minLength": 1}
    return {
        "text": text,
        "player": text,
        "int": {"type": "integer", "minimum": -MAX_SAFE_INT, "maximum": MAX_SAFE_INT},
        "cards": {"type": "array", "maxItems": MAX_LIST, "items": card},
        "card-lists": {"type": "array", "maxItems": MAX_LIST,
                       "items": {"type": "array", "maxItems": MAX_LIST, "items": card}},
    }[kind]


#: what each kind's schema cannot say
_KIND_NOTES = MappingProxyType({
    "card-lists": f" (at most {MAX_LIST} cards in all the lists together)",
})


def _field_schema(f: ActionField) -> dict[str, Any]:
    return {**_kind_schema(f.kind), "description": f.doc + _KIND_NOTES.get(f.kind, "")}


def action_schema(spec: ActionSpec) -> dict[str, Any]:
    """One action's body as JSON Schema, from its declaration."""
    props: dict[str, Any] = {"action": {"type": "string", "const": spec.name}}
    props.update({f.name: _field_schema(f) for f in spec.fields})
    who = "an officer token with the dealer scope" if spec.scope == "dealer" else "a player"
    private = "; a private notification" if spec.private else ""
    schema: dict[str, Any] = {
        "type": "object", "title": spec.name,
        "description": f"{spec.doc} ({who}{private})",
        "properties": props,
        "required": ["action", *(f.name for f in spec.fields if f.required)],
        "additionalProperties": False}
    if spec.example:
        schema["examples"] = [{"action": spec.name, **spec.example}]
    return schema


def _schema_name(spec: ActionSpec) -> str:
    return "Action_" + "".join(part.title() for part in spec.name.replace("-", ".").split("."))


def actions_operation(actions: Mapping[str, ActionSpec], defs: dict[str, Any],
                      err: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/v1/me/actions``: the body a discriminated union of every action."""
    mapping: dict[str, str] = {}
    for name in sorted(actions):
        model = _schema_name(actions[name])
        defs[model] = action_schema(actions[name])
        mapping[name] = REF.format(model=model)
    body = {"oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": "action", "mapping": mapping}}
    answer = _response(ActionAnswerOut, "the action was recorded", defs)
    reason = {"description": "", **err}

    def why(text: str) -> dict[str, Any]:
        return {**reason, "description": text}

    return {"post": {
        "summary": "Take an action of the game: a player's own, or the Dealer's with an "
                   "officer token.",
        "security": [{"bearer": []}],
        "parameters": [
            {"name": "Idempotency-Key", "in": "header", "required": False,
             "description": "the same key and body again answers the first answer and "
                            "records nothing; another body with it is 422 (kept 24 h or more)",
             "schema": {"type": "string", "minLength": 1, "maxLength": 255}},
            {"name": "If-Match", "in": "header", "required": False,
             "description": "the ledger head's ETag (of /api/v1/ledger/head: its event "
                            "number and hash): 412 if the ledger has moved on",
             "schema": {"type": "string", "maxLength": 64,
                        "pattern": '^(W/)?"[0-9]{1,18}-[0-9a-f]{16}"$'}}],
        "requestBody": {"required": True,
                        "content": {"application/json": {"schema": body}}},
        "responses": {
            "201": answer,
            "202": {**_response(ActionAnswerOut, "a notification recorded, waiting for its "
                                                 "match", defs)},
            "400": why("the body is not an action's (the sentence says what is wrong)"),
            "401": why("missing, malformed, wrong or revoked token"),
            "403": why("the action needs a scope the token does not hold"),
            "408": why("the body did not arrive in time"),
            "409": why("the rules refuse the action (the sentence cites them)"),
            "412": why("If-Match names another ledger head"),
            "413": why("the body is too large, or declared so"),
            "415": why("the body is not JSON"),
            "422": why("the Idempotency-Key was used with another body"),
            "429": why("too many actions, or failed attempts"),
            "503": why("database unavailable")}}}


#: The events of a stream as a Server-Sent Events reader receives them (OpenAPI 3.2's
#: ``itemSchema`` for ``text/event-stream``; :func:`nomic_cards.server.live.frame`): first the
#: reconnection delay alone, then one ``ledger`` event for each event of the ledger, its ``id``
#: the event's number and its ``data`` the LiveEvent as JSON. Comments (``: ping``) are no events.
STREAM_ITEM: Mapping[str, Any] = MappingProxyType({
    "oneOf": [
        {"title": "ledger", "type": "object",
         "description": "an event of the ledger",
         "properties": {
             "id": {"type": "string", "pattern": "^[1-9][0-9]{0,17}$",
                    "description": "the event's number (send it back in Last-Event-ID)"},
             "event": {"type": "string", "const": "ledger"},
             "data": {"type": "string", "contentMediaType": "application/json",
                      "contentSchema": {"$ref": REF.format(model="LiveEvent")}}},
         "required": ["id", "event", "data"], "additionalProperties": False},
        {"title": "retry", "type": "object",
         "description": "the delay before reconnecting, in milliseconds (sent first)",
         "properties": {"retry": {"type": "integer", "const": 2000}},
         "required": ["retry"], "additionalProperties": False}]})


def stream_operation(private: bool) -> dict[str, Any]:
    text = ("Every event of the ledger as it is recorded, with the player's own notices"
            if private else "Every event of the ledger as it is recorded (the public record)")
    err = {"content": {"application/json": {"schema": {"$ref": REF.format(model="Error")}}}}
    op: dict[str, Any] = {
        "summary": f"{text}: Server-Sent Events, each frame's id the event's number.",
        "parameters": [{"name": "Last-Event-ID", "in": "header", "required": False,
                        "description": "resume after this event",
                        "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}}],
        "responses": {"200": {"description": "an event stream: a ledger event for each event "
                                             "recorded, its data a LiveEvent",
                              "content": {"text/event-stream": {
                                  "itemSchema": dict(STREAM_ITEM)}}},
                      "400": {"description": "bad Last-Event-ID", **err},
                      "429": {"description": "too many open streams for this player"
                              if private else "too many open public streams from this "
                                              "address", **err},
                      "503": {"description": "too many open streams, or the database down"
                              if private else "too many open public streams, or the "
                                              "database down", **err}}}
    if private:
        op["security"] = [{"bearer": []}]
        op["responses"]["401"] = {"description": "missing, malformed, wrong or revoked token",
                                  **err}
    return {"get": op}


def operation_id(method: str, path: str) -> str:
    """``get_api_v1_me_hand`` for ``GET /api/v1/me/hand``."""
    words = [w.strip("{}") for w in path.strip("/").replace(".", "_").split("/")]
    return "_".join([method, *words])


def _name_operations(paths: dict[str, Any]) -> None:
    for path, item in paths.items():
        for method, op in item.items():
            op["operationId"] = operation_id(method, path)


def _link(paths: dict[str, Any], with_actions: bool) -> None:
    """Links from one answer to the requests it lets a client make next (the ledger head to
    an action under If-Match and to the hand as of the head; the reports to one report; an
    action to the hand as of its first event)."""
    def add(path: str, status: str, name: str, target: str, parameters: dict[str, str],
            text: str) -> None:
        response = paths[path]["get" if "get" in paths[path] else "post"]["responses"][status]
        response.setdefault("links", {})[name] = {
            "operationId": target, "parameters": parameters, "description": text}

    hand = operation_id("get", "/api/v1/me/hand")
    add("/api/v1/ledger/head", "200", "HandAsOfHead", hand,
        {"query.as_of": "$response.body#/event"}, "the player's hand as of the head")
    add("/api/v1/reports", "200", "NewestReport", operation_id("get", "/api/v1/reports/{nweek}"),
        {"path.nweek": "$response.body#/0/nweek"}, "the newest report")
    if with_actions:
        add("/api/v1/ledger/head", "200", "ActAtHead", operation_id("post", "/api/v1/me/actions"),
            {"header.If-Match": "$response.header.ETag"},
            "an action taken only if the ledger has not moved since")
        add("/api/v1/me/actions", "201", "HandAfterAction", hand,
            {"query.as_of": "$response.body#/events/0/event"},
            "the player's hand as of the action's first event")


def openapi_document(actions: Mapping[str, ActionSpec] | None = None) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    error = {"$ref": REF.format(model="Error")}
    defs["Error"] = _schema(Error, defs)
    err = {"content": {"application/json": {"schema": error}}}
    paths: dict[str, Any] = {}
    etag = {"ETag": {"schema": {"type": "string"}, "description": "keyed to the ledger head"}}
    for path, (tp, text) in PUBLIC.items():
        ok = _response(tp, text, defs)
        ok["headers"] = etag
        paths[path] = {"get": {"summary": text, "responses": {
            "200": ok, "304": {"description": "not modified since the ETag given"},
            "400": {"description": "a query parameter the resource does not take", **err},
            "503": {"description": "database unavailable", **err}}}}
    rules_op = paths["/api/v1/rules"]["get"]
    rules_op["parameters"] = [{"name": "at", "in": "query", "required": False,
                               "description": "an ISO 8601 time: the rules as they stood then",
                               "schema": {"type": "string", "format": "date-time",
                                          "maxLength": 64}}]
    rules_op["responses"]["400"] = {"description": "bad parameter", **err}
    rules_op["responses"]["404"] = {"description": "the game did not exist yet then", **err}
    log_op = paths["/api/v1/log"]["get"]
    log_op["parameters"] = [
        {"name": "before", "in": "query", "required": False,
         "description": "an event number: the events before it (default: the newest)",
         "schema": {"type": "integer", "minimum": 1, "maximum": MAX_SAFE_INT}},
        {"name": "limit", "in": "query", "required": False,
         "description": f"how many events (default 50, at most {LOG_PAGE})",
         "schema": {"type": "integer", "minimum": 1, "maximum": LOG_PAGE}}]
    log_op["responses"]["400"] = {"description": "bad parameter", **err}
    bearer: list[dict[str, list[str]]] = [{"bearer": []}]
    for path, (tp, text) in PRIVATE.items():
        op: dict[str, Any] = {"summary": text, "security": bearer, "responses": {
            "200": _response(tp, text, defs),
            "400": {"description": "bad parameter", **err},
            "401": {"description": "missing, malformed, wrong or revoked token", **err},
            "429": {"description": "too many failed attempts from this address", **err},
            "503": {"description": "database unavailable", **err}}}
        if path.endswith("/hand"):
            op["parameters"] = [{
                "name": "as_of", "in": "query", "required": False,
                "description": "an event number or an ISO 8601 time: the hand just after that "
                               "event, or as it was at that time (a replay of the log)",
                "schema": {"anyOf": [
                    {"type": "string", "pattern": "^0*[1-9][0-9]{0,17}$", "maxLength": 64},
                    {"type": "string", "format": "date-time", "maxLength": 64}]}}]
            op["responses"]["404"] = {
                "description": "as_of names an event after the ledger's last, or a time in the "
                               "future, or the player had not joined by then", **err}
            op["responses"]["429"]["description"] += ", or a replay (as_of) of yours running"
            op["responses"]["503"]["description"] += ", or too many replays (as_of) running"
        paths[path] = {"get": op}
    paths["/api/v1/reports/{nweek}"] = {"get": {
        "summary": "One Dealer's Report, exactly as published, in one of its forms.",
        "parameters": [
            {"name": "nweek", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 1, "maximum": NWEEK_MAX}},
            {"name": "format", "in": "query", "required": False,
             "schema": {"type": "string", "enum": ["json", "text", "markdown"]}}],
        "responses": {
            "200": {"description": "the report", "headers": etag, "content": {
                "application/json": {"schema": {"type": "object"}},
                "text/plain": {"schema": {"type": "string"}},
                "text/markdown": {"schema": {"type": "string"}}}},
            "304": {"description": "not modified since the ETag given"},
            "400": {"description": "bad parameter", **err},
            "404": {"description": "no report published for that nweek", **err}}}}
    paths["/api/v1/points/players/{name}"] = {"get": {
        "summary": "One Player's Points and every movement in or out of eir account, newest "
                   "first (each with its event, the accounts, the Points and the rule cited).",
        "parameters": [{"name": "name", "in": "path", "required": True,
                        "schema": {"type": "string", "minLength": 1, "maxLength": 64}}],
        "responses": {
            "200": {"description": "the account", "headers": etag, "content": {
                "application/json": {"schema": _schema(AccountOut, defs)}}},
            "304": {"description": "not modified since the ETag given"},
            "400": {"description": "bad parameter", **err},
            "404": {"description": "no such player", **err}}}}
    paths["/api/v1/decisions/{id}"] = {"get": {
        "summary": "One decision whole: every ballot standing (its option or endorsement, what "
                   "it counts as, its strength, as cast and where), and its resolution, or the "
                   "tally as it stands; with format=agora, its block as the Assessor "
                   "publishes it.",
        "parameters": [
            {"name": "id", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$"}},
            {"name": "format", "in": "query", "required": False,
             "schema": {"type": "string", "enum": ["json", "agora"]}}],
        "responses": {
            "200": {"description": "the decision", "headers": etag, "content": {
                "application/json": {"schema": _schema(DecisionDetail, defs)},
                "text/plain": {"schema": {"type": "string"}}}},
            "304": {"description": "not modified since the ETag given"},
            "400": {"description": "bad parameter", **err},
            "404": {"description": "no such decision", **err}}}}
    paths["/healthz"] = {"get": {"summary": "The server and its database answer.",
                                 "responses": {"200": _response(Health, "alive", defs),
                                               "400": {"description": "a query parameter "
                                                       "it does not take", **err},
                                               "503": {"description": "database down", **err}}}}
    if actions is not None:
        paths["/api/v1/me/actions"] = actions_operation(actions, defs, err)
        paths["/api/v1/me/events"] = stream_operation(True)
        paths["/api/v1/events"] = stream_operation(False)
        _schema(LiveEvent, defs)
    _name_operations(paths)
    _link(paths, actions is not None)
    return {
        "openapi": "3.2.0",
        "info": {"title": "nomic-cards", "version": "1",
                 "description": "The Spoon Nomic Cards game: the public record for everyone, "
                                "each player's own hand with their token, the game's actions "
                                "and live event streams."},
        "paths": paths,
        "components": {"schemas": defs, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"}}},
    }
