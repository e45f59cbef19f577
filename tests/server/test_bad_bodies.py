"""Every bad body of POST /api/v1/me/actions is answered 4xx in one sentence, with nothing
recorded and nothing kept: JSON nested deep, lone surrogates, numbers past what JSON readers
hold exactly, NaN, a key given twice, fields of the wrong kind; and a fuzz test over bodies made
from the OpenAPI document's own schemas of the actions."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec, registry
from nomic_cards.core.game import Tx
from nomic_cards.core.services.tokens import issue_token
from nomic_cards.core.settings import PROPOSAL_DEALER
from nomic_cards.inputs import MAX_SAFE_INT
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


@pytest.mark.parametrize("n, ok", [(MAX_SAFE_INT, True), (-MAX_SAFE_INT, True),
                                   (MAX_SAFE_INT + 1, False), (-(MAX_SAFE_INT + 1), False)])
def test_a_whole_number_field_is_within_what_json_readers_hold(
        client: TestClient, served: Served, n: int, ok: bool) -> None:
    token = served.tokens["ann"]
    r = post_raw(client, token, json.dumps({"action": "test.count", "n": n}).encode())
    if ok:
        assert r.status_code == 201, r.text
        return
    assert r.status_code == 400
    assert one_sentence(r) == (f"test.count: n must be from -{MAX_SAFE_INT} to {MAX_SAFE_INT} "
                               f"(2^53 - 1, what every JSON reader holds exactly), not {n}")
