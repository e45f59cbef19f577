"""Benchmark: how long each read command takes from start to finish, as a fresh process; the
start-up against bare Python; a small bridge job against Debian's dealer.

Run by hand:  .venv/bin/python scripts/bench_startup.py [--runs 11] [--against OTHER_BIN]

Builds a small SQLite game (3 players, a few deals, one ticked nweek) in a temporary folder,
then runs each read command (and ``--help``) ``--runs`` times as a subprocess of the installed
``nomic-cards`` entry point, in turn, and prints the median and the fastest wall time of each.
Each run is a new interpreter (byte code already compiled, as after installation). Beside them,
in the same turns: ``python -c pass`` (the same environment's interpreter, its ``site`` and
``.pth`` files included: an editable install's import hook is paid there too), and the small
bridge job of ``bench_bridge.py`` (row b: North 15-17 balanced, 10,000 produced, one core)
with ``/usr/games/dealer`` on the same script. The summary gives ``--help`` minus
``python -c pass`` (the target: at most 0.25 s) and dealer's time over the bridge job's (the
target: at least 1). With ``--against`` another installed ``nomic-cards`` (say, an older
checkout's ``.venv/bin/nomic-cards``) runs each command alternately with this one, on the same
database, so that a loaded machine slows both alike.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_bridge import ROWS  # noqa: E402  (the bridge job, as bench_bridge.py runs it)

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

#: the interpreter alone, and the bridge job (its script's path is filled in)
BARE = "python -c pass"
BRIDGE = "bridge run -j 1 -s 1 SCRIPT"
DEALER = "/usr/games/dealer -s 1 SCRIPT"


def _argv(exe: Path, name: str, script: str) -> list[str]:
    if name == BARE:
        return [str(exe.with_name("python")), "-c", "pass"]
    if name == BRIDGE:
        return [str(exe), "bridge", "run", "-j", "1", "-s", "1", script]
    return [str(exe), *name.split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11, help="runs of each command (default 11)")
    parser.add_argument("--against", metavar="BIN",
                        help="another nomic-cards executable, run alternately for comparison")
    args = parser.parse_args()
    bins = {"this": BIN} | ({"other": Path(args.against)} if args.against else {})
    dealer = shutil.which("dealer") or shutil.which("/usr/games/dealer")
    # An installed package has its bytecode compiled; make sure each checkout's is too (the
    # environment may forbid writing it), so that the runs do not compile the sources.
    for exe in bins.values():
        python = exe.with_name("python")
        where = subprocess.run(
            [str(python), "-c", "import nomic_cards; print(nomic_cards.__path__[0])"],
            capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([str(python), "-m", "compileall", "-q", where],
                       stdout=subprocess.DEVNULL, check=True)
    names = [BARE, *(" ".join(c) for c in READS), BRIDGE]
    print(f"load before: {os.getloadavg()}  runs: {args.runs}")
    with tempfile.TemporaryDirectory() as tmp:
        script = str(Path(tmp) / "b.dl")
        Path(script).write_text(next(r for r in ROWS if r.key == "b").script, encoding="utf-8")
        env = {**os.environ, "NOMIC_CARDS_DB": str(Path(tmp) / "bench.db"),
               "NOMIC_CARDS_ACTOR": "bench"}
        for cmd in SETUP:
            subprocess.run([str(BIN), *cmd], env=env, check=True, capture_output=True)
        times: dict[tuple[str, str], list[float]] = {(b, n): [] for n in names for b in bins}
        times["dealer", DEALER] = []
        turns = [(b, n, _argv(exe, n, script)) for n in names for b, exe in bins.items()]
        if dealer:
            turns.append(("dealer", DEALER, [dealer, "-s", "1", script]))
        for argv in {tuple(a) for *_, a in turns}:  # once untimed: the caches warm
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(args.runs):
            for label, name, argv in turns:
                t0 = time.perf_counter()
                done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE)
                times[label, name].append(time.perf_counter() - t0)
                if done.returncode != 0:
                    sys.exit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    print(f"load after: {os.getloadavg()}")
    med = {k: statistics.median(v) for k, v in times.items() if v}
    width = max(len(n) for n in [*names, DEALER]) + len("nomic-cards ")
    head = "".join(f"  {label + ' median':>12}  {label + ' fastest':>13}" for label in bins)
    print(f"{'command':<{width}}{head}   (seconds; {args.runs} runs each, in turn)")
    for name in names:
        cells = "".join(f"  {med[b, name]:12.3f}  {min(times[b, name]):13.3f}" for b in bins)
        shown = name if name == BARE else f"nomic-cards {name}"
        print(f"{shown:<{width}}{cells}")
    if dealer:
        print(f"{DEALER:<{width}}  {med['dealer', DEALER]:12.3f}  "
              f"{min(times['dealer', DEALER]):13.3f}   (the peer, same turns)")
    print()
    for label in bins:
        over = med[label, "--help"] - med[label, BARE]
        line = (f"{label}: --help {med[label, '--help']:.3f} s, {over:+.3f} s over "
                f"python -c pass ({med[label, BARE]:.3f} s; target at most +0.25 s)")
        if dealer:
            ratio = med["dealer", DEALER] / med[label, BRIDGE]
            line += (f"; bridge job {med[label, BRIDGE]:.3f} s, dealer "
                     f"{med['dealer', DEALER]:.3f} s: dealer/ours {ratio:.2f} (target >= 1)")
        print(line)


if __name__ == "__main__":
    main()
