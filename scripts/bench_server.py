"""Benchmark: the game-state server under load, on PostgreSQL and SQLite.

Run by hand (wrk from Debian: ``apt-get install wrk``):

    .venv/bin/python scripts/bench_server.py [--duration 10] [--connections 64] [--skip-pg]

For each backend: a game with 20 packs, 200 players holding 1,000 cards between them and a token
each; a real ``nomic-cards serve --workers 2`` on 127.0.0.1; while one writer deals a card every
100 ms (and gives a random card back to the Deck, so the Deck never runs out), ``wrk`` asks
``GET /api/v1/me/hand`` with the 200 tokens in turn. Then, with the writer stopped, ``wrk``
revalidates ``/api/v1/deck`` with its ETag (every answer a 304), and ``hand --as-of`` replays
are timed one by one. ``/healthz`` is measured in the same run, for the ratio, after a few
seconds of it unmeasured (a server's first seconds are slower).

Actions: the Dealer, with an officer token, records votes through ``POST /api/v1/me/actions``
(``cards.vote``, a new proposal each, each with its own ``Idempotency-Key``) from one ``wrk``
while another reads ``/api/v1/me/hand``; afterwards every accepted vote is counted in the
ledger's ``votes`` table (once each). Streams: 1,000 event streams are opened
(``/api/v1/me/events``, five per player), then cards are dealt on the command line
(``nomic-cards deal``); the time from each deal's event time to its arrival on each of its
receiver's streams is measured, every other stream is checked to carry no notice of it, and the
workers' resident memory is read before and after the streams opened. Loopback only; every run
is bounded in time. Prints one table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.game import Game  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from scripts.benchkit import on_each_backend, wait_healthy  # noqa: E402
from tests.server.conftest import free_port, worker_pids  # noqa: E402

PLAYERS, PACKS, CARDS = 200, 20, 1000
#: seconds of unmeasured /healthz load before the measured phases
WARM_UP = 3


def setup(url: str) -> tuple[list[str], int]:
    """The game; returns the tokens and an event number in the middle of the log."""
    settings = GameSettings(packs=tuple((f"P{i}", f"back {i}") for i in range(PACKS)))
    with Game(url, create=True, settings=settings, actor="bench") as game:
        api.init_game(game)
        names = [f"player{i:03d}" for i in range(PLAYERS)]
        for n in names:
            api.add_player(game, n)
        for i in range(CARDS):
            api.deal(game, names[i % PLAYERS], source="system")
        middle = api.ledger_head(game).event // 2
        tokens = [api.issue_token(game, n).token for n in names]
    return tokens, middle


def dealer_token(url: str) -> str:
    from nomic_cards.core.services.tokens import issue_token

    with Game(url, actor="bench") as game:
        dealer = api.show_dealer(game).dealer or ""
        return issue_token(game, dealer, scope="dealer").token


VOTES_LUA = """
local counter = 1
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  n = 0
end
request = function()
  n = n + 1
  local key = "t" .. id .. "-" .. n
  local body = '{"action":"cards.vote","player":"player' .. string.format("%03d", n % 200) ..
    '","proposal":"B' .. key .. '"}'
  return wrk.format("POST", "/api/v1/me/actions", {["Authorization"] = "Bearer TOKEN",
    ["Content-Type"] = "application/json", ["Idempotency-Key"] = key}, body)
end
"""


def votes_recorded(url: str) -> tuple[int, int]:
    """(votes the bench recorded, distinct ones) in the ledger's votes table."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(text("SELECT count(*), count(DISTINCT proposal) FROM votes "
                                    "WHERE proposal LIKE 'Bt%'")).one()
            return int(row[0]), int(row[1])
    finally:
        engine.dispose()


def rss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


