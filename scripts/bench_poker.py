"""Benchmark nomic_cards.poker against phevaluator, eval7, treys, deuces and pokerkit.

Run by hand, never as a test. The peers live in the benchmark's own environment, never in the
project's dependencies::

    python3 -m venv /work/benchenv-poker
    /work/benchenv-poker/bin/pip install phevaluator==0.6.0 eval7==0.1.11 treys==0.1.8 \\
        deuces==0.2.1 pokerkit==0.7.7 numpy
    /work/benchenv-poker/bin/pip install -e .
    /work/benchenv-poker/bin/python scripts/bench_poker.py        # --quick for a smoke run

Everyone evaluates the same seeded random hands (seed 2024), converted beforehand into each
library's own cards (conversion is not timed). Every timed measurement runs once per round,
rounds interleaved (each round runs all of them in turn), and the table shows the median over
the rounds. For every row the table names the fastest peer through its public API and the
fastest through a private core (phevaluator's C functions ``_pheval.evaluate_Ncards``, treys' and
deuces' ``Evaluator._five/_six/_seven``, pokerkit's ``StandardLookup.get_entry``) and gives the
ratio: the peer's cost over ours, so above 1 means nomic_cards is ahead. Peers have no batch
API: for batches they run their per-hand call over the same hands (phevaluator's core mapped
over int columns into an int16 array is the fastest).

Cold start is a fresh process importing the library and evaluating one 7-card hand, with
bytecode cached as after ``pip install`` (an untimed first run writes it). Memory is what
evaluating a batch of 7-card hands adds once the library is imported and the hands are in
memory: tracemalloc's peak and the growth of the resident set, in a fresh process. Before
timing, every peer's ranking of 5,000 5-card and 5,000 7-card hands is checked against ours.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from nomic_cards.poker import evaluate, evaluate_batch, table  # noqa: E402
from nomic_cards.poker.evaluate import pure_evaluate  # noqa: E402

RANKS, SUITS = "23456789TJQKA", "shdc"  # Ness order of suits
SEED = 2024
HAND7 = [48, 12, 33, 7, 20, 51, 2]  # the cold-start hand: Jc As 9d 9s 9h Ac 4s


def text(code: int) -> str:
    return RANKS[code % 13] + SUITS[code // 13]


def random_hands(n: int, k: int, seed: int = SEED) -> np.ndarray:
    rng = np.random.default_rng([seed, k, n])
    block = 10_000  # small blocks keep the generator's own memory out of the memory probe
    return np.concatenate([rng.random((min(block, n - i), 52)).argpartition(k, axis=1)[:, :k]
                           for i in range(0, n, block)]).astype(np.uint8)


class Call(Protocol):
    """A peer's call on one converted hand. (A protocol rather than ``Callable[[Any], Any]``:
    mypy cannot infer a lambda that binds a loop variable as a default parameter in the context
    of a ``Callable`` of fewer parameters; it infers it alone and checks it against a
    protocol.)"""

    def __call__(self, hand: Any, /) -> Any: ...


class Timed(Protocol):
    """What a row times: one call, every argument bound (a protocol for the reason of
    :class:`Call`)."""

    def __call__(self) -> object: ...


class Peer:
    """One way a peer evaluates a hand: how to convert it, and the call."""

    def __init__(self, name: str, kind: str, convert: Callable[[list[int]], Any],
                 call: Call, higher_is_better: bool, sizes: tuple[int, ...],
                 limit: int | None = None) -> None:
        self.name, self.kind, self.convert, self.call = name, kind, convert, call
        self.higher_is_better, self.sizes, self.limit = higher_is_better, sizes, limit


def peers() -> list[Peer]:
    out: list[Peer] = []
    try:
        from phevaluator import _pheval, evaluate_cards

        ph = [(c % 13) * 4 + "cdhs".index(SUITS[c // 13]) for c in range(52)]
        out.append(Peer("phevaluator", "public", lambda h: [ph[c] for c in h],
                        lambda h: evaluate_cards(*h), False, (5, 6, 7)))
        for k in (5, 6, 7):
            f = getattr(_pheval, f"evaluate_{k}cards")
            out.append(Peer("phevaluator _pheval", "core", lambda h: tuple(ph[c] for c in h),
                            lambda h, f=f: f(*h), False, (k,)))
    except ImportError:
        pass
    try:
        import eval7

        e7 = [eval7.Card(text(c)) for c in range(52)]
        out.append(Peer("eval7", "public", lambda h: [e7[c] for c in h], eval7.evaluate, True,
                        (5, 6, 7)))
    except ImportError:
        pass
    for lib in ("treys", "deuces"):
        try:
            mod = __import__(lib)
        except ImportError:
            continue
        ev = mod.Evaluator()
        cards = [mod.Card.new(text(c)) for c in range(52)]
        def conv(h: list[int], cards: list[Any] = cards) -> list[Any]:
            return [cards[c] for c in h]

        out.append(Peer(lib, "public", conv, lambda h, ev=ev: ev.evaluate(h, []), False,
                        (5, 6, 7), limit=20_000))
        for k, core in ((5, ev._five), (6, ev._six), (7, ev._seven)):
            out.append(Peer(f"{lib} Evaluator._{('five', 'six', 'seven')[k - 5]}", "core", conv,
                            core, False, (k,), limit=20_000))
    try:
        from pokerkit import Card, StandardHighHand

        pk = [next(iter(Card.parse(text(c)))) for c in range(52)]

        def pk_conv(h: list[int]) -> tuple[Any, ...]:
            return tuple(pk[c] for c in h)

        out.append(Peer("pokerkit", "public", pk_conv, StandardHighHand.from_game, True, (5, 6, 7),
                        limit=2_000))
        out.append(Peer("pokerkit StandardLookup.get_entry", "core", pk_conv,
                        StandardHighHand.lookup.get_entry, True, (5,), limit=20_000))
    except ImportError:
        pass
    return out


def our_value(hand: list[int]) -> int:
    """The value of a hand of 5 to 7 cards (the high game has one for every such hand)."""
    hv = evaluate(hand)
    if hv is None:
        raise ValueError(f"no value for the hand {hand}")
    return hv.v


def check_agreement(ps: list[Peer], k: int) -> None:
    """Sort 5,000 hands by our value; each peer must order every neighbouring pair the same way
    (better, equal, worse)."""
    sample = random_hands(5000, k, SEED + 1).tolist()
    ours = [our_value(h) for h in sample]
    order = sorted(range(len(sample)), key=ours.__getitem__)
    for p in ps:
        if k not in p.sizes:
            continue
        theirs = [p.call(p.convert(h)) for h in sample]
        ok = True
        for i, j in zip(order, order[1:], strict=False):
            x, y = (theirs[i], theirs[j]) if p.higher_is_better else (theirs[j], theirs[i])
            ok &= (ours[i] < ours[j]) == (x < y) and (ours[i] == ours[j]) == (x == y)
        print(f"  {k}-card ranking agrees with {p.name}: {ok}", file=sys.stderr)


class Bench:
    """Timed measurements, run in interleaved rounds."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[str, str, int, Timed]]] = {}
        self.times: dict[tuple[str, str], list[float]] = {}

    def add(self, row: str, kind: str, name: str, size: int, fn: Timed) -> None:
        self.rows.setdefault(row, []).append((kind, name, size, fn))

    def run(self, rounds: int) -> None:
        for r in range(rounds):
            print(f"round {r + 1}/{rounds}", file=sys.stderr)
            for row, items in self.rows.items():
                for _kind, name, _size, fn in items:
                    t0 = time.perf_counter()
                    fn()
                    self.times.setdefault((row, name), []).append(time.perf_counter() - t0)

    def results(self) -> list[tuple[str, str, str, int, float]]:
        """(row, kind, name, size, median seconds per item)."""
        return [(row, kind, name, size, statistics.median(self.times[row, name]) / size)
                for row, items in self.rows.items() for kind, name, size, _ in items]


