"""Taking an action: every action by name (:func:`registry`), and an action taken through the
server. What needs no lock is checked first, in a read
(:func:`who_acts`: the token) and without the database (:func:`ask`: the body against the
action's declaration, the key's form), so a refused request never takes the ledger lock. Then
one writing transaction (:func:`perform`): the token checked again and the ``Idempotency-Key``
looked up under the ledger lock (one statement), ``If-Match``, the action's use case as the
acting person, and the key kept with the answer -- all committed together or not at all (so a
retry after a crash, a restart or on another worker finds the key exactly when the action's
events are there).

A key is a player's: the same key with the same body answers exactly what the first request
answered (status and body: a 202 "waiting", a 409 whose refusal was recorded) and records
nothing; with another body it is refused. Keys are kept :data:`KEEP` (at least 24 hours). An
action refused before it recorded anything keeps no key: a retry is judged afresh.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType
from typing import Any

from nomic_cards.core import engine
from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.services.cards_actions import ACTIONS as CARDS
from nomic_cards.core.services.live import LiveEvent, Viewer, recorded_events
from nomic_cards.core.services.tokens import accepted, check, split_token
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NomicCardsError
from nomic_cards.inputs import MAX_SAFE_INT, show_number

#: how long an Idempotency-Key is kept
KEEP = timedelta(hours=48)
MAX_KEY = 255
MAX_TEXT = 2000
MAX_LIST = 600
#: what a text field must hold besides spaces: a character that is not white space as
#: :meth:`str.isspace` has it, written as a regular expression that Python's ``re`` and the
#: OpenAPI document's JSON Schema (ECMA-262) read alike
NOT_BLANK = ("[^\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a"
             "\\u2028\\u2029\\u202f\\u205f\\u3000]")
_NOT_BLANK = re.compile(NOT_BLANK)


class ActionRefused(NomicCardsError):
    """An action refused before anything was recorded, with the HTTP status that says why."""

    status = 400


class BadToken(ActionRefused):
    status = 401


class Forbidden(ActionRefused):
    status = 403


class StaleHead(ActionRefused):
    status = 412


class KeyReused(ActionRefused):
    status = 422


@dataclass(frozen=True)
class ActionAnswer:
    """What the server answers: 201 (done) or 202 (a notification waiting for its match),
    and the body; ``replayed`` for a retry answered from its key."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


def registry() -> Mapping[str, ActionSpec]:
    """Every action by name: the Cards proposal's own (``cards.*``), then each installed card
    game's (``<game>.*``, named after its game). Each name is declared once."""
    found: dict[str, ActionSpec] = {spec.name: spec for spec in CARDS}
    games = engine.games()
    for spec in (a for g in games.values() for a in g.actions):
        if spec.name.partition(".")[0] not in games or spec.name in found:
            raise ValueError(f"action {spec.name!r} is declared twice, or not as <game>.<action>")
        found[spec.name] = spec
    return MappingProxyType(found)