async def _stream(port: int, token: str, index: int, frames: list[tuple[int, int, float, dict]],
                  ready: asyncio.Event, counter: list[int], total: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"GET /api/v1/me/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  f"Authorization: Bearer {token}\r\n\r\n").encode())
    await writer.drain()
    status = await reader.readline()
    assert b" 200 " in status, status
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    counter[0] += 1
    if counter[0] == total:
        ready.set()
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                frames.append((index, 0, time.time(), json.loads(line[6:])))
    finally:
        writer.close()


def streams_bench(url: str, base: str, tokens: list[str], proc: subprocess.Popen[bytes],
                  count: int = 1000, deals: int = 10) -> dict[str, float]:
    port = int(base.rsplit(":", 1)[1])
    owners = [i % len(tokens) for i in range(count)]
    frames: list[tuple[int, int, float, dict]] = []
    pids = worker_pids(proc.pid)
    before = rss_kib(pids)
    exe = Path(sys.executable).with_name("nomic-cards")

    async def run() -> int:
        ready, counter = asyncio.Event(), [0]
        tasks = [asyncio.create_task(_stream(port, tokens[o], i, frames, ready, counter, count))
                 for i, o in enumerate(owners)]
        await asyncio.wait_for(ready.wait(), 120)
        opened = rss_kib(pids)
        rng = random.Random(3)
        for _ in range(deals):
            who = rng.randrange(len(tokens))
            await asyncio.to_thread(subprocess.run, [str(exe), "--db", url, "deal",
                                                     f"player{who:03d}", "--json"],
                                    check=True, capture_output=True)
            await asyncio.sleep(1.5)
        await asyncio.sleep(2)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return opened

    opened = asyncio.run(run())
    from nomic_cards.core.ledger.events import parse_time

    latencies, leaks, deals_seen = [], 0, set()
    for index, _, arrived, data in frames:
        if data["kind"] != "card.dealt":
            continue
        receiver = data["payload"]["player"]
        mine = f"player{owners[index]:03d}" == receiver
        if data["notice"] is not None and not mine:
            leaks += 1
        if mine:
            deals_seen.add(data["event"])
            latencies.append(arrived - parse_time(data["at"]).timestamp())
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return {"streams": count, "deals": len(deals_seen), "samples": len(latencies),
            "p50": statistics.median(latencies) * 1000, "p99": p99 * 1000, "leaks": leaks,
            "per_stream_kib": (opened - before) / count}


def writer(url: str, stop: threading.Event, counter: list[int]) -> None:
    """Deal a card every 100 ms, and give a random card back to the Deck."""
    rng = random.Random(7)
    with Game(url, actor="bench-writer") as game:
        names = [f"player{i:03d}" for i in range(PLAYERS)]
        while not stop.is_set():
            t0 = time.monotonic()
            api.deal(game, rng.choice(names), source="system")
            holder = rng.choice(names)
            cards = api.hand(game, holder).cards
            if cards:
                api.transfer(game, str(rng.choice(cards).number), "deck", "bench")
            counter[0] += 1
            stop.wait(max(0.0, 0.1 - (time.monotonic() - t0)))


def wrk(base: str, path: str, script: Path, duration: int, connections: int) -> dict[str, float]:
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency",
                          "-s", str(script), f"{base}{path}"],
                         capture_output=True, text=True, check=True, timeout=duration + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def ms(label: str) -> float:
        m = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", out)
        assert m, out
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    total = float(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "p50": ms("50%"), "p99": ms("99%"), "total": total,
            "errors": float(errors.group(1)) if errors else 0.0,
            "socket": 0.0 if socket_errors is None else 1.0}


