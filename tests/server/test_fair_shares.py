"""Fair shares of the server, on a real ``nomic-cards serve``: a flood of anonymous event streams
-- thousands from one address, then thousands from many -- never refuses a player's own stream,
which gets eir events; headers that arrive slowly, a body declared too large, a body that
trickles, a header too large and more connections than a worker holds are answered or closed
within seconds. Each measured figure is printed (``pytest -s``)."""

from __future__ import annotations

import asyncio
import json
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from nomic_cards.core.services.live import Viewer
from nomic_cards.server import live, protocol
from nomic_cards.server.actions import BODY_TIMEOUT, MAX_BODY
from tests.server.conftest import Live, Served, make_game, start_server, stop_server
from tests.server.test_live import cli

HOST = "127.0.0.1"


def want_files(count: int) -> None:
    """Let this process open ``count`` files (within its hard limit), or skip."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= count:
        return
    if hard != resource.RLIM_INFINITY and hard < count:
        pytest.skip(f"the test needs {count} open files; the hard limit here is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


@pytest.fixture
def one_worker(tmp_path: Path) -> Iterator[tuple[Served, Live]]:
    """``serve --workers 1`` on a SQLite game (the shares are each worker's)."""
    served = make_game(f"sqlite:///{tmp_path / 'game.db'}")
    server = start_server(served.game.url, tmp_path)
    try:
        yield served, server
    finally:
        log = stop_server(server)
        served.game.close()
        assert "Traceback" not in log, log[-3000:]


def port_of(server: Live) -> int:
    return int(server.base.rsplit(":", 1)[1])


class Answer:
    """A response's status line and header, with its body when it has a length, and the
    connection (left open for a stream)."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes,
                 reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.status, self.headers, self.body = status, headers, body
        self.reader, self.writer = reader, writer

    def close(self) -> None:
        self.writer.close()


async def request(port: int, path: str, *, local: str | None = None,
                  headers: dict[str, str] | None = None) -> Answer:
    reader, writer = await asyncio.open_connection(
        HOST, port, local_addr=(local, 0) if local else None)
    lines = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n{lines}\r\n".encode())
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in head[1:] if line)
    fields = {k.lower(): v for k, v in fields.items()}
    body = b""
    if "content-length" in fields:
        body = await reader.readexactly(int(fields["content-length"]))
    return Answer(int(head[0].split(" ", 2)[1]), fields, body, reader, writer)


async def many(port: int, path: str, addresses: list[str | None], *,
               at_once: int = 400) -> list[Answer]:
    """One request per address in ``addresses`` (None: 127.0.0.1), ``at_once`` under way at a
    time; refused ones' connections closed, streams' left open."""
    gate = asyncio.Semaphore(at_once)

    async def one(address: str | None) -> Answer:
        async with gate:
            answer = await request(port, path, local=address)
            if answer.status != 200:
                answer.close()
            return answer

    return await asyncio.gather(*(one(a) for a in addresses))


async def frames_until(answer: Answer, seq: int, timeout: float) -> list[dict[str, object]]:
    """The stream's frames (their data) up to event ``seq``."""
    out: list[dict[str, object]] = []
    buffer = b""
    deadline = time.monotonic() + timeout
    while not out or int(str(out[-1]["event"])) < seq:
        chunk = await asyncio.wait_for(answer.reader.read(65536), deadline - time.monotonic())
        assert chunk, "the stream ended"
        buffer += chunk
        for line in buffer.split(b"\n"):
            if line.startswith(b"data: "):
                out.append(json.loads(line[6:]))
        buffer = buffer.rsplit(b"\n", 1)[1]
    return out


@pytest.mark.slow
def test_a_flood_of_public_streams_never_refuses_a_players_own(
        one_worker: tuple[Served, Live]) -> None:
    """4,000 public streams from one address: PER_ADDRESS are served, the rest refused 429;
    4,000 more from 400 addresses: public streams are served up to PUBLIC, the rest refused
    503; then a player's own stream answers 200 and gets eir card and its notice, and the
    public streams' shares are given back once they close."""
    served, server = one_worker
    want_files(2 * live.PUBLIC + 1000)
    port = port_of(server)
    token = served.tokens["ann"]
    many_addresses: list[str | None] = [f"127.0.{1 + i // 200}.{1 + i % 200}"
                                        for i in range(400)] * 10

    async def flood() -> None:
        began = time.monotonic()
        first = await many(port, "/api/v1/events", [None] * 4000)
        took = time.monotonic() - began
        codes = [a.status for a in first]
        print(f"\n4,000 public streams from one address in {took:.1f} s: "
              f"{codes.count(200)} served, {codes.count(429)} refused 429")
        assert codes.count(200) == live.PER_ADDRESS
        assert codes.count(429) == 4000 - live.PER_ADDRESS, sorted(set(codes))
        refused = next(a for a in first if a.status == 429)
        assert json.loads(refused.body) == {
            "error": f"at most {live.PER_ADDRESS} open public streams from one address"}
        assert refused.headers["retry-after"] == "5"

        began = time.monotonic()
        second = await many(port, "/api/v1/events", many_addresses)
        took = time.monotonic() - began
        codes = [a.status for a in second]
        print(f"4,000 more from 400 addresses in {took:.1f} s: {codes.count(200)} served, "
              f"{codes.count(503)} refused 503")
        assert codes.count(200) == live.PUBLIC - live.PER_ADDRESS
        assert codes.count(503) == 4000 - codes.count(200), sorted(set(codes))
        full = next(a for a in second if a.status == 503)
        assert json.loads(full.body) == {
            "error": "too many open public streams; try again shortly"}
        assert full.headers["retry-after"] == "5"

        # the player's own stream, with every public share taken
        began = time.monotonic()
        own = await request(port, "/api/v1/me/events", headers={
            "Authorization": f"Bearer {token}"})
        opened = time.monotonic() - began
        assert own.status == 200, own.body
        dealt = await asyncio.to_thread(cli, served.game.url, "deal", "ann", "--json")
        assert dealt.returncode == 0, dealt.stderr
        seq = int(json.loads(dealt.stdout)["event"])
        began = time.monotonic()
        frames = await frames_until(own, seq, timeout=20)
        print(f"with {live.PUBLIC} public streams open: ann's own stream answered 200 in "
              f"{opened * 1000:.0f} ms; her deal reached it {(time.monotonic() - began):.2f} s "
              "after the command line's answer")
        mine = next(f for f in frames if f["event"] == seq)
        assert mine["kind"] == "card.dealt" and mine["subject"] == "ann"
        assert isinstance(mine["notice"], str) and "you were dealt" in mine["notice"]
        still = await request(port, "/api/v1/events", local="127.0.9.9")
        assert still.status == 503
        still.close()

        for answer in (*first, *second, own):
            answer.close()
        deadline = time.monotonic() + 10
        while True:  # the shares come back as the server sees the connections close
            again = await request(port, "/api/v1/events")
            again.close()
            if again.status == 200 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert again.status == 200

    asyncio.run(flood())


@pytest.mark.slow
def test_headers_that_arrive_slowly_are_closed_within_seconds(
        one_worker: tuple[Served, Live]) -> None:
    """2,000 connections each sending a byte of its header every second are all closed within
    HEADER_TIMEOUT and a margin of their opening, and a player is served meanwhile."""
    served, server = one_worker
    want_files(3000)
    port = port_of(server)
    bound = protocol.HEADER_TIMEOUT + 3

    async def slow() -> float | None:
        reader, writer = await asyncio.open_connection(HOST, port)
        opened = time.monotonic()
        writer.write(b"GET /api/v1/deck HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        try:
            while time.monotonic() - opened < bound:
                try:
                    if await asyncio.wait_for(reader.read(1), 1.0) == b"":
                        return time.monotonic() - opened
                except TimeoutError:
                    writer.write(b"x")
                    await writer.drain()
        except ConnectionError:
            return time.monotonic() - opened
        finally:
            writer.close()
        return None

    def player() -> float:
        began = time.monotonic()
        r = httpx.get(f"{server.base}/api/v1/me/hand", timeout=10,
                      headers={"Authorization": f"Bearer {served.tokens['ann']}"})
        assert r.status_code == 200
        return time.monotonic() - began

    async def flood() -> None:
        tasks = [asyncio.create_task(slow()) for _ in range(2000)]
        await asyncio.sleep(1)
        served_in = await asyncio.to_thread(player)
        closed = await asyncio.gather(*tasks)
        held = [c for c in closed if c is None]
        times = sorted(c for c in closed if c is not None)
        print(f"\n2,000 slow headers: {len(times)} closed, after {times[0]:.1f} to "
              f"{times[-1]:.1f} s (median {times[len(times) // 2]:.1f} s); a player's hand "
              f"meanwhile in {served_in * 1000:.0f} ms" if times else "\nnone closed")
        assert not held, f"{len(held)} of 2,000 still open after {bound} s"

    asyncio.run(flood())


def _raw(port: int, data: bytes, *, timeout: float = 5) -> tuple[bytes, float, bool]:
    """What the server answers to ``data`` sent on a new connection, how long the answer
    took, and whether the server then closed the connection."""
    with socket.create_connection((HOST, port), timeout=timeout) as s:
        began = time.monotonic()
        s.sendall(data)
        answer = b""
        closed = False
        try:
            while b"\r\n\r\n" not in answer:
                chunk = s.recv(65536)
                if not chunk:
                    closed = True
                    break
                answer += chunk
            took = time.monotonic() - began
            while not closed:
                chunk = s.recv(65536)
                answer += chunk
                closed = not chunk
        except TimeoutError:
            took = time.monotonic() - began
        except ConnectionResetError:
            took, closed = time.monotonic() - began, True
    return answer, took, closed


@pytest.mark.slow
def test_oversized_and_trickling_requests_are_answered_at_once(
        one_worker: tuple[Served, Live]) -> None:
    """An action declaring a body of a terabyte and sending none is refused 413 at once, and
    the connection closed; so is a GET declaring one (400); a body that trickles is refused
    408 after BODY_TIMEOUT; a header past MAX_HEADER is refused 431."""
    served, server = one_worker
    port = port_of(server)
    token = served.tokens["ann"]
    huge = (f"POST /api/v1/me/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n").encode()
    answer, took, closed = _raw(port, huge)
    print(f"\nContent-Length: 1000000000000 and no body: {answer[:12].decode()} in "
          f"{took * 1000:.1f} ms")
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {
        "error": f"the body is too large (at most {MAX_BODY} bytes)"}
    assert closed  # answered before the socket's 5 s ran out: not waiting for the body
    just = (f"POST /api/v1/me/actions HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_BODY + 1}"
            "\r\nContent-Type: application/json\r\n\r\n").encode()
    assert _raw(port, just)[0].startswith(b"HTTP/1.1 413 ")

    get = b"GET /api/v1/deck HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n"
    answer, _took, closed = _raw(port, get)
    assert answer.startswith(b"HTTP/1.1 400 ") and closed, answer[:200]

    trickle = (f"POST /api/v1/me/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}"
               "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{").encode()
    with socket.create_connection((HOST, port), timeout=1) as s:
        began = time.monotonic()
        s.sendall(trickle)
        answer = b""
        while time.monotonic() - began < BODY_TIMEOUT + 5:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                s.sendall(b" ")
                continue
            if not chunk:
                break
            answer += chunk
        took = time.monotonic() - began
    print(f"a body trickling a byte a second: {answer[:12].decode()} after {took:.1f} s")
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {
        "error": f"the body did not arrive within {BODY_TIMEOUT:g} seconds"}
    assert took > BODY_TIMEOUT - 1  # the whole of its time, then refused

    big = b"GET /api/v1/deck HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * protocol.MAX_HEADER
    answer, _took, closed = _raw(port, big + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ") and closed, answer[:200]
    with httpx.Client(base_url=server.base, timeout=10) as http:  # and all is well after
        assert http.get("/api/v1/me/hand", headers={
            "Authorization": f"Bearer {token}"}).status_code == 200


#: the files the worker of the connection-limit test may open: its limit is this less the
#: reserve, so that its connections are all opened well within a header's time
FEW_FILES = 400


@pytest.fixture
def few_files(tmp_path: Path) -> Iterator[tuple[Served, Live]]:
    """``serve --workers 1`` allowed :data:`FEW_FILES` files."""
    served = make_game(f"sqlite:///{tmp_path / 'game.db'}")
    server = start_server(served.game.url, tmp_path, files=FEW_FILES)
    try:
        yield served, server
    finally:
        log = stop_server(server)
        served.game.close()
        assert "Traceback" not in log, log[-3000:]


@pytest.mark.slow
def test_a_worker_holds_a_bounded_number_of_connections(
        few_files: tuple[Served, Live]) -> None:
    """Past the worker's connection limit (the files it may open, less a reserve) a new
    connection is closed at once; the idle ones are closed by the header's time, and the
    server answers again."""
    _served, server = few_files
    limit = min(protocol.CONNECTIONS, FEW_FILES - protocol.RESERVE)
    extra = 200
    want_files(limit + extra + 500)
    port = port_of(server)

    async def held() -> None:
        gate = asyncio.Semaphore(500)

        async def one() -> tuple[float, float | None]:
            async with gate:
                reader, writer = await asyncio.open_connection(HOST, port)
            opened = time.monotonic()
            try:
                got = await asyncio.wait_for(reader.read(1), protocol.HEADER_TIMEOUT + 5)
                return opened, (time.monotonic() - opened) if got == b"" else None
            except ConnectionError:
                return opened, time.monotonic() - opened
            except TimeoutError:
                return opened, None
            finally:
                writer.close()

        began = time.monotonic()
        results = await asyncio.gather(*(one() for _ in range(limit + extra)))
        closed = [c for _o, c in results if c is not None]
        at_once = [c for c in closed if c < protocol.HEADER_TIMEOUT / 2]
        print(f"\n{limit + extra} connections opened in "
              f"{max(o for o, _c in results) - began:.1f} s: {len(at_once)} closed at once, "
              f"{len(closed) - len(at_once)} after {protocol.HEADER_TIMEOUT:g} s idle, "
              f"{len(results) - len(closed)} still open")
        assert len(closed) == len(results)
        # those past the limit (fewer when the first ones' header time ran out before the
        # last were opened)
        assert extra // 2 <= len(at_once) <= extra * 3 // 2, len(at_once)

    asyncio.run(held())
    assert httpx.get(f"{server.base}/healthz", timeout=10).status_code == 200


# --- the shares themselves, without a server -----------------------------------------------


def test_shares_are_counted_per_address_and_in_all_and_given_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "PER_ADDRESS", 2)
    monkeypatch.setattr(live, "PUBLIC", 3)
    monkeypatch.setattr(live, "PER_WORKER", 5)
    b = live.Broadcast(None)  # type: ignore[arg-type]  # shares touch no database
    ann = Viewer("ann", 1, None)

    def open_(viewer: Viewer | None, address: str) -> int | live.Stream:
        refused = b.refusal(viewer, address)
        if refused is not None:
            return refused.status_code
        stream = live.Stream(viewer, "s.v" if viewer else None, address)
        b.join(stream)
        return stream

    one = [open_(None, "192.0.2.1") for _ in range(3)]
    assert one[2] == 429  # two from one address
    assert open_(None, "192.0.2.2") != 503
    assert open_(None, "192.0.2.3") == 503  # three public in all
    own = open_(ann, "192.0.2.1")
    assert isinstance(own, live.Stream)  # kept for players
    assert isinstance(open_(ann, "192.0.2.3"), live.Stream)
    assert open_(ann, "192.0.2.3") == 503  # five in all
    first = one[0]
    assert isinstance(first, live.Stream)
    b.leave(first)
    b.leave(first)  # once only
    assert b.public == 2
    assert isinstance(open_(None, "192.0.2.1"), live.Stream)
    for s in list(b.streams):
        b.leave(s)
    assert b.shares == {} and b.public == 0 and not b.streams
