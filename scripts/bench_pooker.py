"""Benchmark Pooker's poker library: the exact best arrangement and advice (docs/poker.md).

Run by hand, never as a test::

    .venv/bin/python scripts/bench_pooker.py                 # every row
    .venv/bin/python scripts/bench_pooker.py --only arrange-30,advice-15 --samples 5

Each row is one function in ``ROWS`` (name -> function returning table rows), so rows can be
added and run alone with ``--only``. Cards are drawn from two packs with fixed seeds (sample
``i`` of a row uses seed ``--seed + i``); every timing is one call after an untimed warm-up
(the first call imports HiGHS), and the table gives the median and the maximum over the samples.

The baseline runs in the same process on the same cards: an integer program that lists every
minimal Poker Hand explicitly as an integer variable (``tests/poker/pooker_oracle.py``), or
for advice the same distribution built from that program's optimum for each possible next card.
``agree`` says whether every Score matched.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.poker.pookerhands import DEFAULT_SCORES, advice, best_arrangement  # noqa: E402
from tests.poker import pooker_oracle  # noqa: E402

TWO_PACKS = list(range(52)) * 2
TABLE = dict(DEFAULT_SCORES)
HEADER = ["| row | cards | samples | ours median | ours max | ours CPU median / max "
          "| baseline median | baseline max | baseline | agree |",
          "|---|---|---|---|---|---|---|---|---|---|"]


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall time, processor time, result): on a shared machine the processor time is the
    steadier figure."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _ours(wall: list[float], cpu: list[float]) -> str:
    return (f"{_fmt(statistics.median(wall))} | {_fmt(max(wall))} "
            f"| {_fmt(statistics.median(cpu))} / {_fmt(max(cpu))}")


def _hands(n: int, a: argparse.Namespace) -> list[list[int]]:
    return [random.Random(a.seed + i).sample(TWO_PACKS, n) for i in range(a.samples)]


def _arrange_row(n: int, a: argparse.Namespace, baseline_samples: int | None = None) -> list[str]:
    hands = _hands(n, a)
    best_arrangement(hands[0], TABLE)  # warm-up
    wall: list[float] = []
    cpu: list[float] = []
    base: list[float] = []
    agree = True
    for i, cards in enumerate(hands):
        t, c, arr = _timed(lambda: best_arrangement(cards, TABLE))  # noqa: B023
        wall.append(t)
        cpu.append(c)
        if baseline_samples is None or i < baseline_samples:
            tb, _, ref = _timed(lambda: pooker_oracle.integer_program(cards, TABLE))  # noqa: B023
            base.append(tb)
            agree &= ref[0] == arr.score
    return [f"| arrange | {n} | {len(wall)} | {_ours(wall, cpu)} "
            f"| {_fmt(statistics.median(base))} | {_fmt(max(base))} | explicit IP "
            f"({len(base)} samples) | {'yes' if agree else 'NO'} |"]


def row_arrange_15(a: argparse.Namespace) -> list[str]:
    return _arrange_row(15, a)


def row_arrange_30(a: argparse.Namespace) -> list[str]:
    return _arrange_row(30, a)


def row_arrange_104(a: argparse.Namespace) -> list[str]:
    # both packs whole: every sample is the same cards in another order; the explicit program
    # (about 35,000 variables) runs once
    return _arrange_row(104, a, baseline_samples=1)


def _reference(cards: list[int], unseen: list[int]) -> dict[int, Fraction]:
    """Advice from the explicit program's optimum for each possible next card."""
    counts: Counter[int] = Counter()
    for face, k in Counter(unseen).items():
        counts[pooker_oracle.integer_program([*cards, face], TABLE)[0]] += k
    return {s: Fraction(k, len(unseen)) for s, k in sorted(counts.items())}


def row_advice_15(a: argparse.Namespace) -> list[str]:
    hands = _hands(15, a)
    wall: list[float] = []
    cpu: list[float] = []
    base = 0.0
    agree = True
    for i, cards in enumerate(hands):
        unseen = list(TWO_PACKS)
        for card in cards:
            unseen.remove(card)
        if i == 0:
            advice(cards, unseen, TABLE)  # warm-up
        t, c, dist = _timed(lambda: advice(cards, unseen, TABLE))  # noqa: B023
        wall.append(t)
        cpu.append(c)
        if i == 0:  # the baseline, on the first sample
            base, _, ref = _timed(lambda: _reference(cards, unseen))  # noqa: B023
            agree &= ref == dist
    return [f"| advice | 15 (+1 of {len(TWO_PACKS) - 15}) | {len(wall)} | {_ours(wall, cpu)} "
            f"| {_fmt(base)} | {_fmt(base)} | explicit IP per next card (1 sample) "
            f"| {'yes' if agree else 'NO'} |"]


ROWS: dict[str, Callable[[argparse.Namespace], list[str]]] = {
    "arrange-15": row_arrange_15,
    "arrange-30": row_arrange_30,
    "arrange-104": row_arrange_104,
    "advice-15": row_advice_15,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated rows: " + ", ".join(ROWS))
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    names = [n.strip() for n in a.only.split(",") if n.strip()] or list(ROWS)
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        ap.error(f"unknown row {unknown[0]!r}; rows: {', '.join(ROWS)}")
    print("\n".join(HEADER))
    for name in names:
        for line in ROWS[name](a):
            print(line, flush=True)


if __name__ == "__main__":
    main()
