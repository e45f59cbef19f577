"""The live event streams on a real server with two workers, on both backends: a card dealt on
the command line reaches its receiver's stream with its notice and no other stream's; every
stream resumes from Last-Event-ID; pings; the same 401 as every private resource."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nomic_cards.server.auth import UNAUTHORIZED_BODY
from tests.server.conftest import Live, Served, start_server, stop_server
from tests.server.test_live import cli, pg_behind_proxy  # noqa: F401 - a fixture

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow


class Stream:
    """An event stream read in a thread: frames (``{"id", "event", "data"}``) and comments."""

    def __init__(self, base: str, path: str, headers: dict[str, str]) -> None:
        self.frames: queue.Queue[dict[str, Any]] = queue.Queue()
        self.comments: queue.Queue[str] = queue.Queue()
        self.status: queue.Queue[int] = queue.Queue()
        self._client = httpx.Client(base_url=base, timeout=httpx.Timeout(30, read=60))
        self._thread = threading.Thread(target=self._read, args=(path, headers), daemon=True)
        self._thread.start()
        self.code = self.status.get(timeout=30)

    def _read(self, path: str, headers: dict[str, str]) -> None:
        try:
            with self._client.stream("GET", path, headers=headers) as r:
                self.status.put(r.status_code)
                self.headers = r.headers
                frame: dict[str, Any] = {}
                for line in r.iter_lines():
                    if line.startswith(":"):
                        self.comments.put(line)
                    elif line == "":
                        if "data" in frame:
                            frame["data"] = json.loads(frame["data"])
                            self.frames.put(frame)
                        frame = {}
                    else:
                        name, _, value = line.partition(": ")
                        frame[name] = value
        except httpx.HTTPError:
            pass

    def until(self, seq: int, timeout: float = 20) -> list[dict[str, Any]]:
        """Frames up to and including event ``seq``."""
        out: list[dict[str, Any]] = []
        while not out or int(out[-1]["id"]) < seq:
            out.append(self.frames.get(timeout=timeout))
        return out

    def ended(self, timeout: float) -> bool:
        """Whether the server ended the stream within ``timeout`` seconds."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self) -> None:
        self._client.close()


@pytest.fixture
def two_workers(served: Served, tmp_path: Path) -> Iterator[Live]:
    server = start_server(served.game.url, tmp_path, workers=2,
                          env={"NOMIC_CARDS_SSE_PING": "0.5"})
    try:
        yield server
    finally:
        stop_server(server)


def auth(token: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **extra}


def test_a_deal_reaches_its_receivers_streams_and_no_one_elses(
        served: Served, two_workers: Live) -> None:
    base = two_workers.base
    # several streams each, so that both workers hold some
    cats = [Stream(base, "/api/v1/me/events", auth(served.tokens["cat"])) for _ in range(3)]
    bens = [Stream(base, "/api/v1/me/events", auth(served.tokens["ben"])) for _ in range(3)]
    public = [Stream(base, "/api/v1/events", {}) for _ in range(2)]
    try:
        every = [*cats, *bens, *public]
        assert [s.code for s in every] == [200] * len(every)
        assert all(s.headers["content-type"].startswith("text/event-stream") for s in every)
        assert all(s.headers["cache-control"] == "no-store" for s in every)
        assert all("content-encoding" not in s.headers for s in every)
        done = cli(served.game.url, "deal", "cat", "--json")
        assert done.returncode == 0, done.stderr
        dealt = json.loads(done.stdout)
        seq, number = int(dealt["event"]), int(dealt["card_number"])
        notices = set()
        for s in cats:
            frames = s.until(seq)
            mine = frames[-1]
            assert mine["event"] == "ledger" and mine["data"]["kind"] == "card.dealt"
            assert int(mine["id"]) == seq
            assert f"(card {number})" in mine["data"]["notice"]
            notices.add(mine["data"]["notice"])
        assert len(notices) == 1
        notice = notices.pop()
        face = notice.split("dealt the ", 1)[1].split(" (card", 1)[0]  # "Red 10 of Spades"
        for s in [*bens, *public]:
            frames = s.until(seq)
            assert frames[-1]["data"]["kind"] == "card.dealt"
            assert all(f["data"]["notice"] is None for f in frames)
            text = json.dumps([f["data"] for f in frames])
            assert face not in text and f"card {number})" not in text
        # the comment ping comes on an idle stream
        assert cats[0].comments.get(timeout=10).startswith(":")
    finally:
        for s in [*cats, *bens, *public]:
            s.close()


def test_last_event_id_resumes_from_the_ledger(served: Served, two_workers: Live) -> None:
    for _ in range(2):
        assert cli(served.game.url, "deal", "ben", "--json").returncode == 0
    with httpx.Client(base_url=two_workers.base) as http:
        head = http.get("/api/v1/ledger/head").json()["event"]
    ben = served.tokens["ben"]
    s = Stream(two_workers.base, "/api/v1/me/events",
               auth(ben, **{"Last-Event-ID": str(head - 3)}))
    try:
        frames = s.until(head)
        assert [int(f["id"]) for f in frames] == [head - 2, head - 1, head]
        notices = [f["data"]["notice"] for f in frames if f["data"]["kind"] == "card.dealt"]
        assert len(notices) == 2 and all(n for n in notices)
    finally:
        s.close()
    whole = Stream(two_workers.base, "/api/v1/events", {"Last-Event-ID": "0"})
    try:
        frames = whole.until(head)
        assert [int(f["id"]) for f in frames] == list(range(1, head + 1))
    finally:
        whole.close()


