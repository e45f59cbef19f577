"""Taking an action through the server: check the body against the action's declaration, check
who may take it, then run its use case as the acting person, with ``If-Match`` and the
``Idempotency-Key`` decided under the ledger lock and the key recorded in the action's own
transaction (so a retry after a crash, a restart or on another worker finds it).

A key is a player's: the same key with the same body answers what the first request answered
and records nothing; with another body it is refused. Keys are kept :data:`KEEP` (at least 24
hours). A refused action records nothing, so it keeps no key: a retry is judged afresh.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from nomic_cards.core.actions import ActionField, ActionSpec
from nomic_cards.core.game import Game
from nomic_cards.core.services.live import LiveEvent, Viewer, events_at, recorded_events
from nomic_cards.core.services.tokens import accepted, accepted_with_key
from nomic_cards.errors import InputError, NomicCardsError

if TYPE_CHECKING:
    from nomic_cards.core.store.reads import KeyRow
    from nomic_cards.core.store.uow import UnitOfWork

#: how long an Idempotency-Key is kept
KEEP = timedelta(hours=48)
MAX_KEY = 255
MAX_TEXT = 2000
MAX_LIST = 600


class ActionRefused(NomicCardsError):
    """An action refused before anything was recorded, with the HTTP status that says why."""

    status = 400


class Forbidden(ActionRefused):
    status = 403


class StaleHead(ActionRefused):
    status = 412


class KeyReused(ActionRefused):
    status = 422


class _Replay(Exception):
    """Raised inside the action's transaction when its key was recorded meanwhile (a
    concurrent retry won): roll back, answer what the first one answered."""

    def __init__(self, row: KeyRow) -> None:
        self.row = row


@dataclass(frozen=True)
class ActionAnswer:
    """What the server answers: 201 (done) or 202 (a notification waiting for its match),
    and the body; ``replayed`` for a retry answered from its key."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


