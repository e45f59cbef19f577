"""A player's view of Pooker (``GET /api/v1/me/games``), on both backends: eir PCards and best
arrangement scored as ``poker arrange`` scores them, eir Points, eir own notifications waiting
and the offers naming em -- never another player's --, the Motion and its votes, the Showdown's
window and what e showed; private (no-store, the one 401), and as the OpenAPI document says."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient
from typer.testing import CliRunner

from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.cli import app as cli
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from nomic_cards.server import create_app
from nomic_cards.server.auth import UNAUTHORIZED_BODY
from tests.helpers import new_game
from tests.pooker.support import fund, give, pooker_table
from tests.server.test_api import check

START = "2026-01-01 12:00:00"
PATH = "/api/v1/me/games"


@pytest.fixture
def table(db_url: str) -> Iterator[tuple[Nomic, dict[str, str], str]]:
    """ann holds a Royal Flush but the Ten, and a deuce; ben the Ten and a deuce; cat a three;
    dan nothing. ann and ben have Points for the fees."""
    with freeze_time(START), pooker_table(db_url, ("ann", "ben", "cat", "dan")) as game:
        give(game, "ann", "Red As", "Red Ks", "Red Qs", "Red Js", "Blue 2h")
        give(game, "ben", "Red 10s", "Red 2h")
        give(game, "cat", "Red 3c")
        fund(game, "ann", "ben", n=5)
        with game.write() as tx:
            tokens = {p: api.issue_token(tx, p).token for p in ("ann", "ben", "cat", "dan")}
        yield game, tokens, db_url


def view(client: TestClient, token: str) -> Any:
    r = client.get(PATH, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    return check(client, PATH, r)


def test_the_view_shows_eir_pcards_best_arrangement_and_points(
        table: tuple[Nomic, dict[str, str], str]) -> None:
    game, tokens, db = table
    with freeze_time(START, tick=True), TestClient(create_app(game)) as client:
        ann = view(client, tokens["ann"])
        assert ann["player"] == "ann" and set(ann["games"]) == {"pooker"}
        mine = ann["games"]["pooker"]
        assert [c["card"] for c in mine["pcards"]] == ["Red As", "Red Js", "Red Qs", "Red Ks",
                                                       "Blue 2h"]
        assert mine["pcards"][0]["name"] == "Ace of Spades"
        assert mine["points"] == 5 and mine["trade_fee"] == 1 and mine["dealer"] is False
        assert mine["traders"] == ["ben", "cat", "dan"]
        # the same arrangement and Score as `poker arrange` with the table in force
        arranged = CliRunner().invoke(cli, ["poker", "arrange", "As Ks Qs Js 2h", "--json"])
        assert arranged.exit_code == 0, arranged.output
        expected = json.loads(arranged.stdout)
        assert mine["score"] == expected["score"]
        assert [[c["card"].split()[1] for c in h["cards"]] for h in mine["hands"]] == \
            expected["hands"]
        assert all(h["score"] == mine["scores"][h["category"]] for h in mine["hands"])
        assert sum(h["score"] for h in mine["hands"]) == mine["score"]
        assert mine["waiting"] == mine["offers"] == mine["all_waiting"] == []
        assert mine["motion"] is None and mine["showdown"] is None and mine["last"] is None


def test_an_offer_is_seen_by_its_author_and_the_player_it_names_only(
        table: tuple[Nomic, dict[str, str], str]) -> None:
    game, tokens, _db = table
    with freeze_time(START, tick=True), TestClient(create_app(game)) as client:
        with game.write() as tx:
            note = pooker.trade(tx, "ann", ["Blue 2h"], ["Red 10s"], "ben")
        ann = view(client, tokens["ann"])["games"]["pooker"]
        ben = view(client, tokens["ben"])["games"]["pooker"]
        offer = {"event": note.notified, "player": "ann", "other": "ben", "give": ["Blue 2h"],
                 "get": ["Red 10s"], "expires": note.expires}
        assert ann["waiting"] == [offer] and ann["offers"] == []
        assert ben["offers"] == [offer] and ben["waiting"] == []
        for other in ("cat", "dan"):
            r = client.get(PATH, headers={"Authorization": f"Bearer {tokens[other]}"})
            seen = r.json()["games"]["pooker"]
            assert seen["waiting"] == seen["offers"] == seen["all_waiting"] == []
            assert "Blue 2h" not in r.text and str(note.notified) not in json.dumps(seen), other
        # ben accepts: the mirrored notification; the trade executes, nothing waits
        with game.write() as tx:
            pooker.trade(tx, "ben", ["Red 10s"], ["Blue 2h"], "ann")
        ann = view(client, tokens["ann"])["games"]["pooker"]
        ben = view(client, tokens["ben"])["games"]["pooker"]
        assert ann["waiting"] == ben["offers"] == []
        assert ann["score"] == 80 and ann["points"] == 4
        assert [h["category"] for h in ann["hands"]] == ["royal-flush"]
        assert {c["card"] for c in ben["pcards"]} == {"Blue 2h", "Red 2h"}


def test_motion_and_showdown_as_each_player_sees_them(
        table: tuple[Nomic, dict[str, str], str]) -> None:
    game, tokens, _db = table
    with freeze_time(START, tick=True) as clock, TestClient(create_app(game)) as client:
        with game.write() as tx:
            pooker.trade(tx, "ann", ["Blue 2h"], ["Red 10s"], "ben")
            pooker.trade(tx, "ben", ["Red 10s"], ["Blue 2h"], "ann")
            pooker.motion(tx, "cat")
            pooker.vote(tx, "ann", True)
        motion = view(client, tokens["ann"])["games"]["pooker"]["motion"]
        # made at START, open to votes for motion-days (3 days)
        assert motion == {"number": 1, "by": "cat", "ends": "2026-01-04T12:00:00Z", "yes": 1,
                          "no": 0, "players": 5, "threshold": "majority", "voted": "yes"}
        assert view(client, tokens["ben"])["games"]["pooker"]["motion"]["voted"] is None
        with game.write() as tx:
            pooker.vote(tx, "ben", True)
            pooker.vote(tx, "cat", True)
        sd = view(client, tokens["ann"])["games"]["pooker"]
        assert sd["motion"] is None
        showdown = sd["showdown"]
        assert showdown["number"] == 1 and showdown["how"] == "motion"
        assert showdown["ends"] == "2026-01-04T12:00:00Z" and showdown["ended"] is False
        assert showdown["must_show"] == 0 and showdown["mine"] is None
        with game.write() as tx:
            pooker.show(tx, "ann", ["Red As,Red Ks,Red Qs,Red Js,Red 10s"])
        ann = view(client, tokens["ann"])["games"]["pooker"]["showdown"]
        ben = view(client, tokens["ben"])["games"]["pooker"]["showdown"]
        royal = [["Red As", "Red 10s", "Red Js", "Red Qs", "Red Ks"]]  # in card order
        assert ann["mine"] == royal and ben["mine"] is None
        assert ben["shown"] == {"ann": royal}  # shown cards are public
        clock.move_to("2026-01-04 12:00:01")
        assert view(client, tokens["ann"])["games"]["pooker"]["showdown"]["ended"] is True
        with game.write() as tx:
            api.tick(tx)
        after = view(client, tokens["ben"])["games"]["pooker"]
        assert after["showdown"] is None
        assert after["last"]["winners"] == ["ann"] and after["last"]["prize"] == 80
        assert after["last"]["scores"] == {"ann": 80} and after["last"]["paid"] == {"ann": 80}
        assert view(client, tokens["ann"])["games"]["pooker"]["points"] == 4 + 80


def test_the_view_is_private_and_the_same_401_for_every_bad_token(
        table: tuple[Nomic, dict[str, str], str]) -> None:
    game, tokens, _db = table
    with freeze_time(START, tick=True), TestClient(create_app(game)) as client:
        sel, _verifier = tokens["ann"].split(".", 1)
        for headers in ({}, {"Authorization": "Bearer nonsense"},
                        {"Authorization": f"Bearer {sel}.wrong"},
                        {"Authorization": "Bearer abc.def"}):
            r = client.get(PATH, headers=headers)
            assert r.status_code == 401 and r.json() == UNAUTHORIZED_BODY, headers
            assert r.headers["cache-control"] == "no-store"
        r = client.get(PATH + "?player=ben", headers={"Authorization": f"Bearer {tokens['ann']}"})
        assert r.status_code == 400 and "unknown parameter 'player'" in r.json()["error"]


def test_the_view_without_pooker_in_force_is_empty(db_url: str) -> None:
    with freeze_time(START), new_game(db_url, players=("ann",)) as game:
        with game.write() as tx:
            token = api.issue_token(tx, "ann").token
        with TestClient(create_app(game)) as client:
            assert view(client, token) == {"player": "ann", "as_of": game_head(game),
                                           "games": {}}


def game_head(game: Nomic) -> int:
    with game.read() as r:
        return r.state.seq


@pytest.mark.pg
@pytest.mark.slow
def test_the_documented_server_account_serves_the_view(tmp_path: Path) -> None:
    """docs/server.md's read-only account (no grant on ``event_private``) serves the view with
    a notification waiting and a Showdown closed: it reads ``game_data``, ``ownership`` and the
    public record only."""
    from tests.conftest import _require_pg, drop_pg_schema, new_pg_schema_url
    from tests.server.conftest import documented_accounts, start_server, stop_server

    _require_pg()
    url, schema = new_pg_schema_url()
    try:
        with freeze_time(START), pooker_table(url) as game:
            give(game, "ann", "Red As", "Red Ah", "Blue 5d")
            give(game, "ben", "Red 2c")
            with game.write() as tx:
                points.grant_points(tx, "ann", 5, rule="Scorekeeper's report")
                pooker.showdown_open(tx, motion_passed="a Motion to Show Cards")
                pooker.show(tx, "ann", ["Red As,Red Ah"])
        with freeze_time("2026-01-05 12:00:00"), Nomic(url) as game, game.write() as tx:
            api.tick(tx)  # the Showdown closes: ann wins a pair
            note = pooker.trade(tx, "ann", ["Blue 5d"], ["Red 2c"], "ben")
            tokens = {p: api.issue_token(tx, p).token for p in ("ann", "ben")}
        with documented_accounts(url) as (server_url, _player_url):
            live = start_server(server_url, tmp_path)
            try:
                for who in ("ann", "ben"):
                    r = httpx.get(f"{live.base}{PATH}", timeout=10,
                                  headers={"Authorization": f"Bearer {tokens[who]}"})
                    assert r.status_code == 200, (who, r.text)
                    seen = r.json()["games"]["pooker"]
                    assert seen["last"]["winners"] == ["ann"]
                    mine = seen["waiting"] if who == "ann" else seen["offers"]
                    assert [n["event"] for n in mine] == [note.notified]
            finally:
                log = stop_server(live)
            assert "internal error" not in log and "Traceback" not in log, log[-3000:]
    finally:
        drop_pg_schema(schema)


def test_the_dealer_sees_every_notification_waiting(
        table: tuple[Nomic, dict[str, str], str]) -> None:
    game, tokens, _db = table
    with freeze_time(START, tick=True), TestClient(create_app(game)) as client:
        with game.write() as tx:
            note = pooker.trade(tx, "ann", ["Blue 2h"], ["Red 10s"], "ben")
        with game.read() as r:
            dealer = r.state.dealer
        assert dealer is not None and dealer not in tokens
        with game.write() as tx:
            token = api.issue_token(tx, dealer).token
        seen = view(client, token)["games"]["pooker"]
        assert seen["dealer"] is True and seen["pcards"] == [] and seen["traders"] == []
        assert [n["event"] for n in seen["all_waiting"]] == [note.notified]
        assert seen["waiting"] == seen["offers"] == []
