"""The standings in public: ``GET /api/v1/points`` lists every Player's Points and the
Bank's, each with the path of its history, and each history lists the account's movements
newest first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.points import grant_points
from nomic_cards.server import create_app
from tests.helpers import new_game
from tests.server.test_api import check


@pytest.fixture
def scored(db_url: str) -> Iterator[Nomic]:
    """ann 7 (10, then 3 back), Zoë Q 7, ben 2, cat none yet; the Bank has paid 16 out."""
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(db_url, players=("ann", "ben", "cat", "Zoë Q"))
    with game:
        for day, (player, points, rule) in enumerate([
                ("ann", 10, "Scorekeeper's report of nweek 1"),
                ("ben", 2, "Scorekeeper's report of nweek 1"),
                ("Zoë Q", 7, "Scorekeeper's report of nweek 2"),
                ("ann", -3, "Proposal 12")], start=2):
            with freeze_time(f"2026-01-{day:02d} 09:00:00"), game.write() as tx:
                grant_points(tx, player, points, rule=rule)
        yield game


def test_the_standings_list_every_account_the_most_first_then_the_bank(scored: Nomic) -> None:
    with TestClient(create_app(scored)) as client:
        r = client.get("/api/v1/points")
        assert r.status_code == 200
        doc = check(client, "/api/v1/points", r)
        rows = [(s["account"], s["bank"], s["points"]) for s in doc["standings"]]
        # ann and Zoë Q tie at 7, cat and the Dealer at none: by name, whatever its case; the
        # Bank last, at minus what it paid out
        assert rows == [("ann", False, 7), ("Zoë Q", False, 7), ("ben", False, 2),
                        ("cat", False, 0), ("PurpleBob", False, 0), ("Bank", True, -16)]
        assert client.get("/api/v1/points", headers={"If-None-Match": r.headers["etag"]}
                          ).status_code == 304
        links = {s["account"]: s["history"] for s in doc["standings"]}
        assert links["Zoë Q"] == "/api/v1/points/players/Zo%C3%AB%20Q"
        assert links["Bank"] == "/api/v1/points/bank"
        # every link leads to that account's history, whose balance is the one listed
        for s in doc["standings"]:
            got = client.get(s["history"])
            assert got.status_code == 200, got.text
            history = check(client, "/api/v1/points/bank" if s["bank"] else
                            "/api/v1/points/players/{name}", got)
            assert (history["account"], history["points"]) == (s["account"], s["points"])


def test_an_accounts_history_is_newest_first_with_its_rule(scored: Nomic) -> None:
    with TestClient(create_app(scored)) as client:
        ann = client.get("/api/v1/points/players/ann").json()
        assert [(m["source"], m["target"], m["points"], m["rule"], m["at"])
                for m in ann["movements"]] == [
            ("ann", "Bank", 3, "Proposal 12", "2026-01-05T09:00:00Z"),
            ("Bank", "ann", 10, "Scorekeeper's report of nweek 1", "2026-01-02T09:00:00Z")]
        bank = client.get("/api/v1/points/bank").json()
        assert [m["points"] for m in bank["movements"]] == [3, 7, 2, 10]
        assert [m["event"] for m in bank["movements"]] == sorted(
            (m["event"] for m in bank["movements"]), reverse=True)
        # a name as the game knows it, whatever its case; a player with no Points yet
        assert client.get("/api/v1/points/players/ANN").json()["points"] == 7
        assert client.get("/api/v1/points/players/cat").json()["movements"] == []


def test_an_unknown_account_is_a_404_in_one_line(scored: Nomic) -> None:
    with TestClient(create_app(scored)) as client:
        r = client.get("/api/v1/points/players/nobody")
        assert r.status_code == 404 and "nobody" in r.json()["error"]
        r = client.get("/api/v1/points/players/" + "x" * 65)
        assert r.status_code == 400 and "64" in r.json()["error"]
        assert client.get("/api/v1/points?x=1").status_code == 400
