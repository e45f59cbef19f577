"""POST /api/v1/me/actions in process: officer tokens, the declared actions, Idempotency-Key,
If-Match, refusals as sentences, the per-player rate limit and the OpenAPI document."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.nomic import Tx
from nomic_cards.core.services.acting import registry
from nomic_cards.core.services.tokens import issue_token
from nomic_cards.core.settings import PROPOSAL_DEALER
from nomic_cards.server import create_app
from tests.helpers import sql
from tests.server.conftest import Served

NOW = "2026-01-22 10:00:00"


def _note(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    """A player's action for the tests: a public vote-like record (a dice period opened),
    waiting when asked."""
    from nomic_cards.core.services.dice import open_period

    open_period(tx)
    seqs = tuple(r.seq for r in tx.recorded)
    return ActionOutcome(seqs, waiting=bool(body.get("wait")), summary=f"noted by {actor}")


NOTE = ActionSpec("test.note", "player", "A player's test action.",
                  (ActionField("wait", "int", "1: answer 202", required=False),
                   ActionField("cards", "cards", "some cards", required=False)), _note)


@pytest.fixture
def dealer_token(served: Served) -> str:
    with freeze_time(NOW), served.game.write() as tx:
        return issue_token(tx, PROPOSAL_DEALER, scope="dealer").token


@pytest.fixture
def app_client(served: Served) -> Iterator[TestClient]:
    actions = {**registry(), NOTE.name: NOTE}
    with freeze_time(NOW, tick=True), TestClient(create_app(served.game, actions=actions)) as c:
        yield c


def auth(token: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **extra}


def post(client: TestClient, token: str, body: Any, **headers: str) -> Any:
    return client.post("/api/v1/me/actions", content=json.dumps(body),
                       headers=auth(token, **{"Content-Type": "application/json", **headers}))


def check_doc(client: TestClient, r: Any) -> None:
    doc = client.get("/api/v1/openapi.json").json()
    spec = doc["paths"]["/api/v1/me/actions"]["post"]["responses"][str(r.status_code)]
    schema = spec["content"]["application/json"]["schema"]
    jsonschema.validate(r.json(), {**schema, "components": doc["components"]},
                        cls=jsonschema.Draft202012Validator)


def events(served: Served) -> list[tuple[Any, ...]]:
    return sql(served.game, "SELECT seq, actor, kind FROM events ORDER BY seq")


def test_the_dealer_deals_through_the_server_and_the_ledger_names_the_actor(
        app_client: TestClient, served: Served, dealer_token: str) -> None:
    before = events(served)
    r = post(app_client, dealer_token, {"action": "cards.deal", "player": "cat"})
    assert r.status_code == 201, r.text
    assert r.headers["cache-control"] == "no-store"
    check_doc(app_client, r)
    after = events(served)
    new = after[len(before):]
    assert [k for _, _, k in new][-1] == "card.dealt"
    assert all(a == f"{PROPOSAL_DEALER} (the Dealer, through the server)" for _, a, _ in new)
    body = r.json()
    assert [e["event"] for e in body["events"]] == [new[-1][0]]
    assert body["events"][0]["notice"] is None  # the notice is cat's, not the Dealer's
    hand = app_client.get("/api/v1/me/hand", headers=auth(served.tokens["cat"])).json()
    assert len(hand["cards"]) == 1
    # the card and the rolls, to the Dealer alone, as nomic-cards deal prints them
    told = body["private"]
    assert (told["card"], told["number"]) == (hand["cards"][0]["card"],
                                              hand["cards"][0]["number"])
    assert told["rolls"] and told["rolls"][-1]["value"] == told["number"]
    assert told["told"].startswith(f"dealt {told['card']} (card {told['number']}) to cat in ")


def test_transfer_vote_and_tick(app_client: TestClient, served: Served,
                                dealer_token: str) -> None:
    ben = app_client.get("/api/v1/me/hand", headers=auth(served.tokens["ben"])).json()
    card = ben["cards"][0]["card"]
    r = post(app_client, dealer_token, {"action": "cards.transfer", "card": card, "to": "cat",
                                        "rule": "Rule 1", "from": "ben"})
    assert r.status_code == 201, r.text
    cat = app_client.get("/api/v1/me/hand", headers=auth(served.tokens["cat"])).json()
    assert [c["card"] for c in cat["cards"]] == [card]
    r = post(app_client, dealer_token, {"action": "cards.transfer", "card": card, "to": "ann",
                                        "rule": "Rule 1", "from": "ben"})
    assert r.status_code == 409 and "not in ben's hand" in r.json()["error"]
    assert "\n" not in r.json()["error"]
    r = post(app_client, dealer_token, {"action": "cards.vote", "player": "cat",
                                        "proposal": "P500"})
    assert r.status_code == 201, r.text
    votes = sql(served.game, "SELECT proposal FROM votes JOIN players ON players.id = "
                             "votes.player_id WHERE players.name = 'cat'")
    assert ("P500",) in votes
    r = post(app_client, dealer_token, {"action": "cards.tick"})
    assert r.status_code == 201, r.text
    assert r.json()["summary"] == "nothing was due"


def test_a_player_token_cannot_take_the_dealers_actions(app_client: TestClient,
                                                        served: Served) -> None:
    before = events(served)
    for body in ({"action": "cards.deal", "player": "ann"}, {"action": "cards.tick"}):
        r = post(app_client, served.tokens["ann"], body)
        assert r.status_code == 403
        assert "officer token" in r.json()["error"]
    assert events(served) == before


def test_an_officer_token_is_for_the_dealer_only(served: Served, app_client: TestClient,
                                                 dealer_token: str) -> None:
    from nomic_cards.errors import RuleViolation

    with (
        freeze_time(NOW),
        pytest.raises(RuleViolation, match="not the Dealer"),
        served.game.write() as tx,
    ):
        issue_token(tx, "ann", scope="dealer")
    with freeze_time(NOW), served.game.write() as tx:
        api.elect_dealer(tx, "ann")
    r = post(app_client, dealer_token, {"action": "cards.tick"})
    assert r.status_code == 403
    assert r.json()["error"] == f"{PROPOSAL_DEALER} is no longer the Dealer (ann is)"


def test_a_players_action_and_waiting(app_client: TestClient, served: Served) -> None:
    r = post(app_client, served.tokens["ann"], {"action": "test.note"})
    assert r.status_code == 201
    r = post(app_client, served.tokens["ann"], {"action": "test.note", "wait": 1})
    assert r.status_code == 202
    check_doc(app_client, r)
    assert r.json()["waiting"] is True
    assert r.json()["actor"] == "ann (through the server)"


def test_idempotency_key(app_client: TestClient, served: Served) -> None:
    token = served.tokens["ann"]
    first = post(app_client, token, {"action": "test.note"}, **{"Idempotency-Key": "k1"})
    assert first.status_code == 201
    count = len(events(served))
    again = post(app_client, token, {"action": "test.note"}, **{"Idempotency-Key": "k1"})
    assert again.status_code == 201 and again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert len(events(served)) == count  # nothing new recorded
    other = post(app_client, token, {"action": "test.note", "wait": 1},
                 **{"Idempotency-Key": "k1"})
    assert other.status_code == 422
    assert len(events(served)) == count
    # the key is the player's: ben's k1 is another key
    bens = post(app_client, served.tokens["ben"], {"action": "test.note"},
                **{"Idempotency-Key": "k1"})
    assert bens.status_code == 201 and bens.json() != first.json()


def test_idempotency_key_survives_a_new_app(served: Served) -> None:
    actions = {**registry(), NOTE.name: NOTE}
    token = served.tokens["ann"]
    with freeze_time(NOW, tick=True):
        with TestClient(create_app(served.game, actions=actions)) as c:
            first = post(c, token, {"action": "test.note"}, **{"Idempotency-Key": "restart"})
        count = len(events(served))
        with TestClient(create_app(served.game, actions=actions)) as c:
            again = post(c, token, {"action": "test.note"}, **{"Idempotency-Key": "restart"})
    assert again.json() == first.json()
    assert len(events(served)) == count


def test_if_match(app_client: TestClient, served: Served) -> None:
    token = served.tokens["ann"]
    head = app_client.get("/api/v1/ledger/head")
    count = len(events(served))
    stale = post(app_client, token, {"action": "test.note"},
                 **{"If-Match": f'"{count - 1}-abc"'})
    assert stale.status_code == 412
    assert len(events(served)) == count
    etag = head.headers["etag"]
    number, digest = etag.strip('"').split("-")
    forged = f'"{number}-{"0" * len(digest)}"'  # the head's number, another hash
    assert post(app_client, token, {"action": "test.note"},
                **{"If-Match": forged}).status_code == 412
    assert len(events(served)) == count
    ok = post(app_client, token, {"action": "test.note"}, **{"If-Match": etag})
    assert ok.status_code == 201
    again = post(app_client, token, {"action": "test.note"}, **{"If-Match": etag})
    assert again.status_code == 412  # the ledger moved on with the action before
    for bad in ("yesterday", str(count), "", '"'):  # the ETag, quoted, and nothing else
        r = post(app_client, token, {"action": "test.note"}, **{"If-Match": bad})
        assert r.status_code == 400 and "ETag" in r.json()["error"]
    # a retry under the key of an action taken is answered as the first, unless its If-Match
    # is no ETag at all: a malformed request whatever its key
    key = {"Idempotency-Key": "if-match-retry"}
    assert post(app_client, token, {"action": "test.note"}, **key).status_code == 201
    assert post(app_client, token, {"action": "test.note"}, **key).status_code == 201
    r = post(app_client, token, {"action": "test.note"}, **key, **{"If-Match": ""})
    assert r.status_code == 400 and "ETag" in r.json()["error"]


@pytest.mark.parametrize(("body", "status", "words"), [
    ("{", 400, "not valid JSON"),
    ("[]", 400, "JSON object"),
    ('{"x": 1}', 400, "needs \"action\""),
    ('{"action": "cards.fly"}', 400, "there is no action named 'cards.fly'"),
    ('{"action": "test.note", "colour": "red"}', 400, "takes no field 'colour'"),
    ('{"action": "test.note", "wait": "yes"}', 400, "wait must be a whole number"),
    ('{"action": "test.note", "wait": true}', 400, "wait must be a whole number"),
    ('{"action": "test.note", "cards": "Red As"}', 400, "list of cards"),
    ('{"action": "cards.deal"}', 403, "officer token"),
])
def test_bad_bodies_are_one_sentence_and_record_nothing(
        app_client: TestClient, served: Served, body: str, status: int, words: str) -> None:
    before = events(served)
    r = app_client.post("/api/v1/me/actions", content=body,
                        headers=auth(served.tokens["ann"], **{"Content-Type":
                                                              "application/json"}))
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert "\n" not in r.json()["error"]
    assert events(served) == before


def test_bad_bodies_of_the_dealers_actions(app_client: TestClient, served: Served,
                                           dealer_token: str) -> None:
    before = events(served)
    for body, status, words in [
        ({"action": "cards.deal", "player": "nobody"}, 400, "nobody"),
        ({"action": "cards.deal"}, 400, "needs the field 'player'"),
        ({"action": "cards.transfer", "card": "Green Zz", "to": "ann", "rule": "1"}, 400, ""),
        ({"action": "cards.vote", "player": "ann", "proposal": "P1", "at": "tomorrow"}, 400,
         ""),
        ({"action": "cards.vote", "player": "ann", "proposal": "P1",
          "at": "2099-01-01T00:00:00Z"}, 400, "in the future"),
    ]:
        r = post(app_client, dealer_token, body)
        assert r.status_code == status, (body, r.text)
        assert words in r.json()["error"] and "\n" not in r.json()["error"]
    assert events(served) == before


def test_content_type_size_and_methods(app_client: TestClient, served: Served) -> None:
    token = served.tokens["ann"]
    r = app_client.post("/api/v1/me/actions", content='{"action": "test.note"}',
                        headers=auth(token, **{"Content-Type": "text/plain"}))
    assert r.status_code == 415
    r = post(app_client, token, {"action": "test.note", "cards": ["x" * 100] * 200})
    assert r.status_code == 413
    assert app_client.get("/api/v1/me/actions", headers=auth(token)).status_code == 405
    assert app_client.post("/api/v1/me/hand", headers=auth(token)).status_code == 405
    assert app_client.put("/api/v1/me/actions", headers=auth(token)).status_code == 405


def test_rate_limit_per_player(served: Served) -> None:
    actions = {NOTE.name: NOTE}
    with freeze_time(NOW, tick=True), TestClient(create_app(
            served.game, actions=actions, action_rate=(0.001, 3))) as c:
        codes = [post(c, served.tokens["ann"], {"action": "test.note"}).status_code
                 for _ in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        r = post(c, served.tokens["ann"], {"action": "test.note"})
        assert int(r.headers["retry-after"]) >= 1
        assert post(c, served.tokens["ben"], {"action": "test.note"}).status_code == 201


def test_the_document_is_a_union_of_the_declared_actions(app_client: TestClient) -> None:
    doc = app_client.get("/api/v1/openapi.json").json()
    body = doc["paths"]["/api/v1/me/actions"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    mapping = body["discriminator"]["mapping"]
    assert set(mapping) == {*registry(), "test.note"}
    deal = doc["components"]["schemas"][mapping["cards.deal"].rsplit("/", 1)[1]]
    assert deal["required"] == ["action", "player"]
    assert deal["properties"]["action"]["const"] == "cards.deal"
    assert deal["additionalProperties"] is False
    note = doc["components"]["schemas"][mapping["test.note"].rsplit("/", 1)[1]]
    assert note["properties"]["wait"]["type"] == "integer"
    assert note["properties"]["cards"]["type"] == "array"
    jsonschema.validate({"action": "cards.deal", "player": "ann"},
                        {**body, "components": doc["components"]})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"action": "cards.deal"},
                            {**body, "components": doc["components"]})


def test_own_votes_with_the_cards_they_earned(app_client: TestClient, served: Served) -> None:
    r = app_client.get("/api/v1/me/votes", headers=auth(served.tokens["ann"]))
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    (vote,) = r.json()
    assert vote["proposal"] == "1" and vote["nweek"] == 1
    # the card is the one the Cards for Votes deal recorded for ann (read from the ledger)
    dealt = sql(served.game, "SELECT d.card FROM deals d JOIN players p ON p.id = d.player_id "
                             "WHERE p.name = 'ann' AND d.reason LIKE 'Cards for Votes%'")
    assert [c["number"] for c in vote["earned"]] == [dealt[0][0]]
    assert app_client.get("/api/v1/me/votes", headers=auth(served.tokens["ben"])).json() == []
    assert app_client.get("/api/v1/me/votes").status_code == 401
    game = app_client.get("/api/v1/game").json()
    assert game["next_nweek_at"] is not None and game["next_nweek_at"] > game["now"]


def test_every_bad_token_gets_the_same_401(app_client: TestClient, served: Served) -> None:
    from nomic_cards.server.auth import UNAUTHORIZED_BODY

    ann = served.tokens["ann"]
    with freeze_time(NOW), served.game.write() as tx:
        api.issue_token(tx, "ben")  # ben's earlier token is revoked now
        retired = issue_token(tx, "cat", keep_others=True).token
        api.retire_player(tx, "cat")
    before = events(served)
    answers = set()
    body = json.dumps({"action": "test.note"})
    for headers in ({}, {"Authorization": "Basic abc"}, auth("garbage"), auth(ann + "x"),
                    auth(ann[:17] + "A" * 43), auth("A" * 16 + ann[16:]),
                    auth(served.tokens["ben"]), auth(retired)):
        r = app_client.post("/api/v1/me/actions", content=body,
                            headers={**headers, "Content-Type": "application/json"})
        answers.add((r.status_code, r.text, r.headers["cache-control"],
                     r.headers["www-authenticate"]))
    assert answers == {(401, json.dumps(dict(UNAUTHORIZED_BODY), separators=(",", ":")),
                        "no-store", 'Bearer realm="nomic-cards"')}
    assert events(served) == before


def test_keys_are_kept_48_hours_then_forgotten(app_client: TestClient, served: Served) -> None:
    from datetime import datetime, timedelta

    from nomic_cards.core.services.acting import KEEP
    from nomic_cards.core.store import keys

    assert timedelta(hours=24) <= KEEP
    token = served.tokens["ann"]
    assert post(app_client, token, {"action": "test.note"},
                **{"Idempotency-Key": "old"}).status_code == 201
    assert post(app_client, token, {"action": "test.note"},
                **{"Idempotency-Key": "new"}).status_code == 201
    sql(served.game, "UPDATE idempotency_keys SET created_at = :at WHERE key = 'old'",
        at=datetime(2026, 1, 19, 9, 0))  # three days before NOW
    with served.game.write() as tx:
        keys.purge(tx, datetime.fromisoformat("2026-01-22T10:00:00+00:00") - KEEP)
    assert sql(served.game, "SELECT key FROM idempotency_keys") == [("new",)]


def test_a_retried_key_answers_exactly_what_it_answered_first(
        app_client: TestClient, served: Served, dealer_token: str) -> None:
    """The answer is kept with the key in the action's own transaction: a retry gets the same
    status and body, whether the first was done (201), waiting (202) or refused with its
    refusal recorded (409: a deal from an empty Deck records ``deal.refused``)."""
    token = served.tokens["ann"]
    waiting = post(app_client, token, {"action": "test.note", "wait": 1},
                   **{"Idempotency-Key": "w"})
    assert waiting.status_code == 202
    again = post(app_client, token, {"action": "test.note", "wait": 1},
                 **{"Idempotency-Key": "w"})
    assert (again.status_code, again.json()) == (202, waiting.json())
    assert again.headers["idempotent-replayed"] == "true"
    with served.game.write() as tx:  # empty the Deck
        while tx.state.deck:
            api.transfer(tx, str(min(tx.state.deck)), "cat", "Proposal 9")
    count = len(events(served))
    refused = post(app_client, dealer_token, {"action": "cards.deal", "player": "ben"},
                   **{"Idempotency-Key": "empty"})
    assert refused.status_code == 409, refused.text
    assert "the Deck contains no Cards" in refused.json()["summary"]
    assert [e["kind"] for e in refused.json()["events"]] == ["deal.refused"]
    assert len(events(served)) == count + 1  # the refusal is recorded
    retried = post(app_client, dealer_token, {"action": "cards.deal", "player": "ben"},
                   **{"Idempotency-Key": "empty"})
    assert (retried.status_code, retried.json()) == (409, refused.json())
    assert len(events(served)) == count + 1  # and recorded once
