"""Benchmark: a Pooker Showdown of 100 players closed by ``tick`` (issue 24: <= 2 s on SQLite and
PostgreSQL). Every player holds five PCards (ten packs bound to Pooker) and shows them as one
Poker Hand; ``tick`` after the window's end closes the Showdown: every Score by the poker
library, the prize from the Bank, 500 cards back to the Deck, one event.

Run by hand:  .venv/bin/python scripts/bench_pooker_showdown.py [--players 100] [--repeat 3]

Setup (players, cards, the shows) is not timed; the table gives the tick's time, best of
``--repeat`` fresh games. PostgreSQL: NOMIC_CARDS_TEST_PG (tests/conftest.py), a fresh schema.
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

from nomic_cards.cardgames.pooker import rules as pooker  # noqa: E402
from nomic_cards.cardgames.pooker import view as pooker_view  # noqa: E402
from nomic_cards.cards import CARDS_PER_PACK, spoon_card  # noqa: E402
from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402

PACKS = 10


class FixedClock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at


def run(url: str, players: int) -> float:
    epoch = datetime(2026, 1, 1, tzinfo=UTC)
    clock = FixedClock(epoch + timedelta(hours=1))
    settings = GameSettings(packs=tuple((f"P{i}", f"back {i}") for i in range(PACKS)),
                            epoch=epoch.date(), nweek_days=10)
    with Nomic(url, clock=clock, settings=settings, create=True) as game:
        api.init_game(game)
        names = [f"player{i:03d}" for i in range(players)]
        for n in names:
            with game.write() as tx:
                api.add_player(tx, n)
        with game.write() as tx:
            api.game_enact(tx, "pooker", ",".join(str(i) for i in range(PACKS)),
                                proposal="bench")
        cards = iter(range(1, PACKS * CARDS_PER_PACK + 1))
        hands = {}
        for n in names:
            hands[n] = [next(cards) for _ in range(5)]
            for c in hands[n]:
                with game.write() as tx:
                    api.transfer(tx, str(c), n, "bench setup", source="deck")
        with game.write() as tx:
            api.game_amend(tx, "pooker", sets=["show-days=1"], proposal="bench")
            pooker.showdown_open(tx, motion_passed="bench")
        for n in names:
            labels = [f"P{spoon_card(c)[0]} {spoon_card(c)[1]}" for c in hands[n]]
            with game.write() as tx:
                pooker.show(tx, n, [",".join(labels)])
        clock.at = epoch + timedelta(days=2.5)
        t0 = time.perf_counter()
        with game.write() as tx:
            api.tick(tx)
        took = time.perf_counter() - t0
        with game.read() as tx:
            last = pooker_view.status(tx).last
        assert last is not None and len(last["scores"]) == players
        return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        best = min(run(f"sqlite:///{Path(tmp) / f'b{i}.db'}", args.players)
                   for i in range(args.repeat))
        rows.append(("SQLite", best))
    reason = pg_unreachable_reason()
    if reason is None:
        times = []
        for _ in range(args.repeat):
            url, schema = new_pg_schema_url()
            try:
                times.append(run(url, args.players))
            finally:
                drop_pg_schema(schema)
        rows.append(("PostgreSQL", min(times)))
    else:
        rows.append((f"PostgreSQL (skipped: {reason})", float("nan")))
    print(f"| showdown of {args.players} players closed by tick | seconds (best of "
          f"{args.repeat}) |")
    print("|---|---|")
    for name, took in rows:
        print(f"| {name} | {took:.3f} |")


if __name__ == "__main__":
    main()
