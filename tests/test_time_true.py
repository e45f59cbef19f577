"""Time-true: what the ledger says happened must not depend on when cron ran ``tick``.

Random histories -- votes, late votes, players retiring and rejoining, Dealer elections, packs
added and retired, deals, transfers, the Clock stopped and started, rule changes (Cards for
Votes dealing more or fewer cards, owing the Dealer's and the retired voters' cards later or
not, repealed and enacted again; the nweek's length; reports every few nweeks, in version 1 or
2, repealed and enacted again) -- are played twice on fresh games: once
with ``tick`` at every nweek boundary (cron on time), once with ``tick`` only at the end (cron
down the whole time; every command then does the boundary work first, as of its boundary). The
dice seeds and the nonces of the private parts are drawn from the same fixed stream in both
runs, so the two ledgers must be the same event for event, hash for hash -- and with them the
recipients of Cards for Votes, every Dealer's Report and every Hand. On SQLite and PostgreSQL.

The dice seed of each period is fixed by the period's number in both runs (a command that fails
rolls back whatever it opened, so a stream of seeds would drift). The salted commitments to the
private parts use fresh nonces, so the two ledgers are compared event for event on everything
but the nonces and the hashes that cover them: sequence, time, actor, kind, subject, public
payload and private payload.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nomic_cards.core import api
from nomic_cards.core.ledger.events import parse_time
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import dice as dice_services
from nomic_cards.core.services import players as _players  # noqa: F401 - holds open_period
from nomic_cards.core.services import time as _time  # noqa: F401 - holds open_period
from nomic_cards.core.services.players import retire_pack
from nomic_cards.errors import NomicCardsError
from tests.conftest import _require_pg, drop_pg_schema, new_pg_schema_url
from tests.helpers import new_game

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

if TYPE_CHECKING:
    from nomic_cards.core.store.writes import Tx

EPOCH = date(2026, 1, 1)
ORIGIN = datetime(2026, 1, 1, tzinfo=UTC)
NWEEK_DAYS = 3
PLAYERS = ("ann", "ben", "cat", "dan")
KINDS = ("vote", "vote", "vote", "late vote", "late vote", "retire", "rejoin", "elect", "pack",
         "deal", "deal", "transfer", "transfer", "stop", "start", "cards", "cards", "days",
         "repeal 9", "enact 9", "every", "repeal 8", "enact 8", "absent", "absent",
         "retire pack", "report version")

#: one step of a history: hours after the previous step, what happens, to whom, a free number
Step = tuple[int, str, int, int]
histories = st.lists(st.tuples(st.integers(1, 60), st.sampled_from(KINDS),
                               st.integers(0, len(PLAYERS) - 1), st.integers(0, 10**6)),
                     min_size=4, max_size=24)


@dataclass(frozen=True)
class Outcome:
    """What a game's ledger holds after a history, and what each step answered."""

    answers: tuple[str, ...]
    events: tuple[tuple[Any, ...], ...]
    hands: dict[str, list[int]]
    reports: dict[int, str]
    dealt_for_votes: tuple[tuple[int, tuple[str, ...]], ...]


@contextmanager
def fixed_seeds() -> Iterator[None]:
    """Each dice period's seed fixed by its number, the same in every run: ``open_period`` is
    replaced in every module that holds it (whichever imported it first)."""
    real = dice_services.open_period

    def open_period(tx: Tx) -> str:
        period = max(tx.state.periods, default=0) + 1
        seed = hashlib.sha256(f"seed {period}".encode()).digest()
        with mock.patch("nomic_cards.core.dice.new_seed", lambda: seed):
            return real(tx)

    holders = [name for name, module in list(sys.modules.items())
               if name.startswith("nomic_cards.") and getattr(module, "open_period", None) is real]
    assert "nomic_cards.core.services.dice" in holders
    with ExitStack() as stack:
        for name in holders:
            stack.enter_context(mock.patch(f"{name}.open_period", open_period))
        yield