def single_rows(bench: Bench, ps: list[Peer], n: int) -> None:
    for k in (5, 6, 7):
        listed = random_hands(n, k).tolist()
        [pure_evaluate(h) for h in listed]  # load the table pieces outside the timing
        row = f"single {k}-card hand"
        bench.add(row, "ours", "evaluate", n, lambda h=listed: [evaluate(x) for x in h])
        if pure_evaluate is not evaluate:  # the compiled accelerator is built: time both
            bench.add(row, "ours", "pure Python", n,
                      lambda h=listed: [pure_evaluate(x) for x in h])
        for p in ps:
            if k in p.sizes:
                m = min(n, p.limit or n)
                conv = [p.convert(h) for h in listed[:m]]
                bench.add(row, p.kind, p.name, m, lambda c=conv, f=p.call: [f(x) for x in c])
    for k, wild, label in ((5, "deuces", "deuces wild"), (7, "deuces", "deuces wild"),
                           (7, None, "with a joker")):
        listed = random_hands(n, k).tolist()
        if wild is None:
            listed = [[52, *h[1:]] for h in listed]
        [pure_evaluate(h, wild=wild) for h in listed]
        bench.add(f"single {k}-card hand, {label}", "ours", "evaluate", n,
                  lambda h=listed, w=wild: [evaluate(x, wild=w) for x in h])


