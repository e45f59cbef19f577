"""A worker's two lanes of request threads (``server/threads.py``): the quick reads never
wait behind the general lane's work, nor it behind them.

Each test fills one lane (its places taken on the app's event loop, as requests would take
them) and checks that the other lane's requests are answered while the full lane's wait in
its queue, unanswered, until the places are given back. Nothing waits on a timer: the lane's
own count of waiting requests says they are queued. A lane is a property of the server, not
of the database, so these run on SQLite alone."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import httpx
import pytest
from starlette.testclient import TestClient

from nomic_cards.server import create_app, threads
from tests.server.conftest import Served, make_game


@pytest.fixture(autouse=True)
def no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests wait for their lane as long as a test holds it (not 503 after 5 s)."""
    monkeypatch.setattr(threads, "REQUEST_DEADLINE", 120.0)


@pytest.fixture
def served_sqlite(tmp_path: Path) -> Iterator[Served]:
    s = make_game(f"sqlite:///{tmp_path / 'game.db'}")
    with s.game:
        yield s


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Held:
    """Every place of a lane taken, on the app's event loop, until :meth:`give_back`."""

    def __init__(self, client: TestClient, lane: anyio.CapacityLimiter) -> None:
        assert client.portal is not None
        self.portal, self.lane = client.portal, lane
        self.borrowers = [object() for _ in range(int(lane.total_tokens))]
        for b in self.borrowers:
            self.portal.call(lane.acquire_on_behalf_of_nowait, b)

    def waiting(self, count: int) -> int:
        """The requests waiting for a place, once ``count`` of them are (or at most 30 s
        later)."""
        for _ in range(3000):
            waiting = self.portal.call(self.lane.statistics).tasks_waiting
            if waiting >= count:
                break
            time.sleep(0.01)
        return waiting

    def give_back(self) -> None:
        for b in self.borrowers:
            self.portal.call(self.lane.release_on_behalf_of, b)


class Pending:
    """A request sent from another thread, whose answer is awaited later."""

    def __init__(self, client: TestClient, path: str, headers: dict[str, str]) -> None:
        self.response: httpx.Response | None = None
        self.thread = threading.Thread(target=self._send, args=(client, path, headers))
        self.thread.start()

    def _send(self, client: TestClient, path: str, headers: dict[str, str]) -> None:
        self.response = client.get(path, headers=headers)


def general_lane(client: TestClient) -> anyio.CapacityLimiter:
    assert client.portal is not None
    return client.portal.call(anyio.to_thread.current_default_thread_limiter)


def test_the_lanes_have_the_sizes_the_server_declares(served_sqlite: Served) -> None:
    with TestClient(create_app(served_sqlite.game)) as c:
        assert c.app.state.quick.total_tokens == threads.QUICK_THREADS == 1  # type: ignore[attr-defined]
        assert general_lane(c).total_tokens == threads.REQUEST_THREADS


def held_back(client: TestClient, lane: anyio.CapacityLimiter,
              waiting: list[tuple[str, dict[str, str]]], answered: Callable[[], None]) -> None:
    """With every place of ``lane`` taken: ``answered()`` (its requests are answered), and the
    ``waiting`` requests queue for a place, unanswered; once the places are given back, those
    are answered 200."""
    held = Held(client, lane)
    pending = [Pending(client, path, headers) for path, headers in waiting]
    try:
        answered()
        assert held.waiting(len(pending)) == len(pending)
        assert [p.response for p in pending] == [None] * len(pending)
    finally:
        held.give_back()
    for p in pending:
        p.thread.join()
        assert p.response is not None and p.response.status_code == 200, p.response


def test_quick_reads_are_answered_while_the_general_lane_is_full(served_sqlite: Served
                                                                  ) -> None:
    token = served_sqlite.tokens["ben"]
    with TestClient(create_app(served_sqlite.game)) as c:
        last = c.get("/api/v1/ledger/head").json()["event"]

        def quick_reads() -> None:
            assert c.get("/healthz").status_code == 200
            assert c.get("/api/v1/ledger/head").status_code == 200
            now = c.get("/api/v1/me/hand", headers=auth(token))
            assert now.status_code == 200 and len(now.json()["cards"]) == 2

        # the state load and the replay wait for a place in the general lane
        held_back(c, general_lane(c), [("/api/v1/game", {}),
                                       (f"/api/v1/me/hand?as_of={last}", auth(token))],
                  quick_reads)


def test_the_general_lanes_reads_are_answered_while_the_quick_lane_is_full(
        served_sqlite: Served) -> None:
    token = served_sqlite.tokens["ann"]
    with TestClient(create_app(served_sqlite.game)) as c:
        last = c.get("/api/v1/ledger/head").json()["event"]

        def general_reads() -> None:
            assert c.get("/api/v1/game").status_code == 200
            assert c.get("/api/v1/me", headers=auth(token)).status_code == 200
            replay = c.get(f"/api/v1/me/hand?as_of={last}", headers=auth(token))
            assert replay.status_code == 200 and replay.json()["as_of"] == last

        held_back(c, c.app.state.quick,  # type: ignore[attr-defined]
                  [("/healthz", {}), ("/api/v1/me/hand", auth(token))], general_reads)
