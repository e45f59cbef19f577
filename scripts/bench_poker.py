"""Benchmark nomic_cards.poker against treys, deuces, eval7, phevaluator and pokerkit.

Run by hand, never as a test. The peers are installed in the benchmark's own environment, never
as project dependencies::

    python -m venv /work/benchenv-poker
    /work/benchenv-poker/bin/pip install numpy treys deuces eval7 phevaluator pokerkit
    /work/benchenv-poker/bin/python scripts/bench_poker.py            # --quick for a smoke run

Everyone evaluates the same 200,000 random 5-card and 7-card hands (seed 2024), converted once
into each library's own card objects beforehand (parsing is not timed). Peers have no batch API,
so they are timed on their public per-hand call in a Python loop (the "single" rows, which also
stand as their batch figure); phevaluator is also timed on its C core mapped over int columns (its
fastest Python-level use, the fastest peer figure for batches). Table rows time a count by
category of all 2,598,960 hands: nomic_cards.poker.table() (cold = first call in a fresh
process, including building the lookup tables and the hand list; warm = later calls), and for
the peers evaluating every hand one by one. Slow peers (pokerkit) are timed on a prefix of the
hands and marked with the size they ran. Each figure is the median of N runs. Before timing, every
peer's ranking of the 5-card sample is checked against ours.

Prints one table: measurement, implementation, hands, median seconds, hands per second, and the
ratio (the implementation's time over ours: above 1 means ours is faster).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from nomic_cards.poker import evaluate, evaluate_batch, table  # noqa: E402
from nomic_cards.poker.evaluate import evaluator  # noqa: E402

RANKS = "23456789TJQKA"
SUITS = "shdc"  # Ness order
SEED = 2024


def median_time(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    return rng.random((n, 52)).argpartition(k, axis=1)[:, :k].astype(np.uint8)


def text(code: int) -> str:
    return RANKS[code % 13] + SUITS[code // 13]


class Peer:
    """One library: how to convert a hand once, and how to evaluate a converted hand."""

    def __init__(self, name: str, convert: Callable[[list[int]], Any],
                 evaluate: Callable[[Any], Any], higher_is_better: bool,
                 limit: int | None = None) -> None:
        self.name, self.convert, self.evaluate = name, convert, evaluate
        self.higher_is_better, self.limit = higher_is_better, limit


def peers() -> list[Peer]:
    out: list[Peer] = []
    try:
        import treys

        tev = treys.Evaluator()
        tcards = [treys.Card.new(text(c)) for c in range(52)]
        out.append(Peer("treys", lambda h: [tcards[c] for c in h],
                        lambda h: tev.evaluate(h, []), False))
    except ImportError:
        pass
    try:
        import deuces

        dev = deuces.Evaluator()
        dcards = [deuces.Card.new(text(c)) for c in range(52)]
        out.append(Peer("deuces", lambda h: [dcards[c] for c in h],
                        lambda h: dev.evaluate(h, []), False))
    except ImportError:
        pass
    try:
        import eval7

        ecards = [eval7.Card(text(c)) for c in range(52)]
        out.append(Peer("eval7", lambda h: [ecards[c] for c in h], eval7.evaluate, True))
    except ImportError:
        pass
    try:
        from phevaluator import evaluate_cards

        ph = [(c % 13) * 4 + "cdhs".index(SUITS[c // 13]) for c in range(52)]
        out.append(Peer("phevaluator", lambda h: [ph[c] for c in h],
                        lambda h: evaluate_cards(*h), False))
    except ImportError:
        pass
    try:
        from pokerkit import Card, StandardHighHand

        pk = [next(iter(Card.parse(text(c)))) for c in range(52)]
        out.append(Peer("pokerkit", lambda h: tuple(pk[c] for c in h),
                        lambda h: StandardHighHand.from_game(h), True, limit=20_000))
    except ImportError:
        pass
    return out


def ph_core_columns(hands: np.ndarray) -> list[list[int]] | None:
    try:
        from phevaluator import _pheval  # noqa: F401
    except ImportError:
        return None
    ph = np.array([(c % 13) * 4 + "cdhs".index(SUITS[c // 13]) for c in range(52)])
    return [ph[hands[:, i]].tolist() for i in range(hands.shape[1])]


def ph_core(k: int) -> Callable[..., Any]:
    from phevaluator import _pheval

    return {5: _pheval.evaluate_5cards, 7: _pheval.evaluate_7cards}[k]


def check_agreement(ps: list[Peer], hands: np.ndarray) -> None:
    """Sort 5,000 hands by our value; each peer must order every neighbouring pair the same way
    (better, equal, worse)."""
    ours = evaluate_batch(hands[:5000]).tolist()
    sample = hands[:5000].tolist()
    order = sorted(range(len(sample)), key=ours.__getitem__)
    for p in ps:
        theirs = [p.evaluate(p.convert(h)) for h in sample]
        ok = True
        for i, j in zip(order, order[1:], strict=False):
            x, y = (theirs[i], theirs[j]) if p.higher_is_better else (theirs[j], theirs[i])
            ok &= (ours[i] < ours[j]) == (x < y) and (ours[i] == ours[j]) == (x == y)
        print(f"  ranking agrees with {p.name}: {ok}", file=sys.stderr)


def cold_table(wild: str | None, jokers: int = 0) -> float:
    code = (
        f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
        "from nomic_cards.poker import table\n"
        f"t0 = time.perf_counter(); table(wild={wild!r}, jokers={jokers})\n"
        "print(time.perf_counter() - t0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="20,000 hands, 3 runs, no peer tables")
    args = parser.parse_args()
    n, runs = (20_000, 3) if args.quick else (args.hands, args.runs)
    rng = np.random.default_rng(SEED)
    h5, h7 = random_hands(rng, n, 5), random_hands(rng, n, 7)
    rows: list[tuple[str, str, int, float]] = []  # measurement, impl, hands, seconds

    ps = peers()
    print(f"peers: {', '.join(p.name for p in ps) or 'none installed'}", file=sys.stderr)
    check_agreement(ps, h5)

    for k, hands in ((5, h5), (7, h7)):
        evaluate_batch(hands)  # build the tables outside the timing
        what = f"batch {k}-card"
        rows.append((what, "nomic_cards evaluate_batch", n,
                     median_time(lambda hands=hands: evaluate_batch(hands), runs)))
        rows.append((what + ", deuces wild", "nomic_cards evaluate_batch", n,
                     median_time(lambda hands=hands: evaluate_batch(hands, wild="deuces"), runs)))
        cols = ph_core_columns(hands)
        if cols is not None:
            fn = ph_core(k)
            rows.append((what, "phevaluator C core (map)", n,
                         median_time(lambda fn=fn, cols=cols: list(map(fn, *cols)), runs)))
        listed = hands.tolist()
        evaluate(listed[0])
        what1 = f"single {k}-card"
        rows.append((what1, "nomic_cards evaluate", n,
                     median_time(lambda listed=listed: [evaluate(h) for h in listed], runs)))
        call = evaluator().call
        rows.append((what1, "nomic_cards Evaluator.call", n,
                     median_time(lambda listed=listed, call=call: [call(h) for h in listed],
                                 runs)))
        for p in ps:
            m = min(n, (p.limit or n) // (1 if k == 5 else 10))
            conv = [p.convert(h) for h in listed[:m]]
            ev = p.evaluate
            t = median_time(lambda conv=conv, ev=ev: [ev(h) for h in conv],
                            runs if m == n else 3)
            rows.append((what1, p.name, m, t))

    all_n = 2_598_960
    for label, wild, jokers in (("standard", None, 0), ("deuces wild", "deuces", 0),
                                ("one-eyed jacks + axe", "one-eyed-jacks-axe", 0),
                                ("baseball (3s, 9s)", "baseball", 0),
                                ("2 jokers + deuces", "deuces", 2)):
        what = f"table {label}"
        size = all_n if jokers == 0 else 3_162_510
        rows.append((what, "nomic_cards table (cold)", size,
                     statistics.median(cold_table(wild, jokers) for _ in range(min(runs, 3)))))
        table(wild=wild, jokers=jokers)
        rows.append((what, "nomic_cards table (warm)", size,
                     median_time(lambda wild=wild, jokers=jokers: table(wild=wild, jokers=jokers),
                                 runs)))
    if not args.quick:
        from nomic_cards.poker.counting import all_hands

        every = np.stack(all_hands(), axis=1)
        cols = ph_core_columns(every)
        if cols is not None:
            fn = ph_core(5)
            rows.append(("table standard", "phevaluator C core (map)", all_n,
                         median_time(lambda: np.bincount(list(map(fn, *cols))), 3)))
        listed = every.tolist()
        for p in ps:
            m = min(all_n, (p.limit or all_n) * 5)
            conv = [p.convert(h) for h in listed[:m]]
            ev = p.evaluate
            rows.append(("table standard", p.name + " (per-hand loop)", m,
                         median_time(lambda conv=conv, ev=ev: [ev(h) for h in conv], 1)))
            del conv

    print_table(rows)


def print_table(rows: list[tuple[str, str, int, float]]) -> None:
    ours: dict[str, float] = {}
    for what, impl, size, t in rows:
        if impl.startswith("nomic_cards") and "cold" not in impl and what not in ours:
            ours[what] = t / size
    head = (f"{'measurement':<36} {'implementation':<32} {'hands':>9} {'median s':>10} "
            f"{'hands/s':>12} {'ratio':>7}")
    print(head)
    print("-" * len(head))
    for what, impl, size, t in rows:
        base = ours.get(what.split(",")[0]) if what not in ours else ours[what]
        ratio = (t / size) / base if base else float("nan")
        print(f"{what:<36} {impl:<32} {size:>9} {t:>10.4f} {size / t:>12,.0f} {ratio:>7.2f}")
    print("\nratio = time per hand over ours (the first nomic_cards row of the measurement); "
          "> 1: ours is faster. Rows with fewer hands ran on a prefix of the same hands.")


if __name__ == "__main__":
    main()
