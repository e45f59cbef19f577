"""What the page reads to keep true time and to know whom it serves: ``GET /api/v1/game`` is
never answered ``304`` across an nday boundary (its ETag is the ledger head *and* the Clock's
position, so a revalidated copy cannot carry a stale nweek or nday), and ``GET /api/v1/me``
says the token's scope (an officer token's ``dealer``). Frozen clocks from the games' epoch;
the app in-process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.server import create_app
from tests.game_time import EPOCH, day
from tests.helpers import new_game


@pytest.fixture
def table(db_url: str) -> Iterator[tuple[Nomic, dict[str, str]]]:
    with freeze_time(day(0.5)):
        game = new_game(db_url, players=("ann", "bob"), epoch=EPOCH, nweek_days=10)
        with game.write() as tx:
            tokens = {"ann": api.issue_token(tx, "ann").token,
                      "dealer": api.issue_token(tx, "PurpleBob", scope="dealer").token,
                      "dealer, own": api.issue_token(tx, "PurpleBob",
                                                     keep_others=True).token}
    with game:
        yield game, tokens


def test_the_game_is_not_revalidated_across_an_nday_boundary(
        table: tuple[Nomic, dict[str, str]]) -> None:
    game, _ = table
    with TestClient(create_app(game)) as client:
        with freeze_time(day(3.999)):  # nday 4, a moment before it ends
            first = client.get("/api/v1/game")
            etag = first.headers["etag"]
            assert (first.json()["nweek"], first.json()["nday"]) == (1, 4)
            again = client.get("/api/v1/game", headers={"If-None-Match": etag})
            assert again.status_code == 304  # the same nday, no event: the copy is current
        with freeze_time(day(4.001)):  # nday 5: no event recorded since, a new answer
            later = client.get("/api/v1/game", headers={"If-None-Match": etag})
            assert later.status_code == 200 and later.headers["etag"] != etag
            assert (later.json()["nweek"], later.json()["nday"]) == (1, 5)
            assert later.json()["now"] == "2026-01-05T00:01:26Z"
        with freeze_time(day(10.001)):  # nweek 2
            assert client.get("/api/v1/game").json()["nweek"] == 2
        # the other public resources keep the ledger head's ETag alone
        deck = client.get("/api/v1/deck").headers["etag"]
        assert deck == client.get("/api/v1/ledger/head").headers["etag"]
        assert etag.startswith(deck[:-1] + "-")


def test_me_says_the_tokens_scope(table: tuple[Nomic, dict[str, str]]) -> None:
    game, tokens = table
    with TestClient(create_app(game)) as client:
        def me(who: str) -> dict[str, object]:
            r = client.get("/api/v1/me", headers={"Authorization": f"Bearer {tokens[who]}"})
            assert r.status_code == 200
            body: dict[str, object] = r.json()
            return body
        assert me("ann")["scope"] is None and me("ann")["dealer"] is False
        assert me("dealer")["scope"] == "dealer" and me("dealer")["dealer"] is True
        assert me("dealer")["cards"] == 208  # the Deck's, for the Dealer
        assert me("dealer, own")["scope"] is None  # the Dealer's own, not an officer token
        doc = client.get("/api/v1/openapi.json").json()
        schema = doc["paths"]["/api/v1/me"]["get"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        assert "scope" in schema["properties"]
