"""Benchmark: how long each read command takes from start to finish, as a fresh process.

Run by hand:  .venv/bin/python scripts/bench_startup.py [--runs 11]

Builds a small SQLite game (3 players, a few deals, one ticked nweek) in a temporary folder,
then runs each read command (and ``--help``) ``--runs`` times as a subprocess of the installed
``nomic-cards`` entry point, in turn, and prints the median and the fastest wall time of each.
Each run is a new interpreter (byte code already compiled, as after installation). The target is
0.3 s per read command on an unloaded machine.
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

BIN = Path(sys.executable).with_name("nomic-cards")

SETUP = [
    ["init"],
    ["player", "add", "Ienne", "--email", "ienne@example.org"],
    ["player", "add", "Wonko"],
    ["player", "add", "Zilch"],
    ["deal", "Ienne"],
    ["deal", "Wonko"],
    ["deal", "Zilch"],
    ["tick"],
]

READS = [
    ["--help"],
    ["hand", "Ienne"],
    ["deck"],
    ["log"],
    ["report", "1"],
    ["player", "list"],
    ["dealer", "show"],
    ["clock"],
    ["notices", "list"],
    ["dice", "commitment"],
    ["dice", "verify"],
    ["ledger", "verify"],
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="runs of each command (default 11)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NOMIC_CARDS_DB": str(Path(tmp) / "bench.db"),
               "NOMIC_CARDS_ACTOR": "bench"}
        for cmd in SETUP:
            subprocess.run([str(BIN), *cmd], env=env, check=True, capture_output=True)
        times: dict[str, list[float]] = {" ".join(c): [] for c in READS}
        for _ in range(args.runs):
            for cmd in READS:
                t0 = time.perf_counter()
                done = subprocess.run([str(BIN), *cmd], env=env, capture_output=True)
                times[" ".join(cmd)].append(time.perf_counter() - t0)
                if done.returncode != 0:
                    sys.exit(f"nomic-cards {' '.join(cmd)} failed: {done.stderr.decode()}")
    width = max(len(k) for k in times) + len("nomic-cards ")
    print(f"{'command':<{width}}  {'median s':>8}  {'fastest s':>9}   ({args.runs} runs each)")
    for name, ts in times.items():
        print(f"{'nomic-cards ' + name:<{width}}  {statistics.median(ts):8.3f}  {min(ts):9.3f}")


if __name__ == "__main__":
    main()
