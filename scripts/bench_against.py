"""Compare this checkout's core benchmarks with another checkout's, in the same run.

    git worktree add /tmp/old <commit>
    .venv/bin/python scripts/bench_against.py --old /tmp/old [--rounds 5]

Runs ``scripts/bench_ledger.py`` and ``scripts/bench_tick.py`` of each checkout (each with its
own code, alternating old and new so both see the same machine) and prints, for every figure
both print, the median of the rounds and new / old.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {
    "bench_ledger.py": ["--runs", "1"],
    "bench_tick.py": ["--players", "300", "--nweeks", "60"],
}


def figures(script: str, out: str) -> dict[str, float]:
    """The timings a run printed, by name."""
    found: dict[str, float] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if script == "bench_ledger.py" and len(cells) >= 3 and cells[2].endswith(" s"):
            found[f"{cells[0]}: {cells[1]}"] = float(cells[2].split()[0])
        if script == "bench_tick.py" and len(cells) >= 9 and cells[1].endswith(" s"):
            found[f"{cells[0]}: setup"] = float(cells[1].split()[0])
            found[f"{cells[0]}: tick catch-up"] = float(cells[2].split()[0])
            found[f"{cells[0]}: ledger verify"] = float(cells[7].split()[0])
    return {k: v for k, v in found.items() if not re.search(r"help", k)}


def run(checkout: Path, script: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, str(checkout / "scripts" / script), *SCRIPTS[script]],
                         cwd=checkout, capture_output=True, text=True, check=True).stdout
    return figures(script, out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", type=Path, required=True, help="the other checkout")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    rows = ["| benchmark | figure | old (median) | new (median) | new / old |",
            "|---|---|---|---|---|"]
    for script in SCRIPTS:
        old: dict[str, list[float]] = {}
        new: dict[str, list[float]] = {}
        for _ in range(a.rounds):
            for k, v in run(a.old, script).items():
                old.setdefault(k, []).append(v)
            for k, v in run(ROOT, script).items():
                new.setdefault(k, []).append(v)
        for k in old:
            if k in new:
                o, n = statistics.median(old[k]), statistics.median(new[k])
                rows.append(f"| {script} | {k} | {o:.3f} s | {n:.3f} s | {n / o:.2f} |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
