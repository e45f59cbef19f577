#!/usr/bin/env python3
"""Benchmark `nomic-cards bridge run` against Debian's dealer on the same scripts, same run.

Usage: .venv/bin/python scripts/bench_bridge.py [--runs N] [--only a,b] [--venv DIR]

Each row runs one dealer script with both programs as command-line programs, one core each
(`-j 1`), output to /dev/null, and reports the median wall time of N runs (start-up included),
dealer's median from the same run (the programs alternate run by run, so all see the same
load) and the ratio dealer/ours (>= 1 means at least as fast), our command on the numpy path
(`NOMIC_CARDS_PURE_PYTHON=1`, which leaves the compiled loop out), the library's time without
start-up (the same script run in-process, on the path the command takes: `fast` for the
compiled loop, `numpy` otherwise), the median CPU time (user + system) of both programs and
the median CPU time of the in-process runs.
Every command runs once untimed first (a stacked condition's tables are then in the cache, as
on any later run). The `base` rows time what every command pays first: the interpreter, numpy,
Typer. `--venv` names the environment whose `nomic-cards` is timed (default `.venv`, an
editable install, whose import hook every Python start-up in it pays; a regular `pip install .`
does not have one).

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
    Row("e", "North 15-17 balanced, average hcp(south)",
        "produce 10000\ncondition hcp(north) >= 15 && hcp(north) <= 17 && "
        "shape(north, any 4333 + any 4432 + any 5332)\naction average hcp(south)\n",
        "10,000 produced"),
    Row("e2", "North 15-17 balanced, frequency hcp(south)",
        "produce 10000\ncondition hcp(north) >= 15 && hcp(north) <= 17 && "
        "shape(north, any 4333 + any 4432 + any 5332)\naction frequency (hcp(south), 0, 25)\n",
        "10,000 produced"),
    Row("d", "dealer's Descr.stayman (East and West)", _example("Descr.stayman"),
        "1,000,000 deals"),
    Row("d2", "dealer's Descr.you_hold (predeal, West and North)", _example("Descr.you_hold"),
        "2,000 produced", flags=("-p", "2000", "-g", "100000000")),
]


def _time(cmd: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    """Median wall time of ``runs`` runs of ``cmd``; the median CPU time (user + system) of
    the same runs is kept in ``_CPU[cmd]``."""
    times, cpus = [], []
    for _ in range(runs):
        before = os.times()
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       env=env)
        times.append(time.perf_counter() - start)
        after = os.times()
        cpus.append(after.children_user - before.children_user
                    + after.children_system - before.children_system)
    _CPU[tuple(cmd)] = statistics.median(cpus)
    return statistics.median(times)


_CPU: dict[tuple[str, ...], float] = {}


VENV = ROOT / ".venv"


def _baselines(runs: int) -> None:
    """What every command pays before it does anything: the interpreter, and numpy."""
    python = str(VENV / "bin" / "python")
    for what, cmd in (("python start-up (python -c pass)", [python, "-c", "pass"]),
                      ("python + import numpy", [python, "-c", "import numpy"]),
                      ("nomic-cards --help (Typer)", [*_ours()[:1], "--help"]),
                      ("nomic-dealer, a script dealing nothing", _empty_run())):
        wall = _time(cmd, runs)
        print(f"{'base':8} {what:52} {'':17} {wall:8.3f} {'':9} {'':6} {'':13} "
              f"{_CPU[tuple(cmd)]:7.3f}")


def _empty_run() -> list[str]:
    path = Path(tempfile.gettempdir()) / "bench-bridge-empty.dl"
    path.write_text("generate 1\ncondition 0\naction average 1\n", encoding="utf-8")
    return [str(VENV / "bin" / "nomic-dealer"), "-s", "1", str(path)]


def _ours() -> list[str]:
    return [str(VENV / "bin" / "nomic-cards"), "bridge", "run", "-j", "1"]


def _in_process_exact(expr: str, runs: int) -> float:
    sys.path.insert(0, str(ROOT))
    from nomic_cards.bridge.exact.probability import exact
    from nomic_cards.bridge.language.script import parse_script

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parsed = parse_script(f"condition {expr}\n")
        exact(parsed.condition, text=parsed.text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _in_process(script: str, flags: tuple[str, ...], runs: int,
                stack: bool = False) -> tuple[float, str]:
    """Median time of the run in this process, on the path the command takes, and that
    path's name."""
    sys.path.insert(0, str(ROOT))
    from nomic_cards.bridge.exact.stack import stacker_for
    from nomic_cards.bridge.language.script import parse_script
    from nomic_cards.bridge.run import fast
    from nomic_cards.bridge.run.loop import RunOptions, run

    opts = {"-p": "produce", "-g": "generate"}
    extra = {opts[f]: int(v) for f, v in zip(flags[::2], flags[1::2], strict=True)
             if f in opts}
    module = fast.extension()
    path = "numpy"
    times, cpus = [], []
    with open(os.devnull, "w") as sink:
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            parsed = parse_script(script)
            prog = None if module is None else fast.compile_script(parsed, module)
            if prog is not None:
                path = "fast"
                fast.run(parsed, prog, module, sink.write, seed=1,
                         stack=fast.stacker(parsed, module) if stack else None,
                         generate=extra.get("generate"), produce=extra.get("produce"))
            else:
                found = stacker_for(parsed) if stack else None
                stacker = found[0] if found else None
                run(parsed, RunOptions(seed=1, stacker=stacker, **extra),  # type: ignore[arg-type]
                    sink.write)
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
    _IN_PROCESS_CPU[script] = statistics.median(cpus)
    return statistics.median(times), path


