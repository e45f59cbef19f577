"""Benchmark the randomizer library; run by hand: `python scripts/bench_randomizers.py`.

Measures, each as the median of several runs:

* exact TGM1 statistics with gap and first-appearance tables to k = 30 (target: at most 1 s),
  against estimating the same figures by simulating 1,000,000 pieces;
* batch generation for 7-bag and TGM1 (target: at least 2M pieces/s), against the
  one-at-a-time path of the same randomizer and against a plain ``random.Random`` loop (the
  obvious hand-written generator, which is not reproducible across Python versions).

Prints one table: what was measured, input size, median, baseline, baseline figure, ratio.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from nomic_cards.randomizers import PRESETS, Randomizer, stats
from nomic_cards.randomizers.simulate import simulate


def median_time(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def plain_bag(count: int) -> list[str]:
    rnd = random.Random(1)
    pieces = list("IJLOSTZ")
    out: list[str] = []
    while len(out) < count:
        bag = pieces[:]
        rnd.shuffle(bag)
        out.extend(bag)
    return out[:count]


def plain_tgm1(count: int) -> list[str]:
    rnd = random.Random(1)
    pieces = "IJLOSTZ"
    hist = ["Z", "Z", "Z", rnd.choice("IJLT")]
    out = [hist[-1]]
    while len(out) < count:
        for _ in range(4):
            p = pieces[rnd.randrange(7)]
            if p not in hist:
                break
        out.append(p)
        hist = [*hist[1:], p]
    return out


def main() -> None:
    rows: list[tuple[str, str, str, str, str, str]] = []
    tgm1 = PRESETS["tgm1"]

    exact = median_time(lambda: stats(tgm1, gaps=30), 7)
    sim = median_time(lambda: simulate(tgm1, 1_000_000, seed=1, gaps=30), 3)
    rows.append(("exact TGM1 stats, tables to k=30", "7 pieces, 52 lumped states",
                 f"{exact * 1000:.1f} ms", "simulate 1M pieces (estimate)",
                 f"{sim * 1000:.0f} ms", f"{sim / exact:.0f}x faster"))

    big = 2_000_000
    small = 200_000
    for name, plain in (("7-bag", plain_bag), ("tgm1", plain_tgm1)):
        spec = PRESETS[name]
        Randomizer(spec, seed=0).batch(1000)  # build the cached history table once

        def all_at_once(spec: object = spec) -> None:
            Randomizer(spec, seed=1).batch(big)

        batch = median_time(all_at_once, 5)

        def one_at_a_time(spec: object = spec) -> None:
            r = Randomizer(spec, seed=1)
            for _ in range(small):
                r._next_entry()

        scalar = median_time(one_at_a_time, 3)
        base = median_time(partial(plain, small), 3)
        rate = big / batch
        rows.append((f"batch generation, {name}", f"{big:,} pieces", f"{rate / 1e6:.2f} M/s",
                     "one-at-a-time path", f"{small / scalar / 1e6:.2f} M/s",
                     f"{rate / (small / scalar):.0f}x"))
        rows.append((f"batch generation, {name}", f"{big:,} pieces", f"{rate / 1e6:.2f} M/s",
                     "plain random.Random loop", f"{small / base / 1e6:.2f} M/s",
                     f"{rate / (small / base):.1f}x"))

    head = ("measured", "input", "median", "baseline", "baseline figure", "ratio")
    widths = [max(len(r[i]) for r in (*rows, head)) for i in range(len(head))]
    line = " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))
    print(line)
    print("-" * len(line))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    main()
