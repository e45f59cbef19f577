"""Rules 8 and 9 run by ``tick``: Cards for Votes, the Dealer's Report, catch-up, the Clock,
idempotency, privacy, and two concurrent ticks (real processes) on each backend."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.report import FORMATS
from nomic_cards.errors import InputError, NotFound
from tests.game_time import EPOCH, day
from tests.helpers import new_game, scripted, sql


@pytest.fixture
def weekly_players() -> tuple[str, ...]:
    return ("ann", "ben", "cat", "dan")


def documented_order(voters: list[str], *, commitment: str, nweek: int) -> list[str]:
    """The order among voters as docs/nweeks.md states it, computed here from that text alone:
    ascending SHA-256 (hex) of "<commitment>:<nweek>:<player>"."""
    def key(p: str) -> str:
        return hashlib.sha256(f"{commitment}:{nweek}:{p}".encode()).hexdigest()
    return sorted(voters, key=key)


def tick_at(clock: FrozenDateTimeFactory, db: Nomic, when: str) -> list[api.NweekStart]:
    clock.move_to(when)
    with db.write() as tx:
        return api.tick(tx)


def vote(clock: FrozenDateTimeFactory, db: Nomic, player: str, proposal: str, n: float) -> None:
    """``player`` votes ``n`` days after the epoch's midnight: the clock moves there (votes in
    the future are refused) and the vote is recorded then."""
    clock.move_to(day(n))
    with db.write() as tx:
        api.record_vote(tx, player, proposal, at=day(n))


def test_clock_across_nday_and_nweek_boundaries(clock: FrozenDateTimeFactory,
                                                weekly: Nomic) -> None:
    clock.move_to(day(9.99))
    with weekly.read() as tx:
        v = api.clock_status(tx)
    assert (v.nweek, v.nday) == (1, 10)
    clock.move_to(day(10))
    with weekly.read() as tx:
        v = api.clock_status(tx)
    assert (v.nweek, v.nday, v.nweek_start) == (2, 1, "2026-01-11T00:00:00Z")
    with weekly.read() as tx:
        assert api.clock_status(tx, at=day(35.5)).nweek == 4
        assert api.nweek_start(tx, 4) == "2026-01-31T00:00:00Z"


def test_cards_for_votes_deals_each_voter_once(clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    vote(clock, weekly, "ann", "301", 2)
    vote(clock, weekly, "ann", "302", 3)
    vote(clock, weekly, "ben", "301", 9.5)
    done = tick_at(clock, weekly, day(10.1))
    vote(clock, weekly, "cat", "301", 10.5)  # nweek 2: not yet owed
    # nweek 1 was started by the first write made in it (adding the players)
    assert [d.nweek for d in done] == [2]
    second = done[0]
    assert sorted(second.dealt) == ["ann", "ben"]
    with weekly.read() as tx:
        published = {p.period: p.commitment for p in api.dice_periods(tx)}
    assert second.commitment == published[second.period]
    assert list(second.dealt) == documented_order(["ann", "ben"],
                                                  commitment=second.commitment, nweek=2)
    with weekly.read() as tx:
        assert [len(api.hand(tx, p).cards) for p in ("ann", "ben", "cat")] == [1, 1, 0]
    assert tick_at(clock, weekly, day(10.6)) == []  # idempotent
    assert tick_at(clock, weekly, day(19.9)) == []
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_dealer_and_retired_voters_are_recorded_not_dealt(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    for p in ("PurpleBob", "dan", "ann"):
        vote(clock, weekly, p, "301", 1)
    with weekly.write() as tx:
        api.retire_player(tx, "dan")
    start = tick_at(clock, weekly, day(10))[-1]
    assert start.dealt == ("ann",)
    reasons = {x.player: x.reason for x in start.not_dealt}
    assert "is the Dealer" in reasons["PurpleBob"] and "retired" in reasons["dan"]


def test_empty_deck_leaves_the_rest_not_dealt_by_name(
        clock: FrozenDateTimeFactory, db_url: str) -> None:
    clock.move_to(day(0))
    g = new_game(db_url, packs=(("Only", "plain"),), epoch=EPOCH,
                 nweek_days=10, players=("ann", "ben", "cat"))
    for _ in range(51):
        with g.write() as tx:
            api.deal(tx, "ann")
    for p in ("ann", "ben", "cat"):
        vote(clock, g, p, "7", 1)
    start = tick_at(clock, g, day(10))[-1]
    g.close()
    assert len(start.dealt) == 1
    assert start.dealt[0] == documented_order(["ann", "ben", "cat"],
                                              commitment=start.commitment, nweek=2)[0]
    assert all("Deck contains no Cards" in x.reason for x in start.not_dealt)
    assert len(start.not_dealt) == 2


def test_catch_up_after_missed_ticks_goes_in_order(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    vote(clock, weekly, "ann", "1", 1)
    vote(clock, weekly, "ben", "2", 2)
    done = tick_at(clock, weekly, day(30.5))  # cron was down for three nweeks
    assert [d.nweek for d in done] == [2, 3, 4]
    assert [sorted(d.dealt) for d in done] == [["ann", "ben"], [], []]
    assert all(d.report_published is not None for d in done)
    # each nweek's report names who received cards in that nweek
    with weekly.read() as tx:
        received = json.loads(api.report(tx, 2, fmt="json").body)["received"]
        assert sorted((r["player"], r["backs"]) for r in received) == [
            (p, [api.hand(tx, p).cards[0].back]) for p in ("ann", "ben")]
    assert received[0]["cards"] == [{"back": received[0]["backs"][0], "how": "dealt",
                                     "source": "committed", "period": done[0].period}]
    with weekly.read() as tx:
        assert json.loads(api.report(tx, 3, fmt="json").body)["received"] == []
        started = [e for e in api.log(tx, limit=100) if e.kind == "nweek.started"]
    assert [e.event for e in started] == sorted(e.event for e in started)
    # the work of each boundary is dated at the boundary, not when cron came back
    assert [e.at for e in started[1:]] == [day(n) for n in (10, 20, 30)]


def test_clock_stopped_across_a_boundary_delays_the_nweek(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    vote(clock, weekly, "ann", "1", 1)
    clock.move_to(day(9))
    with weekly.write() as tx:
        api.clock_stop(tx)
    # still nweek 1 (started by the first write in it): the Clock is Off
    assert tick_at(clock, weekly, day(12)) == []
    clock.move_to(day(14))
    with weekly.write() as tx:
        api.clock_start(tx)
    assert tick_at(clock, weekly, day(14.5)) == []
    with weekly.read() as tx:
        assert api.nweek_start(tx, 2) == day(15).replace("+00:00", "Z")
    assert [d.nweek for d in tick_at(clock, weekly, day(15))] == [2]
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_report_is_stored_and_reprinted_byte_for_byte(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    vote(clock, weekly, "ann", "1", 1)
    tick_at(clock, weekly, day(10))
    clock.move_to(day(12))
    with weekly.write() as tx:
        dealt = api.deal(tx, "ben", **scripted(range(33, 63)))  # during nweek 2
    tick_at(clock, weekly, day(20))
    with weekly.read() as tx:
        before = {f: api.report(tx, 2, fmt=f).body for f in FORMATS}
    assert "ben" in before["text"] and "ann" in before["text"]
    with weekly.write() as tx:
        api.transfer(tx, str(dealt.card_number), "deck", "Proposal 9")
        api.elect_dealer(tx, "cat")
    tick_at(clock, weekly, day(40))
    with weekly.read() as tx:
        after = {f: api.report(tx, 2, fmt=f).body for f in FORMATS}
    assert after == before
    with weekly.read() as tx:
        assert api.report(tx).nweek == 4  # default: the latest published


SUITS_RANKS = re.compile(r"\b(Hearts?|Spades?|Diamonds?|Clubs?|Ace|Jack|Queen|King)\b"
                         r"|\b(10|[2-9AJQKT])[shdc]\b|card \d+", re.IGNORECASE)


def test_reports_reveal_no_suit_rank_or_deck_in_any_format(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    for i, p in enumerate(("ann", "ben", "cat", "dan")):
        vote(clock, weekly, p, "1", 1 + i)
    tick_at(clock, weekly, day(10))
    clock.move_to(day(11))
    for _ in range(5):
        with weekly.write() as tx:
            api.deal(tx, "ann")
    tick_at(clock, weekly, day(20))
    with weekly.read() as tx:
        dealt = [c for p in ("ann", "ben", "cat", "dan") for c in api.hand(tx, p).cards]
    assert len(dealt) == 9
    for n in (1, 2):
        for fmt in FORMATS:
            with weekly.read() as tx:
                body = api.report(tx, n, fmt=fmt).body
            assert not SUITS_RANKS.search(body), (n, fmt, SUITS_RANKS.search(body))
            for c in dealt:
                assert c.card not in body and c.name not in body
            assert "Deck" not in body and "deck" not in body
            if fmt == "json":
                doc = json.loads(body)
                assert set(doc) == {"nweek", "from", "until", "dealers", "received",
                                    "commitments", "ledger_head"}


def test_votes_import_is_idempotent_and_all_or_nothing(
        clock: FrozenDateTimeFactory, weekly: Nomic, tmp_path: Path) -> None:
    clock.move_to(day(5))
    good = tmp_path / "votes.csv"
    good.write_text(f"player,proposal,time\nann,301,{day(1)}\nben,301,{day(2)}\n"
                    f"ann,302,{day(3)}\n")
    with weekly.write() as tx:
        first = api.import_votes(tx, str(good))
    assert (first.recorded, first.already) == (3, 0)
    with weekly.write() as tx:
        again = api.import_votes(tx, str(good))
    assert (again.recorded, again.already, again.event) == (0, 3, None)
    bad = tmp_path / "bad.csv"
    bad.write_text(f"cat,301,{day(1)}\nzed,301,{day(1)}\n")
    with (
        pytest.raises(NotFound, match=r"^\S*bad.csv line 2: unknown player 'zed'$"),
        weekly.write() as tx,
    ):
        api.import_votes(tx, str(bad))
    bad.write_text(f"cat,301,{day(1)}\ndan,301,last tuesday\n")
    with (
        pytest.raises(InputError, match=r"^\S*bad.csv line 2: bad time 'last tuesday'$"),
        weekly.write() as tx,
    ):
        api.import_votes(tx, str(bad))
    # every bad line is named in one run, in the order of the file; nothing is imported
    bad.write_text(f"zed,301,{day(1)}\ncat,301,{day(1)}\ndan,301,last tuesday\nann,301\n"
                   f"ben,,{day(1)}\ncat,303,{day(9)}\ncat,{'x' * 101},{day(1)}\n")
    with pytest.raises(InputError) as caught, weekly.write() as tx:
        api.import_votes(tx, str(bad))
    assert str(caught.value).split("\n") == [
        f"{bad}: 6 bad lines, nothing imported:",
        "  line 1: unknown player 'zed'",
        "  line 3: bad time 'last tuesday'",
        "  line 4: expected 3 fields player,proposal,time, got 2",
        "  line 5: empty player or proposal",
        "  line 6: vote time 2026-01-10T00:00:00Z is in the future (it is now "
        "2026-01-06T00:00:00Z)",
        "  line 7: the proposal is too long (101 characters; at most 100)",
    ]
    # past twenty, the rest are counted
    bad.write_text("".join(f"zed{i},301,{day(1)}\n" for i in range(23)))
    with pytest.raises(InputError) as caught, weekly.write() as tx:
        api.import_votes(tx, str(bad))
    lines = str(caught.value).split("\n")
    assert lines[0] == f"{bad}: 23 bad lines, nothing imported:"
    assert lines[1:] == [f"  line {i + 1}: unknown player 'zed{i}'" for i in range(20)] + [
        "  and 3 more"]
    assert sql(weekly, "select count(*) from votes") == [(3,)]


TICKER = """
import sys
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
with Nomic(sys.argv[1]) as game:
    with game.write(catch_up=False) as tx:
        started = api.tick(tx)
    print(len(started))
