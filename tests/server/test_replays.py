"""The bound on ``?as_of=`` replays (per player and per process) and their cache by event
number, tested by holding slots from the test itself: no timing involved."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from nomic_cards.core import api
from nomic_cards.core.services import public
from nomic_cards.server import create_app
from nomic_cards.server.replays import Replays
from tests.server.conftest import Served


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The event numbers replayed, in order."""
    seen: list[int] = []
    real = public.hands_at

    def hands_at(game: object, event: int) -> public.HandsAt:
        seen.append(event)
        return real(game, event)  # type: ignore[arg-type]
    monkeypatch.setattr(public, "hands_at", hands_at)
    return seen


@pytest.fixture
def app_client(served: Served) -> Iterator[TestClient]:
    with TestClient(create_app(served.game)) as c:
        yield c


def hand_as_of(client: TestClient, served: Served, who: str,
               as_of: str) -> tuple[int, dict[str, str], object]:
    r = client.get("/api/v1/me/hand", params={"as_of": as_of}, headers=auth(served.tokens[who]))
    return r.status_code, dict(r.headers), r.json()


def test_a_player_has_one_replay_at_a_time_and_the_process_two(
        app_client: TestClient, served: Served, counted: list[int]) -> None:
    replays: Replays = app_client.app.state.replays  # type: ignore[attr-defined]
    assert (replays.total, replays.per_player) == (2, 1)
    with replays.slot("ann"):  # ann's replay is running
        status, headers, body = hand_as_of(app_client, served, "ann", "5")
        assert status == 429 and headers["retry-after"] == "1"
        assert body == {"error": "a replay of yours (as_of) is already running; try again "
                                 "when it has finished"}
        assert headers["cache-control"] == "no-store"
        # another player still gets the second slot
        assert hand_as_of(app_client, served, "ben", "5")[0] == 200
        with replays.slot("cat"):  # now both slots are taken
            status, headers, body = hand_as_of(app_client, served, "ben", "6")
            assert status == 503 and headers["retry-after"] == "1"
            assert body == {"error": "the server is busy with other replays (as_of); try "
                                     "again shortly"}
            # a replay already cached needs no slot
            assert hand_as_of(app_client, served, "ben", "5")[0] == 200
    assert counted == [5]  # the refused requests replayed nothing
    assert hand_as_of(app_client, served, "ann", "6")[0] == 200  # the slots are free again
    assert counted == [5, 6]


def test_replays_are_cached_by_event_number(app_client: TestClient, served: Served,
                                            counted: list[int]) -> None:
    app_client.app.state.replays = Replays(size=2)  # type: ignore[attr-defined]
    first = hand_as_of(app_client, served, "ann", "7")
    assert first[0] == 200 and counted == [7]
    assert hand_as_of(app_client, served, "ann", "7") == first  # the same answer, no replay
    ben = hand_as_of(app_client, served, "ben", "7")  # another player, the same event
    assert ben[0] == 200 and counted == [7]
    # a time resolves to its event number first (the last event at or before it): a cached
    # event answers it without a replay
    record = api.public_record(served.game)
    at = next(e.at for e in record if e.seq == 7)
    last = max(e.seq for e in record if e.at == at)
    hand_as_of(app_client, served, "ann", str(last))
    replayed = list(counted)
    by_time = hand_as_of(app_client, served, "ann", at)
    assert by_time[0] == 200 and by_time[2]["as_of"] == last  # type: ignore[index]
    assert counted == replayed
    app_client.app.state.replays = Replays(size=2)  # type: ignore[attr-defined]
    counted.clear()
    for event in ("7", "8", "9", "9", "8", "7"):
        hand_as_of(app_client, served, "ann", event)
    # two kept: 9 and 8 answered from the cache; 7, the least recently used, was dropped
    assert counted == [7, 8, 9, 7]
