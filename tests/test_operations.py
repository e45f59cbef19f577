"""Operations that say what they do: late votes (rule 9), ``--at`` for rehearsing a schedule,
player names (normalisation, case, invisible characters, look-alikes), a retired player who
rejoins, transfer notices, and the refusals of ``hand --as-of``, ``--db ''``, ``init``,
``player email``, empty reasons and votes outside the game's life. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun.api import FrozenDateTimeFactory
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.settings import GameSettings
from nomic_cards.errors import InputError, NotFound, RuleViolation
from tests.conftest import _require_pg, drop_pg_schema, new_pg_schema_url
from tests.helpers import sql

EPOCH = "2026-01-01"
runner = CliRunner()


def day(n: float) -> str:
    """The ISO time ``n`` days after the epoch's midnight."""
    return (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=n)).strftime("%Y-%m-%dT%H:%M:%SZ")


def run(db: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", db, *args])
    return result.exit_code, result.stdout, result.stderr


def events(db: Nomic | str) -> int:
    return int(sql(db, "select count(*) from events")[0][0])  # type: ignore[call-overload]


# --- late votes (rule 9) ----------------------------------------------------------------


def test_a_late_vote_earns_its_card_when_it_is_recorded(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    clock.move_to(day(1))
    with weekly.write() as tx:
        api.record_vote(tx, "ann", "301")
    clock.move_to(day(10.5))
    with weekly.write() as tx:
        started = api.tick(tx)
    assert [s.dealt for s in started] == [("ann",)]  # nweek 1 began with the first write
    clock.move_to(day(12))
    # ben voted in nweek 1 too, but the vote counter reports it only now
    with weekly.write() as tx:
        late = api.record_vote(tx, "ben", "301", at=day(5))
    assert late.recorded == 1 and len(late.late) == 1
    entry = late.late[0]
    # nweek 2's cards are dealt as of its start, whenever tick ran
    assert (entry.player, entry.nweek, entry.cards_dealt_at) == ("ben", 1, day(10))
    assert entry.outcome == "dealt a card now" and entry.event is not None
    with weekly.read() as tx:
        assert len(api.hand(tx, "ben").cards) == 1
    reason = sql(weekly, "select reason, nweek from deals where seq = :s", s=entry.event)[0]
    assert "voted in nweek 1 (rule 9)" in str(reason[0]) and reason[1] == 2
    # one card per voter per nweek: a second late vote, or a late vote by someone dealt in
    # time, earns nothing more
    with weekly.write() as tx:
        assert api.record_vote(tx, "ben", "302", at=day(6)).late == ()
        assert api.record_vote(tx, "ann", "302", at=day(7)).late == ()
        assert [len(api.hand(tx, p).cards) for p in ("ann", "ben")] == [1, 1]
    # the card belongs to nweek 2's report, where it was dealt
    clock.move_to(day(20.5))
    with weekly.write() as tx:
        api.tick(tx)
        received = json.loads(api.report(tx, 2, fmt="json").body)["received"]
    assert sorted(r["player"] for r in received) == ["ann", "ben"]  # ann at its start
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_a_late_vote_of_the_dealer_says_why_no_card(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    clock.move_to(day(10.5))
    with weekly.write() as tx:
        api.tick(tx)
        result = api.record_vote(tx, "PurpleBob", "9", at=day(3))
    assert [(x.player, x.event) for x in result.late] == [("PurpleBob", None)]
    assert "is the Dealer" in result.late[0].outcome


def test_a_vote_recorded_after_the_boundary_is_late_whether_or_not_tick_ran(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    clock.move_to(day(11))  # nweek 2 has begun but tick has not run
    with weekly.write() as tx:
        result = api.record_vote(tx, "cat", "1", at=day(9))
    # recording the vote first did nweek 2's start, as of its boundary, when no vote was known
    # (as an on-time tick would have): the vote is late and earns its card now
    assert [(x.player, x.nweek, x.cards_dealt_at, x.outcome) for x in result.late] == [
        ("cat", 1, day(10), "dealt a card now")]
    with weekly.write() as tx:
        assert api.tick(tx) == []
        assert len(api.hand(tx, "cat").cards) == 1


def test_vote_cli_reports_a_late_vote(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "--at", day(0), "init", "--epoch", EPOCH)[0] == 0
    assert run(db, "--at", day(0), "player", "add", "ann")[0] == 0
    assert run(db, "tick", "--at", day(10))[0] == 0
    code, out, err = run(db, "--at", day(11), "vote", "cast", "ann", "--proposal", "1",
                         "--at", day(2))
    assert code == 0, err
    assert "late: ann's vote in nweek 1" in out and "dealt a card now" in out


# --- --at ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_tick_at_rehearses_a_schedule(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "--at", day(0), "init", "--epoch", EPOCH)[0] == 0
    assert run(db, "--at", day(0.5), "player", "add", "ann")[0] == 0
    assert run(db, "--at", day(2), "vote", "cast", "ann", "--proposal", "1")[0] == 0
    code, out, err = run(db, "tick", "--at", day(10))
    assert code == 0, err
    assert "nweek 2 started" in out and "Cards for Votes: 1 dealt" in out
    clock = json.loads(run(db, "clock", "--at", day(25), "--json")[1])
    assert clock["nweek"] == 3 and clock["last_ticked_nweek"] == 2
    code, out, _ = run(db, "deal", "ann", "--at", day(12))
    assert code == 0
    log = json.loads(run(db, "log", "--json", "-n", "1")[1])
    assert log[0]["at"].startswith("2026-01-13T00:00:00")
    code, out, _ = run(db, "report", "2", "--at", day(13))  # a preview of the open nweek
    assert code == 0 and "ann" in out


WRITES = [
    ("tick",),
    ("deal", "ann"),
    ("transfer", "1", "--to", "ann", "--rule", "Proposal 7"),
    ("vote", "cast", "ann", "--proposal", "4"),
    ("clock", "stop"),
    ("player", "add", "zoe"),
    ("player", "email", "ann", "ann@example.org"),
    ("player", "retire", "ann"),
    ("dealer", "elect", "ann"),
    ("pack", "add", "Green", "--back", "green"),
    ("dice", "open"),
]


@pytest.mark.slow
@pytest.mark.parametrize("args", WRITES, ids=lambda a: " ".join(a[:2]))
def test_at_before_the_last_event_is_refused_in_one_line(
        tmp_path: Path, args: tuple[str, ...]) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "--at", day(0), "init", "--epoch", EPOCH)[0] == 0
    assert run(db, "--at", day(3), "player", "add", "ann")[0] == 0
    before = events(f"sqlite:///{db}")
    code, out, err = run(db, "--at", day(2), *args)
    assert code == 1, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "before the last event in the ledger" in lines[0], err
    assert events(f"sqlite:///{db}") == before


@pytest.mark.slow
def test_every_recording_command_takes_its_own_at(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    steps = [
        ("init", "--epoch", EPOCH), ("player", "add", "ann"), ("player", "add", "ben"),
        ("player", "email", "ann", "ann@example.org"), ("deal", "ann"),
        ("dice", "reveal", "--force"),
        ("transfer", "1", "--to", "ben", "--rule", "Proposal 7"), ("pack", "add", "Green",
                                                                   "--back", "green"),
        ("deal", "ben"), ("dice", "open"), ("tick",), ("clock", "stop"), ("clock", "start"),
        ("dealer", "elect", "ann"), ("player", "retire", "PurpleBob"),
    ]
    for n, args in enumerate(steps):
        code, out, err = run(db, *args, "--at", day(n))
        assert code == 0, (args, out, err)
        last = json.loads(run(db, "log", "--json", "-n", "1")[1])[0]
        assert last["at"].startswith(day(n)[:19]), (args, last)
    assert run(db, "ledger", "verify")[0] == 0


def test_vote_import_takes_its_own_at(tmp_path: Path) -> None:
    """``vote import FILE --at TIME``: the import is recorded at TIME, and a vote after TIME is
    in the future, as with the ``--at`` before ``vote``."""
    db = str(tmp_path / "g.db")
    assert run(db, "init", "--epoch", EPOCH, "--at", day(0))[0] == 0
    assert run(db, "player", "add", "ann", "--at", day(0))[0] == 0
    votes = tmp_path / "votes.csv"
    votes.write_text(f"player,proposal,time\nann,301,{day(3)}\n")
    code, out, err = run(db, "vote", "import", str(votes), "--at", day(2))
    assert code == 1 and "is in the future" in err and err.count("\n") == 1, (out, err)
    code, out, err = run(db, "--at", day(2), "vote", "import", str(votes), "--at", day(4))
    assert code == 0 and "1 vote(s) recorded" in out, err
    last = json.loads(run(db, "log", "--json", "-n", "1")[1])[0]
    assert last["kind"] == "votes.recorded" and last["at"].startswith(day(4)[:19])


@pytest.mark.parametrize("bad", ["garbage", "2026-13-01", "0001-01-01T00:00:00+01:00",
                                 "2026-01-01T00:00:00+00:00Z", ""])
def test_a_bad_at_time_is_one_line(tmp_path: Path, bad: str) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "init")[0] == 0
    code, _, err = run(db, "tick", "--at", bad)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "bad --at time" in err, err


# --- names --------------------------------------------------------------------------------


def test_names_are_nfc_and_unique_without_regard_to_case(game: Nomic) -> None:
    nfd = unicodedata.normalize("NFD", "José")
    assert nfd != "José"
    with game.write() as tx:
        assert api.add_player(tx, nfd).name == "José"
        assert api.hand(tx, "JOSÉ").player == "José"  # look-up by the same rules
    with (
        pytest.raises(InputError, match="a player named 'José' already exists"),
        game.write() as tx,
    ):
        api.add_player(tx, "josé")
    with (
        pytest.raises(InputError, match="a player named 'alice' already exists"),
        game.write() as tx,
    ):
        api.add_player(tx, "ALICE")
    with game.write() as tx:
        dealt = api.deal(tx, "ALICE")
    assert dealt.player == "alice"
    with game.write() as tx:
        assert api.cards_of(tx, "Alice") == [dealt.card]
        assert api.record_vote(tx, "BOB", "1").recorded == 1
        assert api.ledger_verify(tx).ok


@pytest.mark.slow
@pytest.mark.parametrize("bad, why", [
    ("", "empty"), ("   ", "empty"), ("-x", "start with '-'"),
    ("a\u200bb", "invisible"), ("a\u202eb", "invisible"), ("a\u2066b", "invisible"),
    ("\ufeffann", "invisible"), ("a\u00adb", "invisible"), ("a\x07b", "control"),
    ("a\tb", "control"), ("a\u00a0b", "space other than"), ("a\ue000b", "private-use"),
])
def test_names_with_invisible_or_misleading_characters_are_refused(
        game: Nomic, bad: str, why: str) -> None:
    before = events(game)
    with pytest.raises(InputError, match=why), game.write() as tx:
        api.add_player(tx, bad)
    assert events(game) == before


@pytest.mark.parametrize("existing, new", [
    ("Ann", "\u0410nn"),          # Cyrillic capital A
    ("Ann", "\u0410NN"),          # ... and in capitals
    ("Paul", "Pau1"),             # digit one for l
    ("modern", "rnodern"),        # rn for m
    ("Wonko", "W0nko"),           # digit zero for o (the skeleton has capital O)
    ("Wonko", "Wonk0"),
    ("W0nko", "Wonko"),           # ... either way round
    ("Ienne", "\uff29\uff45\uff4e\uff4e\uff45"),  # fullwidth Ｉｅｎｎｅ (NFKC: Ienne)
    ("Ienne", "\u1d35enne"),      # modifier letter capital I (NFKC: I)
    ("\uff29\uff45\uff4e\uff4e\uff45", "Ienne"),
])
def test_look_alikes_are_refused_naming_the_existing_player(
        game: Nomic, existing: str, new: str) -> None:
    with game.write() as tx:
        api.add_player(tx, existing)
    with (
        pytest.raises(InputError, match=f"looks like the existing player '{existing}'"),
        game.write() as tx,
    ):
        api.add_player(tx, new)


@pytest.mark.parametrize("name", ["deck", "DECK", "the deck", "D\u0435ck"])
def test_the_deck_and_its_look_alikes_are_reserved(game: Nomic, name: str) -> None:
    with pytest.raises(InputError, match="reserved for the Deck"), game.write() as tx:
        api.add_player(tx, name)


def test_different_names_are_not_look_alikes(game: Nomic) -> None:
    for name in ("Ann", "Anne", "Ana", "Ἀννα", "Анна"):
        with game.write() as tx:
            assert api.add_player(tx, name).name == name


# --- a player who comes back --------------------------------------------------------------


def test_a_retired_player_rejoins_with_an_empty_hand(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        api.retire_player(tx, "alice")
    with pytest.raises(RuleViolation, match="retired"), game.write() as tx:
        api.deal(tx, "alice")
    with (
        pytest.raises(InputError, match="looks like the existing player 'alice' \\(retired\\)"),
        game.write() as tx,
    ):
        api.add_player(tx, "a1ice")
    with (
        pytest.raises(InputError, match="use their name as registered, 'alice'"),
        game.write() as tx,
    ):
        api.add_player(tx, "Alice")
    with game.write() as tx:
        back = api.add_player(tx, "alice", email="alice@example.org")
    assert back.rejoined and back.active and back.cards == 0
    with game.write() as tx:
        assert api.hand(tx, "alice").cards == ()
        api.deal(tx, "alice")
        assert len(api.hand(tx, "alice").cards) == 1
        kinds = [e.kind for e in api.log(tx, player="alice", limit=10)]
    assert "player.rejoined" in kinds
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


# --- transfers tell the receiver -------------------------------------------------------------


def test_the_receiver_of_a_transfer_gets_a_private_notice(game: Nomic) -> None:
    with game.write() as tx:
        dealt = api.deal(tx, "alice")
        moved = api.transfer(tx, str(dealt.card_number), "BOB", "Proposal 12")
    assert moved.target == "bob"
    with game.read() as tx:
        notes = api.notices(tx, "bob")
    assert [n.text for n in notes] == [moved.notice]
    assert moved.notice is not None and "Proposal 12" in moved.notice
    assert f"(card {dealt.card_number})" in moved.notice
    public = sql(game, "select payload from events where seq = :s", s=moved.event)[0][0]
    assert moved.notice not in str(public) and str(dealt.card_number) not in \
        json.loads(str(public)).values()
    with game.write() as tx:
        api.transfer(tx, str(dealt.card_number), "deck", "Proposal 13")
    # the Deck is told nothing; bob is told the card left eir Hand
    with game.read() as tx:
        (left,) = api.notices(tx, "bob")[1:]
    what, why, _when = left.text.splitlines()
    assert what.startswith("Nweek 1: the ") and what.endswith(
        f"(card {dealt.card_number}) left your Hand: transferred to the Deck")
    assert why == "Why: under 'Proposal 13'"
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


# --- say what you do ------------------------------------------------------------------------


def test_hand_as_of_past_the_log_or_in_the_future_is_refused(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        last = api.ledger_head(tx).event
        assert len(api.hand(tx, "alice", as_of=str(last)).cards) == 1
    with (
        pytest.raises(InputError, match=f"runs from event 1 to event {last}"),
        game.read() as tx,
    ):
        api.hand(tx, "alice", as_of=str(last + 1))
    future = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    with pytest.raises(InputError, match="is in the future"), game.read() as tx:
        api.hand(tx, "alice", as_of=future)


def test_an_empty_db_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("", "init")
    assert code == 1 and "empty string" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "nomic-cards.db").exists()


def test_init_on_a_game_refuses_options_that_differ(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "init", "--nweek-days", "12", "--epoch", EPOCH)[0] == 0
    before = events(f"sqlite:///{db}")
    code, out, err = run(db, "init", "--nweek-days", "10", "--dealer", "Zed", "--epoch", EPOCH)
    assert code == 1, out
    assert "--nweek-days 10 (the game has 12)" in err and "--dealer Zed" in err
    assert "--epoch" not in err  # the same as the game's
    assert len(err.strip().splitlines()) == 1
    assert events(f"sqlite:///{db}") == before
    code, out, _ = run(db, "init")  # no option chosen: upgrade only
    assert code == 0 and "already holds a game" in out
    assert run(db, "init", "--nweek-days", "12")[0] == 0  # the game's own value


@pytest.mark.slow
def test_a_refused_init_names_the_packs_now_in_play(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "init", "--pack", "Red=red backs", "--pack", "Blue=blue backs")[0] == 0
    assert run(db, "pack", "add", "Gold", "--back", "gold backs")[0] == 0
    before = events(f"sqlite:///{db}")
    code, _, err = run(db, "init", "--pack", "Red=red backs")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "--pack Red (the game was created with Red, Blue)" in err
    assert "The packs now in play are Red, Blue, Gold." in err
    code, _, err = run(db, "init", "--pack", "Red=red backs", "--pack", "Blue=other")
    assert code == 1 and "Backs differ from those the game was created with (Red, Blue)" in err
    assert "The packs now in play are Red, Blue, Gold." in err
    code, _, err = run(db, "init", "--dealer", "Zed")
    assert code == 1 and "The packs now in play are Red, Blue, Gold." in err
    assert events(f"sqlite:///{db}") == before
    # the packs the game was created with are the game's: no difference
    assert run(db, "init", "--pack", "Red=red backs", "--pack", "Blue=blue backs")[0] == 0


@pytest.mark.parametrize("args", [("--pack", "A=x", "--pack", "a=y"), ("--dealer", " "),
                                  ("--dealer", "a\u200bb")])
def test_a_refused_init_leaves_no_file(tmp_path: Path, args: tuple[str, ...]) -> None:
    db = tmp_path / "new.db"
    code, _, err = run(str(db), "init", *args)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.pg
def test_a_refused_init_leaves_no_tables_on_postgresql() -> None:
    _require_pg()  # skipped without PostgreSQL, failed under CI
    url, schema = new_pg_schema_url()
    try:
        game = Nomic(url, create=True, settings=GameSettings(packs=(("A", "x"), ("a", "y"))))
        with game, pytest.raises(InputError, match="different"):
            api.init_game(game)
        tables = sql(url, "select count(*) from information_schema.tables "
                          "where table_schema = :s", s=schema)
        assert tables == [(0,)]
    finally:
        drop_pg_schema(schema)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_init_leaves_another_programs_sqlite_file_byte_for_byte(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "other.db"
    con = sqlite3.connect(db)
    con.execute("create table foo (x integer)")
    con.execute("insert into foo values (1)")
    con.commit()
    con.close()
    before = _snapshot(tmp_path)
    for args in (("init",), ("player", "add", "ann"), ("deal", "ann")):
        code, out, err = run(str(db), *args)
        assert code == 1 and out == "", (args, out)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert _snapshot(tmp_path) == before, args  # no table, no WAL, no -wal/-shm left
    assert "is not a nomic-cards database (it holds foo)" in run(str(db), "init")[2]
    assert sqlite3.connect(db).execute("pragma journal_mode").fetchone()[0] == "delete"


def test_init_refuses_an_unknown_revision_without_switching_to_wal(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "newer.db"
    con = sqlite3.connect(db)
    con.execute("create table alembic_version (version_num varchar(32) primary key)")
    con.execute("insert into alembic_version values ('9999')")
    con.commit()
    con.close()
    before = _snapshot(tmp_path)
    code, _, err = run(str(db), "init")
    assert code == 1 and "schema revision '9999'" in err and len(err.strip().splitlines()) == 1
    assert _snapshot(tmp_path) == before
    assert sqlite3.connect(db).execute("pragma journal_mode").fetchone()[0] == "delete"


def test_init_on_an_empty_file_made_beforehand_makes_it_private(tmp_path: Path) -> None:
    import os

    db = tmp_path / "empty.db"
    old = os.umask(0o022)
    try:
        db.touch()
        assert db.stat().st_mode & 0o777 == 0o644
        code, _, err = run(str(db), "init", "--epoch", EPOCH)
    finally:
        os.umask(old)
    assert code == 0, err
    assert db.stat().st_mode & 0o777 == 0o600
    for extra in tmp_path.iterdir():
        assert extra.stat().st_mode & 0o077 == 0, extra.name
    assert events(f"sqlite:///{db}") > 0
    import sqlite3

    assert sqlite3.connect(db).execute("pragma journal_mode").fetchone()[0] == "wal"


@pytest.mark.slow
def test_player_email_shows_sets_and_clears_privately(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert run(db, "init")[0] == 0
    assert run(db, "player", "add", "ann")[0] == 0
    code, out, _ = run(db, "player", "email", "ann")
    assert code == 0 and "no e-mail address" in out
    assert run(db, "player", "email", "ANN", "ann@example.org")[0] == 0
    before = events(f"sqlite:///{db}")
    code, out, _ = run(db, "player", "email", "ann")
    assert code == 0 and "<ann@example.org>" in out
    assert events(f"sqlite:///{db}") == before  # showing records nothing
    code, out, _ = run(db, "player", "email", "ann", "--clear")
    assert code == 0 and "no e-mail address" in out
    code, _, err = run(db, "player", "email", "ann", "x@y.z", "--clear")
    assert code == 1 and "not both" in err
    rows = sql(f"sqlite:///{db}", "select e.payload, p.data from events e join event_private p "
                                  "on p.seq = e.seq where e.kind = 'player.email_set'")
    assert len(rows) == 2
    assert all("example.org" not in str(public) for public, _ in rows)
    assert [json.loads(str(private))["email"] for _, private in rows] == [
        "ann@example.org", None]


def test_empty_proposal_and_reason_are_refused(game: Nomic) -> None:
    before = events(game)
    with (
        pytest.raises(InputError, match="proposal voted on must not be empty"),
        game.write() as tx,
    ):
        api.record_vote(tx, "alice", "  ")
    with (
        pytest.raises(InputError, match="reason for the deal must not be empty"),
        game.write() as tx,
    ):
        api.deal(tx, "alice", reason=" ")
    assert events(game) == before


def test_votes_outside_the_games_life_are_refused(clock: FrozenDateTimeFactory,
                                                   weekly: Nomic) -> None:
    clock.move_to(day(3))
    with pytest.raises(InputError, match="before the game began"), weekly.write() as tx:
        api.record_vote(tx, "ann", "1", at="2025-12-31T23:59:59Z")
    with pytest.raises(InputError, match="is in the future"), weekly.write() as tx:
        api.record_vote(tx, "ann", "1", at=day(3.5))
    with weekly.write() as tx:
        assert api.record_vote(tx, "ann", "1", at=day(0)).recorded == 1


def test_unknown_players_are_still_not_found(game: Nomic) -> None:
    with pytest.raises(NotFound, match="no player named 'zed'"), game.read() as tx:
        api.hand(tx, "zed")
