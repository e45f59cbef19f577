"""Benchmark: the CPU time of one server action and of one ``/me/hand`` read, in process.

Run by hand:

    .venv/bin/python scripts/bench_actions.py [--actions 300] [--skip-pg] [--profile]

The game of ``scripts/bench_server.py`` (20 packs, 200 players holding 1,000 cards, a token
each) on each backend; then, on a server's Game (``Game(server=True)``), ``--actions`` votes
recorded one after another as ``POST /api/v1/me/actions`` records them (the officer token
checked and the ``Idempotency-Key`` looked up, then
:func:`~nomic_cards.core.services.acting.perform` of ``cards.vote``, each with its own key),
every tenth one after a deal made by another Game on the same database (as the command line
would), and as many ``/me/hand`` reads (:func:`~nomic_cards.core.services.public.
hand_for_token`). Prints the CPU time of this process (``time.process_time``: the database
server's own work is not in it) and the wall time per call, and with ``--profile`` the
functions that took the most of the actions' time. Afterwards every vote is checked to be in
the ledger once, and ``ledger verify`` to pass. Runs on older code too (``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.actions import registry  # noqa: E402
from nomic_cards.core.game import Game  # noqa: E402
from nomic_cards.core.services import acting, live, public  # noqa: E402
from scripts.bench_server import PLAYERS, dealer_token, setup  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402


def _caller(game: Game, token: str, key: str) -> Any:
    """What the server passes to ``perform``: the token's caller with the key looked up (the
    code before ``caller_for_token``: the token's viewer, and ``perform`` reads the key)."""
    if hasattr(acting, "caller_for_token"):
        return acting.caller_for_token(game, token, key)
    return live.viewer_for_token(game, token)


def run(name: str, url: str, count: int, profile: bool) -> list[str]:
    t0 = time.perf_counter()
    tokens, _middle = setup(url)
    made = time.perf_counter() - t0
    officer = dealer_token(url)
    actions = registry()
    rows = []
    with Game(url, server=True) as game, Game(url, actor="bench-cli") as other:
        viewer = live.viewer_for_token(game, officer)
        assert viewer is not None
        # warm up: the first write loads the state, the first reads open the pool
        acting.perform(game, viewer, {"action": "cards.vote", "player": "player000",
                                      "proposal": "warm"}, actions=actions, key="warm")
        prof = cProfile.Profile() if profile else None
        cpu, wall = time.process_time(), time.perf_counter()
        if prof is not None:
            prof.enable()
        for i in range(count):
            if i % 10 == 9:
                api.deal(other, f"player{i % PLAYERS:03d}", source="system")
            body = {"action": "cards.vote", "player": f"player{i % PLAYERS:03d}",
                    "proposal": f"B{i}"}
            answer = acting.perform(game, _caller(game, officer, f"k{i}"), body,
                                    actions=actions, key=f"k{i}")
            assert answer.status == 201, answer
        if prof is not None:
            prof.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rows.append(f"| {name} | `cards.vote` through `acting.perform` ({count}, a CLI deal "
                    f"every 10) | {cpu / count * 1000:.2f} | {wall / count * 1000:.2f} |")
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(count):
            assert public.hand_for_token(game, tokens[i % len(tokens)]) is not None
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rows.append(f"| {name} | `/me/hand`'s read (`public.hand_for_token`) | "
                    f"{cpu / count * 1000:.2f} | {wall / count * 1000:.2f} |")
        with game.read() as r:
            votes = [v for v in r.full_state().votes if v.proposal.startswith("B")]
        assert len(votes) == count and len({v.proposal for v in votes}) == count, len(votes)
        report = api.ledger_verify(other)
        assert report.ok, report
    if prof is not None:
        print(f"--- {name}: the actions' profile (cumulative) ---")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    rows.append(f"<!-- {name}: setup {made:.1f} s -->")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--actions", type=int, default=300)
    ap.add_argument("--skip-pg", action="store_true")
    ap.add_argument("--skip-sqlite", action="store_true")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    rows = ["| backend | what | CPU ms per call (this process) | wall ms per call |",
            "|---|---|---|---|"]
    if not a.skip_sqlite:
        with tempfile.TemporaryDirectory() as d:
            rows += run("SQLite", f"sqlite:///{d}/bench.db", a.actions, a.profile)
    if not a.skip_pg and pg_unreachable_reason() is None:
        url, schema = new_pg_schema_url()
        try:
            rows += run("PostgreSQL", url, a.actions, a.profile)
        finally:
            drop_pg_schema(schema)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f}\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