def body_hash(body: Mapping[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_field(spec: ActionSpec, f: ActionField, value: object) -> object:
    where = f"{spec.name}: {f.name}"
    if f.kind == "int":
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON's 3.0 is the number 3
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{where} must be a whole number")
        if abs(value) > MAX_SAFE_INT:
            raise InputError(f"{where} must be from -{MAX_SAFE_INT} to {MAX_SAFE_INT} (2^53 - 1, "
                             f"what every JSON reader holds exactly), not {show_number(value)}")
        return value
    if f.kind in ("text", "player"):
        if not isinstance(value, str) or _NOT_BLANK.search(value) is None:
            raise InputError(f"{where} must be a string holding more than spaces")
        if len(value) > MAX_TEXT:
            raise InputError(f"{where} is too long (at most {MAX_TEXT} characters)")
        return value
    if f.kind == "cards":
        if not isinstance(value, list) or not all(isinstance(c, str) and c for c in value):
            raise InputError(f"{where} must be a list of cards such as [\"Red As\"]")
        if len(value) > MAX_LIST:
            raise InputError(f"{where} lists too many cards (at most {MAX_LIST})")
        return tuple(value)
    if not isinstance(value, list) or not all(
            isinstance(h, list) and all(isinstance(c, str) and c for c in h) for h in value):
        raise InputError(f"{where} must be a list of lists of cards")
    if sum(len(h) for h in value) > MAX_LIST:
        raise InputError(f"{where} lists too many cards (at most {MAX_LIST})")
    return tuple(tuple(h) for h in value)


def named(actions: Mapping[str, ActionSpec], body: object) -> ActionSpec:
    """The action a body names."""
    if not isinstance(body, dict):
        raise InputError("the body must be a JSON object such as {\"action\": \"cards.tick\"}")
    name = body.get("action")
    if not isinstance(name, str):
        raise InputError("the body needs \"action\": the action's name, such as \"cards.deal\"")
    spec = actions.get(name)
    if spec is None:
        raise InputError(f"there is no action named {name[:64]!r} (the actions: "
                         f"{', '.join(sorted(actions))})")
    return spec


def check_body(spec: ActionSpec, body: Mapping[str, object]) -> dict[str, object]:
    """The body's fields, checked against the action's declaration."""
    name = spec.name
    declared = {f.name: f for f in spec.fields}
    for key in body:
        if key != "action" and key not in declared:
            takes = ", ".join(declared) or "no field"
            raise InputError(f"{name} takes no field {str(key)[:64]!r} (it takes: {takes})")
    checked: dict[str, object] = {}
    for f in spec.fields:
        if f.name not in body:
            if f.required:
                raise InputError(f"{name} needs the field {f.name!r}: {f.doc}")
            continue
        checked[f.name] = _check_field(spec, f, body[f.name])
    return checked


def _if_match_tags(value: str) -> list[str]:
    """The ETags an ``If-Match`` names; refused (400) when it is not a list of them or ``*``
    (an empty one too), before any reading: a retry under its key is no exception."""
    wanted = [t.strip().removeprefix("W/") for t in value.split(",")]
    if not all(t == "*" or (2 <= len(t) <= 64 and t.startswith('"') and t.endswith('"'))
               for t in wanted):
        raise InputError("If-Match takes the ledger head's ETag, such as \"12-3fa9...\" "
                         "(from /api/v1/ledger/head)")
    return wanted


def check_if_match(tx: Reads, value: str) -> None:
    """Refuse (412) unless ``If-Match`` is the ledger head's ETag, number and hash (as
    ``/api/v1/ledger/head`` gives it), or ``*``."""
    from nomic_cards.core.services.public import ledger_head

    wanted = _if_match_tags(value)
    head = ledger_head(tx)
    if "*" not in wanted and head.etag not in wanted:
        raise StaleHead(f"the ledger has moved on: its head is {head.etag}, not "
                        f"{', '.join(wanted)[:80]} (read it again and retry)")


def _answer_body(spec: ActionSpec, actor: str, events: list[LiveEvent], outcome: ActionOutcome,
                 body: Mapping[str, Any]) -> dict[str, Any]:
    out = {"action": spec.name, "actor": actor, "waiting": outcome.waiting,
           "summary": outcome.summary, "events": [e.as_dict() for e in events]}
    if spec.private:  # the author's own notification, which no public channel shows
        out["notified"] = {k: v for k, v in body.items() if k != "action"}
    if outcome.private is not None:  # what the action tells its actor alone
        out["private"] = dict(outcome.private)
    return out


def actor_name(viewer: Viewer) -> str:
    """Who the ledger says acted: the token's player, through the server (and as the Dealer
    for an officer token)."""
    role = "the Dealer, " if viewer.scope == "dealer" else ""
    return f"{viewer.player} ({role}through the server)"


def _good_key(key: str) -> bool:
    return bool(key) and len(key) <= MAX_KEY and key.isprintable()


def who_acts(tx: Reads, token: str) -> Viewer:
    """The player (and scope) of a valid token; :class:`BadToken` for any other."""
    row = accepted(tx, token)
    if row is None:
        raise BadToken("the token is not valid")
    return Viewer(row.player, row.player_id, row.scope)


@dataclass(frozen=True)
class Asked:
    """An action as asked, checked as far as it can be without the ledger lock: the token (of
    ``viewer``, checked again under the lock), the action's declaration and the body's fields
    as checked, the body and its hash, and the ``Idempotency-Key`` and ``If-Match`` as sent."""

    token: str
    viewer: Viewer
    spec: ActionSpec
    fields: dict[str, object]
    body: dict[str, Any]
    digest: str
    key: str | None = None
    if_match: str | None = None

    @property
    def token_read(self) -> tuple[str, str | None]:
        """What :func:`perform` reads under the lock: the token's selector and the key (a
        write opened with them reads them with the lock, ``Nomic.write(token=...)``)."""
        return split_token(self.token)[0], self.key


def ask(viewer: Viewer, token: str, body: object, *, actions: Mapping[str, ActionSpec],
        key: str | None = None, if_match: str | None = None) -> Asked:
    """The action ``body`` names, asked by ``viewer`` (the player of ``token``, found by
    :func:`who_acts`): the body checked against the action's declaration, the scope the action
    needs and the key's form, all without the database. Refusals raise (:class:`Forbidden`,
    :class:`InputError`)."""
    spec = named(actions, body)
    if spec.scope == "dealer" and viewer.scope != "dealer":
        raise Forbidden(f"{spec.name} is the Dealer's: it needs an officer token (`nomic-cards "
                        f"token issue NAME --scope dealer`)")
    assert isinstance(body, dict)
    checked = check_body(spec, body)
    if key is not None and not _good_key(key):
        raise InputError(f"an Idempotency-Key is 1 to {MAX_KEY} printable characters")
    if if_match is not None:
        _if_match_tags(if_match)
    return Asked(token, viewer, spec, checked, body, body_hash(body), key, if_match)


def perform(tx: Tx, asked: Asked) -> ActionAnswer:
    """Take the action ``asked``, in ``tx`` (a write opened without catch-up, whose caller
    commits it): under the ledger lock, check the token again and look the
    ``Idempotency-Key`` up (one statement: a key already kept answers exactly what it answered
    first, and records nothing), check ``If-Match``, do the work due at passed boundaries, run
    the action, and keep the key with the answer. Refusals raise (:class:`ActionRefused` with
    its status, :class:`InputError`, :class:`RuleViolation`): nothing is kept then, and a
    retry is judged afresh."""
    from nomic_cards.core.services.time import catch_up

    selector, verifier = split_token(asked.token)
    row, found = tx.token_and_key(selector, asked.key)
    if row is None or check(row, verifier) is None:  # revoked since it was read
        raise BadToken("the token is not valid")
    viewer, spec, key = Viewer(row.player, row.player_id, row.scope), asked.spec, asked.key
    if found is not None:
        if found.body_sha256 != asked.digest:
            raise KeyReused("this Idempotency-Key was used with another body; use a new "
                            "key for a new action")
        return ActionAnswer(found.status or 201, json.loads(found.response or "{}"),
                            replayed=True)
    if asked.if_match is not None:
        check_if_match(tx, asked.if_match)
    if spec.scope == "dealer" and tx.state.dealer != viewer.player:
        raise Forbidden(f"{viewer.player} is no longer the Dealer "
                        f"({tx.state.dealer or 'nobody'} is)")
    actor = actor_name(viewer)
    tx.actor = actor
    tx.caught_up = list(catch_up(tx))
    outcome = spec.run(tx, viewer.player, asked.fields)
    recorded = {e.event: e for e in recorded_events(tx, viewer)}
    events = [recorded[seq] for seq in sorted(set(outcome.seqs)) if seq in recorded]
    status = 409 if outcome.refused else 202 if outcome.waiting else 201
    answer = ActionAnswer(status, _answer_body(spec, actor, events, outcome, asked.body))
    if key is not None:
        from nomic_cards.core.store import keys

        now = tx.clock.now()
        keys.add(tx, player_id=viewer.player_id, key=key, body_sha256=asked.digest,
                 seqs=[r.seq for r in tx.recorded], status=answer.status,
                 response=json.dumps(answer.body, ensure_ascii=False, separators=(",", ":")),
                 at=now)
        if secrets.randbelow(500) == 0:  # now and then, forget the keys older than KEEP
            keys.purge(tx, now - KEEP)
    return answer


__all__ = ["ActionAnswer", "ActionRefused", "Asked", "BadToken", "Forbidden", "KeyReused",
           "StaleHead", "ask", "check_body", "check_if_match", "named", "perform", "registry",
           "who_acts"]
