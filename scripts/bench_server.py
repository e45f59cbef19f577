"""Benchmark: durable actions through ``nomic-cards serve``, measured against boardgame.io with
its PostgreSQL storage adapter in the same run; kill -9 under load; a deal reaching 1,000 open
event streams. Run by hand (loopback only, bounded in requests and time; about 5 minutes):

    .venv/bin/python scripts/bench_server.py [--runs 3] [--duration 8] [--clients 16]
        [--skip-pg] [--skip-peer] [--skip-kill] [--skip-streams] [--skip-bare]

(To measure a commit while the working tree is mid-edit, export it and name it first:
``git archive HEAD nomic_cards tests migrations | tar -x -C /tmp/snap``, move
``/tmp/snap/migrations`` to ``/tmp/snap/nomic_cards/migrations``, copy the built ``*.so`` files,
and run with ``PYTHONPATH=/tmp/snap``: every process the bench starts inherits it.)

Needs the PostgreSQL server of the tests (127.0.0.1:5432, or ``NOMIC_CARDS_TEST_PG``) for the
PostgreSQL figures and the peer, and Node.js 20 with npm for the peer: the first run installs it
with npm into ``scripts/peers/boardgameio/`` (its ``node_modules`` is git-ignored; nothing of it
is a dependency of nomic-cards). Prints one table.

1. **Durable actions**: on each backend (a fresh SQLite file; a fresh PostgreSQL schema) a game
   of 30 players and a ``nomic-cards serve --workers 2`` on 127.0.0.1. Each run opens 32
   ``/api/v1/me/events`` streams (30 players' tokens, read to the end), then CLIENTS clients
   post ``cards.vote`` actions with the Dealer's officer token for DURATION seconds, each its
   next as soon as the last is answered: a new proposal each, each with its own
   ``Idempotency-Key``. Figures: 201 answers a second (over the window from the first request to
   the last answer), p50/p99 latency. Checks: every 201 is in the ``votes`` table exactly once,
   at the event its answer names, and nothing else is; every stream received every event of the
   run, once. The server's per-player action rate is lifted (``NOMIC_CARDS_ACTION_RATE``): one
   officer token posts everything. The same runs without the streams (unless ``--skip-bare``)
   show what the 32 streams cost. The CPU time the workers and the load client spent per
   action is given too: on a shared machine it moves less than the rates do.
2. **The peer**, in the same rounds (the systems take turns, RUNS rounds, medians): boardgame.io
   0.50 with ``bgio-postgres`` (the PostgreSQL adapter boardgame.io's documentation lists) on a
   fresh database, ``scripts/peers/boardgameio/server.js`` on 127.0.0.1, in the shape a nomic
   plays and ours is measured in: one game, a fresh match of 30 players every run, all active,
   32 connections each receiving every new state (as our 32 streams receive every event),
   CLIENTS of them moving. Its load client (``load.js``) makes one ``vote`` move after another
   on each of the CLIENTS connections over boardgame.io's socket.io transport, each as soon as
   the server sends the match's state with that player's move in it. Moves stored a second are
   counted in the database afterwards (the ``MAKE_MOVE`` entries of the match's log), not from
   the client; p50/p99 are the client's. boardgame.io sends the new state *before* it stores it
   (its Master's ``onUpdate``), so its latency is to an answer that is not yet durable; ours is
   to a commit.
   ``package.json`` pins ``koa-compose`` to 4.1.0: with 4.2.0, which npm picks today, Koa copies
   the middleware list when boardgame.io's socket.io transport makes the HTTP server, before
   the Lobby API's routes are added, and every Lobby request is a 404.
3. **kill -9 under load**: during a run like (1), SIGKILL one worker (uvicorn's supervisor starts
   another) and, in a second trial, the whole server's process group (then ``serve`` is started
   again on the same port). Clients retry a request that got no answer with the same key and
   body until answered. Every action answered 201 before the kill must be in the ledger; every
   action is recorded once; a retry with the same key gets exactly the first answer
   (``Idempotent-Replayed: true``) and records nothing (every key answered across the kill and
   up to 300 answered before it are sent again afterwards); the streams, resuming with
   ``Last-Event-ID``, miss nothing. The peer's probe: SIGKILL its server during a run of its one
   game, then moves answered vs stored.
4. **A deal reaches 1,000 open streams**: a game of 200 players, 1,000 ``/api/v1/me/events``
   streams (5 per player) on ``serve --workers 2``; ten ``nomic-cards deal`` on the command line;
   from each deal's event time (the frame's ``at``) to its arrival on each of the 1,000 streams:
   p50/p99, arrival taken as the kernel's receive timestamp of the frame at the stream's socket
   (``SO_TIMESTAMPNS``; so not when this one process, reading 1,000 sockets, got to it, which is
   given too), with each deal's first arrival and its spread to the last; the dealt player's
   notice on their own streams only; the workers' resident memory before and after the streams
   opened, per stream.

Load clients are processes of their own (ours: this script with ``_load``, stdlib asyncio over
raw sockets; the peer's: Node), on the same two cores as the servers; each reports its CPU time.
The peer runs as one Node process, as boardgame.io does (its queue of a match's moves lives in
that process); ours as two uvicorn workers. PostgreSQL's own CPU is counted for neither.
``scripts/bench_limit.py`` measures what the machine allows at most for the same durable work
(bare commits of one row, as many writers as clients).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT / "scripts" / "peers" / "boardgameio"

PLAYERS = 30
STREAMS = 32
BIG_PLAYERS = 200
PER_PLAYER = 5
DEALS = 10
#: seconds of unmeasured load on each system before the measured rounds
WARM_UP = 2.0
#: seconds a client keeps retrying a request that got no answer (kill trials)
GIVE_UP = 30.0
#: replays of keys answered before a kill, at most
REPLAYS = 300

NET_ERRORS = (OSError, ConnectionError, asyncio.IncompleteReadError, ValueError)


# --- HTTP/1.1 and Server-Sent Events over asyncio streams (the load client's) ---------------

async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    line = await reader.readline()
    if not line:
        raise ConnectionResetError("the server closed the connection")
    status = int(line.split(None, 2)[1])
    headers: dict[str, str] = {}
    while True:
        h = await reader.readline()
        if not h:
            raise ConnectionResetError("the server closed the connection")
        if h in (b"\r\n", b"\n"):
            return status, headers
        name, _, value = h.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()


class Http:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1 (just what the bench sends)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, raw: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        self.writer.write(raw)
        await self.writer.drain()
        status, headers = await read_head(self.reader)
        length = int(headers.get("content-length", "0"))
        body = await self.reader.readexactly(length) if length else b""
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def action_request(token: str, key: str, body: bytes) -> bytes:
    return (f"POST /api/v1/me/actions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Idempotency-Key: {key}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


async def ledger_head(port: int, within: float = 30.0) -> int:
    """The ledger head's event number, asked until the server answers."""
    end = time.monotonic() + within
    while True:
        http = Http(port)
        try:
            status, _, body = await asyncio.wait_for(http.request(
                b"GET /api/v1/ledger/head HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 10)
            if status == 200:
                return int(json.loads(body)["event"])
        except NET_ERRORS:
            pass
        finally:
            http.close()
        if time.monotonic() > end:
            raise SystemExit(f"the server on port {port} does not answer")
        await asyncio.sleep(0.1)


def sse_frame(frame: bytes) -> tuple[int | None, bytes]:
    """A Server-Sent Event's ``id`` (None: a comment or the retry field) and its ``data``."""
    seq, data = None, b""
    for line in frame.split(b"\n"):
        if line.startswith(b"id: "):
            seq = int(line[4:])
        elif line.startswith(b"data: "):
            data = line[6:]
    return seq, data


def unchunk(raw: bytes) -> tuple[bytes, bytes, bool]:
    """The data of the complete chunks at the start of ``raw`` (a chunked response body), what
    is left of ``raw`` after them, and whether the last chunk (size 0) was among them."""
    data: list[bytes] = []
    pos = 0
    while True:
        eol = raw.find(b"\r\n", pos)
        if eol < 0:
            break
        size = int(raw[pos:eol].split(b";")[0], 16)
        if size == 0:
            return b"".join(data), b"", True
        end = eol + 2 + size
        if len(raw) < end + 2:
            break
        data.append(raw[eol + 2:end])
        pos = end + 2
    return b"".join(data), raw[pos:], False


class Watch:
    """One ``/api/v1/me/events`` stream, read to the end and resumed with ``Last-Event-ID``
    after a drop: the event ids it received and, with ``keep``, each frame's arrival time and
    data."""

    def __init__(self, port: int, token: str, after: int, keep: bool = False) -> None:
        self.port, self.token, self.after, self.keep = port, token, after, keep
        self.ids: list[int] = []
        self.frames: list[tuple[float, bytes]] = []
        self.opened = asyncio.Event()
        self.drops = 0
        self.refusals = 0

    async def run(self) -> None:
        while True:
            writer, opened = None, False
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write((f"GET /api/v1/me/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              f"Authorization: Bearer {self.token}\r\n"
                              f"Last-Event-ID: {self.after}\r\n\r\n").encode())
                await writer.drain()
                status, _ = await read_head(reader)
                if status != 200:
                    self.refusals += 1
                    raise ConnectionRefusedError(f"stream refused: {status}")
                self.opened.set()
                opened = True
                raw, text, ended = b"", b"", False
                while not ended:
                    got = await reader.read(65536)
                    if not got:
                        break
                    arrived = time.time()
                    data, raw, ended = unchunk(raw + got)
                    *frames, text = (text + data).split(b"\n\n")
                    for frame in frames:
                        self._frame(frame, arrived)
            except NET_ERRORS:
                pass
            finally:
                if writer is not None:
                    writer.close()
            self.drops += opened
            await asyncio.sleep(0.2)

    def _frame(self, frame: bytes, arrived: float) -> None:
        seq, data = sse_frame(frame)
        if seq is None:  # a comment (the first frame, a ping) or the retry field
            return
        self.ids.append(seq)
        self.after = seq
        if self.keep:
            self.frames.append((arrived, data))

    def summary(self, start: int, head: int) -> dict[str, int]:
        seen = set(self.ids)
        return {"received": len(self.ids), "missing": len(set(range(start + 1, head + 1)) - seen),
                "twice": len(self.ids) - len(seen), "drops": self.drops,
                "refusals": self.refusals}


async def settle(watches: list[Watch], head: int, within: float) -> None:
    """Wait (at most ``within`` s) until every stream has received event ``head``."""
    end = time.monotonic() + within
    while time.monotonic() < end and any(not w.ids or w.ids[-1] < head for w in watches):
        await asyncio.sleep(0.05)


async def act(http: Http, token: str, key: str, body: bytes, retry: bool,
              give_up: float) -> dict[str, Any]:
    """Post one action; with ``retry``, again with the same key and body while it gets no
    answer (or a 503), until ``give_up`` (a monotonic time)."""
    rec: dict[str, Any] = {"key": key, "tries": 0, "errors": 0}
    while True:
        sent, t0 = time.time(), time.perf_counter()
        rec["tries"] += 1
        try:
            status, headers, data = await asyncio.wait_for(
                http.request(action_request(token, key, body)), 30)
        except NET_ERRORS:
            http.close()
            rec["errors"] += 1
            if retry and time.monotonic() < give_up:
                await asyncio.sleep(0.05)
                continue
            return rec
        if status == 503 and retry and time.monotonic() < give_up:
            rec["errors"] += 1
            await asyncio.sleep(0.2)
            continue
        rec.update(status=status, answer=data.decode(), sent=sent, done=time.time(),
                   ms=(time.perf_counter() - t0) * 1000,
                   replayed=headers.get("idempotent-replayed") == "true")
        return rec


def vote_body(player: str, key: str) -> bytes:
    return json.dumps({"action": "cards.vote", "player": player, "proposal": key}).encode()


async def load(cfg: dict[str, Any]) -> dict[str, Any]:
    """The load client's run (see ``load_main``)."""
    port = cfg["port"]
    watches = [Watch(port, t, cfg["after"]) for t in cfg["streams"]]
    tasks = [asyncio.create_task(w.run()) for w in watches]
    await asyncio.wait_for(asyncio.gather(*(w.opened.wait() for w in watches)), 60)
    records: list[dict[str, Any]] = []
    cpu0 = time.process_time()
    wall0 = time.time()
    deadline = time.monotonic() + cfg["duration"]
    give_up = deadline + cfg["give_up"]
    print(f"go {wall0}", flush=True)

    async def client(c: int) -> None:
        http, n = Http(port), 0
        while time.monotonic() < deadline:
            n += 1
            key = f"{cfg['prefix']}-{c}-{n}"
            player = f"player{(c + n) % cfg['players']:03d}"
            rec = await act(http, cfg["token"], key, vote_body(player, key), cfg["retry"],
                            give_up)
            rec["player"] = player
            records.append(rec)
        http.close()

    await asyncio.gather(*(client(c) for c in range(cfg["clients"])))
    window = max((r["done"] for r in records if "done" in r), default=wall0) - wall0
    head = await ledger_head(port)
    await settle(watches, head, 15.0)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"records": records, "wall0": wall0, "window": window, "head": head,
            "cpu_s": time.process_time() - cpu0,
            "streams": [w.summary(cfg["after"], head) for w in watches]}


def load_main(config: str) -> None:
    """``bench_server.py _load CONFIG``: the load client, a process of its own (stdlib only).
    Opens the streams, prints ``go WALLTIME`` when the actions start, and writes its records
    to ``CONFIG["out"]``."""
    cfg = json.loads(config)
    out = asyncio.run(load(cfg))
    Path(cfg["out"]).write_text(json.dumps(out))


# --- the servers ------------------------------------------------------------------------------

def cpu_seconds(pids: list[int]) -> float:
    """The CPU time (user and system) the processes ``pids`` have used."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Serve:
    """A ``nomic-cards serve --workers 2`` on 127.0.0.1, in a process group of its own."""

    def __init__(self, url: str, tmp: Path, name: str) -> None:
        self.url, self.tmp, self.name = url, tmp, name
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        from scripts.benchkit import wait_healthy

        self.starts += 1
        log = self.tmp / f"serve-{self.name}-{self.starts}.log"
        exe = Path(sys.executable).with_name("nomic-cards")
        self.proc = subprocess.Popen(
            [str(exe), "--db", self.url, "serve", "--port", str(self.port), "--workers", "2",
             "--no-access-log"], stdout=log.open("wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
            # one officer token posts every action: no per-player rate here; serve's own
            # temporary folder in ours, removed with it even after a kill -9
            env={**os.environ, "NOMIC_CARDS_ACTION_RATE": "1000000,1000000",
                 "TMPDIR": str(self.tmp)})
        wait_healthy(self.proc, f"http://127.0.0.1:{self.port}", log)

    def workers(self) -> list[int]:
        from tests.server.conftest import worker_pids

        assert self.proc is not None
        for _ in range(100):
            pids = worker_pids(self.proc.pid)
            if len(pids) == 2:
                return pids
            time.sleep(0.1)
        raise SystemExit(f"serve {self.name}: not two workers")

    def kill_worker(self) -> None:
        os.kill(self.workers()[0], signal.SIGKILL)

    def kill_all(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)


class Peer:
    """boardgame.io with bgio-postgres (``scripts/peers/boardgameio/server.js``) on 127.0.0.1."""

    def __init__(self, db: str, tmp: Path) -> None:
        self.db, self.tmp = db, tmp
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @staticmethod
    def install() -> str:
        """npm install into the peer's folder (once); the installed versions."""
        if shutil.which("node") is None or shutil.which("npm") is None:
            raise SystemExit("the peer needs Node.js and npm (or pass --skip-peer)")
        if not (PEER / "node_modules" / "bgio-postgres").is_dir():
            command = "ci" if (PEER / "package-lock.json").is_file() else "install"
            subprocess.run(["npm", command, "--no-audit", "--no-fund", "--loglevel=error"],
                           cwd=PEER, check=True, timeout=600)

        def version(package: str) -> str:
            text = (PEER / "node_modules" / package / "package.json").read_text()
            return str(json.loads(text)["version"])

        node = subprocess.run(["node", "--version"], capture_output=True, text=True,
                              check=True).stdout.strip()
        return (f"boardgame.io {version('boardgame.io')}, bgio-postgres "
                f"{version('bgio-postgres')}, socket.io {version('socket.io')}, Node {node}")

    def env(self) -> dict[str, str]:
        return {**os.environ, "NODE_ENV": "production", "PEER_PORT": str(self.port),
                "PEER_DB": self.db}

    def start(self) -> None:
        from scripts.benchkit import wait_healthy

        self.starts += 1
        log = self.tmp / f"peer-{self.starts}.log"
        self.proc = subprocess.Popen(["node", "server.js"], cwd=PEER, env=self.env(),
                                     stdout=log.open("wb"), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        wait_healthy(self.proc, f"http://127.0.0.1:{self.port}", log, path="/games",
                     what="the peer")

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def load(self, prefix: str, clients: int, duration: float,
             during: Callable[[float], None] | None = None) -> dict[str, Any]:
        """A run of ``load.js``: one match of 30 players, :data:`STREAMS` connections to it,
        ``clients`` of them moving."""
        cfg = {"base": f"http://127.0.0.1:{self.port}", "clients": clients,
               "duration": duration, "prefix": prefix, "listeners": STREAMS}
        assert self.proc is not None
        server = [self.proc.pid]
        cpu0 = cpu_seconds(server)
        proc = subprocess.Popen(["node", "load.js", json.dumps(cfg)], cwd=PEER,
                                env=self.env(), stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        go = proc.stdout.readline()
        if not go.startswith("go ") and proc.wait(timeout=60) != 0:
            raise SystemExit("the peer's load client failed")
        if during is not None:
            during(float(go.split()[1]))
        out, _ = proc.communicate(timeout=duration + 120)
        if proc.returncode != 0:
            raise SystemExit("the peer's load client failed")
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        result["server_cpu_s"] = cpu_seconds(server) - cpu0 if during is None else None
        return result

    def stored(self, matches: list[str], within: float = 15.0) -> dict[str, int]:
        """Moves stored per match (the MAKE_MOVE entries of its log), read until two reads
        0.3 s apart agree (the server stores a move after answering it)."""
        import psycopg

        sql = ("select id, (select count(*) from json_array_elements(log) e "
               "where e->'action'->>'type' = 'MAKE_MOVE') from \"Games\" where id = any(%s)")
        last: dict[str, int] | None = None
        end = time.monotonic() + within
        with psycopg.connect(self.db, autocommit=True) as conn:
            while True:
                now = {str(i): int(n) for i, n in conn.execute(sql, (matches,)).fetchall()}
                if now == last or time.monotonic() > end:
                    return now
                last = now
                time.sleep(0.3)


# --- the games --------------------------------------------------------------------------------

def make_game(url: str, players: int) -> tuple[str, list[str], int]:
    """A new game of ``players`` players with a token each: the Dealer's officer token, the
    players' tokens, the ledger head."""
    from nomic_cards.core import api

    with api.Nomic(url, create=True, actor="bench") as game:
        api.init_game(game)
        with game.write() as tx:
            names = [f"player{i:03d}" for i in range(players)]
            for name in names:
                api.add_player(tx, name)
            tokens = [api.issue_token(tx, name).token for name in names]
            dealer = api.show_dealer(tx).dealer
            assert dealer is not None
            officer = api.issue_token(tx, dealer, scope="dealer").token
        with game.read() as r:
            head = api.ledger_head(r).event
    return officer, tokens, head


def votes_in_ledger(url: str, prefix: str) -> dict[str, list[int]]:
    """proposal -> the events that recorded a vote on it, for the proposals of one run."""
    like = f"{prefix}-%"
    if url.startswith("sqlite"):
        import sqlite3

        conn = sqlite3.connect(url.split(":///", 1)[1])
        try:
            rows = conn.execute("select proposal, seq from votes where proposal like ?",
                                (like,)).fetchall()
        finally:
            conn.close()
    else:
        import psycopg

        with psycopg.connect("postgresql://" + url.split("://", 1)[1]) as pg:
            rows = pg.execute("select proposal, seq from votes where proposal like %s",
                              (like,)).fetchall()
    out: dict[str, list[int]] = {}
    for proposal, seq in rows:
        out.setdefault(proposal, []).append(int(seq))
    return out


class Ours:
    """One backend's game and server for the action runs."""

    def __init__(self, name: str, url: str, tmp: Path) -> None:
        self.name, self.url = name, url
        self.officer, self.tokens, self.head = make_game(url, PLAYERS)
        self.serve = Serve(url, tmp, name.lower())
        self.tmp = tmp
        self.runs = 0

    def load(self, clients: int, duration: float, *, streams: int = STREAMS,
             retry: bool = False, during: Callable[[float], None] | None = None
             ) -> tuple[str, dict[str, Any]]:
        """A run of the load client; its prefix and its output."""
        self.runs += 1
        prefix = f"{self.name[0].lower()}{self.runs}"
        out = self.tmp / f"{prefix}.json"
        cfg = {"port": self.serve.port, "token": self.officer, "clients": clients,
               "duration": duration, "prefix": prefix, "players": PLAYERS, "retry": retry,
               "give_up": GIVE_UP if retry else 0.0, "out": str(out),
               "streams": [self.tokens[i % PLAYERS] for i in range(streams)],
               "after": asyncio.run(ledger_head(self.serve.port))}
        workers = self.serve.workers()
        cpu0 = cpu_seconds(workers)
        proc = subprocess.Popen([sys.executable, __file__, "_load", json.dumps(cfg)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        go = proc.stdout.readline()
        if not go.startswith("go "):
            proc.wait(timeout=60)
            raise SystemExit(f"{self.name}: the load client failed")
        if during is not None:
            during(float(go.split()[1]))
        proc.communicate(timeout=duration + GIVE_UP + 120)
        if proc.returncode != 0:
            raise SystemExit(f"{self.name}: the load client failed")
        result = json.loads(out.read_text())
        result["server_cpu_s"] = cpu_seconds(workers) - cpu0 if during is None else None
        return prefix, result


# --- checks and figures -----------------------------------------------------------------------

def answered_event(rec: dict[str, Any]) -> int | None:
    events = json.loads(rec["answer"]).get("events") or [{}]
    seq = events[0].get("event")
    return int(seq) if seq is not None else None


def check_actions(url: str, prefix: str, result: dict[str, Any]) -> dict[str, Any]:
    """A run's figures and its checks against the ledger and the streams."""
    from scripts.benchkit import percentile

    votes = votes_in_ledger(url, prefix)
    records = result["records"]
    ok = [r for r in records if r.get("status") == 201]
    once = sum(1 for r in ok if votes.get(r["key"]) == [answered_event(r)])
    unanswered = {r["key"] for r in records if r.get("status") != 201}
    extra = sum(1 for k in votes if k not in {r["key"] for r in ok})
    latencies = [r["ms"] for r in ok]
    streams = result["streams"]
    return {"rate": len(ok) / result["window"] if result["window"] else 0.0,
            "p50": percentile(latencies, 50), "p99": percentile(latencies, 99),
            "ok": len(ok), "once": once, "failed": len(unanswered), "extra": extra,
            "twice": sum(1 for v in votes.values() if len(v) > 1),
            "streams_complete": sum(1 for s in streams if not s["missing"] and not s["twice"]),
            "streams": len(streams), "stream_frames": sum(s["received"] for s in streams),
            "cpu_per_1k": result["cpu_s"] / max(1, len(records)) * 1000,
            "server_ms": (result["server_cpu_s"] or 0.0) / max(1, len(ok)) * 1000}


def check_peer(peer: Peer, result: dict[str, Any]) -> dict[str, Any]:
    from scripts.benchkit import percentile

    matches = [m["matchID"] for m in result["matches"]]
    stored = peer.stored(matches)
    acked = {m["matchID"]: m["acked"] for m in result["matches"]}
    total = sum(stored.values())
    latencies = result["latencies_ms"]
    updates = result.get("updates", [])
    return {"rate": total / result["window_s"] if result["window_s"] else 0.0,
            "listeners": len(updates), "listeners_complete": sum(1 for u in updates if u >= total),
            "p50": percentile(latencies, 50), "p99": percentile(latencies, 99),
            "stored": total, "acked": sum(acked.values()),
            "lost": sum(max(0, n - stored.get(m, 0)) for m, n in acked.items()),
            "timeouts": sum(m["timeouts"] for m in result["matches"]),
            "cpu_per_1k": result["cpu_s"] / max(1, sum(acked.values())) * 1000,
            "server_ms": (result["server_cpu_s"] or 0.0) / max(1, total) * 1000}


async def replay(port: int, token: str, records: list[dict[str, Any]]
                 ) -> tuple[int, int, list[str]]:
    """Send each record's action again (same key, same body): (answered exactly as first,
    marked replayed, what differed)."""
    same, marked = 0, 0
    odd: list[str] = []
    queue = list(records)

    async def worker() -> None:
        nonlocal same, marked
        http = Http(port)
        while queue:
            r = queue.pop()
            rec = await act(http, token, r["key"], vote_body(r["player"], r["key"]), True,
                            time.monotonic() + GIVE_UP)
            if rec.get("status") == r["status"] and \
                    json.loads(rec["answer"]) == json.loads(r["answer"]):
                same += 1
            elif len(odd) < 5:
                odd.append(f"{r['key']}: {rec.get('status')} {rec.get('answer', '')[:120]}")
            marked += rec.get("replayed", False)
        http.close()

    await asyncio.gather(*(worker() for _ in range(8)))
    return same, marked, odd


def kill_trial(ours: Ours, whole: bool, clients: int, duration: float) -> dict[str, Any]:
    """A run with a SIGKILL halfway (one worker, or the whole server), then the checks."""
    kill: dict[str, float] = {}

    def during(go: float) -> None:
        time.sleep(max(0.0, go + duration / 2 - time.time()))
        kill["at"] = time.time()
        if whole:
            ours.serve.kill_all()
            time.sleep(0.5)
            ours.serve.start()
            kill["back"] = time.time()
        else:
            ours.serve.kill_worker()

    prefix, result = ours.load(clients, duration, retry=True, during=during)
    records = result["records"]
    votes = votes_in_ledger(ours.url, prefix)
    answered = [r for r in records if r.get("status") == 201]
    before = [r for r in answered if r["done"] < kill["at"]]
    lost = [r for r in before if not votes.get(r["key"])]
    retried = [r for r in answered if r["errors"]]
    from_key = sum(1 for r in retried if r["replayed"])
    # the most exposed keys: every one retried across the kill, the last answered before it,
    # and others before it, evenly
    tail = sorted(before, key=lambda r: r["done"])
    step = max(1, len(tail) // REPLAYS)
    chosen = {r["key"]: r for r in tail[-50:] + tail[::step][:REPLAYS - 50] + retried}
    same, marked, odd = asyncio.run(replay(ours.serve.port, ours.officer, list(chosen.values())))
    after = votes_in_ledger(ours.url, prefix)
    streams = result["streams"]
    return {
        "what": "the whole server (process group)" if whole else "one worker",
        "before": len(before), "lost": len(lost), "answered": len(answered),
        "records": len(records), "unanswered": len(records) - len(answered),
        "retried": len(retried), "from_key": from_key,
        "in_ledger": sum(1 for r in answered if votes.get(r["key"]) == [answered_event(r)]),
        "twice": sum(1 for v in after.values() if len(v) > 1),
        "not_answered_but_recorded": sum(1 for k in votes
                                         if k not in {r["key"] for r in answered}),
        "replays": len(chosen), "replay_same": same, "replay_marked": marked, "odd": odd,
        "recorded_by_replays": sum(len(v) for v in after.values())
        - sum(len(v) for v in votes.values()),
        "streams_complete": sum(1 for s in streams if not s["missing"] and not s["twice"]),
        "streams": len(streams), "stream_drops": sum(s["drops"] for s in streams),
        "down_s": kill.get("back", kill["at"]) - kill["at"],
    }


def peer_kill(peer: Peer, clients: int, duration: float) -> dict[str, Any]:
    def during(go: float) -> None:
        time.sleep(max(0.0, go + duration / 2 - time.time()))
        peer.kill()

    result = peer.load("kill", clients, duration, during=during)
    matches = [m["matchID"] for m in result["matches"]]
    stored = peer.stored(matches)
    acked = {m["matchID"]: m["acked"] for m in result["matches"]}
    return {"acked": sum(acked.values()), "stored": sum(stored.values()),
            "lost": sum(max(0, n - stored.get(m, 0)) for m, n in acked.items()),
            "unanswered": sum(max(0, stored.get(m, 0) - n) for m, n in acked.items())}


#: Linux's SO_TIMESTAMPNS: each received segment comes with the time the kernel received it
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class Arrivals:
    """One ``/api/v1/me/events`` stream of the 1,000, read on a raw socket with the kernel's
    receive timestamps: each frame's arrival at this machine's socket (``SO_TIMESTAMPNS``), not
    when this process, reading 1,000 sockets, got round to it; and that time too."""

    def __init__(self, port: int, token: str, after: int) -> None:
        self.request = (f"GET /api/v1/me/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        f"Authorization: Bearer {token}\r\nLast-Event-ID: {after}\r\n\r\n"
                        ).encode()
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.setblocking(False)
        #: (kernel arrival, read by this process, the frame's data), for each event frame
        self.frames: list[tuple[float, float, bytes]] = []
        self.last = after
        self.opened = asyncio.Event()
        self.failed = ""
        self._raw, self._text, self._head = b"", b"", False

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.sock_connect(self.sock, ("127.0.0.1", self.port))
        await loop.sock_sendall(self.sock, self.request)
        loop.add_reader(self.sock.fileno(), self._readable)

    def close(self, why: str = "") -> None:
        if self.sock.fileno() >= 0:
            asyncio.get_running_loop().remove_reader(self.sock.fileno())
            self.sock.close()
        if why and not self.failed:
            self.failed = why
        self.opened.set()

    def _readable(self) -> None:
        while True:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(65536, 256)
            except BlockingIOError:
                return
            except OSError as exc:
                self.close(f"{type(exc).__name__}")
                return
            if not data:
                self.close("closed by the server")
                return
            read = kernel = time.time()
            for level, kind, blob in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(blob) >= 16:
                    sec, nsec = struct.unpack("qq", blob[:16])
                    kernel = sec + nsec / 1e9
            self._feed(data, kernel, read)

    def _feed(self, data: bytes, kernel: float, read: float) -> None:
        self._raw += data
        if not self._head:
            end = self._raw.find(b"\r\n\r\n")
            if end < 0:
                return
            status = int(self._raw.split(None, 2)[1])
            if status != 200:
                self.close(f"refused {status}")
                return
            self._raw, self._head = self._raw[end + 4:], True
            self.opened.set()
        body, self._raw, ended = unchunk(self._raw)
        *frames, self._text = (self._text + body).split(b"\n\n")
        for frame in frames:
            seq, payload = sse_frame(frame)
            if seq is not None:
                self.frames.append((kernel, read, payload))
                self.last = seq
        if ended:
            self.close("ended by the server")


def streams_bench(name: str, url: str, tmp: Path, count: int = 1000,
                  deals: int = DEALS) -> dict[str, Any]:
    """Section 4 of the module docstring."""
    from nomic_cards.core.ledger.events import parse_time
    from scripts.benchkit import percentile, rss_kib

    _, tokens, head = make_game(url, BIG_PLAYERS)
    serve = Serve(url, tmp, f"{name.lower()}-streams")
    serve.start()
    exe = Path(sys.executable).with_name("nomic-cards")
    owners = [i % BIG_PLAYERS for i in range(count)]
    try:
        pids = serve.workers()
        before = rss_kib(pids)

        async def run() -> tuple[list[Arrivals], int, list[str], float]:
            streams = [Arrivals(serve.port, tokens[o], head) for o in owners]
            t0 = time.perf_counter()
            for i in range(0, count, 100):  # connect a hundred at a time
                await asyncio.gather(*(s.open() for s in streams[i:i + 100]))
            await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), 120)
            opening = time.perf_counter() - t0
            failed = [s.failed for s in streams if s.failed]
            if failed:
                raise SystemExit(f"{len(failed)} streams failed to open: {failed[0]}")
            await asyncio.sleep(1.0)
            opened = rss_kib(pids)
            rng = random.Random(4)
            dealt: list[str] = []
            for _ in range(deals):
                who = f"player{rng.randrange(BIG_PLAYERS):03d}"
                proc = await asyncio.create_subprocess_exec(
                    str(exe), "--db", url, "deal", who, stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE)
                _, err = await proc.communicate()
                if proc.returncode != 0:
                    raise SystemExit(f"nomic-cards deal failed: {err.decode()[-500:]}")
                dealt.append(who)
                await asyncio.sleep(1.5)
            last = await ledger_head(serve.port)
            end = time.monotonic() + 15
            while time.monotonic() < end and any(s.last < last and not s.failed
                                                 for s in streams):
                await asyncio.sleep(0.05)
            for s in streams:
                s.close()
            return streams, opened, dealt, opening

        streams, opened, dealt, opening = asyncio.run(run())
    finally:
        serve.stop()
    kernel_ms: list[float] = []
    read_ms: list[float] = []
    per_deal: dict[int, list[float]] = {}
    leaks = missing_notice = 0
    for owner, stream in zip(owners, streams, strict=True):
        for kernel, read, data in stream.frames:
            event = json.loads(data)
            if event["kind"] != "card.dealt":
                continue
            at = parse_time(event["at"]).timestamp()
            kernel_ms.append((kernel - at) * 1000)
            read_ms.append((read - at) * 1000)
            per_deal.setdefault(event["event"], []).append((kernel - at) * 1000)
            mine = event["payload"].get("player") == f"player{owner:03d}"
            if event["notice"] is not None and not mine:
                leaks += 1
            if event["notice"] is None and mine:
                missing_notice += 1
    firsts = [min(v) for v in per_deal.values()]
    spreads = [max(v) - min(v) for v in per_deal.values()]
    return {"streams": count, "deals": len(dealt),
            "reached_all": sum(1 for v in per_deal.values() if len(v) == count),
            "samples": len(kernel_ms), "p50": percentile(kernel_ms, 50),
            "p99": percentile(kernel_ms, 99), "max": max(kernel_ms, default=float("nan")),
            "read_p50": percentile(read_ms, 50), "read_p99": percentile(read_ms, 99),
            "first": median(firsts), "spread": median(spreads),
            "worst_first": max(firsts, default=float("nan")),
            "leaks": leaks, "missing_notice": missing_notice,
            "per_stream_kib": (opened - before) / count, "before_mib": before / 1024,
            "opened_mib": opened / 1024, "opening_s": opening,
            "failed": sum(1 for s in streams if s.failed and "ended" not in s.failed
                          and s.failed != "closed by the server")}


# --- the run ----------------------------------------------------------------------------------

def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt_ms(p50: float, p99: float) -> str:
    return f"{p50:.0f} / {p99:.0f}"


def verdict(met: bool) -> str:
    return "met" if met else "**not met**"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "_load":
        load_main(sys.argv[2])
        return
    import argparse

    # appended: a PYTHONPATH naming another checkout's code (say, a clean export of a commit
    # while the working tree is mid-edit) comes first, for this process and every one it starts
    sys.path.append(str(ROOT))
    from scripts.benchkit import pg_database, pg_reason, pg_schema

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="measured rounds (medians of these)")
    ap.add_argument("--duration", type=float, default=8.0, help="seconds of load per run")
    ap.add_argument("--clients", type=int, default=16, help="concurrent clients, both systems")
    ap.add_argument("--skip-pg", action="store_true", help="no nomic-cards on PostgreSQL")
    ap.add_argument("--skip-peer", action="store_true", help="no boardgame.io")
    ap.add_argument("--skip-kill", action="store_true", help="no kill -9 trials")
    ap.add_argument("--skip-streams", action="store_true", help="no 1,000 streams")
    ap.add_argument("--skip-bare", action="store_true",
                    help="no runs of nomic-cards without the 32 streams (their cost)")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 1,000 streams' sockets, and more
    if hard < 4096:
        raise SystemExit(f"the open-file limit is {hard}: 1,000 streams need more (ulimit -Hn)")
    reason = pg_reason()
    use_pg = not a.skip_pg and reason is None
    use_peer = not a.skip_peer and reason is None
    if reason is not None:
        print(f"PostgreSQL unreachable ({reason}): SQLite only, no peer", file=sys.stderr)
    peer_versions = Peer.install() if use_peer else ""
    a.load_start = os.getloadavg()[0]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-server-") as d, \
            pg_schema() if use_pg else _none() as pg_url, \
            pg_database("bench_bgio") if use_peer else _none() as peer_db:
        tmp = Path(d)
        systems: list[Ours] = [Ours("SQLite", f"sqlite:///{tmp}/bench.db", tmp)]
        if pg_url is not None:
            systems.append(Ours("PostgreSQL", pg_url, tmp))
        peer = Peer(peer_db, tmp) if peer_db is not None else None
        try:
            for s in systems:
                s.serve.start()
            if peer is not None:
                peer.start()
            # unmeasured: a server's first seconds are slower
            for s in systems:
                s.load(a.clients, WARM_UP, streams=0)
            if peer is not None:
                peer.load("warm", a.clients, WARM_UP)
            ours_runs: dict[str, list[dict[str, Any]]] = {s.name: [] for s in systems}
            bare_runs: dict[str, list[dict[str, Any]]] = {s.name: [] for s in systems}
            peer_runs: list[dict[str, Any]] = []
            for r in range(a.runs):
                for s in systems:
                    prefix, result = s.load(a.clients, a.duration)
                    ours_runs[s.name].append(check_actions(s.url, prefix, result))
                    if not a.skip_bare:
                        prefix, result = s.load(a.clients, a.duration, streams=0)
                        bare_runs[s.name].append(check_actions(s.url, prefix, result))
                if peer is not None:
                    peer_runs.append(check_peer(peer, peer.load(f"r{r}", a.clients, a.duration)))
                print(f"round {r + 1} of {a.runs} done ({time.monotonic() - started:.0f} s)",
                      file=sys.stderr)
            kills: dict[str, list[dict[str, Any]]] = {s.name: [] for s in systems}
            peer_killed = None
            if not a.skip_kill:
                for s in systems:
                    for whole in (False, True):
                        kills[s.name].append(kill_trial(s, whole, a.clients, a.duration))
                if peer is not None:
                    peer_killed = peer_kill(peer, a.clients, a.duration)
                print(f"kill trials done ({time.monotonic() - started:.0f} s)", file=sys.stderr)
        finally:
            for s in systems:
                s.serve.stop()
            if peer is not None:
                peer.stop()
        streams: dict[str, dict[str, Any]] = {}
        if not a.skip_streams:
            streams["SQLite"] = streams_bench("SQLite", f"sqlite:///{tmp}/streams.db", tmp)
            if use_pg:
                with pg_schema() as url:
                    streams["PostgreSQL"] = streams_bench("PostgreSQL", url, tmp)
            print(f"streams done ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    print_table(a, ours_runs, bare_runs, peer_runs, kills, peer_killed, streams, peer_versions,
                time.monotonic() - started)


class _none:
    """A context manager that gives None (a backend or a peer left out)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def print_table(a: Any, ours_runs: dict[str, list[dict[str, Any]]],
                bare_runs: dict[str, list[dict[str, Any]]], peer_runs: list[dict[str, Any]],
                kills: dict[str, list[dict[str, Any]]], peer_killed: dict[str, Any] | None,
                streams: dict[str, dict[str, Any]], peer_versions: str, took: float) -> None:
    load = os.getloadavg()
    peer_rate, peer_cell, peer_ms = 0.0, "-", "-"
    if peer_runs:
        peer_rate = median([p["rate"] for p in peer_runs])
        each = ", ".join(f"{p['rate']:.0f}" for p in peer_runs)
        peer_cell = f"{peer_rate:,.0f} moves stored/s (runs: {each})"
        peer_ms = fmt_ms(median([p["p50"] for p in peer_runs]),
                         median([p["p99"] for p in peer_runs]))
    order = "ours SQLite, ours PostgreSQL" + ("" if a.skip_bare else " (each with and without "
                                              "the streams)") + (", the peer" if peer_runs else "")
    print(f"{a.clients} concurrent clients on each system, {a.duration:g} s a run, medians of "
          f"{a.runs} runs taken in turns ({order}); {os.cpu_count()} cores shared by the "
          f"servers, PostgreSQL, the load clients and whatever else the machine runs (load "
          f"average: {a.load_start:.2f} at the start, {load[1]:.2f} over the last 5 minutes at "
          f"the end); took {took:.0f} s")
    if peer_versions:
        print(f"peer: {peer_versions}; one Node process (boardgame.io serialises a match's "
              f"moves in that process), Sequelize pool of 20")
    print()
    print("| measure | input | nomic-cards | p50 / p99 ms | boardgame.io + PostgreSQL, one "
          "match of 30 players and 32 connections, same run | p50 / p99 ms | ratio | checks |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ours_runs:
        for runs, bare in ((ours_runs[name], False), (bare_runs.get(name, []), True)):
            if not runs:
                continue
            rate = median([r["rate"] for r in runs])
            p50, p99 = median([r["p50"] for r in runs]), median([r["p99"] for r in runs])
            each = ", ".join(f"{r['rate']:.0f}" for r in runs)
            ratio = f"{rate / peer_rate:.2f}x" if peer_runs and peer_rate else "-"
            ok, once = sum(r["ok"] for r in runs), sum(r["once"] for r in runs)
            failed = sum(r["failed"] for r in runs)
            extra = sum(r["extra"] + r["twice"] for r in runs)
            checks = (f"{ok:,} answered 201, {once:,} of them in `votes` once, at the event the "
                      f"answer names; {failed} not 201; {extra} recorded twice or without a 201")
            if not bare:
                complete = sum(r["streams_complete"] for r in runs)
                total = sum(r["streams"] for r in runs)
                frames = sum(r["stream_frames"] for r in runs)
                checks += (f"; streams that received every event once: {complete}/{total} "
                           f"({frames:,} frames)")
            checks += (f"; CPU per action: workers {median([r['server_ms'] for r in runs]):.1f}"
                       f" ms, load client {median([r['cpu_per_1k'] for r in runs]):.1f} ms")
            what = ("the same, no stream open (what the 32 streams cost)" if bare else
                    "`cards.vote` POSTs (officer token; a new proposal and Idempotency-Key "
                    "each) to `serve --workers 2`; 30 players; 32 `/me/events` streams open "
                    "and read")
            print(f"| durable actions, {name} | {what} | {rate:,.0f} actions/s answered 201 "
                  f"(runs: {each}) | {fmt_ms(p50, p99)} (p99 <= 250: {verdict(p99 <= 250)}) | "
                  f"{peer_cell} | {peer_ms} | {ratio} | {checks} |")
    if peer_runs:
        stored = sum(p["stored"] for p in peer_runs)
        acked = sum(p["acked"] for p in peer_runs)
        complete = sum(p["listeners_complete"] for p in peer_runs)
        listeners = sum(p["listeners"] for p in peer_runs)
        print(f"| the peer's own checks | {len(peer_runs)} runs, a fresh match of 30 players "
              f"each, {STREAMS} connections, {a.clients} of them moving | - | - | "
              f"{stored:,} moves stored, {acked:,} answered; "
              f"{sum(p['lost'] for p in peer_runs)} answered but not stored; "
              f"{sum(p['timeouts'] for p in peer_runs)} unanswered after 10 s; connections that "
              f"received every stored move's state: {complete}/{listeners} | - | - | CPU per "
              f"move: server {median([p['server_ms'] for p in peer_runs]):.1f} ms, load client "
              f"{median([p['cpu_per_1k'] for p in peer_runs]):.1f} ms |")
    for name, trials in kills.items():
        for k in trials:
            odd = f"; differed: {'; '.join(k['odd'])}" if k["odd"] else ""
            down = f"; the server was down {k['down_s']:.1f} s" if k["down_s"] else ""
            print(f"| kill -9 {k['what']}, {name} | a run as above, SIGKILL after "
                  f"{a.duration / 2:g} s; a request without an answer is sent again with its "
                  f"key | acknowledged (201) before the kill / lost: **{k['before']:,} / "
                  f"{k['lost']}** | - | - | - | - | {k['answered']:,} of "
                  f"{k['records']:,} "
                  f"actions answered 201 in the end, {k['in_ledger']:,} of them in the ledger "
                  f"once, at the answer's event; {k['retried']} sent again across the kill "
                  f"({k['from_key']} answered from their key: committed before the kill); "
                  f"recorded twice: {k['twice']}; recorded but never answered: "
                  f"{k['not_answered_but_recorded']}; {k['replays']} answered keys sent again "
                  f"afterwards: {k['replay_same']} got exactly the first answer, "
                  f"{k['replay_marked']} marked replayed, {k['recorded_by_replays']} votes "
                  f"recorded by them{odd}; streams that received every event once: "
                  f"{k['streams_complete']}/{k['streams']} (resumed with Last-Event-ID after "
                  f"{k['stream_drops']} drops){down} |")
    if peer_killed is not None:
        k = peer_killed
        print(f"| kill -9, the peer | a run of the peer as above, SIGKILL of its server after "
              f"{a.duration / 2:g} s (a move has no key to send it again with) | - | - | "
              f"answered before the kill / lost: **{k['acked']:,} / {k['lost']}** | - | - | "
              f"{k['stored']:,} stored; "
              f"stored but never answered: {k['unanswered']} |")
    for name, s in streams.items():
        print(f"| a deal reaches 1,000 streams, {name} | {s['streams']:,} `/me/events` streams "
              f"(200 players x 5) on `serve --workers 2`; {s['deals']} `nomic-cards deal` | "
              f"event time (`at`) to the frame's arrival at each stream's socket (kernel "
              f"timestamp) | {fmt_ms(s['p50'], s['p99'])} (max {s['max']:.0f}; p99 <= 250: "
              f"{verdict(s['p99'] <= 250)}) | - | - | - | {s['samples']:,} arrivals, "
              f"{s['reached_all']}/{s['deals']} "
              f"deals on all {s['streams']:,} streams; per deal (medians): first stream "
              f"{s['first']:.0f} ms (the slowest deal's: {s['worst_first']:.0f} ms), first to "
              f"last {s['spread']:.0f} ms; read by the client "
              f"process: p50/p99 {fmt_ms(s['read_p50'], s['read_p99'])} ms; notices on another "
              f"player's stream {s['leaks']}, missing on the player's own "
              f"{s['missing_notice']}; workers' RSS {s['before_mib']:.0f} -> "
              f"{s['opened_mib']:.0f} MiB: **{s['per_stream_kib']:.1f} KiB per stream**; "
              f"opened in {s['opening_s']:.1f} s; {s['failed']} failed |")

if __name__ == "__main__":
    main()
