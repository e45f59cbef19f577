"""Benchmark: deal all 208 cards of a 4-pack game (every reroll included), then verify; and
replay and verify a 10,000-event ledger with 20 rule changes against the same ledger with none.

Run by hand:  .venv/bin/python scripts/bench_ledger.py [--runs N] [--pg URL] [--rules-only]

Each deal is its own unit of work (one transaction, as `nomic-cards deal` does), with the
committed-seed die. Prints one table: median of N runs on SQLite and PostgreSQL, and the start-up
time of `nomic-cards --help`.

The rules case builds, on SQLite, two ledgers of 10,000 events each (votes recorded one per
event, e-mail addresses set): one where 20 of the events are rule changes (rule 9's cards per
voter and rule 8's reports every N nweeks amended, rule 9 repealed and enacted again, rule 8
amended to version 2), the other with 20 more votes instead; then times ``ledger verify``
(chain, replay, tables compared) and the bare replay of each, alternating the two, and prints
the medians and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from datetime import UTC, datetime, timedelta  # noqa: E402

from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.clock import FixedClock  # noqa: E402
from nomic_cards.core.ledger.events import (  # noqa: E402
    Event,
    PlayerEmailSet,
    RuleAmended,
    RuleEnacted,
    RuleRepealed,
    VoteEntry,
    VotesRecorded,
)
from nomic_cards.core.ledger.replay import replay  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402


def one_run(url: str) -> tuple[float, int, int, float, int]:
    game = Nomic(url, create=True)
    api.init_game(game)
    with game.write() as tx:
        api.add_player(tx, "alice")
        api.add_player(tx, "bob")
    rolls = deals = 0
    t0 = time.perf_counter()
    for i in range(208):
        with game.write() as tx:
            r = api.deal(tx, "alice" if i % 2 else "bob")
        rolls += len(r.rolls)
        deals += 1
    deal_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    with game.read() as tx:
        report = api.ledger_verify(tx)
    verify_s = time.perf_counter() - t0
    assert report.ok, report.problems
    game.close()
    return deal_s, deals, rolls, verify_s, report.events


def bench_backend(name: str, runs: int) -> list[str]:
    results = []
    for _ in range(runs):
        if name == "sqlite":
            with tempfile.TemporaryDirectory() as d:
                results.append(one_run(f"sqlite:///{d}/bench.db"))
        else:
            url, schema = new_pg_schema_url()
            try:
                results.append(one_run(url))
            finally:
                drop_pg_schema(schema)
    deal_s = statistics.median(r[0] for r in results)
    rolls = statistics.median(r[2] for r in results)
    verify_s = statistics.median(r[3] for r in results)
    return [
        f"| {name} | deal 208 cards (1 tx each) | {deal_s:.3f} s | {208 / deal_s:,.0f} deals/s | "
        f"{rolls / deal_s:,.0f} rolls/s (median {rolls:.0f} rolls) |",
        f"| {name} | ledger verify ({results[0][4]} events) | {verify_s:.3f} s | | |",
    ]


RULE_CHANGES = 20
LEDGER_EVENTS = 10_000


def _rule_change(i: int) -> Event:
    """The i-th of the rule changes: amendments, with a repeal and an enactment of rule 9, and
    the last one rule 8's version 2."""
    if i == RULE_CHANGES - 1:
        return RuleAmended("report", {}, 2, f"Proposal {i}")
    if i % 5 == 3:
        return RuleRepealed("cards-for-votes", f"Proposal {i}")
    if i % 5 == 4:
        return RuleEnacted("cards-for-votes", 1, {"cards": 1 + i % 3}, f"Proposal {i}")
    if i % 2:
        return RuleAmended("report", {"every": 1 + i % 4}, None, f"Proposal {i}")
    return RuleAmended("cards-for-votes", {"cards": 2 + i % 5}, None, f"Proposal {i}")


