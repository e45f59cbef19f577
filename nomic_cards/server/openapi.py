"""The OpenAPI document of ``/api/v1``, generated from the result dataclasses the handlers
return (their JSON Schemas come from pydantic). Tests validate every response against it."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pydantic import TypeAdapter

from nomic_cards.core.services.dice import PeriodView
from nomic_cards.core.services.public import (
    GameInfo,
    HeldBack,
    Me,
    OwnHand,
    OwnNotice,
    PublicPlayer,
    ReportEntry,
)
from nomic_cards.core.services.queries import AS_OF_EVENT_MAX
from nomic_cards.core.services.rules import RuleView

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
    "/api/v1/ledger/head": (HeadOut, "The ledger head: the last event's number and hash."),
    "/api/v1/rules": (list[RuleView], "The rules in force (now, or at a time): each rule, its "
                                      "parameters and the change that last touched it."),
})
PRIVATE = MappingProxyType({
    "/api/v1/me": (Me, "The player the token belongs to."),
    "/api/v1/me/hand": (OwnHand, "The player's hand: now, or as of an event or a time."),
    "/api/v1/me/notices": (list[OwnNotice], "The player's private notices: what they received, "
                                            "and how many rolls a deal took (never the "
                                            "numbers rolled)."),
})


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = TypeAdapter(tp).json_schema(ref_template=REF)
    defs.update(schema.pop("$defs", {}))
    return schema


def _response(tp: Any, text: str, defs: dict[str, Any]) -> dict[str, Any]:
    return {"description": text, "content": {"application/json": {"schema": _schema(tp, defs)}}}


def openapi_document() -> dict[str, Any]:
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
    paths["/healthz"] = {"get": {"summary": "The server and its database answer.",
                                 "responses": {"200": _response(Health, "alive", defs),
                                               "400": {"description": "a query parameter "
                                                       "it does not take", **err},
                                               "503": {"description": "database down", **err}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "nomic-cards", "version": "1",
                 "description": "The Spoon Nomic Cards game, read-only: the public record for "
                                "everyone, each player's own hand with their token."},
        "paths": paths,
        "components": {"schemas": defs, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"}}},
    }
