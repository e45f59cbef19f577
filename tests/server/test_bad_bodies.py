"""Every bad body of POST /api/v1/me/actions is answered 4xx in one sentence, with nothing
recorded and nothing kept: JSON nested deep, lone surrogates, numbers past what JSON readers
hold exactly, NaN, a key given twice, fields of the wrong kind; and a fuzz test over bodies made
from the OpenAPI document's own schemas of the actions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.nomic import Tx
from nomic_cards.core.services import acting
from nomic_cards.core.services.acting import registry
from nomic_cards.core.services.tokens import issue_token
from nomic_cards.core.settings import PROPOSAL_DEALER
from nomic_cards.errors import InputError
from nomic_cards.server import create_app
from tests.helpers import sql
from tests.server.conftest import Served

NOW = "2026-01-22 10:00:00"


def _count(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    """Accepts any checked body and records nothing: what reaches it passed the checks."""
    return ActionOutcome((), summary=f"{actor} counted {body.get('n')}")


COUNT = ActionSpec("test.count", "player", "A player's test action with a number.",
                   (ActionField("n", "int", "a whole number"),
                    ActionField("note", "text", "a note", required=False)), _count)


@pytest.fixture
def dealer_token(served: Served) -> str:
    with freeze_time(NOW), served.game.write() as tx:
        return issue_token(tx, PROPOSAL_DEALER, scope="dealer").token


@pytest.fixture
def client(served: Served) -> Iterator[TestClient]:
    actions = {**registry(), COUNT.name: COUNT}
    with freeze_time(NOW, tick=True), TestClient(create_app(served.game, actions=actions),
                                                 raise_server_exceptions=False) as c:
        yield c


def post_raw(client: TestClient, token: str, raw: bytes, **headers: str) -> Any:
    return client.post("/api/v1/me/actions", content=raw, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", **headers})


def recorded(served: Served) -> list[tuple[Any, ...]]:
    return (sql(served.game, "SELECT seq, kind FROM events ORDER BY seq")
            + sql(served.game, "SELECT key FROM idempotency_keys ORDER BY key"))


def one_sentence(r: Any) -> str:
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and isinstance(body["error"], str), body
    assert body["error"] and "\n" not in body["error"] and "Traceback" not in body["error"]
    return str(body["error"])


@pytest.mark.parametrize("n, status, error", [
    ("9007199254740991", 201, None), ("-9007199254740991", 201, None), ("3.0", 201, None),
    ("9007199254740992", 400, "the body holds the number 9007199254740992, past "
                              "9007199254740991 (2^53 - 1, what every JSON reader holds exactly)"),
    ("-9007199254740993", 400, "the body holds the number -9007199254740993, past "
                               "9007199254740991 (2^53 - 1, what every JSON reader holds "
                               "exactly)"),
    ("1e16", 400, "test.count: n must be from -9007199254740991 to 9007199254740991 (2^53 - 1, "
                  "what every JSON reader holds exactly), not 10000000000000000"),
    ("1.5", 400, "test.count: n must be a whole number"),
    ("true", 400, "test.count: n must be a whole number"),
])
def test_a_whole_number_field_is_within_what_json_readers_hold(
        client: TestClient, served: Served, n: str, status: int, error: str | None) -> None:
    before = recorded(served)
    r = post_raw(client, served.tokens["ann"],
                 b'{"action": "test.count", "n": ' + n.encode() + b"}")
    assert r.status_code == status, r.text
    if error is not None:
        assert one_sentence(r) == error
        assert recorded(served) == before


SURROGATE = b'"\\ud800"'
#: (raw body, status, the sentence or its start); every body here is under the size limit
BAD_BODIES = [
    (b"[" * 16000, 400, "the body nests too deeply (at most 32 levels of arrays and objects)"),
    (b"[" * 8000 + b"]" * 8000, 400, "the body nests too deeply"),
    (b'{"action": "cards.deal", "player": ' + b"[" * 5000 + b"]" * 5000 + b"}", 400,
     "the body nests too deeply"),
    (b'{"action": "cards.deal", "player": ' + b'{"a":' * 2000 + b"1" + b"}" * 2000 + b"}",
     400, "the body nests too deeply"),
    (b'{"action": "cards.deal", "player": ' + SURROGATE + b"}", 400,
     "the body holds a lone surrogate (\\ud800), which is no character"),
    (b'{"action": "cards.deal", "player": "ann", "reason": "a\\udfffb"}', 400,
     "the body holds a lone surrogate (\\udfff), which is no character"),
    (b'{"action": "cards.deal", ' + SURROGATE + b': "ann"}', 400, "the body holds a lone "
     "surrogate"),
    (b'{"action": "cards.vote", "player": "ann", "proposal": "\\ud83d"}', 400,
     "the body holds a lone surrogate (\\ud83d)"),
    (b'{"action": "cards.deal", "player": "ann", "player": "ben"}', 400,
     "the body gives the key 'player' twice in one object"),
    (b'{"action": "cards.deal", "player": NaN}', 400,
     "the body holds NaN, which JSON does not have"),
    (b'{"action": "cards.deal", "player": -Infinity}', 400, "the body holds -Infinity"),
    (b'{"action": "cards.deal", "player": 1e400}', 400,
     "the body holds the number 1e400, too large for a JSON reader"),
    (b'{"action": "cards.deal", "player": ' + b"9" * 5000 + b"}", 400,
     "the body holds the number 999999999999... (5000 digits), past 9007199254740991"),
    (b'{"action": "cards.deal", "player": 3}', 400,
     "cards.deal: player must be a string holding more than spaces"),
    (b'{"action": "cards.deal", "player": " \\u3000\\t"}', 400,
     "cards.deal: player must be a string holding more than spaces"),
    (b'{"action": "cards.deal", "player": ["ann"]}', 400, "cards.deal: player must be"),
    (b'{"action": "cards.transfer", "card": "1", "to": "ann", "rule": "x", "from": {}}', 400,
     "cards.transfer: from must be a string"),
    (b'{"action": ["cards.deal"]}', 400, "the body needs \"action\""),
    (b'{"action": "cards.deal", "player": "ann"', 400,
     "the body is not valid JSON: Expecting ',' delimiter (line 1, column 41)"),
    (b'\xef\xbb\xbf{"action": "cards.tick"}', 400, "the body is not valid JSON"),
    (b'{"action": "cards.tick"}\xff', 400, "the body is not UTF-8 text (bad byte at offset 24)"),
    (b'{"action": "pooker.show", "hands": [[""]]}', 400,
     "pooker.show: hands must be a list of lists of cards"),
]


@pytest.mark.parametrize("raw, status, sentence", BAD_BODIES,
                         ids=[f"{i}:{raw[:40]!r}" for i, (raw, _, _) in enumerate(BAD_BODIES)])
def test_a_bad_body_is_one_sentence_and_nothing_is_kept(
        client: TestClient, served: Served, dealer_token: str, raw: bytes, status: int,
        sentence: str) -> None:
    assert len(raw) <= 16 * 1024
    before = recorded(served)
    r = post_raw(client, dealer_token, raw, **{"Idempotency-Key": "k1"})
    assert r.status_code == status, r.text
    assert one_sentence(r).startswith(sentence), r.json()
    assert recorded(served) == before


# --- fuzzing from the OpenAPI document ----------------------------------------------------

SAMPLES = ["ann", "ben", "cat", "PurpleBob", "deck", "1", "Red As", "Blue Kd", "yes", "no", " "]
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=8)


def _from_schema(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid by ``schema``, for the kinds of schema the actions' bodies use."""
    if "$ref" in schema:
        return _from_schema(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "oneOf" in schema:
        return st.one_of([_from_schema(s, defs) for s in schema["oneOf"]])
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema["type"]
    if kind == "object":
        props = schema["properties"]
        required = {k: _from_schema(props[k], defs) for k in schema["required"]}
        optional = {k: _from_schema(v, defs) for k, v in props.items() if k not in required}
        return st.fixed_dictionaries(required, optional=optional)
    if kind == "integer":
        return st.integers(schema["minimum"], schema["maximum"]) | st.integers(-3, 30)
    if kind == "array":
        return st.lists(_from_schema(schema["items"], defs), max_size=min(schema["maxItems"], 6))
    assert kind == "string", schema
    low, high = schema.get("minLength", 0), schema.get("maxLength", 64)
    text = (st.from_regex(schema["pattern"]) if "pattern" in schema else st.text())
    return (st.sampled_from(SAMPLES) | text).filter(lambda s: low <= len(s) <= high)


def _mutated(body: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """``body`` with a field dropped, added, or given a value of any JSON kind."""
    keys = sorted(body)
    return st.one_of(
        st.sampled_from(keys).map(lambda k: {x: v for x, v in body.items() if x != k}),
        st.tuples(st.text(max_size=6), ANY_JSON).map(lambda kv: {**body, kv[0]: kv[1]}),
        st.tuples(st.sampled_from(keys), ANY_JSON).map(lambda kv: {**body, kv[0]: kv[1]}))


def _raw(body: object, trick: str) -> bytes:
    """``body`` as JSON text, or with one thing JSON readers disagree on or a bad byte."""
    text = json.dumps(body)
    if trick == "surrogate":
        return text.replace('"', '"\\ud800', 2).encode()
    if trick == "nan":
        return text.replace("{", '{"x": NaN, ', 1).encode()
    if trick == "twice" and isinstance(body, dict) and body:
        key = next(iter(body))
        return text.replace("{", "{" + json.dumps(key) + ": 1, ", 1).encode()
    if trick == "big":
        return text.replace("{", '{"n": 9007199254740993, ', 1).encode()
    if trick == "deep":
        return text.replace("{", '{"x": ' + "[" * 40 + "]" * 40 + ", ", 1).encode()
    return text.encode()


@st.composite
def bodies(draw: st.DrawFn, doc: Mapping[str, Any]) -> tuple[bytes, object, str]:
    """(the raw body, the body as JSON readers agree it reads, or None, the trick used)."""
    schemas = doc["components"]["schemas"]
    body_schema = doc["paths"]["/api/v1/me/actions"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    body = draw(_from_schema(body_schema, schemas))
    if draw(st.booleans()):
        body = draw(_mutated(body))
    trick = draw(st.sampled_from(["", "", "", "surrogate", "nan", "twice", "big", "deep"]))
    raw = _raw(body, trick)
    return raw, (body if raw == json.dumps(body).encode() else None), trick


DOC = create_app(None, actions=registry()).state.openapi  # type: ignore[arg-type]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(case=bodies(DOC))
def test_fuzzed_bodies_from_the_openapi_schemas(
        fuzz_client: TestClient, served: Served, dealer_token: str,
        case: tuple[bytes, object, str]) -> None:
    """Every body made from the document's schemas, mutated or not: never 5xx; a 4xx is one
    sentence and keeps nothing; a body the schema refuses, or one JSON readers would read two
    ways, is refused 400."""
    raw, body, trick = case
    before = recorded(served)
    r = post_raw(fuzz_client, dealer_token, raw,
                 **{"Idempotency-Key": hashlib.sha256(raw).hexdigest()})
    assert r.status_code < 500, (raw, r.text)
    if r.status_code >= 400:
        one_sentence(r)
        assert recorded(served) == before
    if body is None:
        assert r.status_code == 400, (trick, raw, r.text)
    elif not jsonschema.Draft202012Validator(
            {**DOC["paths"]["/api/v1/me/actions"]["post"]["requestBody"]["content"][
                "application/json"]["schema"], "components": DOC["components"]},
            format_checker=None).is_valid(body):
        assert r.status_code == 400, (body, r.text)


@pytest.fixture
def fuzz_client(served: Served) -> Iterator[TestClient]:
    """The app with every declared action, without the per-player rate (the fuzzer acts
    hundreds of times a second)."""
    with freeze_time(NOW, tick=True), TestClient(create_app(
            served.game, action_rate=(1e9, 10**9)), raise_server_exceptions=False) as c:
        yield c


@settings(max_examples=2000, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(case=bodies(DOC))
def test_the_schemas_say_exactly_what_the_checks_take(case: tuple[bytes, object, str]) -> None:
    """A body the OpenAPI document's schema takes passes the server's checks of its shape, and
    one it refuses is refused by them (the total of cards in a list of hands aside, which the
    schema's description states)."""
    _, body, _ = case
    if body is None:
        return
    schema = {**DOC["paths"]["/api/v1/me/actions"]["post"]["requestBody"]["content"][
        "application/json"]["schema"], "components": DOC["components"]}
    valid = jsonschema.Draft202012Validator(schema).is_valid(body)
    try:
        spec = acting.named(registry(), body)
        acting.check_body(spec, body)  # type: ignore[arg-type]
    except InputError as exc:
        assert not valid, (body, str(exc))
    else:
        assert valid, body