def test_a_revoked_token_or_a_retired_player_ends_the_stream_within_seconds(
        served: Served, two_workers: Live) -> None:
    """The open streams' tokens are checked again as they go: a revoked token's stream, and
    a retired player's, end within 5 s, with no private frame after the change; the others
    stay open."""
    base = two_workers.base
    streams = {p: Stream(base, "/api/v1/me/events", auth(served.tokens[p]))
               for p in ("ann", "ben", "cat")}
    try:
        assert {s.code for s in streams.values()} == {200}
        assert cli(served.game.url, "token", "revoke", "ann").returncode == 0
        changed = time.monotonic()
        assert streams["ann"].ended(5.0), "a revoked token's stream stayed open"
        assert cli(served.game.url, "player", "retire", "ben").returncode == 0
        retired = time.monotonic()
        assert streams["ben"].ended(5.0), "a retired player's stream stayed open"
        assert time.monotonic() - changed < 10 and time.monotonic() - retired < 5.5
        for name in ("ann", "ben"):
            private = [f for f in list(streams[name].frames.queue) if f["data"].get("notice")]
            assert private == [], (name, private)
        assert not streams["cat"].ended(0.5)  # cat's token is good: eir stream goes on
    finally:
        for s in streams.values():
            s.close()


def test_streams_refuse_bad_tokens_and_bad_last_event_ids(served: Served,
                                                          two_workers: Live) -> None:
    with httpx.Client(base_url=two_workers.base, timeout=10) as http:
        bodies = set()
        r = http.get("/api/v1/me/events")
        assert r.status_code == 401
        bodies.add(r.text)
        for token in ("garbage", served.tokens["ann"] + "x",
                      served.tokens["ann"][:16] + "." + "A" * 43):
            r = http.get("/api/v1/me/events", headers=auth(token))
            assert r.status_code == 401
            bodies.add(r.text)
        assert len(bodies) == 1 and json.loads(bodies.pop()) == dict(UNAUTHORIZED_BODY)
        r = http.get("/api/v1/events", headers={"Last-Event-ID": "soon"})
        assert r.status_code == 400 and "Last-Event-ID" in r.json()["error"]


def test_accepted_connections_inherit_the_half_open_reaping() -> None:
    from nomic_cards.cli.server import USER_TIMEOUT_MS, listen

    listener = listen("127.0.0.1", 0)
    listener.listen(1)
    try:
        with socket.create_connection(listener.getsockname()):
            conn, _ = listener.accept()
            with conn:
                assert conn.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
                assert conn.getsockopt(socket.IPPROTO_TCP,
                                       socket.TCP_USER_TIMEOUT) == USER_TIMEOUT_MS
    finally:
        listener.close()


def test_postgresql_cut_and_restored_the_streams_resume(
        pg_behind_proxy: tuple[Served, Any, str], tmp_path: Path) -> None:  # noqa: F811
    """The database cut under open streams (every connection of the server broken, new ones
    refused) while a card is dealt directly: once it is restored the card reaches the
    receiver's stream -- on the same stream, or on one resumed with Last-Event-ID -- once."""
    from nomic_cards.core import api
    from nomic_cards.core.nomic import Nomic

    served, proxy, proxied = pg_behind_proxy
    live = start_server(proxied, tmp_path, workers=2, env={"NOMIC_CARDS_SSE_PING": "0.5"})
    token = served.tokens["cat"]
    try:
        with httpx.Client(base_url=live.base) as http:
            head = http.get("/api/v1/ledger/head").json()["event"]
        stream = Stream(live.base, "/api/v1/me/events", auth(token))
        assert stream.code == 200
        proxy.cut()
        # the officer's side, straight to the database
        with Nomic(served.game.url) as game, game.write() as tx:
            dealt = api.deal(tx, "cat")
        assert dealt.event is not None and dealt.event > head
        time.sleep(2)
        proxy.restore()
        frames: list[dict[str, Any]] = []
        with contextlib.suppress(queue.Empty):
            frames = stream.until(dealt.event, timeout=30)
        stream.close()
        if not frames or int(frames[-1]["id"]) < dealt.event:  # the stream ended: resume
            last = int(frames[-1]["id"]) if frames else head
            again = Stream(live.base, "/api/v1/me/events",
                           auth(token, **{"Last-Event-ID": str(last)}))
            frames += again.until(dealt.event, timeout=30)
            again.close()
        ids = [int(f["id"]) for f in frames]
        assert ids.count(dealt.event) == 1
        mine = frames[ids.index(dealt.event)]
        assert f"(card {dealt.card_number})" in mine["data"]["notice"]
    finally:
        log = stop_server(live)
    assert "Traceback" not in log


def test_a_server_stops_promptly_with_streams_open(served: Served, tmp_path: Path) -> None:
    from nomic_cards.cli.server import GRACE

    live = start_server(served.game.url, tmp_path, workers=2)
    streams = [Stream(live.base, "/api/v1/events", {}) for _ in range(4)]
    assert [s.code for s in streams] == [200] * 4
    started = time.monotonic()
    live.proc.terminate()
    live.proc.wait(timeout=GRACE + 20)  # not the streams' hour
    assert time.monotonic() - started < GRACE + 20
    for s in streams:
        s.close()
    assert "Traceback" not in live.log.read_text()
