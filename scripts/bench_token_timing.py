"""Measurement: does the response time of ``GET /api/v1/me/hand`` tell whether a token's
selector exists?

Run by hand:

    .venv/bin/python scripts/bench_token_timing.py [--requests 2000] [--skip-pg] [--code DIR]

For each backend: a game where one player holds 154 cards and has a token; a real
``nomic-cards serve`` (one worker) on 127.0.0.1, trusting 127.0.0.1 as a proxy so that each
request can name its own client address in ``X-Forwarded-For`` (the failed-attempt limit counts
per address; one failure per address never reaches it). Then ``--requests`` requests on one
keep-alive connection, in a shuffled order, half of them with the player's selector and a wrong
verifier ("known"), half with a selector no token has ("unknown"); each is timed on the client
from send to the end of the body. Every answer must be the same 401. Prints one table per
backend (microseconds) and the difference known - unknown, with a bootstrap 95% interval of
the difference of medians.

``--code DIR`` runs the server from another checkout's source tree (``PYTHONPATH=DIR python -m
nomic_cards``), to compare with the code before a change in the same conditions. Loopback only;
bounded by the number of requests.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from scripts.benchkit import on_each_backend, wait_healthy  # noqa: E402
from tests.server.conftest import free_port  # noqa: E402

HAND = 154


def setup(url: str) -> str:
    """One player with a hand of HAND cards and a token; returns the token."""
    settings = GameSettings(packs=tuple((f"P{i}", f"back {i}") for i in range(4)))
    with Nomic(url, create=True, settings=settings, actor="bench") as game:
        api.init_game(game)
        with game.write() as tx:
            api.add_player(tx, "holder")
        for _ in range(HAND):
            with game.write() as tx:
                api.deal(tx, "holder", source="system")
        with game.write() as tx:
            return api.issue_token(tx, "holder").token


def start(url: str, tmp: Path, code: Path | None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ)
    if code is None:
        cmd = [str(Path(sys.executable).with_name("nomic-cards"))]
    else:
        cmd = [sys.executable, "-m", "nomic_cards"]
        env["PYTHONPATH"] = str(code)
    proc = subprocess.Popen([*cmd, "--db", url, "serve", "--port", str(port), "--workers", "1",
                             "--no-access-log", "--forwarded-allow-ips", "127.0.0.1"],
                            stdout=(tmp / "serve.log").open("wb"), stderr=subprocess.STDOUT,
                            env=env, cwd=tmp)  # not this checkout: `-m` looks in the cwd first
    base = f"http://127.0.0.1:{port}"
    wait_healthy(proc, base, tmp / "serve.log")
    return proc, base


def measure(base: str, token: str, n: int, seed: int) -> dict[str, list[float]]:
    selector, verifier = token.split(".")
    wrong = {"known": f"{selector}.{'A' * 43}", "unknown": f"{'B' * 16}.{verifier}"}
    order = ["known", "unknown"] * (n // 2)
    random.Random(seed).shuffle(order)
    times: dict[str, list[float]] = {"known": [], "unknown": []}
    expected = None
    with httpx.Client(base_url=base, timeout=10) as http:
        for i, what in enumerate(["known", "unknown"] * 100 + order):  # 200 to warm up
            headers = {"Authorization": f"Bearer {wrong[what]}",
                       "X-Forwarded-For": f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"}
            t0 = time.perf_counter()
            r = http.get("/api/v1/me/hand", headers=headers)
            elapsed = time.perf_counter() - t0
            if r.status_code != 401:
                raise SystemExit(f"expected 401, got {r.status_code}: {r.text}")
            expected = expected or r.content
            if r.content != expected:
                raise SystemExit("two rejected tokens got different bodies")
            if i >= 200:
                times[what].append(elapsed * 1e6)
    return times


def bootstrap(a: list[float], b: list[float], seed: int, rounds: int = 2000
              ) -> tuple[float, float]:
    rng = random.Random(seed)
    diffs = sorted(statistics.median(rng.choices(a, k=len(a)))
                   - statistics.median(rng.choices(b, k=len(b))) for _ in range(rounds))
    return diffs[int(rounds * 0.025)], diffs[int(rounds * 0.975)]


def trimmed_mean(values: list[float]) -> float:
    t = sorted(values)
    cut = len(t) // 10
    return statistics.fmean(t[cut:len(t) - cut])


def table(name: str, times: dict[str, list[float]]) -> list[str]:
    rows = []
    for what in ("known", "unknown"):
        t = sorted(times[what])
        rows.append(f"| {name} | {what} selector | {len(t)} | {statistics.median(t):.0f} | "
                    f"{trimmed_mean(t):.0f} | {t[len(t) // 10]:.0f} | "
                    f"{t[len(t) * 9 // 10]:.0f} |")
    k, u = times["known"], times["unknown"]
    low, high = bootstrap(k, u, seed=1)
    rows.append(f"| {name} | known - unknown | | "
                f"{statistics.median(k) - statistics.median(u):+.0f} "
                f"(95%: {low:+.0f} to {high:+.0f}) | {trimmed_mean(k) - trimmed_mean(u):+.0f} "
                "| | |")
    return rows


def bench(name: str, url: str, n: int, code: Path | None) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        token = setup(url)
        proc, base = start(url, Path(d), code)
        try:
            return table(name, measure(base, token, n, seed=7))
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--skip-pg", action="store_true")
    ap.add_argument("--code", type=Path, default=None,
                    help="run the server from this source tree (PYTHONPATH)")
    a = ap.parse_args()
    rows = ["| backend | token | requests | median µs | 10%-trimmed mean µs | p10 | p90 |",
            "|---|---|---|---|---|---|---|"]
    rows += on_each_backend(lambda name, url: bench(name, url, a.requests, a.code),
                            skip_pg=a.skip_pg)
    load = os.getloadavg()
    print(f"hand of {HAND} cards; {a.requests} interleaved requests per backend, one keep-alive "
          f"connection, 1 uvicorn worker; server code: {a.code or ROOT}; load average "
          f"{load[0]:.2f}\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