def body_hash(body: Mapping[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_field(spec: ActionSpec, f: ActionField, value: object) -> object:
    where = f"{spec.name}: {f.name}"
    if f.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{where} must be a whole number")
        return value
    if f.kind in ("text", "player"):
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where} must be a non-empty string")
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


def parse_if_match(value: str) -> int:
    """The ledger head an ``If-Match`` names: the ETag of ``/api/v1/ledger/head``
    (``"12-3fa9..."``) or the bare event number."""
    text = value.strip().removeprefix("W/").strip('"')
    number = text.split("-", 1)[0]
    if not (number.isascii() and number.isdigit()) or len(number) > 18:
        raise InputError("If-Match takes the ledger head: its ETag (from /api/v1/ledger/head) "
                         "or its event number")
    return int(number)


class _Hook:
    """The work added to each writing transaction of the action (see ``Game.WriteHook``)."""

    def __init__(self, viewer: Viewer, spec: ActionSpec, key: str | None, digest: str,
                 if_match: int | None) -> None:
        self.viewer, self.spec, self.key, self.digest = viewer, spec, key, digest
        self.if_match = if_match
        self.first = True
        self.keyed = False
        #: the key as stored, read under the ledger lock (see :meth:`begin`)
        self.stored: Callable[[], KeyRow | None] | None = None
        self.seqs: list[int] = []
        #: the events recorded, as the answer gives them (from what the transactions wrote)
        self.events: dict[int, LiveEvent] = {}

    def begin(self, uow: UnitOfWork) -> None:
        if not self.first:
            return
        self.first = False
        if self.key is not None:  # read with the action's next round trip, checked at its end
            self.stored = uow.key_later(self.viewer.player_id, self.key)
        if self.if_match is not None:
            head = uow.head()[0]
            if head != self.if_match:
                raise StaleHead(f"the ledger has moved on: its head is event {head}, not "
                                f"{self.if_match} (read it again and retry)")
        if self.spec.scope == "dealer" and uow.state.dealer != self.viewer.player:
            raise Forbidden(f"{self.viewer.player} is no longer the Dealer "
                            f"({uow.state.dealer or 'nobody'} is)")

    def end(self, uow: UnitOfWork) -> None:
        row = self.stored() if self.stored is not None else None
        self.stored = None
        if row is not None:  # a retry with the same key was recorded meanwhile
            raise _Replay(row)
        self.seqs.extend(r.seq for r in uow.recorded)
        self.events.update((e.event, e) for e in recorded_events(uow, self.viewer))
        if self.key is None:
            return
        from nomic_cards.core.store import keys

        if not self.keyed:
            now = uow.clock.now()
            keys.add(uow, self.viewer.player_id, self.key, self.digest, self.seqs, now)
            _maybe_purge(uow)
            self.keyed = True
        else:
            keys.set_seqs(uow, self.viewer.player_id, self.key, self.seqs)


def _maybe_purge(uow: UnitOfWork) -> None:
    """One key in 500, drawn at random: forget the keys older than :data:`KEEP`."""
    if secrets.randbelow(500) == 0:
        from nomic_cards.core.store import keys

        keys.purge(uow.session, uow.clock.now() - KEEP)


def _answer_body(spec: ActionSpec, actor: str, events: list[LiveEvent], summary: str,
                 waiting: bool, body: Mapping[str, Any]) -> dict[str, Any]:
    out = {"action": spec.name, "actor": actor, "waiting": waiting, "summary": summary,
           "events": [asdict(e) for e in events]}
    if spec.private:  # the author's own notification, which no public channel shows
        out["notified"] = {k: v for k, v in body.items() if k != "action"}
    return out


def actor_name(viewer: Viewer) -> str:
    """Who the ledger says acted: the token's player, through the server (and as the Dealer
    for an officer token)."""
    role = "the Dealer, " if viewer.scope == "dealer" else ""
    return f"{viewer.player} ({role}through the server)"


@dataclass(frozen=True)
class Caller:
    """Who is acting (a valid token's player), and the ``Idempotency-Key`` as it was stored
    when the token was checked (None: not stored then)."""

    viewer: Viewer
    stored: KeyRow | None


def caller_for_token(game: Game, token: str, key: str | None) -> Caller | None:
    """The caller whose valid token this is (None: not valid; the same check as every private
    resource's, :func:`~nomic_cards.core.services.live.viewer_for_token`), and, once the token
    is accepted, the key looked up in the same read: what :func:`perform` would read first."""
    with game.read(need_game=False) as r:
        if key is None or not _good_key(key):
            row, stored = accepted(r, token), None
        else:
            row, stored = accepted_with_key(r, token, key)
    if row is None:
        return None
    return Caller(Viewer(row.player, row.player_id, row.scope), stored)


def _good_key(key: str) -> bool:
    return bool(key) and len(key) <= MAX_KEY and key.isprintable()


def perform(game: Game, viewer: Viewer | Caller, body: object, *,
            actions: Mapping[str, ActionSpec], key: str | None = None,
            if_match: str | None = None) -> ActionAnswer:
    """Take the action ``body`` names as ``viewer`` (see the module docstring). Raises
    :class:`ActionRefused` (with its status), :class:`InputError` or
    :class:`RuleViolation` when refused; nothing is then recorded. A :class:`Caller` (from
    :func:`caller_for_token`, given the same ``key``) saves reading the key again."""
    looked_up = isinstance(viewer, Caller)
    found = viewer.stored if isinstance(viewer, Caller) else None
    viewer = viewer.viewer if isinstance(viewer, Caller) else viewer
    spec = named(actions, body)
    if spec.scope == "dealer" and viewer.scope != "dealer":
        raise Forbidden(f"{spec.name} is the Dealer's: it needs an officer token (`nomic-cards "
                        f"token issue NAME --scope dealer`)")
    assert isinstance(body, dict)
    checked = check_body(spec, body)
    head = parse_if_match(if_match) if if_match is not None else None
    if key is not None and not _good_key(key):
        raise InputError(f"an Idempotency-Key is 1 to {MAX_KEY} printable characters")
    digest = body_hash(body)
    if key is not None:
        if not looked_up:
            found = _find_key(game, viewer, key)
        if found is not None:
            return _replayed(game, viewer, spec, found, digest)
    hook = _Hook(viewer, spec, key, digest, head)
    actor = actor_name(viewer)
    try:
        outcome = spec.run(game.acting(actor, hook), viewer.player, checked)
    except _Replay as replay:
        return _replayed(game, viewer, spec, replay.row, digest)
    if all(seq in hook.events for seq in outcome.seqs):
        events = [hook.events[seq] for seq in sorted(set(outcome.seqs))]
    else:  # events the action did not record through its hook
        events = events_at(game, outcome.seqs, viewer)
    answer = ActionAnswer(202 if outcome.waiting else 201,
                          _answer_body(spec, actor, events, outcome.summary, outcome.waiting,
                                       body))
    if key is not None and hook.keyed:
        _save_answer(game, viewer, key, answer)
    return answer


def _find_key(game: Game, viewer: Viewer, key: str) -> KeyRow | None:
    with game.read(need_game=False) as r:
        return r.idempotency_key(viewer.player_id, key)


def _save_answer(game: Game, viewer: Viewer, key: str, answer: ActionAnswer) -> None:
    from nomic_cards.core.store import keys

    text = json.dumps(answer.body, ensure_ascii=False, separators=(",", ":"))
    engine = game.engine
    # the answers of a worker's threads acting at once go in one transaction
    game.answers.write((viewer.player_id, key, answer.status, text),
                       lambda answers: keys.save_answers(engine, answers))


def _replayed(game: Game, viewer: Viewer, spec: ActionSpec, row: KeyRow,
              digest: str) -> ActionAnswer:
    if row.body_sha256 != digest:
        raise KeyReused("this Idempotency-Key was used with another body; use a new key for "
                        "a new action")
    if row.status is not None and row.response is not None:
        return ActionAnswer(row.status, json.loads(row.response), replayed=True)
    # the first answer was not written (the process stopped just after the action): the same
    # answer, rebuilt from the events the action recorded
    events = events_at(game, row.seqs, viewer)
    return ActionAnswer(201, _answer_body(spec, actor_name(viewer), events, "", False, {}),
                        replayed=True)


__all__ = ["ActionAnswer", "ActionRefused", "Caller", "Forbidden", "KeyReused", "StaleHead",
           "caller_for_token", "check_body", "named", "perform"]
