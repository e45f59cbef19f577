"""Benchmark: a game of 500 players and 20 packs with 100 nweeks of votes (3 votes per player per
nweek), ticked from scratch in one catch-up; and the Dealer's Report generation for one nweek.

Run by hand:  .venv/bin/python scripts/bench_tick.py [--players 500] [--packs 20] [--nweeks 100]

Prints one table with SQLite and PostgreSQL figures. Setup (players and 150,000 votes) is timed
separately from the tick.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.report import render_all  # noqa: E402
from nomic_cards.core.services.reports import report_data  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402


class FixedClock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at


def run(url: str, players: int, packs: int, weeks: int) -> dict[str, float]:
    epoch = datetime(2020, 1, 1, tzinfo=UTC)
    clock = FixedClock(epoch)
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    settings = GameSettings(packs=tuple((f"Pack{i}", f"back {i}") for i in range(packs)),
                            epoch=epoch.date(), nweek_days=10)
    game = Nomic(url, clock=clock, settings=settings, create=True)
    api.init_game(game)
    names = [f"player{i:03d}" for i in range(players)]
    for n in names:
        with game.write() as tx:
            api.add_player(tx, n)
    for w in range(weeks):
        rows = [(n, f"P{w}-{v}", epoch + timedelta(days=10 * w + 1 + v, minutes=i))
                for i, n in enumerate(names) for v in range(3)]
        clock.at = max(at for _, _, at in rows)  # a vote is recorded once it has been cast
        with game.write() as tx:
            api.record_votes(tx, rows, source=f"week{w}.csv")
    out["setup"] = time.perf_counter() - t0
    clock.at = epoch + timedelta(days=10 * weeks + 0.5)  # the start of nweek weeks+1 has passed
    t0 = time.perf_counter()
    with game.write() as tx:
        done = api.tick(tx)
    out["tick"] = time.perf_counter() - t0
    out["nweeks"] = len(done)
    out["dealt"] = sum(len(d.dealt) for d in done)
    out["not_dealt"] = sum(len(d.not_dealt) for d in done)
    # report generation for the nweek with the most cards (nweek 2)
    t0 = time.perf_counter()
    with game.read() as tx:
        body = render_all(report_data(tx, tx.state, 2))
    out["report"] = time.perf_counter() - t0
    out["report_lines"] = body["text"].count("\n")
    t0 = time.perf_counter()
    with game.read() as tx:
        report = api.ledger_verify(tx)
    out["verify"] = time.perf_counter() - t0
    out["events"] = report.events
    assert report.ok, report.problems[:5]
    game.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--players", type=int, default=500)
    ap.add_argument("--packs", type=int, default=20)
    ap.add_argument("--nweeks", type=int, default=100)
    ap.add_argument("--skip-pg", action="store_true")
    a = ap.parse_args()
    rows = ["| backend | setup (players + votes) | tick catch-up | nweeks | dealt | not dealt "
            "| report, 1 nweek | ledger verify | events |", "|---" * 9 + "|"]
    backends = ["sqlite"] + ([] if a.skip_pg or pg_unreachable_reason() else ["postgresql"])
    for b in backends:
        if b == "sqlite":
            with tempfile.TemporaryDirectory() as d:
                r = run(f"sqlite:///{d}/bench.db", a.players, a.packs, a.nweeks)
        else:
            url, schema = new_pg_schema_url()
            try:
                r = run(url, a.players, a.packs, a.nweeks)
            finally:
                drop_pg_schema(schema)
        rows.append(f"| {b} | {r['setup']:.2f} s | {r['tick']:.2f} s | {r['nweeks']:.0f} | "
                    f"{r['dealt']:.0f} | {r['not_dealt']:.0f} | {r['report'] * 1000:.1f} ms "
                    f"({r['report_lines']:.0f} lines) | {r['verify']:.2f} s | {r['events']:.0f} |")
    print(f"{a.players} players, {a.packs} packs ({52 * a.packs} cards), {a.nweeks} nweeks, "
          f"3 votes per player per nweek; single run\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
