"""Pooker through POST /api/v1/me/actions (its actions come from the games layer's
declarations, with no server code of their own): a trade notified by each side (202, then
201), refusals in the rule's words, and the pending notification seen by its author only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import live
from nomic_cards.server import create_app
from tests.pooker.support import fund, give, pooker_table

START = "2026-01-01 12:00:00"


@pytest.fixture
def pooker_game(db_url: str) -> Iterator[tuple[Nomic, dict[str, str]]]:
    with freeze_time(START), pooker_table(db_url) as game:
        give(game, "ann", "Red As")
        give(game, "ben", "Red Kd", "Blue 2c")
        fund(game, "ann", "ben")
        with game.write() as tx:
            tokens = {p: api.issue_token(tx, p).token for p in ("ann", "ben", "cat")}
        yield game, tokens


def post(client: TestClient, token: str, body: dict[str, Any]) -> Any:
    return client.post("/api/v1/me/actions", content=json.dumps(body),
                       headers={"Authorization": f"Bearer {token}",
                                "Content-Type": "application/json"})


def faces(client: TestClient, token: str) -> set[str]:
    hand = client.get("/api/v1/me/hand", headers={"Authorization": f"Bearer {token}"}).json()
    return {c["card"] for c in hand["cards"]}


def test_a_trade_through_the_server(pooker_game: tuple[Nomic, dict[str, str]]) -> None:
    game, tokens = pooker_game
    with freeze_time(START, tick=True), TestClient(create_app(game)) as client:
        doc = client.get("/api/v1/openapi.json").json()
        mapping = doc["paths"]["/api/v1/me/actions"]["post"]["requestBody"]["content"][
            "application/json"]["schema"]["discriminator"]["mapping"]
        assert {"pooker.trade", "pooker.show", "pooker.motion", "pooker.vote"} <= set(mapping)

        first = post(client, tokens["ann"], {"action": "pooker.trade", "with": "ben",
                                             "give": ["Red As"], "get": ["Red Kd"]})
        assert first.status_code == 202, first.text
        assert first.json()["waiting"] is True
        assert first.json()["actor"] == "ann (through the server)"
        assert first.json()["notified"] == {"with": "ben", "give": ["Red As"],
                                            "get": ["Red Kd"]}
        pending = first.json()["events"][0]["event"]
        # the pending notification: its cards are in its author's answer and in the private
        # notice to the side it names (ben), on no other stream
        for viewer in ("ann", "ben", "cat"):
            with game.read() as tx:
                v = live.viewer_for_token(tx, tokens[viewer])
                assert v is not None
                seen = live.events_after(tx, pending - 1, v)
            told = [e for e in seen if e.kind == "notice.sealed"]
            rest = json.dumps([e.__dict__ for e in seen if e not in told])
            assert "Red As" not in rest and "Red Kd" not in rest, viewer
            if viewer == "ben":
                (notice,) = told
                assert notice.notice is not None and notice.notice.startswith(
                    "ann offers you a trade: eir Red As for your Red Kd\n")
            else:
                assert all(e.notice is None for e in told), viewer
        with game.read() as tx:
            public = json.dumps([e.__dict__ for e in live.events_after(tx, 0)])
        assert "Red As" not in public and "Red Kd" not in public

        refused = post(client, tokens["ben"], {"action": "pooker.trade", "with": "ann",
                                               "give": ["Blue 9h"], "get": ["Red As"]})
        assert refused.status_code in (400, 409)
        assert "Blue 9h" in refused.json()["error"] and "\n" not in refused.json()["error"]

        done = post(client, tokens["ben"], {"action": "pooker.trade", "with": "ann",
                                            "give": ["Red Kd"], "get": ["Red As"]})
        assert done.status_code == 201, done.text
        assert faces(client, tokens["ann"]) == {"Red Kd"}
        assert faces(client, tokens["ben"]) == {"Red As", "Blue 2c"}
        kinds = [e["kind"] for e in done.json()["events"]]
        assert len(kinds) == 2  # ben's notification, then the trade that executes both
