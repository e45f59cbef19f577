"""Benchmark: deal all 208 cards of a 4-pack game (every reroll included), then verify.

Run by hand:  .venv/bin/python scripts/bench_ledger.py [--runs N] [--pg URL]

Each deal is its own unit of work (one transaction, as `nomic-cards deal` does), with the
committed-seed die. Prints one table: median of N runs on SQLite and PostgreSQL, and the start-up
time of `nomic-cards --help`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import Game, services  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402


def one_run(url: str) -> tuple[float, int, int, float, int]:
    game = Game(url, create=True)
    services.init_game(game)
    services.add_player(game, "alice")
    services.add_player(game, "bob")
    rolls = deals = 0
    t0 = time.perf_counter()
    for i in range(208):
        r = services.deal(game, "alice" if i % 2 else "bob")
        rolls += len(r.rolls)
        deals += 1
    deal_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = services.ledger_verify(game)
    verify_s = time.perf_counter() - t0
    assert report.ok, report.problems
    game.close()
    return deal_s, deals, rolls, verify_s, report.events


def bench_backend(name: str, runs: int) -> list[str]:
    results = []
    for _ in range(runs):
        if name == "sqlite":
            with tempfile.TemporaryDirectory() as d:
                results.append(one_run(f"sqlite:///{d}/bench.db"))
        else:
            url, schema = new_pg_schema_url()
            try:
                results.append(one_run(url))
            finally:
                drop_pg_schema(schema)
    deal_s = statistics.median(r[0] for r in results)
    rolls = statistics.median(r[2] for r in results)
    verify_s = statistics.median(r[3] for r in results)
    return [
        f"| {name} | deal 208 cards (1 tx each) | {deal_s:.3f} s | {208 / deal_s:,.0f} deals/s | "
        f"{rolls / deal_s:,.0f} rolls/s (median {rolls:.0f} rolls) |",
        f"| {name} | ledger verify ({results[0][4]} events) | {verify_s:.3f} s | | |",
    ]


def bench_help(runs: int) -> str:
    exe = Path(sys.executable).with_name("nomic-cards")
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([str(exe), "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return f"| - | `nomic-cards --help` start-up | {statistics.median(times):.3f} s | | |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pg", default=None, help="PostgreSQL URL (default: NOMIC_CARDS_TEST_PG or "
                                               "the local server)")
    args = ap.parse_args()
    if args.pg:
        os.environ["NOMIC_CARDS_TEST_PG"] = args.pg
    rows = ["| backend | what | median time | rate | notes |", "|---|---|---|---|---|"]
    rows += bench_backend("sqlite", args.runs)
    reason = pg_unreachable_reason()
    if reason is None:
        rows += bench_backend("postgresql", args.runs)
    else:
        rows.append(f"| postgresql | skipped: {reason} | | | |")
    rows.append(bench_help(max(args.runs, 10)))
    print(f"median of {args.runs} runs; 4 packs, 208 cards, committed-seed die\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