def _act(game: Nomic, kind: str, who: str, n: int, now: datetime, packs: list[str]) -> None:
    if kind == "vote":
        with game.write() as tx:
            api.record_vote(tx, who, f"P{n % 7}")
    elif kind == "late vote":
        with game.write() as tx:
            api.record_vote(tx, who, f"P{n % 7}",
                                 at=max(ORIGIN, now - timedelta(hours=n % 150)).isoformat())
    elif kind == "retire":
        with game.write() as tx:
            api.retire_player(tx, who)
    elif kind == "rejoin":
        with game.write() as tx:
            api.add_player(tx, who)
    elif kind == "elect":
        with game.write() as tx:
            api.elect_dealer(tx, who)
    elif kind == "pack":
        packs.append(f"Extra{len(packs)}")
        with game.write() as tx:
            api.add_pack(tx, packs[-1], "plain backs")
    elif kind == "retire pack":
        with game.write() as tx:
            retire_pack(tx, str(n % (4 + len(packs))), proposal=f"P{n}")
    elif kind == "report version":
        with game.write() as tx:
            api.amend_rule(tx, "report", [], proposal=f"P{n}", version=1 + n % 2)
    elif kind == "deal":
        with game.write() as tx:
            api.deal(tx, who)
    elif kind == "transfer":
        card = 1 + n % (52 * (4 + len(packs)))
        with game.write() as tx:
            api.transfer(tx, str(card), "deck" if n % 5 == 0 else who, f"Rule {n % 11}")
    elif kind == "cards":
        with game.write() as tx:
            api.amend_rule(tx, "cards-for-votes", [f"cards={n % 4}"], proposal=f"P{n}")
    elif kind == "absent":
        with game.write() as tx:
            api.amend_rule(tx, "cards-for-votes", [f"absent={('owe', 'skip')[n % 3 == 0]}"],
                                proposal=f"P{n}")
    elif kind == "days":
        with game.write() as tx:
            api.amend_rule(tx, "nweeks", [f"days={2 + n % 4}"], proposal=f"P{n}")
    elif kind == "every":
        with game.write() as tx:
            api.amend_rule(tx, "report", [f"every={1 + n % 3}"], proposal=f"P{n}")
    elif kind.startswith("repeal "):
        with game.write() as tx:
            api.repeal_rule(tx, kind.split()[1], proposal=f"P{n}")
    elif kind.startswith("enact "):
        with game.write() as tx:
            api.enact_rule(tx, kind.split()[1], proposal=f"P{n}")
    elif kind == "stop":
        with game.write() as tx:
            api.clock_stop(tx)
    elif kind == "start":
        with game.write() as tx:
            api.clock_start(tx)


def _tick_at_each_boundary(game: Nomic, clock: Any, until: datetime) -> None:
    """Cron on time: ``tick`` at every nweek boundary up to ``until``."""
    while True:
        with game.read() as tx:
            following = api.clock_status(tx).next_nweek_start
        if following is None or parse_time(following) > until:
            return
        clock.move_to(following)
        with game.write() as tx:
            api.tick(tx)


def play(url: str, history: list[Step], *, on_time: bool) -> Outcome:
    answers: list[str] = []
    packs: list[str] = []
    with fixed_seeds(), freeze_time(ORIGIN + timedelta(hours=1)) as clock:
        game = new_game(url, epoch=EPOCH, nweek_days=NWEEK_DAYS, players=PLAYERS)
        with game:
            now = ORIGIN + timedelta(hours=1)
            for gap, kind, who, n in history:
                now += timedelta(hours=gap)
                if on_time:
                    _tick_at_each_boundary(game, clock, now)
                clock.move_to(now)
                try:
                    _act(game, kind, PLAYERS[who], n, now, packs)
                    answers.append("done")
                except NomicCardsError as exc:
                    answers.append(f"{type(exc).__name__}: {exc}")
            end = now + timedelta(days=NWEEK_DAYS + 1)
            if on_time:
                _tick_at_each_boundary(game, clock, end)
            clock.move_to(end)
            with game.write() as tx:
                api.tick(tx)
            with game.read() as unit:
                events = tuple((r.seq, r.at, r.actor, r.kind, r.subject,
                                _without_head_hash(r.payload),
                                r.opening.data if r.opening else None)
                               for r in unit.stored_events())
                state = unit.state
                hands = {p: state.hand(p) for p in state.players}
                last = state.last_nweek
            with game.read() as tx:
                reports = {k: _without_head_hash(api.report(tx, k, fmt="json").body)
                           for k in range(1, last)}
                dealt = tuple((e.payload["nweek"], tuple(e.payload["dealt"]),
                               tuple(str(p) for p in e.payload.get("paid", ())))
                              for e in api.log(tx, limit=10_000) if e.kind == "nweek.started")
                assert api.ledger_verify(tx).ok
    return Outcome(tuple(answers), events, hands, reports, dealt)


