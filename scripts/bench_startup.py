"""Benchmark: how long each read command takes from start to finish, as a fresh process.

Run by hand:  .venv/bin/python scripts/bench_startup.py [--runs 11] [--against OTHER_BIN]

Builds a small SQLite game (3 players, a few deals, one ticked nweek) in a temporary folder,
then runs each read command (and ``--help``) ``--runs`` times as a subprocess of the installed
``nomic-cards`` entry point, in turn, and prints the median and the fastest wall time of each.
Each run is a new interpreter (byte code already compiled, as after installation). The target is
0.3 s per read command on an unloaded machine. With ``--against`` another installed
``nomic-cards`` (say, an older checkout's ``.venv/bin/nomic-cards``) runs each command
alternately with this one, on the same database, so that a loaded machine slows both alike.
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
    ["rules", "amend", "9", "--set", "cards=2", "--proposal", "Proposal 412"],
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
    ["rules", "show"],
    ["rules", "show", "--json"],
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="runs of each command (default 11)")
    parser.add_argument("--against", metavar="BIN",
                        help="another nomic-cards executable, run alternately for comparison")
    args = parser.parse_args()
    bins = {"this": BIN} | ({"other": Path(args.against)} if args.against else {})
    # An installed package has its bytecode compiled; make sure each checkout's is too (the
    # environment may forbid writing it), so that the runs do not compile the sources.
    for exe in bins.values():
        python = exe.with_name("python")
        where = subprocess.run(
            [str(python), "-c", "import nomic_cards; print(nomic_cards.__path__[0])"],
            capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([str(python), "-m", "compileall", "-q", where],
                       stdout=subprocess.DEVNULL, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NOMIC_CARDS_DB": str(Path(tmp) / "bench.db"),
               "NOMIC_CARDS_ACTOR": "bench"}
        for cmd in SETUP:
            subprocess.run([str(BIN), *cmd], env=env, check=True, capture_output=True)
        times: dict[tuple[str, str], list[float]] = {
            (b, " ".join(c)): [] for c in READS for b in bins}
        for _ in range(args.runs):
            for cmd in READS:
                for label, exe in bins.items():
                    t0 = time.perf_counter()
                    done = subprocess.run([str(exe), *cmd], env=env, capture_output=True)
                    times[label, " ".join(cmd)].append(time.perf_counter() - t0)
                    if done.returncode != 0:
                        sys.exit(f"{exe} {' '.join(cmd)} failed: {done.stderr.decode()}")
    width = max(len(k[1]) for k in times) + len("nomic-cards ")
    head = "".join(f"  {label + ' median':>12}  {label + ' fastest':>13}" for label in bins)
    print(f"{'command':<{width}}{head}   (seconds; {args.runs} runs each)")
    for cmd in READS:
        name = " ".join(cmd)
        cells = "".join(f"  {statistics.median(times[b, name]):12.3f}  "
                        f"{min(times[b, name]):13.3f}" for b in bins)
        print(f"{'nomic-cards ' + name:<{width}}{cells}")


if __name__ == "__main__":
    main()
