"""The caller owns the transaction: a use case takes the transaction it is given and never
commits; a write inside a write is a savepoint; a read inside a write reads that write."""

from __future__ import annotations

import fcntl
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import acting
from nomic_cards.core.services.acting import registry
from nomic_cards.core.store.connect import Database
from nomic_cards.errors import DatabaseError, NotFound
from tests.helpers import new_game, scripted, sql


class Abandon(Exception):
    """Raised by a test to abandon a transaction."""


def _events(game: Nomic) -> int:
    return len(sql(game, "select seq from events"))


def test_a_use_case_never_commits_the_caller_does(game: Nomic) -> None:
    before = _events(game)
    with pytest.raises(Abandon), game.write() as tx:
        dealt = api.deal(tx, "alice", **scripted([5]))
        assert dealt.card_number == 5
        raise Abandon
    assert _events(game) == before
    with game.read() as r:
        assert api.hand(r, "alice").cards == ()
        assert api.ledger_verify(r).ok
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([5]))
        api.deal(tx, "bob", **scripted([6]))
    assert _events(game) == before + 2


def test_a_nested_write_is_a_savepoint(game: Nomic) -> None:
    """A write inside a write: its failure undoes its own work (rows, events, the live state)
    and leaves the outer transaction's, which commits."""
    before = _events(game)
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([5]))
        with pytest.raises(NotFound), game.write() as inner:
            assert inner is tx
            api.deal(inner, "bob", **scripted([6]))
            api.deal(inner, "zed")  # no such player: the savepoint is rolled back
        assert [c.number for c in api.hand(tx, "alice").cards] == [5]
        assert api.hand(tx, "bob").cards == ()
        assert 6 in tx.state.deck  # the live state was reloaded without the inner deal
        api.deal(tx, "carol", **scripted([6]))
    assert _events(game) == before + 2
    with game.read() as r:
        assert [c.number for c in api.hand(r, "carol").cards] == [6]
        assert api.ledger_verify(r).ok


def test_a_nested_write_acts_as_its_own_actor(game: Nomic) -> None:
    with game.write(actor="officer") as tx:
        api.deal(tx, "alice", **scripted([5]))
        with game.write(actor="someone else") as inner:
            api.deal(inner, "bob", **scripted([6]))
        api.deal(tx, "carol", **scripted([7]))
    rows = sql(game, "select actor from events where kind = 'card.dealt' order by seq")
    assert [r[0] for r in rows] == ["officer", "someone else", "officer"]


def test_a_read_inside_a_write_reads_that_write(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([5]))
        with game.read() as r:
            assert r is tx
            assert [c.number for c in api.hand(r, "alice").cards] == [5]
        with Nomic(game.url) as other, other.read() as elsewhere:
            assert api.hand(elsewhere, "alice").cards == ()  # not committed yet


#: a statement the database refuses: a settings key kept already
_REFUSED = "INSERT INTO settings (key, value) SELECT key, value FROM settings"
_DRIVER_ERRORS = (sqlite3.IntegrityError, psycopg.errors.UniqueViolation)


def test_a_statement_the_database_refuses_undoes_the_whole_write(game: Nomic) -> None:
    """A write's statements that return nothing may wait for its next statement or its
    ``COMMIT`` (on PostgreSQL they go in the same round trip): one the database refuses fails
    the write in one line wherever it is sent, and nothing of the write is kept."""
    before = _events(game)
    with pytest.raises(DatabaseError, match=r"^database error: .*(UNIQUE|unique)") as failed, \
            game.write() as tx:
        api.deal(tx, "alice", **scripted([5]))
        tx.db.run(_REFUSED)
        api.deal(tx, "bob", **scripted([6]))
    assert "\n" not in str(failed.value)
    assert _events(game) == before
    with game.read() as r:
        assert api.hand(r, "alice").cards == () and api.hand(r, "bob").cards == ()
        assert api.ledger_verify(r).ok


def test_a_nested_write_refused_by_the_database_is_undone_alone(game: Nomic) -> None:
    """The statements of a nested write go to the database before it ends, so a refusal is
    its own: its savepoint is rolled back and the outer write goes on and commits."""
    before = _events(game)
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([5]))
        with pytest.raises(_DRIVER_ERRORS), game.write() as inner:
            api.deal(inner, "bob", **scripted([6]))
            inner.db.run(_REFUSED)
        api.deal(tx, "carol", **scripted([7]))
    assert _events(game) == before + 2
    with game.read() as r:
        assert [c.number for c in api.hand(r, "carol").cards] == [7]
        assert api.hand(r, "bob").cards == ()
        assert api.ledger_verify(r).ok


@pytest.fixture
def pg_game(pg_url: str) -> Iterator[Nomic]:
    """A game on PostgreSQL with one player, alice."""
    with new_game(pg_url, players=("alice",)) as game:
        yield game