#: a ledger head's hash as a report states it, in any of its forms (it covers the nonces); the
#: text form puts it on a line of its own, a newline JSON writes as backslash-n
_HEAD_HASH = re.compile(r"(hash(?:\\n|\W){0,8})[0-9a-f]{64}")


def _without_head_hash(text: str) -> str:
    return _HEAD_HASH.sub(r"\1(hash)", text)


def check_same(url_a: str, url_b: str, history: list[Step]) -> None:
    on_time = play(url_a, history, on_time=True)
    late = play(url_b, history, on_time=False)
    assert late.answers == on_time.answers
    assert late.dealt_for_votes == on_time.dealt_for_votes
    assert late.hands == on_time.hands
    assert late.reports == on_time.reports
    # and the whole record, event for event (times, public and private payloads)
    for a, b in zip(on_time.events, late.events, strict=False):
        assert a == b, (a, b)
    assert len(late.events) == len(on_time.events)


PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(history=histories)
def test_late_tick_gives_the_record_of_on_time_ticks_sqlite(history: list[Step]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        check_same(f"sqlite:///{Path(tmp) / 'a.db'}", f"sqlite:///{Path(tmp) / 'b.db'}",
                   history)


@pytest.fixture(scope="module")
def pg() -> None:
    _require_pg()


@pytest.mark.pg
@settings(PROPERTY, max_examples=40)
@given(history=histories)
def test_late_tick_gives_the_record_of_on_time_ticks_postgresql(pg: None,
                                                                history: list[Step]) -> None:
    (url_a, schema_a), (url_b, schema_b) = new_pg_schema_url(), new_pg_schema_url()
    try:
        check_same(url_a, url_b, history)
    finally:
        drop_pg_schema(schema_a)
        drop_pg_schema(schema_b)


def test_the_cases_the_officer_found() -> None:
    """The histories of the report that found the problem: a voter who retired before the
    boundary and rejoined after it; a voter elected Dealer after the boundary, before a late
    tick; a card handed out of the Deck between two boundaries; under absent=owe, a voter who
    retired before the boundary and rejoined after it, and a voter elected Dealer before it;
    packs retired between boundaries, a late vote owed to a retired voter, rule 8 version 2."""
    cases: list[list[Step]] = [
        [(2, "vote", 0, 1), (60, "retire", 0, 0), (20, "rejoin", 0, 0), (10, "vote", 1, 3)],
        [(2, "vote", 2, 1), (80, "elect", 2, 0), (5, "deal", 0, 0)],
        [(2, "transfer", 1, 40), (100, "vote", 3, 2), (1, "stop", 0, 0), (50, "start", 0, 0),
         (2, "transfer", 3, 41)],
        [(1, "absent", 0, 1), (2, "vote", 0, 1), (2, "vote", 1, 1), (60, "retire", 0, 0),
         (1, "elect", 1, 0), (20, "rejoin", 0, 0), (1, "elect", 2, 0), (10, "vote", 1, 3)],
        [(1, "absent", 0, 1), (2, "deal", 0, 0), (2, "vote", 1, 1), (3, "retire pack", 0, 2),
         (60, "vote", 2, 5), (1, "report version", 0, 1), (30, "retire", 3, 0),
         (2, "late vote", 3, 40), (50, "deal", 1, 0), (80, "rejoin", 3, 0), (5, "pack", 0, 0),
         (1, "retire pack", 0, 0), (60, "vote", 0, 1), (2, "deal", 2, 0)],
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, history in enumerate(cases):
            check_same(f"sqlite:///{Path(tmp) / f'a{i}.db'}",
                       f"sqlite:///{Path(tmp) / f'b{i}.db'}", history)
