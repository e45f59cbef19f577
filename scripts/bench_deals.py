"""Benchmark the deal library's far terms against a term-by-term power-series baseline.

Run by hand: ``.venv/bin/python scripts/bench_deals.py [--quick]``. Prints one table: what was
measured, the input, the median of N runs of nomic_cards.deals, the baseline's median in the
same run, and the ratio baseline / ours. The baseline is the straightforward method: expand
P(x)/Q(x) one coefficient at a time, a(n) = p(n) - sum q(i) a(n-i), in pure Python (reducing
modulo p after each term for the modular rows). For n = 10^18 the baseline cannot finish, so it
is timed to 10^6 terms and scaled linearly (marked "extrapolated").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from nomic_cards.deals import generating_function, term

T = TypeVar("T")

P = 1_000_000_007
ORDER_50 = "(" + " or ".join(str(k) for k in range(1, 51)) + ")^?"


def baseline_window(expr: str, n: int, mod: int | None = None) -> int:
    """a(n) by expanding P/Q term by term in pure Python (every earlier term computed),
    keeping a sliding window of the last d terms."""
    gf = generating_function(expr)
    p, q = gf.numerator, gf.denominator
    d = max(len(q) - 1, 1)
    qs = [(i, -c) for i, c in enumerate(q) if i and c]
    window = [0] * d  # window[-i] = a(k - i)
    for k in range(n + 1):
        v = p[k] if k < len(p) else 0
        for i, c in qs:
            v += c * window[-i]
        if mod is not None:
            v %= mod
        window.append(v)
        window.pop(0)
    return window[-1]


def median_time(fn: Callable[[], T], runs: int) -> tuple[float, T]:
    """(median seconds, the last result) of ``runs`` (1 or more) calls of ``fn``."""
    times: list[float] = []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args = parser.parse_args()
    sys.set_int_max_str_digits(0)
    ours_runs, base_runs = (3, 1) if args.quick else (7, 3)
    rows: list[tuple[str, str, float, int, float | None, str, str]] = []

    for label, expr in (("(1 or 2)^? (Fibonacci)", "(1 or 2)^?"),
                        ("(1 or ... or 50)^? (order 50)", ORDER_50),
                        ("(1 or 50)^? (order 50, sparse)", "(1 or 50)^?")):
        n = 100_000
        ours, got = median_time(partial(term, expr, n), ours_runs)
        base, want = median_time(partial(baseline_window, expr, n), base_runs)
        assert got == want, label
        rows.append((f"a(10^5) exact, {label}", f"{int(got).bit_length()}-bit result",
                     ours, ours_runs, base, "<= 1 s", ""))

    for label, expr in (("(1 or 2)^?", "(1 or 2)^?"), ("order-50 deal", ORDER_50)):
        n = 10**18
        ours, got = median_time(partial(term, expr, n, mod=P), ours_runs)
        probe = 10**6
        base, _ = median_time(partial(baseline_window, expr, probe, mod=P), 1)
        scaled = base * (n / probe)
        check_n = 10**5
        assert term(expr, check_n, mod=P) == baseline_window(expr, check_n, mod=P)
        rows.append((f"a(10^18) mod 10^9+7, {label}", "n = 10^18", ours, ours_runs,
                     scaled, "<= 0.1 s", f"  (baseline: {base:.3g} s for 10^6 terms, scaled)"))

    ours, gf = median_time(lambda: generating_function("(1 or 2)^30"), ours_runs)
    rows.append(("exact GF of (1 or 2)^30", "degree 60", ours, ours_runs,
                 None, "-", ""))
    ours, _ = median_time(lambda: term("0^1000000000000000000 (1 or 2)^?", 10**5), ours_runs)
    rows.append(("a(10^5) of 0^10^18 (1 or 2)^?", "0^N for huge N", ours, ours_runs,
                 None, "-", ""))

    print(f"{'measured':<52} {'input':<18} {'median s':>9} {'runs':>4} {'target':>8} "
          f"{'baseline s':>11} {'ratio':>9}")
    for what, size, t, r, b, target, note in rows:
        bs = "-" if b is None else f"{b:.4g}"
        ratio = "-" if b is None else (f"{b / t:.3g}x")
        print(f"{what:<52} {size:<18} {t:>9.5f} {r:>4} {target:>8} {bs:>11} {ratio:>9}{note}")


if __name__ == "__main__":
    main()