"""


@pytest.mark.slow
def test_two_ticks_at_the_same_moment_deal_each_card_once(db_url: str, tmp_path: Path) -> None:
    """Two real processes tick the same game at once; the ledger lock serialises them."""
    epoch = (datetime.now(UTC) - timedelta(days=31)).date()
    players = [f"p{i:02d}" for i in range(30)]
    origin = datetime(epoch.year, epoch.month, epoch.day, tzinfo=UTC)
    with freeze_time(origin + timedelta(days=1)):  # the game, and its votes, in nweek 1
        game = new_game(db_url, epoch=epoch, nweek_days=10, players=players)
        for p in players:
            for w in range(3):
                with game.write() as tx:
                    api.record_vote(tx, p, f"{w}", at=(origin + timedelta(hours=w + 1))
                                         .isoformat())
    script = tmp_path / "ticker.py"
    script.write_text(TICKER)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    procs = [subprocess.Popen([sys.executable, str(script), db_url], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1].decode()[-500:] for o in outs]
    counts = sorted(int(o[0]) for o in outs)
    assert sum(counts) == 3  # nweeks 2..4 started once in all, by one process or the other
    with game:
        with game.read() as tx:
            assert api.ledger_verify(tx).ok
        assert sql(game, "select count(*) from nweeks") == [(4,)]
        # every voter got exactly one card, at the start of nweek 2
        for p in players:
            with game.read() as tx:
                assert len(api.hand(tx, p).cards) == 1
        assert sql(game, "select count(*) from deals where card is not null") == [(30,)]


@pytest.mark.slow
def test_cron_wrapper_ticks_and_prints_the_new_report(tmp_path: Path) -> None:
    db = tmp_path / "cron.db"
    epoch = (datetime.now(UTC) - timedelta(days=12)).date()
    with freeze_time(f"{epoch}T13:00:00Z"):  # the game and the vote in nweek 1
        game = new_game(str(db), epoch=epoch, nweek_days=10, players=["ann"])
        with game.write() as tx:
            api.record_vote(tx, "ann", "1", at=f"{epoch}T12:00:00Z")
    bindir = Path(sys.executable).parent
    env = {**os.environ, "NOMIC_CARDS_DB": str(db), "TMPDIR": str(tmp_path),
           "NOMIC_CARDS_LOG": str(tmp_path / "cron.log"),
           "NOMIC_CARDS_BIN": str(bindir / "nomic-cards")}
    env.pop("NOMIC_CARDS_SMTP", None)
    script = Path(__file__).resolve().parent.parent / "scripts" / "nomic-cards-cron.sh"
    first = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("Dealer's Report for nweek 1")
    second = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
    assert second.returncode == 0 and second.stdout == ""  # nothing new: nothing printed
    with game, game.read() as tx:
        assert len(api.hand(tx, "ann").cards) == 1


def test_report_cli_prints_the_stored_bytes(clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    from typer.testing import CliRunner

    from nomic_cards.cli import app

    vote(clock, weekly, "ann", "1", 1)
    tick_at(clock, weekly, day(10))
    with weekly.read() as tx:
        stored = api.report(tx, 1, fmt="json").body
    result = CliRunner().invoke(app, ["--db", weekly.url, "report", "1", "--json"])
    assert result.exit_code == 0 and result.stdout == stored
    result = CliRunner().invoke(app, ["--db", weekly.url, "report", "99999"])
    assert result.exit_code == 1 and "has not begun" in result.stderr


def test_report_names_every_card_received_and_the_dealers_of_its_nweek(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """Rule 8 as docs/rules.md reads it: cards handed out of the Deck or passed between players
    are received too, and the report names whoever held the office during the nweek."""
    clock.move_to(day(1))
    with weekly.write() as tx:
        api.transfer(tx, "Red As", "ann", "Proposal 142")
    clock.move_to(day(2))
    with weekly.write() as tx:
        api.transfer(tx, "Red As", "ben", "Proposal 143")
    clock.move_to(day(3))
    with weekly.write() as tx:
        dealt = api.deal(tx, "cat", **scripted([100]))
    clock.move_to(day(5))
    with weekly.write() as tx:
        api.elect_dealer(tx, "dan")
    tick_at(clock, weekly, day(10))
    with weekly.read() as tx:
        doc = json.loads(api.report(tx, 1, fmt="json").body)
    assert doc["dealers"] == [{"player": "PurpleBob", "since": None},
                              {"player": "dan", "since": day(5).replace("+00:00", "Z")}]
    got = {r["player"]: r["cards"] for r in doc["received"]}
    assert got == {
        "ann": [{"back": "Red", "how": "transferred", "from": "Deck", "rule": "Proposal 142"}],
        "ben": [{"back": "Red", "how": "transferred", "from": "ann", "rule": "Proposal 143"}],
        "cat": [{"back": "Blue", "how": "dealt", "source": "manual", "period": None}]}
    assert dealt.card == "Blue 9c"  # 100 = 52 (Blue) + 3 x 13 (Clubs) + 9
    with weekly.read() as tx:
        text = api.report(tx, 1).body
    assert max(map(len, text.splitlines())) <= 72, text  # the list's width
    flat = " ".join(text.split())  # the words, however the lines wrap
    assert "Dealers: PurpleBob, then dan from 2026-01-06T00:00:00Z." in flat
    assert "transferred from the Deck under 'Proposal 142'" in flat
    assert "transferred from ann under 'Proposal 143'" in flat
    assert not SUITS_RANKS.search(text)
    # the next nweek's report names only the Dealer of that nweek
    tick_at(clock, weekly, day(20))
    with weekly.read() as tx:
        assert json.loads(api.report(tx, 2, fmt="json").body)["dealers"] == [
            {"player": "dan", "since": None}]


def _cli(db: Nomic, *args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from nomic_cards.cli import app

    result = CliRunner().invoke(app, ["--db", db.url, *args])
    return result.exit_code, result.stdout, result.stderr


def test_report_at_a_time_before_its_publication_is_not_yet_published(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    vote(clock, weekly, "ann", "1", 1)
    tick_at(clock, weekly, day(12))
    code, out, err = _cli(weekly, "report", "1", "--at", day(10).replace("+00:00", "Z"))
    with weekly.read() as tx:
        assert code == 0 and out == api.report(tx, 1).body
    code, out, err = _cli(weekly, "report", "1", "--at", day(9))
    assert code == 0 and "(preview: the report for nweek 1 is not published yet)" in err
    code, out, err = _cli(weekly, "report", "--at", day(9))
    assert code == 1 and "no Dealer's Report had been published by 2026-01-10T00:00:00Z" in err


def test_clock_at_while_off_says_the_next_start_is_unknown(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    clock.move_to(day(4))
    with weekly.write() as tx:
        api.clock_stop(tx)
    code, out, _ = _cli(weekly, "clock", "--at", day(6))
    assert code == 0 and "the next start is unknown while the Clock is Off" in out
    assert "None" not in out


def test_a_command_after_a_boundary_does_its_work_first_and_says_so(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    vote(clock, weekly, "ann", "1", 1)
    clock.move_to(day(10.5))  # cron has not run
    code, out, err = _cli(weekly, "deal", "ben", "--dice", "system")
    assert code == 0, err
    notes = err.splitlines()
    assert notes[0].startswith("note: first did the work due at nweek 2 started [event ")
    assert "note: published the Dealer's Report for nweek 1 [event " in err
    assert "note: Cards for Votes: 1 dealt" in err
    # dated at the boundary, before the deal
    with weekly.read() as tx:
        started = [e for e in api.log(tx, limit=100) if e.kind == "nweek.started"][-1]
    assert started.at == day(10)
    assert tick_at(clock, weekly, day(10.6)) == []