#: the median CPU time (this process's, all threads) of each script's in-process runs
_IN_PROCESS_CPU: dict[str, float] = {}


def main() -> None:
    global VENV
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--venv", type=Path, default=VENV)
    args = ap.parse_args()
    VENV = args.venv.resolve()
    dealer = shutil.which("dealer") or shutil.which("/usr/games/dealer")
    ours = _ours()
    rows = [r for r in ROWS if not args.only or r.key in args.only.split(",")]
    # An installed package has its bytecode compiled; make sure this checkout's is too (the
    # environment may forbid writing it), so that the runs do not compile the sources.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "nomic_cards")],
                   stdout=subprocess.DEVNULL, check=True)
    print(f"load before: {os.getloadavg()}  runs: {args.runs}")
    print(f"{'row':8} {'what':52} {'size':17} {'ours s':>8} {'dealer s':>9} {'ratio':>6}"
          f" {'numpy s':>8} {'in-process s':>13} {'path':>5} {'ours cpu':>8} {'dealer cpu':>10}"
          f" {'in-proc cpu':>11}")
    if not args.only:
        _baselines(args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if not row.script:
                print(f"{row.key:8} {row.what:52} (script missing: install dealer)")
                continue
            peer_cpu = slow = float("nan")
            path_name = ""
            if row.prob:
                cmd = [*ours[:2], "prob", row.prob]
                mine = _time(cmd, args.runs)
                peer = float("nan")
                inproc = _in_process_exact(row.prob, args.runs)
            else:
                path = Path(tmp) / f"{row.key}.dl"
                path.write_text(row.script, encoding="utf-8")
                cmd = [*ours, "-s", "1", *row.flags, *row.ours_args, str(path)]
                peer_cmd = [dealer or "dealer", "-s", "1", *row.flags, str(path)]
                pure = {**os.environ, "NOMIC_CARDS_PURE_PYTHON": "1"}
                _time(cmd, 1)  # untimed: fills the cache of a stacked condition's tables
                # alternate the programs run by run, so that all see the same load
                mine_t, peer_t, slow_t, mine_c, peer_c = [], [], [], [], []
                for _ in range(args.runs):
                    mine_t.append(_time(cmd, 1))
                    mine_c.append(_CPU[tuple(cmd)])
                    if dealer and row.peer:
                        peer_t.append(_time(peer_cmd, 1))
                        peer_c.append(_CPU[tuple(peer_cmd)])
                    slow_t.append(_time(cmd, 1, pure))
                mine, _CPU[tuple(cmd)] = statistics.median(mine_t), statistics.median(mine_c)
                peer = statistics.median(peer_t) if peer_t else float("nan")
                peer_cpu = statistics.median(peer_c) if peer_c else float("nan")
                slow = statistics.median(slow_t)
                inproc, path_name = _in_process(row.script, row.flags, args.runs, row.stack)
            print(f"{row.key:8} {row.what:52} {row.size:17} {mine:8.3f} {peer:9.3f} "
                  f"{peer / mine:6.2f} {slow:8.3f} {inproc:13.3f} {path_name:>5} "
                  f"{_CPU[tuple(cmd)]:8.3f} {peer_cpu:10.3f} "
                  f"{_IN_PROCESS_CPU.get(row.script, float('nan')):11.3f}")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