@contextmanager
def round_trips(game: Nomic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> Iterator[list[str]]:
    """Inside: every connection the game opens writes libpq's trace of its messages to a file.
    At the end the list holds what the client sent in each round trip (each ends with the
    server's ReadyForQuery)."""
    from psycopg import pq

    trips: list[str] = []
    traced: list[Any] = []
    connect = Database._connect

    def tracing(self: Database) -> Any:
        conn = connect(self)
        conn.pgconn.trace(out.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        traced.append(conn)
        return conn

    game.db.close()  # the connections kept so far are not traced
    with (tmp_path / "trace.txt").open("w") as out, monkeypatch.context() as patch:
        patch.setattr(Database, "_connect", tracing)
        yield trips
        game.db.close()
        for conn in traced:
            conn.pgconn.untrace()  # libpq writes what it holds
    sent: list[str] = []
    for line in (tmp_path / "trace.txt").read_text().splitlines():
        direction, _, kind, *rest = [*line.split("\t"), "", ""]
        if direction == "F":
            sent.append(f"{kind} {' '.join(rest)}")
        elif direction != "B":  # a line of a query's text
            sent[-1] += "\n" + line
        elif kind == "ReadyForQuery":
            trips.append("\n".join(sent))
            sent = []


@pytest.mark.pg
def test_an_action_on_postgresql_is_three_round_trips_from_begin_to_commit(
        pg_game: Nomic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's write of one ``cards.vote``: ``BEGIN``, the ledger lock, the live state,
    the token and the key in one round trip; the action's own read; its rows, the key with its
    answer and ``COMMIT`` in one more."""
    game = pg_game
    with game.write() as tx:
        officer = api.issue_token(tx, api.show_dealer(tx).dealer or "", scope="dealer").token
    with game.read(need_game=False) as r:
        viewer = acting.who_acts(r, officer)
    asked = acting.ask(viewer, officer, {"action": "cards.vote", "player": "alice",
                                         "proposal": "P1"}, actions=registry(), key="k-1")
    with round_trips(game, tmp_path, monkeypatch) as trips, \
            game.write(catch_up=False, token=asked.token_read) as tx:
        answer = acting.perform(tx, asked)
    assert answer.status == 201
    assert len(trips) == 3, trips
    first, _, last = trips
    assert "BEGIN" in first and "pg_advisory_xact_lock" in first and "idempotency_keys" in first
    assert "INSERT INTO events" in last and "INSERT INTO idempotency_keys" in last
    assert last.rstrip(' "').endswith("COMMIT")
    # what was sent in one round trip was kept
    assert sql(game, "select proposal from votes") == [("P1",)]
    assert sql(game, "select status from idempotency_keys") == [(201,)]


def test_a_write_dated_in_the_future_is_refused_unless_allowed(game: Nomic, tmp_path: object
                                                                ) -> None:
    """A write dated after now would make the ledger refuse every write until that time: it
    is refused in one line, with nothing written, unless the Nomic allows it (a rehearsal on a
    scratch database); a few minutes of clock skew are allowed."""
    from datetime import UTC, datetime, timedelta

    from nomic_cards.core.clock import FixedClock
    from nomic_cards.errors import RuleViolation

    now = datetime.now(UTC)
    before = _events(game)
    with Nomic(game.url, clock=FixedClock(now + timedelta(days=3))) as ahead, \
            pytest.raises(RuleViolation, match=r"is after now .* --allow-future"), \
            ahead.write() as tx:
        api.deal(tx, "alice")
    assert _events(game) == before
    with Nomic(game.url, clock=FixedClock(now + timedelta(minutes=2))) as skewed, \
            skewed.write() as tx:
        api.deal(tx, "alice")
    with Nomic(game.url, clock=FixedClock(now + timedelta(days=3)),
              allow_future=True) as rehearsal, rehearsal.write() as tx:
        api.deal(tx, "bob")
    assert _events(game) == before + 2


def test_the_command_line_refuses_at_in_the_future_in_one_line(game: Nomic) -> None:
    from datetime import UTC, datetime, timedelta

    from typer.testing import CliRunner

    from nomic_cards.cli import app

    later = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    r = CliRunner().invoke(app, ["--db", game.url, "--at", later, "deal", "alice"])
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith(f"error: the time {later[:10]}") and \
        r.stderr.count("\n") == 1 and "--allow-future" in r.stderr
    r = CliRunner().invoke(app, ["--db", game.url, "--allow-future", "--at", later, "deal",
                                 "alice"])
    assert r.exit_code == 0, r.stderr


def test_sqlite_writers_queue_on_the_lock_file_and_give_up_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write waits while another holds ``<database>-lock`` (here: the test), and after the
    busy timeout fails in one line instead of waiting without end; once the lock is free the
    next write goes through."""
    from nomic_cards.core.store import connect
    from nomic_cards.errors import DatabaseError

    path = tmp_path / "g.db"
    with new_game(f"sqlite:///{path}", players=("ann",)) as game:
        lock = Path(f"{path}-lock")
        assert lock.is_file()
        monkeypatch.setattr(connect, "BUSY_TIMEOUT_MS", 300)
        with lock.open("rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            with pytest.raises(DatabaseError, match=r"is busy: another write has held it"), \
                    game.write() as tx:
                api.add_player(tx, "ben")
            with game.read() as r:
                assert "ben" not in r.state.players
        with game.write() as tx:
            api.add_player(tx, "ben")
        with game.read() as r:
            assert "ben" in r.state.players
