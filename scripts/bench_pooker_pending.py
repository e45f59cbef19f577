"""Benchmark: what others' pending Pooker trade notifications cost a Player (issue 39, point 8).

Run by hand:  .venv/bin/python scripts/bench_pooker_pending.py [--n 0,100,1000] [--samples 5]
                                                               [--skip-pg]

Each row is a fresh game (Red and Blue bound to Pooker, the trade fee 0) where ``N``
notifications wait, made by other Players: ``N / 10`` Players each leave ten (the default
bound, ``pending-per-player``), each the same trade with the next of them, none naming the
measured Player ``me``. Timed (median and maximum of ``--samples``): one more notification by
``me`` (a whole write: the state loaded, the windows due walked, the event, the projection,
the commit) and one read of ``me``'s view of the games (``GET /api/v1/me/games``'s
``games_for``, in a read of the game). The ``named`` rows are the issue's case: one Player
notifies the same trade naming ``me`` ``N`` times (as many as the bound lets em: the rest is
refused) and ``me`` reads eir view. The ``idle`` rows are the ``others`` rows' games with
nobody notifying: what the Players alone cost (the live state read by every write grows with
them).

Setup is not timed. PostgreSQL: NOMIC_CARDS_TEST_PG (tests/conftest.py), a fresh schema.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Protocol, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomic_cards.cardgames.pooker import rules as pooker  # noqa: E402
from nomic_cards.cards import spoon_card  # noqa: E402
from nomic_cards.core import api  # noqa: E402
from nomic_cards.core.nomic import Nomic  # noqa: E402
from nomic_cards.core.services.player_games import games_for  # noqa: E402
from nomic_cards.core.settings import GameSettings  # noqa: E402
from nomic_cards.errors import RuleViolation  # noqa: E402
from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason  # noqa: E402

T = TypeVar("T")

PER_PLAYER = 10  # notifications each other Player leaves waiting
PACKS = ("Red", "Blue")


class FixedClock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at


def _label(card: int) -> str:
    pack, face = spoon_card(card)
    return f"{PACKS[pack]} {face}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def run(url: str, n: int, samples: int, named: bool, idle: bool = False
        ) -> tuple[int, list[float], list[float]]:
    """(notifications waiting, write times, read times) of one fresh game (``idle``: the
    Players of ``n`` others' rows, none of them notifying)."""
    epoch = datetime(2026, 1, 1, tzinfo=UTC)
    clock = FixedClock(epoch + timedelta(hours=1))
    settings = GameSettings(packs=tuple((p, f"{p} back") for p in PACKS), epoch=epoch.date(),
                            nweek_days=10)
    others = 1 if named else max(2, -(-n // PER_PLAYER))
    with Nomic(url, clock=clock, settings=settings, create=True) as game:
        api.init_game(game)
        names = [f"p{i:03d}" for i in range(others)]
        with game.write() as tx:
            for name in ["me", "you", *names]:
                api.add_player(tx, name)
            api.game_enact(tx, "pooker", ",".join(PACKS), proposal="bench")
            api.game_amend(tx, "pooker", sets=["trade-fee=0"], proposal="bench")
        cards = iter(range(1, 105))
        held = {name: _label(next(cards)) for name in ["me", "you", *names]}
        with game.write() as tx:
            for name, card in held.items():
                api.transfer(tx, card, name, "bench setup", source="deck")
        made = 0
        try:
            while made < n and not idle:
                with game.write() as tx:
                    for _ in range(min(100, n - made)):
                        if named:
                            author, other = names[0], "me"
                        else:
                            i = made // PER_PLAYER
                            author, other = names[i], names[(i + 1) % others]
                        pooker.trade(tx, author, [held[author]], [held[other]], other)
                        made += 1
        except RuleViolation as e:
            print(f"  ({'named' if named else 'others'} N={n}: {made} made, then refused: "
                  f"{e})", file=sys.stderr)
        writes: list[float] = []
        reads: list[float] = []
        for _ in range(samples):
            t = time.perf_counter()
            with game.write() as tx:
                pooker.trade(tx, "me", [held["me"]], [held["you"]], "you")
            writes.append(time.perf_counter() - t)
            t = time.perf_counter()
            with game.read() as r:
                games_for(r, "me")
            reads.append(time.perf_counter() - t)
        return made, writes, reads


class Backend(Protocol):
    """``fn`` run on a fresh database of one backend, given its URL; what it returns."""

    def __call__(self, fn: Callable[[str], T], /) -> T: ...


def _backends(skip_pg: bool) -> list[tuple[str, Backend]]:
    def sqlite(fn: Callable[[str], T]) -> T:
        with tempfile.TemporaryDirectory() as d:
            return fn(f"sqlite:///{d}/bench.db")

    def pg(fn: Callable[[str], T]) -> T:
        url, schema = new_pg_schema_url()
        try:
            return fn(url)
        finally:
            drop_pg_schema(schema)

    out: list[tuple[str, Backend]] = [("SQLite", sqlite)]
    if not skip_pg and pg_unreachable_reason() is None:
        out.append(("PostgreSQL", pg))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="0,100,1000", help="others' N (at most 1,020: one card each)")
    ap.add_argument("--named", default="0,100,1500", help="the named rows' N ('' for none)")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--skip-pg", action="store_true")
    args = ap.parse_args()
    cases = [("idle", int(x)) for x in args.n.split(",") if x] + \
        [("others", int(x)) for x in args.n.split(",") if x] + \
        [("named", int(x)) for x in args.named.split(",") if x]
    print("| backend | case | N asked | N waiting | write median / max (ms) "
          "| read median / max (ms) |")
    print("|---|---|---|---|---|---|")
    for backend, each in _backends(args.skip_pg):
        for case, n in cases:
            made, w, r = each(partial(run, n=n, samples=args.samples, named=case == "named",
                                      idle=case == "idle"))
            print(f"| {backend} | {case} | {n} | {made} | {_ms(statistics.median(w))} / "
                  f"{_ms(max(w))} | {_ms(statistics.median(r))} / {_ms(max(r))} |",
                  flush=True)


if __name__ == "__main__":
    main()
