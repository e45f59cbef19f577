#!/usr/bin/env python3
"""Benchmark `nomic-cards bridge run` against Debian's dealer on the same scripts, same run.

Usage: .venv/bin/python scripts/bench_bridge.py [--runs N] [--only a,b]

Each row runs one dealer script with both programs as command-line programs, one core each
(`-j 1`), output to /dev/null, and reports the median wall time of N runs (start-up included),
dealer's median from the same run and the ratio dealer/ours (>= 1 means at least as fast).
A second table gives the library's time without start-up (the same script run in-process).

Rows are entries of ROWS: a name, a description, the script text and extra flags. To add a row
(e.g. a smart-stacked variant), append a Row; `ours_args` are extra flags for our command only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = Path("/usr/share/doc/dealer/examples")


@dataclass(frozen=True)
class Row:
    key: str
    what: str
    script: str
    size: str
    flags: tuple[str, ...] = ()
    ours_args: tuple[str, ...] = field(default=())
    peer: bool = True  # False for rows dealer cannot run (exact probability, stacking)
    stack: bool = False  # deal with --stack (in-process: with the smart stacker)
    prob: str = ""  # time `bridge prob PROB` (in-process: the exact computation) instead


def _example(name: str) -> str:
    path = EXAMPLES / name
    return path.read_text(encoding="utf-8") if path.exists() else ""


ROWS: list[Row] = [
    Row("a", "unconstrained, 4 hcp frequencies", "generate 1000000\nproduce 1000000\naction "
        + ", ".join(f'frequency "{s}" (hcp({s}), 0, 37)'
                    for s in ("north", "east", "south", "west")) + "\n",
        "1,000,000 deals"),
    Row("b", "North 15-17 balanced, printoneline",
        "produce 10000\ncondition hcp(north) >= 15 && hcp(north) <= 17 && "
        "shape(north, any 4333 + any 4432 + any 5332)\naction printoneline\n",
        "10,000 produced"),
    Row("c", "North hcp >= 22 (rejection), printoneline",
        "produce 10000\ncondition hcp(north) >= 22\naction printoneline\n", "10,000 produced"),
    Row("c-stack", "North hcp >= 22 (smart-stacked), printoneline",
        "produce 10000\ncondition hcp(north) >= 22\naction printoneline\n", "10,000 produced",
        ours_args=("--stack",), stack=True),
    Row("b-exact", "exact probability of (b): North 15-17 balanced", "-", "exact",
        peer=False, prob="hcp(north) >= 15 && hcp(north) <= 17 && "
                         "shape(north, any 4333 + any 4432 + any 5332)"),
    Row("c-exact", "exact probability of (c): North hcp >= 22", "-", "exact", peer=False,
        prob="hcp(north) >= 22"),
    Row("d", "dealer's Descr.stayman (East and West)", _example("Descr.stayman"),
        "1,000,000 deals"),
    Row("d2", "dealer's Descr.you_hold (predeal, West and North)", _example("Descr.you_hold"),
        "2,000 produced", flags=("-p", "2000", "-g", "100000000")),
]


def _time(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _in_process_exact(expr: str, runs: int) -> float:
    sys.path.insert(0, str(ROOT))
    from nomic_cards.bridge import parse_script
    from nomic_cards.bridge.exact import exact

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parsed = parse_script(f"condition {expr}\n")
        exact(parsed.condition, text=parsed.text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _in_process(script: str, flags: tuple[str, ...], runs: int, stack: bool = False) -> float:
    sys.path.insert(0, str(ROOT))
    from nomic_cards.bridge import parse_script
    from nomic_cards.bridge.run import RunOptions, run
    from nomic_cards.bridge.stack import stacker_for

    opts = {"-p": "produce", "-g": "generate"}
    extra = {opts[f]: int(v) for f, v in zip(flags[::2], flags[1::2], strict=True)
             if f in opts}
    times = []
    with open(os.devnull, "w") as sink:
        for _ in range(runs):
            start = time.perf_counter()
            parsed = parse_script(script)
            found = stacker_for(parsed) if stack else None
            stacker = found[0] if found else None
            run(parsed, RunOptions(seed=1, stacker=stacker, **extra),  # type: ignore[arg-type]
                sink.write)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    dealer = shutil.which("dealer") or shutil.which("/usr/games/dealer")
    ours = [str(ROOT / ".venv" / "bin" / "nomic-cards"), "bridge", "run", "-j", "1"]
    rows = [r for r in ROWS if not args.only or r.key in args.only.split(",")]
    print(f"load: {os.getloadavg()}  runs: {args.runs}")
    print(f"{'row':8} {'what':52} {'size':17} {'ours s':>8} {'dealer s':>9} {'ratio':>6}"
          f" {'in-process s':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if not row.script:
                print(f"{row.key:8} {row.what:52} (script missing: install dealer)")
                continue
            if row.prob:
                mine = _time([*ours[:2], "prob", row.prob], args.runs)
                peer = float("nan")
                inproc = _in_process_exact(row.prob, args.runs)
            else:
                path = Path(tmp) / f"{row.key}.dl"
                path.write_text(row.script, encoding="utf-8")
                mine = _time([*ours, "-s", "1", *row.flags, *row.ours_args, str(path)],
                             args.runs)
                peer = (_time([dealer, "-s", "1", *row.flags, str(path)], args.runs)
                        if dealer and row.peer else float("nan"))
                inproc = _in_process(row.script, row.flags, args.runs, row.stack)
            print(f"{row.key:8} {row.what:52} {row.size:17} {mine:8.3f} {peer:9.3f} "
                  f"{peer / mine:6.2f} {inproc:13.3f}")


if __name__ == "__main__":
    main()