def build_ledger(url: str, *, rules: bool) -> int:
    """A game of ``LEDGER_EVENTS`` events (``RULE_CHANGES`` of them rule changes if ``rules``)."""
    start = datetime(2026, 1, 1, 12, tzinfo=UTC)
    game = Nomic(url, create=True, clock=FixedClock(start),
                settings=GameSettings(epoch=start.date()))
    api.init_game(game)
    for name in ("alice", "bob"):
        with game.write() as tx:
            api.add_player(tx, name)
    with game.read() as unit:
        have = unit.state.seq
    todo = LEDGER_EVENTS - have
    every = todo // (RULE_CHANGES + 1) if rules else 0
    made = changes = 0
    while made < todo:
        with game.write() as tx:
            batch: list[Event] = []
            while made < todo and len(batch) < 500:
                if rules and changes < RULE_CHANGES and made and made % every == 0:
                    batch.append(_rule_change(changes))
                    changes += 1
                elif made % 3 == 2:
                    batch.append(PlayerEmailSet("alice", f"a{made}@example.org"))
                else:
                    batch.append(VotesRecorded((VoteEntry(
                        "bob", f"P{made}", start - timedelta(seconds=made)),), "bench"))
                made += 1
            tx.record(batch)
    assert changes == (RULE_CHANGES if rules else 0), changes
    game.close()
    return have + made


def bench_rules(runs: int) -> list[str]:
    """Verify and replay a 10,000-event ledger with 20 rule changes and one with none."""
    with tempfile.TemporaryDirectory() as d:
        urls = {False: f"sqlite:///{d}/none.db", True: f"sqlite:///{d}/rules.db"}
        sizes = {k: build_ledger(u, rules=k) for k, u in urls.items()}
        verify: dict[bool, list[float]] = {False: [], True: []}
        fold: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(runs):
            for k, u in urls.items():
                with Nomic(u) as game:
                    t0 = time.perf_counter()
                    with game.read() as tx:
                        report = api.ledger_verify(tx)
                    verify[k].append(time.perf_counter() - t0)
                    assert report.ok, report.problems
                    with game.read() as unit:
                        records = list(unit.events())
                    t0 = time.perf_counter()
                    replay(records)
                    fold[k].append(time.perf_counter() - t0)
    rows = []
    for what, times in (("ledger verify", verify), ("replay (the fold alone)", fold)):
        none, some = statistics.median(times[False]), statistics.median(times[True])
        rows.append(f"| sqlite | {what}, {sizes[False]:,} events, no rule change | "
                    f"{none:.3f} s | | |")
        rows.append(f"| sqlite | {what}, {sizes[True]:,} events, {RULE_CHANGES} rule changes | "
                    f"{some:.3f} s | | {some / none:.2f} x the ledger without |")
    return rows


def bench_help(runs: int) -> str:
    exe = Path(sys.executable).with_name("nomic-cards")
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([str(exe), "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return f"| - | `nomic-cards --help` start-up | {statistics.median(times):.3f} s | | |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules-only", action="store_true",
                    help="only the 10,000-event ledger with and without rule changes")
    ap.add_argument("--pg", default=None, help="PostgreSQL URL (default: NOMIC_CARDS_TEST_PG or "
                                               "the local server)")
    args = ap.parse_args()
    if args.pg:
        os.environ["NOMIC_CARDS_TEST_PG"] = args.pg
    rows = ["| backend | what | median time | rate | notes |", "|---|---|---|---|---|"]
    if args.rules_only:
        print(f"median of {args.runs} runs\n")
        print("\n".join(rows + bench_rules(args.runs)))
        return
    rows += bench_backend("sqlite", args.runs)
    reason = pg_unreachable_reason()
    if reason is None:
        rows += bench_backend("postgresql", args.runs)
    else:
        rows.append(f"| postgresql | skipped: {reason} | | | |")
    rows += bench_rules(args.runs)
    rows.append(bench_help(max(args.runs, 10)))
    print(f"median of {args.runs} runs; 4 packs, 208 cards, committed-seed die\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