def start(url: str, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    exe = Path(sys.executable).with_name("nomic-cards")
    proc = subprocess.Popen([str(exe), "--db", url, "serve", "--port", str(port), "--workers",
                             "2", "--no-access-log"], stdout=(tmp / "serve.log").open("wb"),
                            stderr=subprocess.STDOUT,
                            # one officer token posts every action: no per-player limit here
                            env={**os.environ, "NOMIC_CARDS_ACTION_RATE": "100000,100000"})
    base = f"http://127.0.0.1:{port}"
    wait_healthy(proc, base, tmp / "serve.log")
    return proc, base


def bench(name: str, url: str, duration: int, connections: int) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        t0 = time.perf_counter()
        tokens, middle = setup(url)
        made = time.perf_counter() - t0
        tokens_lua = tmp / "tokens.lua"
        tokens_lua.write_text(
            "local tokens = {" + ",".join(f'"{t}"' for t in tokens) + "}\n"
            "local i = 0\nrequest = function()\n  i = i % #tokens + 1\n"
            '  return wrk.format("GET", nil, {["Authorization"] = "Bearer " .. tokens[i]})\n'
            "end\n")
        officer = dealer_token(url)
        votes_lua = tmp / "votes.lua"
        votes_lua.write_text(VOTES_LUA.replace("TOKEN", officer))
        proc, base = start(url, tmp)
        try:
            etag = httpx.get(f"{base}/api/v1/deck").headers["etag"]
            stop, counter = threading.Event(), [0]
            thread = threading.Thread(target=writer, args=(url, stop, counter), daemon=True)
            thread.start()
            (tmp / "none.lua").write_text("")
            # a server that has just started answers its first seconds more slowly: warm it
            # up, unmeasured, so that the ratio is to a /healthz at its usual rate
            wrk(base, "/healthz", tmp / "none.lua", WARM_UP, connections)
            health = wrk(base, "/healthz", tmp / "none.lua", duration, connections)
            hand = wrk(base, "/api/v1/me/hand", tokens_lua, duration, connections)
            stop.set()
            thread.join(timeout=30)
            # actions while readers load the server: two wrk at once
            readers: dict[str, dict[str, float]] = {}
            side = threading.Thread(target=lambda: readers.update(
                hand=wrk(base, "/api/v1/me/hand", tokens_lua, duration, 8)))
            side.start()
            actions = wrk(base, "/api/v1/me/actions", votes_lua, duration, 8)
            side.join()
            recorded, distinct = votes_recorded(url)
            accepted = actions["total"] - actions["errors"]
            streams = streams_bench(url, base, tokens, proc)
            etag = httpx.get(f"{base}/api/v1/deck").headers["etag"]
            revalidate = tmp / "etag.lua"
            revalidate.write_text(f'wrk.headers["If-None-Match"] = \'{etag}\'\n')
            not_modified = wrk(base, "/api/v1/deck", revalidate, duration, connections)
            times = []
            with httpx.Client(base_url=base, timeout=30) as http:
                for t in tokens[:20]:
                    a = time.perf_counter()
                    r = http.get(f"/api/v1/me/hand?as_of={middle}",
                                 headers={"Authorization": f"Bearer {t}"})
                    times.append(time.perf_counter() - a)
                    assert r.status_code == 200, r.text
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    ratio = hand["rps"] / health["rps"]
    return [
        f"| {name} | `GET /healthz` (for the ratio), writer dealing | {health['rps']:,.0f} | "
        f"{health['p50']:.1f} | {health['p99']:.1f} | {health['errors']:.0f} |",
        f"| {name} | `GET /api/v1/me/hand`, writer dealing every 100 ms ({counter[0]} deals; "
        f"{ratio:.2f}x healthz) | "
        f"{hand['rps']:,.0f} | {hand['p50']:.1f} | {hand['p99']:.1f} | "
        f"{hand['errors']:.0f} |",
        f"| {name} | `GET /api/v1/deck` with If-None-Match (304) | {not_modified['rps']:,.0f} | "
        f"{not_modified['p50']:.1f} | {not_modified['p99']:.1f} | {not_modified['errors']:.0f} |",
        f"| {name} | `GET /api/v1/me/hand?as_of={middle}` (a replay), one at a time | "
        f"{1 / statistics.median(times):,.1f} | {statistics.median(times) * 1000:.1f} | "
        f"{max(times) * 1000:.1f} (max of 20) | 0 |",
        f"| {name} | `POST /api/v1/me/actions` (`cards.vote`, the Dealer's officer token, a key "
        f"each), wrk -c8 while another wrk -c8 reads `/me/hand` ({readers['hand']['rps']:,.0f}"
        f" requests/s, p99 {readers['hand']['p99']:.1f} ms); {accepted:,.0f} accepted, "
        f"{recorded:,} votes in the ledger, {distinct:,} distinct | {actions['rps']:,.0f} | "
        f"{actions['p50']:.1f} | {actions['p99']:.1f} | {actions['errors']:.0f} |",
        f"| {name} | {streams['streams']:,} open event streams: {streams['deals']} CLI deals "
        f"reach their receivers' streams ({streams['samples']} arrivals; "
        f"{streams['leaks']} notices on another player's stream); "
        f"{streams['per_stream_kib']:.0f} KiB of worker memory per open stream | - | "
        f"{streams['p50']:.0f} | {streams['p99']:.0f} | {streams['leaks']} |",
        f"<!-- {name}: setup {made:.1f} s -->",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--skip-pg", action="store_true")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 1,000 streams' sockets
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    rows = ["| backend | what | requests/s | p50 ms | p99 ms | errors |",
            "|---|---|---|---|---|---|"]
    rows += on_each_backend(lambda name, url: bench(name, url, a.duration, a.connections),
                            skip_pg=a.skip_pg)
    load = os.getloadavg()
    print(f"{PLAYERS} players, {PACKS} packs, {CARDS} cards held; 2 uvicorn workers; wrk -t2 "
          f"-c{a.connections} -d{a.duration}s on the same 2 cores; load before end "
          f"{load[0]:.2f}\n")
    print("\n".join(r for r in rows if not r.startswith("<!--")))
    print("\n".join(r for r in rows if r.startswith("<!--")))


if __name__ == "__main__":
    main()
