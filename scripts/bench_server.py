"""Benchmark: the game-state server under load, on PostgreSQL and SQLite.

Run by hand (wrk from Debian: ``apt-get install wrk``):

    .venv/bin/python scripts/bench_server.py [--duration 10] [--connections 64] [--skip-pg]

For each backend: a game with 20 packs, 200 players holding 1,000 cards between them and a token
each; a real ``nomic-cards serve --workers 2`` on 127.0.0.1; while one writer deals a card every
100 ms (and gives a random card back to the Deck, so the Deck never runs out), ``wrk`` asks
``GET /api/v1/me/hand`` with the 200 tokens in turn. Then, with the writer stopped, ``wrk``
revalidates ``/api/v1/deck`` with its ETag (every answer a 304), and ``hand --as-of`` replays
are timed one by one. Loopback only; every run is bounded in time. Prints one table.
"""

from __future__ import annotations

import argparse
import os
import random
import re
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
from tests.server.conftest import free_port  # noqa: E402

PLAYERS, PACKS, CARDS = 200, 20, 1000


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
    return {"rps": rps, "p50": ms("50%"), "p99": ms("99%"),
            "errors": float(errors.group(1)) if errors else 0.0,
            "socket": 0.0 if socket_errors is None else 1.0}


def start(url: str, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    exe = Path(sys.executable).with_name("nomic-cards")
    proc = subprocess.Popen([str(exe), "--db", url, "serve", "--port", str(port), "--workers",
                             "2", "--no-access-log"], stdout=(tmp / "serve.log").open("wb"),
                            stderr=subprocess.STDOUT)
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
        proc, base = start(url, tmp)
        try:
            etag = httpx.get(f"{base}/api/v1/deck").headers["etag"]
            stop, counter = threading.Event(), [0]
            thread = threading.Thread(target=writer, args=(url, stop, counter), daemon=True)
            thread.start()
            hand = wrk(base, "/api/v1/me/hand", tokens_lua, duration, connections)
            stop.set()
            thread.join(timeout=30)
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
    return [
        f"| {name} | `GET /api/v1/me/hand`, writer dealing every 100 ms ({counter[0]} deals) | "
        f"{hand['rps']:,.0f} | {hand['p50']:.1f} | {hand['p99']:.1f} | "
        f"{hand['errors']:.0f} |",
        f"| {name} | `GET /api/v1/deck` with If-None-Match (304) | {not_modified['rps']:,.0f} | "
        f"{not_modified['p50']:.1f} | {not_modified['p99']:.1f} | {not_modified['errors']:.0f} |",
        f"| {name} | `GET /api/v1/me/hand?as_of={middle}` (a replay), one at a time | "
        f"{1 / statistics.median(times):,.1f} | {statistics.median(times) * 1000:.1f} | "
        f"{max(times) * 1000:.1f} (max of 20) | 0 |",
        f"<!-- {name}: setup {made:.1f} s -->",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--skip-pg", action="store_true")
    a = ap.parse_args()
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
