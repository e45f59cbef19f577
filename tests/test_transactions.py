"""The caller owns the transaction: a use case takes the transaction it is given and never
commits; a write inside a write is a savepoint; a read inside a write reads that write."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from nomic_cards.core import api
from nomic_cards.core.game import Game
from nomic_cards.errors import NotFound
from tests.helpers import new_game, scripted, sql


class Abandon(Exception):
    """Raised by a test to abandon a transaction."""


def _events(game: Game) -> int:
    return len(sql(game, "select seq from events"))


def test_a_use_case_never_commits_the_caller_does(game: Game) -> None:
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


def test_a_nested_write_is_a_savepoint(game: Game) -> None:
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


def test_a_nested_write_acts_as_its_own_actor(game: Game) -> None:
    with game.write(actor="officer") as tx:
        api.deal(tx, "alice", **scripted([5]))
        with game.write(actor="someone else") as inner:
            api.deal(inner, "bob", **scripted([6]))
        api.deal(tx, "carol", **scripted([7]))
    rows = sql(game, "select actor from events where kind = 'card.dealt' order by seq")
    assert [r[0] for r in rows] == ["officer", "someone else", "officer"]


def test_a_read_inside_a_write_reads_that_write(game: Game) -> None:
    with game.write() as tx:
        api.deal(tx, "alice", **scripted([5]))
        with game.read() as r:
            assert r is tx
            assert [c.number for c in api.hand(r, "alice").cards] == [5]
        with Game(game.url) as other, other.read() as elsewhere:
            assert api.hand(elsewhere, "alice").cards == ()  # not committed yet


def test_a_write_dated_in_the_future_is_refused_unless_allowed(game: Game, tmp_path: object
                                                                ) -> None:
    """A write dated after now would make the ledger refuse every write until that time: it
    is refused in one line, with nothing written, unless the Game allows it (a rehearsal on a
    scratch database); a few minutes of clock skew are allowed."""
    from datetime import UTC, datetime, timedelta

    from nomic_cards.core.clock import FixedClock
    from nomic_cards.errors import RuleViolation

    now = datetime.now(UTC)
    before = _events(game)
    with Game(game.url, clock=FixedClock(now + timedelta(days=3))) as ahead, \
            pytest.raises(RuleViolation, match=r"is after now .* --allow-future"), \
            ahead.write() as tx:
        api.deal(tx, "alice")
    assert _events(game) == before
    with Game(game.url, clock=FixedClock(now + timedelta(minutes=2))) as skewed, \
            skewed.write() as tx:
        api.deal(tx, "alice")
    with Game(game.url, clock=FixedClock(now + timedelta(days=3)),
              allow_future=True) as rehearsal, rehearsal.write() as tx:
        api.deal(tx, "bob")
    assert _events(game) == before + 2


def test_the_command_line_refuses_at_in_the_future_in_one_line(game: Game) -> None:
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
