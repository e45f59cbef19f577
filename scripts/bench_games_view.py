"""Benchmark: a player's view of Pooker (``GET /api/v1/me/games``) as eir holdings grow (the
cost of trade notifications with many waiting is ``scripts/bench_pooker_pending.py``'s).

Run by hand, never as a test::

    .venv/bin/python scripts/bench_games_view.py                  # SQLite and PostgreSQL
    .venv/bin/python scripts/bench_games_view.py --sizes 70,104 --no-pg

Rows:

* **view, N PCards**: one read of the view (``games_for``, what the endpoint runs in its read
  transaction) by a player holding N PCards drawn at random from the two packs (fixed seeds),
  after the write that dealt the last card. The first read after a change of the hand and the
  reads after it are timed apart (a design that keeps the arrangement shows the difference).

Each figure is the median (and maximum) over ``--samples`` runs, wall time and processor time
(on a shared machine the processor time is the steadier). Setup is not timed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.services.player_games import games_for  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402

HEADER = ["| row | backend | samples | wall median | wall max | CPU median | CPU max |",
          "|---|---|---|---|---|---|---|"]


class FixedClock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _row(what: str, backend: str, runs: list[tuple[float, float]]) -> str:
    wall, cpu = [w for w, _ in runs], [c for _, c in runs]
    return (f"| {what} | {backend} | {len(runs)} | {_fmt(statistics.median(wall))} | "
            f"{_fmt(max(wall))} | {_fmt(statistics.median(cpu))} | {_fmt(max(cpu))} |")


def new_game(url: str, players: list[str]) -> tuple[Nomic, FixedClock]:
    epoch = datetime(2026, 1, 1, tzinfo=UTC)
    clock = FixedClock(epoch + timedelta(hours=1))
    settings = GameSettings(packs=(("Red", "red"), ("Blue", "blue")), epoch=epoch.date(),
                            nweek_days=10)
    game = Nomic(url, clock=clock, settings=settings, create=True)
    api.init_game(game)
    with game.write() as tx:
        for n in players:
            api.add_player(tx, n)
        api.game_enact(tx, "pooker", "0,1", proposal="bench")
    return game, clock


def bench_view(url: str, backend: str, sizes: list[int], samples: int) -> list[str]:
    rows = []
    game, clock = new_game(url, ["ann"])
    try:
        for n in sizes:
            first, later = [], []
            for i in range(samples):
                hand = random.Random(1000 * n + i).sample(range(1, 105), n)
                with game.write() as tx:
                    for c in api.hand(tx, "ann").cards:
                        api.transfer(tx, str(c.number), "deck", "bench setup")
                    for card in hand:
                        api.transfer(tx, str(card), "ann", "bench setup", source="deck")
                clock.at += timedelta(minutes=1)

                def read() -> None:
                    with game.read() as tx:
                        games_for(tx, "ann")

                first.append(_timed(read))
                later.append(_timed(read))
            rows.append(_row(f"view, {n} PCards: first read after the hand changed", backend,
                             first))
            rows.append(_row(f"view, {n} PCards: the next read", backend, later))
    finally:
        game.close()
    return rows



def memory_of_arrangements(n: int = 103, hands: int = 8) -> str:
    """The memory one kept arrangement takes (tracemalloc: what stays allocated after
    ``hands`` different Hands of ``n`` PCards were arranged), and all that the process keeps at
    most."""
    from nomic_cards.cardgames.pooker import scoring
    from nomic_cards.poker.pookerhands import DEFAULT_SCORES

    table = dict(DEFAULT_SCORES)
    scoring.best_hands(range(1, 105), table)  # the imports (HiGHS), out of the measure
    tracemalloc.start()
    base, kept = tracemalloc.get_traced_memory()[0], scoring.arrangements_kept()
    for i in range(hands):
        scoring.best_hands(random.Random(500 + i).sample(range(1, 105), n), table)
    each = (tracemalloc.get_traced_memory()[0] - base) / (scoring.arrangements_kept() - kept)
    tracemalloc.stop()
    return (f"memory: one kept arrangement of {n} PCards {each / 1024:.1f} KiB; at most "
            f"{scoring.ARRANGEMENTS_KEPT} kept, {each * scoring.ARRANGEMENTS_KEPT / 2**20:.1f} "
            "MiB per process")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="15,30,50,70,104")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--only", choices=("view", "memory"), default=None)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: list[str] = []

    def run(bench: Callable[[str, str], list[str]]) -> None:
        with tempfile.TemporaryDirectory() as d:
            rows.extend(bench(f"sqlite:///{d}/bench.db", "SQLite"))
        if args.no_pg:
            return
        reason = pg_unreachable_reason()
        if reason is not None:
            rows.append(f"| (PostgreSQL skipped: {reason}) |")
            return
        url, schema = new_pg_schema_url()
        try:
            rows.extend(bench(url, "PostgreSQL"))
        finally:
            drop_pg_schema(schema)

    if args.only in (None, "view"):
        run(lambda url, name: bench_view(url, name, sizes, args.samples))
    print("\n".join(HEADER + rows))
    if args.only in (None, "memory"):
        print(memory_of_arrangements())


if __name__ == "__main__":
    main()
