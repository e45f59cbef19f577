"""Benchmark: the nomic's decisions -- resolving a decision with 1,000 ballots, ``ledger verify``
on ledgers holding 10,000 and 100,000 ballots (the cost per event must stay flat), and the
start-up of ``nomic-cards decision show`` beside the other read commands.

Run by hand:  .venv/bin/python scripts/bench_decisions.py [--runs N] [--big N]

1. **Resolve**: a game of 1,000 players (and the Dealer), a decision each of them has voted
   on (one ballot each, a tenth of them endorsements); the clock moved past the close, then the
   write that resolves it (``tick``: the tally of 1,000 ballots, the ``decision.resolved``
   event) timed in process, and ``decision resolve`` printing the message, as a fresh process.
2. **Verify**: ledgers of 10,000 and ``--big`` (default 100,000) ballots -- 100 players, 10
   decisions, each player casting the same number of ballots on each (a later one replacing the
   earlier), recorded in batches of one transaction -- then ``ledger verify`` (the chain, the
   replay, the tables compared) timed in process; the table gives seconds and microseconds per
   event, and their ratio between the two sizes.
3. **Start-up**: ``nomic-cards decision show ID`` and ``nomic-cards log`` (a read command) on
   the 10,000-ballot ledger, and ``python -c pass``, each a fresh process, alternating; medians.

Prints one table: what was measured, on what input, the median of N runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.clock import FixedClock  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402

START = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
EXE = Path(sys.executable).with_name("nomic-cards")


def new_game(url: str, players: int, clock: FixedClock) -> Nomic:
    nomic = Nomic(url, create=True, clock=clock,
                  settings=GameSettings(epoch=START.date(), nweek_days=1000))
    api.init_game(nomic)
    with nomic.write() as tx:
        for n in range(players):
            api.add_player(tx, f"p{n:04d}")
    return nomic


def resolve_1000(d: str, run: int) -> tuple[float, float]:
    clock = FixedClock(START)
    url = f"sqlite:///{d}/resolve-{run}.db"
    nomic = new_game(url, 1000, clock)
    clock.at = START + timedelta(minutes=1)
    with nomic.write() as tx:
        api.open_decision(tx, "9355", title="A thousand voters", author="p0000", ai="1.0",
                          closes=(START + timedelta(days=3)).isoformat())
    clock.at = START + timedelta(hours=1)
    with nomic.write() as tx:
        for n in range(1000):
            if n % 10 == 9:
                api.cast_ballot(tx, f"p{n:04d}", "9355", endorse=f"p{n - 1:04d}")
            else:
                api.cast_ballot(tx, f"p{n:04d}", "9355", option=("FOR", "AGAINST")[n % 2])
    clock.at = START + timedelta(days=4)
    t0 = time.perf_counter()
    with nomic.write() as tx:
        api.tick(tx)
    resolved = time.perf_counter() - t0
    nomic.close()
    t0 = time.perf_counter()
    subprocess.run([str(EXE), "--db", url, "decision", "resolve", "9355"], check=True,
                   capture_output=True)
    message = time.perf_counter() - t0
    return resolved, message


def ballots_ledger(url: str, ballots: int) -> int:
    """A ledger of ``ballots`` ballots: 100 players, 10 decisions, each player casting
    ``ballots / 1000`` on each. The number of events."""
    clock = FixedClock(START)
    nomic = new_game(url, 100, clock)
    for k in range(10):
        clock.at = START + timedelta(minutes=1 + k)
        with nomic.write() as tx:
            api.open_decision(tx, f"D{k}", title=f"Decision {k}", author="p0000", ai="1.0",
                              closes=(START + timedelta(days=300)).isoformat())
    rounds = ballots // 1000
    at = START + timedelta(hours=1)
    for r in range(rounds):
        at += timedelta(seconds=10)
        clock.at = at
        with nomic.write() as tx:
            for k in range(10):
                for n in range(100):
                    api.cast_ballot(tx, f"p{n:04d}", f"D{k}", option=("FOR", "AGAINST",
                                                                       "PRESENT")[(n + r) % 3])
    with nomic.read() as tx:
        head = api.ledger_head(tx).event
    nomic.close()
    return head


def verify_seconds(url: str) -> float:
    with Nomic(url) as nomic, nomic.read() as tx:
        t0 = time.perf_counter()
        report = api.ledger_verify(tx)
        took = time.perf_counter() - t0
    assert report.ok, report.problems[:3]
    return took


def run_time(args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--big", type=int, default=100_000)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tallies, messages = zip(*(resolve_1000(d, n) for n in range(args.runs)), strict=True)
        rows.append(("resolve a decision at its close (the tick's write)", "1,000 ballots",
                     f"{statistics.median(tallies) * 1000:.0f} ms"))
        rows.append(("`decision resolve` printing the message (a fresh process)",
                     "1,000 ballots", f"{statistics.median(messages) * 1000:.0f} ms"))
        sizes = {}
        for n in (10_000, args.big):
            url = f"sqlite:///{d}/verify-{n}.db"
            events = ballots_ledger(url, n)
            took = statistics.median(verify_seconds(url) for _ in range(args.runs))
            sizes[n] = (events, took)
            rows.append(("`ledger verify` (chain, replay, tables)", f"{n:,} ballots, "
                         f"{events:,} events", f"{took:.2f} s, {took / events * 1e6:.0f} µs "
                                               "an event"))
        (e1, t1), (e2, t2) = sizes[10_000], sizes[args.big]
        rows.append(("cost per event, the larger ledger over the smaller", "",
                     f"{(t2 / e2) / (t1 / e1):.2f}x"))
        url = f"sqlite:///{d}/verify-10000.db"
        commands = {"`python -c pass`": [sys.executable, "-c", "pass"],
                    "`nomic-cards log`": [str(EXE), "--db", url, "log"],
                    "`nomic-cards decision show D3`": [str(EXE), "--db", url, "decision",
                                                        "show", "D3"]}
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(max(5, args.runs * 3)):
            for name, command in commands.items():
                times[name].append(run_time(command))
        for name, values in times.items():
            rows.append((f"start to finish: {name}", "10,000-ballot ledger",
                         f"{statistics.median(values) * 1000:.0f} ms"))
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"| what | input | median of {args.runs} (load {load}) |")
    print("|---|---|---|")
    for what, size, value in rows:
        print(f"| {what} | {size} | {value} |")


if __name__ == "__main__":
    main()
