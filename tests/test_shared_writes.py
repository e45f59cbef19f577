"""Writes of one Game from several threads share a transaction (``core/store/combine.py``):
each waiting thread takes its turn in the open one from a savepoint of its own, one commit ends
it, and a turn that fails takes only its own work with it -- on both backends.

No test here depends on timing: the first write holds the transaction open until the others
are seen waiting for it (a condition polled with a bound), so they always share it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from datetime import date

import pytest
from freezegun import freeze_time
from sqlalchemy import event

from nomic_cards.core import api
from nomic_cards.core.game import Game
from nomic_cards.core.ledger.events import NoticeGiven
from nomic_cards.core.store.reads import load_state
from nomic_cards.errors import DatabaseError, NotFound
from tests.helpers import new_game, sql
from tests.test_state_cache import _fields

PLAYERS = ("ann", "ben", "cat", "dan", "eve")


@pytest.fixture
def server(db_url: str) -> Iterator[Game]:
    with freeze_time("2026-01-01 10:00:00"):
        with new_game(db_url, epoch=date(2026, 1, 1), players=PLAYERS):
            pass
        with Game(db_url, server=True) as game:
            yield game


def _commits(game: Game) -> list[int]:
    """A list that grows by one at every commit of the Game's engine."""
    seen: list[int] = []
    event.listen(game.engine, "commit", lambda _conn: seen.append(1))
    return seen


def _together(game: Game, works: list[Callable[[Game], object]]) -> list[object]:
    """Run each of ``works`` in a thread of its own on an acting view of ``game``, all while
    one write holds the transaction open until every other thread is waiting for it; each
    result, or the error it raised, and last the holding write's error (None: it committed)."""
    results: list[object] = [None] * len(works)
    ended: list[int] = []

    def run(i: int) -> None:
        try:
            results[i] = works[i](game.acting(f"worker {i}"))
        except Exception as exc:  # noqa: BLE001 - the test looks at each error
            results[i] = exc
        finally:
            ended.append(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(works))]
    holder: DatabaseError | None = None
    try:
        with game.write(catch_up=False):
            for t in threads:
                t.start()
            for _ in range(30_000):  # at most about 30 s (the clock may be frozen)
                if len(game._writes._waiting) + len(ended) >= len(works):
                    break
                time.sleep(0.001)
            assert not ended, f"threads {ended} ended without waiting for the write"
    except DatabaseError as exc:
        holder = exc
    for t in threads:
        t.join(30)
    return [*results, holder]


def _vote(player: str, proposal: str) -> Callable[[Game], object]:
    return lambda g: api.record_vote(g, player, proposal)


def _votes(game: Game) -> set[tuple[object, ...]]:
    return set(sql(game, "select players.name, votes.proposal from votes "
                         "join players on players.id = votes.player_id"))


def _state_is_loaded_one(game: Game) -> None:
    with game.write(catch_up=False) as uow:
        loaded = load_state(uow._db, emails=uow.emails)
        loaded.track = True
        assert _fields(uow.state) == _fields(loaded)


def test_waiting_writes_share_one_commit(server: Game) -> None:
    commits = _commits(server)
    with freeze_time("2026-01-01 11:00:00"):
        results = _together(server, [_vote(p, "P1") for p in PLAYERS])
    assert results[-1] is None
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len(commits) == 1  # the holding write's, with the five votes in it
    assert _votes(server) == {(p, "P1") for p in PLAYERS}
    events = sql(server, "select actor from events where kind = 'votes.recorded' order by seq")
    assert sorted(a for (a,) in events) == [f"worker {i}" for i in range(5)]
    assert api.ledger_verify(server).ok
    _state_is_loaded_one(server)


def _records_then_fails(g: Game) -> object:
    with g.write(catch_up=False) as uow:
        uow.record(NoticeGiven("cat", "a notice that never was"))
        raise RuntimeError("failed after recording")


def test_a_failed_turn_takes_only_its_own_work(server: Game) -> None:
    with freeze_time("2026-01-01 11:00:00"):
        results = _together(server, [
            _vote("ann", "P2"),
            _vote("nobody", "P2"),  # refused before recording anything
            _records_then_fails,  # fails after its event was applied to the live state
            _vote("ben", "P2"),
        ])
    assert results[0] is not None and not isinstance(results[0], Exception)
    assert isinstance(results[1], NotFound)
    assert isinstance(results[2], RuntimeError)
    assert results[3] is not None and not isinstance(results[3], Exception)
    assert results[4] is None
    assert _votes(server) == {("ann", "P2"), ("ben", "P2")}
    assert not sql(server, "select 1 from notices where text = 'a notice that never was'")
    assert api.ledger_verify(server).ok
    _state_is_loaded_one(server)  # the state was loaded again after the failed turn


def _bad_row(g: Game) -> object:
    """A write whose row breaks a constraint: on PostgreSQL rows wait for the commit, so the
    shared commit fails; on SQLite the row fails at once, in its own turn."""
    with g.write(catch_up=False) as uow:
        uow.execute("INSERT INTO settings (key, value) VALUES ('epoch', 'again')")
    return "written"


def test_a_failed_commit_fails_every_write_in_it(server: Game) -> None:
    postgres = server.engine.dialect.name == "postgresql"
    with freeze_time("2026-01-01 11:00:00"):
        results = _together(server, [_vote("ann", "P3"), _bad_row, _vote("cat", "P3")])
    if postgres:  # the holding write's commit failed, and with it each of the three
        assert all(isinstance(r, DatabaseError) for r in results), results
        assert not _votes(server)
    else:
        assert isinstance(results[1], DatabaseError), results
        assert not [r for i, r in enumerate(results) if i != 1 and r is not None
                    and isinstance(r, Exception)], results
        assert _votes(server) == {("ann", "P3"), ("cat", "P3")}
    assert api.ledger_verify(server).ok
    _state_is_loaded_one(server)


def test_a_retry_sharing_the_transaction_answers_from_the_first(server: Game) -> None:
    """Two requests with one Idempotency-Key, both past the key's first look (nothing stored
    yet) and sharing a transaction: the second finds the first's key under the ledger lock,
    records nothing and answers with the first's events."""
    from nomic_cards.core.actions import registry
    from nomic_cards.core.services import acting, live
    from nomic_cards.core.services.tokens import issue_token

    dealer = api.show_dealer(server).dealer
    assert dealer is not None
    issued = issue_token(server, dealer, scope="dealer")
    viewer = live.viewer_for_token(server, issued.token)
    assert viewer is not None
    body = {"action": "cards.vote", "player": "ann", "proposal": "P4"}

    def post(g: Game) -> object:
        return acting.perform(g, viewer, body, actions=registry(), key="one key")

    with freeze_time("2026-01-01 11:00:00"):
        results = _together(server, [post, post])
    first, second = results[0], results[1]
    assert isinstance(first, acting.ActionAnswer) and isinstance(second, acting.ActionAnswer)
    assert sorted([first.replayed, second.replayed]) == [False, True]
    assert [e["event"] for e in first.body["events"]] == \
        [e["event"] for e in second.body["events"]]
    assert len(sql(server, "select 1 from votes where proposal = 'P4'")) == 1
    assert api.ledger_verify(server).ok