def batch_rows(bench: Bench, sizes: tuple[int, ...]) -> None:
    try:
        import eval7
        from phevaluator import _pheval
    except ImportError:
        return
    ph = np.array([(c % 13) * 4 + "cdhs".index(SUITS[c // 13]) for c in range(52)])
    e7 = [eval7.Card(text(c)) for c in range(52)]
    for n in sizes:
        for k in (5, 7):
            hands = random_hands(n, k)
            evaluate_batch(hands[:10])
            row = f"batch {k}-card, {n:,} hands"
            bench.add(row, "ours", "evaluate_batch", n, lambda h=hands: evaluate_batch(h))
            cols = [ph[hands[:, i]].tolist() for i in range(k)]
            core = getattr(_pheval, f"evaluate_{k}cards")
            bench.add(row, "core", "phevaluator _pheval (map)", n,
                      lambda c=cols, f=core, n=n: np.fromiter(map(f, *c), np.int16, count=n))
            conv = [[e7[c] for c in h] for h in hands.tolist()]
            bench.add(row, "public", "eval7", n, lambda c=conv: [eval7.evaluate(x) for x in c])
            bench.add(f"batch {k}-card, {n:,} hands, deuces wild", "ours", "evaluate_batch", n,
                      lambda h=hands: evaluate_batch(h, wild="deuces"))


def table_rows(bench: Bench) -> None:
    from nomic_cards.poker.counting import all_hands

    for label, wild, jokers in (("standard", None, 0), ("deuces wild", "deuces", 0),
                                ("2 jokers + deuces", "deuces", 2)):
        table(wild=wild, jokers=jokers)
        size = 2_598_960 if jokers == 0 else 3_162_510
        bench.add(f"table by enumeration, {label}", "ours", "table (warm)", size,
                  lambda w=wild, j=jokers: table(wild=w, jokers=j))
    try:
        from phevaluator import _pheval
    except ImportError:
        return
    every = np.stack(all_hands(), axis=1)
    ph = np.array([(c % 13) * 4 + "cdhs".index(SUITS[c // 13]) for c in range(52)])
    cols = [ph[every[:, i]].tolist() for i in range(5)]
    bench.add("table by enumeration, standard", "core", "phevaluator _pheval (count)",
              len(every), lambda: np.bincount(np.fromiter(map(_pheval.evaluate_5cards, *cols),
                                                          np.int16, count=len(every))))


COLD = {
    "python alone": "pass",
    "evaluate": ("from nomic_cards.poker import evaluate\n"
                 f"evaluate({HAND7})"),
    "phevaluator": "from phevaluator import evaluate_cards\n"
                   f"evaluate_cards(*{[text(c) for c in HAND7]})",
    "eval7": f"import eval7\neval7.evaluate([eval7.Card(c) for c in {[text(c) for c in HAND7]}])",
    "treys": "from treys import Card, Evaluator\n"
             f"Evaluator().evaluate([Card.new(c) for c in {[text(c) for c in HAND7]}], [])",
    "deuces": "from deuces import Card, Evaluator\n"
              f"Evaluator().evaluate([Card.new(c) for c in {[text(c) for c in HAND7]}], [])",
    "pokerkit": f"from pokerkit import StandardHighHand\n"
                f"StandardHighHand.from_game({''.join(text(c) for c in HAND7)!r})",
    "table (first call)": "from nomic_cards.poker import table\ntable()",
}


def cold_start(rounds: int) -> dict[str, float]:
    """Median wall time (s) of a fresh process importing the library and evaluating one hand.

    As after ``pip install``, which compiles every module: bytecode may be written and read
    (``PYTHONDONTWRITEBYTECODE`` is dropped), and an untimed first round writes it.
    """
    times: dict[str, list[float]] = {name: [] for name in COLD}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    for code in COLD.values():
        subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)
    for _ in range(rounds):
        for name, code in COLD.items():
            t0 = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)
            if done.returncode == 0:
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(t) for name, t in times.items() if t}


MEMORY_PROBE = """
import sys, tracemalloc
import numpy as np
sys.path.insert(0, {root!r})
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
hands = np.load({path!r})
{prepare}
base = rss()
tracemalloc.start()
{run}
peak = tracemalloc.get_traced_memory()[1]
print(peak / 1e6, (rss() - base) / 1e6)
"""
MEMORY = {
    "evaluate_batch": ("from nomic_cards.poker import evaluate_batch",
                       "v = evaluate_batch(hands)"),
    "phevaluator _pheval (map)": (
        "from phevaluator import _pheval\n"
        "ph = np.array([(c % 13) * 4 + 'cdhs'.index('shdc'[c // 13]) for c in range(52)])\n"
        "cols = [ph[hands[:, i]].tolist() for i in range(7)]",
        "v = np.fromiter(map(_pheval.evaluate_7cards, *cols), np.int16, count=len(hands))"),
}


def memory(n: int) -> dict[str, tuple[float, float]]:
    """MB that evaluating ``n`` 7-card hands adds once the library is imported and the hands are
    in memory, in a fresh process: (tracemalloc's peak, the growth of the resident set from
    before to after, the result included)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "hands.npy")
        np.save(path, random_hands(n, 7))
        for name, (prepare, run) in MEMORY.items():
            code = MEMORY_PROBE.format(root=str(ROOT), path=path, prepare=prepare, run=run)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if done.returncode == 0:
                traced, rss = map(float, done.stdout.split())
                out[name] = (traced, rss)
    return out


def _best(items: list[tuple[str, float]]) -> tuple[str, float] | None:
    return min(items, key=lambda x: x[1]) if items else None


def _line(what: str, ours: str, peers: list[tuple[str, float] | None], ours_cost: float,
          fmt: Callable[[float], str]) -> str:
    cells = []
    for peer, width in zip(peers, (34, 42), strict=True):
        if peer is None:
            cells.append(f"{'-':>{width}} {'':>6}")
        else:
            cells.append(f"{peer[0] + ' ' + fmt(peer[1]):>{width}} {peer[1] / ours_cost:>6.2f}")
    return f"{what:<44} {ours:>12} {cells[0]} {cells[1]}"


def print_table(results: list[tuple[str, str, str, int, float]], cold: dict[str, float],
                mem: dict[str, tuple[float, float]], mem_n: int,
                load: tuple[float, float]) -> None:
    head = (f"{'measurement':<44} {'nomic_cards':>12} {'fastest peer, public API':>34} "
            f"{'ratio':>6} {'fastest peer, private core':>42} {'ratio':>6}")
    print(head)
    print("-" * len(head))
    rows: dict[str, list[tuple[str, str, float]]] = {}
    for row, kind, name, _size, per in results:
        rows.setdefault(row, []).append((kind, name, per))

    def rate(s: float) -> str:
        return f"{1 / s / 1e6:.2f} M/s"

    for row, items in rows.items():
        pub = _best([(n, p) for k, n, p in items if k == "public"])
        core = _best([(n, p) for k, n, p in items if k == "core"])
        for i, (_, name, ours) in enumerate(x for x in items if x[0] == "ours"):
            what = row if i == 0 else f"  the same, {name}"
            print(_line(what, rate(ours), [pub, core], ours, rate))

    def ms(s: float) -> str:
        return f"{s * 1e3:.0f} ms"

    if "evaluate" in cold:
        pub = _best([(n, t) for n, t in cold.items()
                     if n not in ("evaluate", "python alone", "table (first call)")])
        print(_line("cold start: import, one 7-card hand", ms(cold["evaluate"]), [pub, None],
                    cold["evaluate"], ms))
        print(f"{'  (python alone)':<44} {ms(cold['python alone']):>12}")
    if "table (first call)" in cold:
        print(f"{'cold start: import, table()':<44} {ms(cold['table (first call)']):>12}")

    def mb(x: float) -> str:
        return f"{x:.1f} MB"

    if "evaluate_batch" in mem:
        traced, rss = mem["evaluate_batch"]
        others = [(n, v) for n, v in mem.items() if n != "evaluate_batch"]
        print(_line(f"memory: {mem_n:,} 7-card hands, traced", mb(traced),
                    [None, _best([(n, t) for n, (t, _) in others])], traced, mb))
        print(_line("  the same, resident set growth", mb(rss),
                    [None, _best([(n, r) for n, (_, r) in others])], max(rss, 0.1), mb))
    print("\nratio = the peer's time per hand (or ms, MB) over ours: above 1, nomic_cards is "
          "ahead. Medians of interleaved rounds; the log on stderr has every figure.")
    kind = "the compiled accelerator" if pure_evaluate is not evaluate else "pure Python"
    print(f"evaluate is {kind} here; 'pure Python' rows time the pure-Python path. "
          f"Load average (1 min) at the start / end: {load[0]:.2f} / {load[1]:.2f}.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands per single-hand row")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="20,000 hands, 1 round, batches of 100,000, no tables")
    args = parser.parse_args()
    n, rounds = (20_000, 1) if args.quick else (args.hands, args.rounds)
    batch_sizes = (100_000,) if args.quick else (200_000, 1_000_000)
    load_start = os.getloadavg()[0]
    ps = peers()
    print(f"peers: {', '.join(sorted({p.name for p in ps})) or 'none installed'}",
          file=sys.stderr)
    for k in (5, 7):
        check_agreement(ps, k)
    bench = Bench()
    single_rows(bench, ps, n)
    batch_rows(bench, batch_sizes)
    if not args.quick:
        table_rows(bench)
    bench.run(rounds)
    for row, kind, name, size, per in bench.results():
        print(f"  {row:<44} {kind:<6} {name:<36} {size:>9} {1 / per:>14,.0f} /s",
              file=sys.stderr)
    cold = cold_start(max(rounds, 5))
    print("  cold start (ms): " + ", ".join(f"{k} {v * 1e3:.0f}" for k, v in cold.items()),
          file=sys.stderr)
    mem_n = batch_sizes[-1]
    mem = memory(mem_n)
    print_table(bench.results(), cold, mem, mem_n, (load_start, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
