"""Benchmark: two Players trading PCards back and forth so that every read of their views must
arrange a new Hand, while a bystander reads eir own; this checkout against another, in the same
run. Run by hand, never as a test::

    git worktree add /tmp/before <commit>
    .venv/bin/python scripts/bench_pooker_trading.py --old /tmp/before [--seconds 20] [--rounds 3]

One process plays a server worker's part (each checkout in a process of its own, with its own
code first on ``sys.path``): a fresh SQLite game, Pooker on Red and Blue, ann, ben and cat
holding 35, 35 and 30 PCards (fixed seeds). The reads are ``games_for`` in a read transaction, what
``GET /api/v1/me/games`` runs, each in a thread of its own as the server's pool runs requests.

* **attack**: a trade every 0.1 s at most (each side's notification is an action: the server's
  10 actions a second per Player), each time a card of ann's for one of ben's drawn at random
  (one received before among them), so that both Hands are nearly always new; after each
  trade ann and ben each read eir view, at once.
* **bystander**: all along, cat reads eir view every 0.2 s; eir Hand never changes.
* **bystander alone**: the same reads, with no attack.

Figures, each the median over ``--rounds`` (the checkouts take turns): the process's CPU
seconds per wall second over the attack (``time.process_time``: every thread -- the trades'
writes, the reads, the arranging one) and the arranging thread's own (its CPU clock), the
trades made a second, the exact arrangements made a second and the median time of one, the
attackers' read latency, the share of their views said to be exact, how long after the attack
ann's view shows eir latest Hand's exact arrangement (what e waits for eir budget), and cat's
read latency (median and 90th percentile) during the attack and alone. The machine's load
average is printed before and after: a loaded machine slows both checkouts alike.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: each attacker's PCards, and the bystander's (the two packs hold 104)
PCARDS, BYSTANDER = 35, 30


def _now() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def measure(seconds: float) -> dict[str, float]:
    """The figures of one run, in this process (its checkout's code first on the path)."""
    from nomic_cards.cardgames.pooker import rules as pooker
    from nomic_cards.core import api
    from nomic_cards.core.nomic import Nomic
    from nomic_cards.core.services import points
    from nomic_cards.core.services.player_games import games_for
    from nomic_cards.core.settings import GameSettings

    class Clock:
        at = datetime(2026, 1, 1, 1, tzinfo=UTC)

        def now(self) -> datetime:
            return self.at

    clock = Clock()
    directory = tempfile.mkdtemp()
    game = Nomic(f"sqlite:///{directory}/bench.db", clock=clock, create=True,
                 settings=GameSettings(packs=(("Red", "red"), ("Blue", "blue")),
                                       epoch=datetime(2026, 1, 1).date(), nweek_days=10))
    api.init_game(game)
    deck = random.Random(2026).sample(range(1, 105), 2 * PCARDS + BYSTANDER)
    hands = {"ann": deck[:PCARDS], "ben": deck[PCARDS:2 * PCARDS], "cat": deck[2 * PCARDS:]}
    with game.write() as tx:
        for p in hands:
            api.add_player(tx, p)
        api.game_enact(tx, "pooker", "0,1", proposal="bench")
        for p, cards in hands.items():
            for c in cards:
                api.transfer(tx, str(c), p, "bench setup", source="deck")
        for p in ("ann", "ben"):
            points.grant_points(tx, p, 100000, rule="bench")

    def view(player: str) -> Any:
        with game.read() as tx:
            return games_for(tx, player).games["pooker"]

    def label(card: int) -> str:
        with game.read() as tx:
            return next(c.card for p in ("ann", "ben") for c in api.hand(tx, p).cards
                        if c.number == card)

    from nomic_cards.cardgames.pooker import scoring

    exact_took: list[float] = []  # each exact arrangement's time, whoever made it
    library = vars(scoring)["best_arrangement"]  # the poker library's, as scoring calls it

    def timed(codes: Any, table: Any) -> Any:
        t = _now()
        try:
            return library(codes, table)
        finally:
            exact_took.append(_now() - t)

    setattr(scoring, "best_arrangement", timed)  # noqa: B010 - looked up when called
    view("cat")  # cat's Hand arranged before the clock starts (kept since)
    time.sleep(1.0)  # what was asked before is done
    stop = threading.Event()
    cat_reads: list[float] = []

    def bystander() -> None:
        while not stop.is_set():
            t = _now()
            view("cat")
            cat_reads.append(_now() - t)
            stop.wait(max(0.0, 0.2 - (_now() - t)))

    def alone() -> list[float]:
        cat_reads.clear()
        stop.clear()
        thread = threading.Thread(target=bystander, daemon=True)
        thread.start()
        time.sleep(min(seconds, 5.0))
        stop.set()
        thread.join()
        return list(cat_reads)

    quiet = alone()
    attack_reads: list[float] = []
    exact: list[bool] = []
    trades = 0
    rng = random.Random(7)
    mine, theirs = list(hands["ann"]), list(hands["ben"])

    def reader(player: str) -> None:
        t = _now()
        v = view(player)
        attack_reads.append(_now() - t)
        exact.append(bool(getattr(v, "exact", True)))

    def arranging() -> float:  # the arranging thread's CPU seconds so far (none before it was)
        arranger = getattr(scoring, "ARRANGER", None)
        thread = getattr(arranger, "_thread", None)
        if thread is None or thread.ident is None:
            return float("nan")
        return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))

    cat_reads.clear()
    stop.clear()
    watcher = threading.Thread(target=bystander, daemon=True)
    watcher.start()
    start, cpu, thread = _now(), time.process_time(), arranging()
    try:
        while _now() - start < seconds:
            t = _now()
            a, b = mine.pop(rng.randrange(len(mine))), theirs.pop(rng.randrange(len(theirs)))
            la, lb = label(a), label(b)
            clock.at += timedelta(seconds=1)
            with game.write() as tx:
                pooker.trade(tx, "ann", [la], [lb], "ben")
                pooker.trade(tx, "ben", [lb], [la], "ann")
            mine.append(b)
            theirs.append(a)
            trades += 1
            readers = [threading.Thread(target=reader, args=(p,)) for p in ("ann", "ben")]
            for r in readers:
                r.start()
            for r in readers:
                r.join()
            time.sleep(max(0.0, 0.1 - (_now() - t)))
        wall, used, arranged = _now() - start, time.process_time() - cpu, arranging() - thread
        attack_exact = list(exact_took[1:])  # all but cat's, before the clock started
        t = _now()  # how long until ann's view of eir latest Hand is exact, the attack over
        while not getattr(view("ann"), "exact", True) and _now() - t < 300:
            time.sleep(0.05)
        later = _now() - t
    finally:
        stop.set()
        watcher.join()
        game.close()

    def pct(xs: list[float], q: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")

    return {"CPU s per wall s (the process)": used / wall,
            "of which the arranging thread": arranged / wall, "trades a second": trades / wall,
            "exact arrangements made a second": len(attack_exact) / wall,
            "an exact arrangement of 35 PCards, median (ms)":
                1000 * statistics.median(attack_exact),
            "ann's exact arrangement, after the attack (s)": later,
            "attackers' read, median (ms)": 1000 * statistics.median(attack_reads),
            "attackers' views said exact (%)": 100 * sum(exact) / len(exact),
            "bystander during the attack, median (ms)": 1000 * statistics.median(cat_reads),
            "bystander during the attack, p90 (ms)": 1000 * pct(cat_reads, 0.9),
            "bystander alone, median (ms)": 1000 * statistics.median(quiet),
            "bystander alone, p90 (ms)": 1000 * pct(quiet, 0.9)}


def run(checkout: Path, seconds: float) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, __file__, "--child", str(checkout), "--seconds",
                           str(seconds)], capture_output=True, text=True, env=env, cwd=checkout,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip().splitlines()[-1:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, help="the other checkout (its code measured in turn)")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        sys.path.insert(0, str(a.child))
        print(json.dumps(measure(a.seconds)))
        return
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    checkouts = ([a.old] if a.old else []) + [ROOT]
    seen: dict[Path, dict[str, list[float]]] = {c: {} for c in checkouts}
    for _ in range(a.rounds):
        for c in checkouts:
            for k, v in run(c, a.seconds).items():
                seen[c].setdefault(k, []).append(v)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    new = {k: statistics.median(v) for k, v in seen[ROOT].items()}
    old = {k: statistics.median(v) for k, v in seen[a.old].items()} if a.old else {}
    print(f"| figure ({PCARDS} PCards each, the bystander {BYSTANDER}; {a.seconds:g} s, median "
          f"of {a.rounds}) | old | new | new / old |")
    print("|---|---|---|---|")
    for k, v in new.items():
        o = old.get(k)
        known = o is not None and o == o  # not NaN: the old code has no arranging thread
        ratio = f"{v / o:.2f}" if known and o else "-"
        print(f"| {k} | {f'{o:.2f}' if known else '-'} | {v:.2f} | {ratio} |")


if __name__ == "__main__":
    main()
