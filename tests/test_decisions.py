"""The nomic's decisions on the ledger (docs/decisions.md), through the command line, on SQLite
and PostgreSQL: the shared example of Agora's Assessor reproduced byte for byte; ballots
replaced, endorsed, refused; a late ``tick`` resolving exactly as an on-time one; Cards for
Votes paid from ballots; the rule changes an adopted decision carries; bad input in one line
with nothing written."""

from __future__ import annotations

import csv
import json
import os
import shlex
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic

pytestmark = pytest.mark.db

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT.parent / "shared" / "agora-example" / "proposals.json"
runner = CliRunner()


def run(db: str, at: str, command: str, *, ok: bool = True) -> Any:
    result = runner.invoke(app, ["--db", db, "--at", at, *shlex.split(command)])
    if ok:
        assert result.exit_code == 0, f"{command}: {result.output}"
    return result


def head(db: str) -> int:
    with Nomic(db) as nomic, nomic.read() as tx:
        return api.ledger_head(tx).event


def verified(db: str) -> bool:
    with Nomic(db) as nomic, nomic.read() as tx:
        return api.ledger_verify(tx).ok


def new_game(db: str, players: list[str]) -> None:
    run(db, "2026-01-01T10:00:00Z", "init --epoch 2026-01-01 --nweek-days 10")
    for p in players:
        run(db, "2026-01-01T10:01:00Z", f"player add {shlex.quote(p)}")


def example(n: int) -> dict[str, Any]:
    if not EXAMPLE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{EXAMPLE} is missing: CI runs with ../shared beside the checkout")
        pytest.skip(f"{EXAMPLE} is not here (../shared beside the checkout)")
    found: dict[str, Any] = json.loads(EXAMPLE.read_text())[n]
    return found


def _cast(db: str, at: str, decision: str, ballot: dict[str, Any]) -> None:
    """A ballot of the example as the officer records it: an endorsement as written in the
    Assessor's file (``endorse(ais523) ...``, its published note after ``-- published:``)."""
    cast, _, published = ballot["as_cast"].partition(" -- published: ")
    who = shlex.quote(ballot["player"])
    if cast.startswith("endorse("):
        other = cast[len("endorse("):cast.index(")")]
        comment = published.removesuffix(f": Endorsement of {other}")
        run(db, at, f"vote cast {who} --proposal {decision} --endorse {shlex.quote(other)} "
                    f"--as-cast {shlex.quote(cast)} --comment {shlex.quote(comment)}")
    else:
        run(db, at, f"vote cast {who} --proposal {decision} --option {ballot['option']} "
                    f"--as-cast {shlex.quote(cast)}")


@pytest.mark.parametrize("n", [0, 1], ids=["8703", "9028"])
def test_the_shared_example_is_published_byte_for_byte(db_url: str, n: int) -> None:
    """Each proposal of Agora's Assessor (../shared/agora-example), from its JSON: its block
    exactly as the Assessor published it, its figures in ``--format json``, and the
    resolution message carrying the block."""
    p = example(n)
    db = db_url
    new_game(db, sorted(p["strengths"]))
    strengths = " ".join(f"--strength {shlex.quote(f'{k}={v}')}"
                         for k, v in p["strengths"].items() if v != p["strength_default"])
    run(db, "2026-01-01T11:00:00Z",
        f"decision open {p['id']} --title {shlex.quote(p['title'])} --author "
        f"{shlex.quote(p['author'])} --class {p['class']} --ai {p['ai']} --quorum "
        f"{p['quorum']} --strength-default {p['strength_default']} {strengths} --days 3")
    for ballot in p["ballots"]:
        _cast(db, "2026-01-01T12:00:00Z", str(p["id"]), ballot)
    run(db, "2026-01-05T00:00:00Z", "tick")
    block = run(db, "2026-01-05T00:00:00Z", f"decision show {p['id']} --format agora")
    assert block.stdout == p["published_text"]
    shown = json.loads(run(db, "2026-01-05T00:00:00Z",
                           f"decision show {p['id']} --format json").stdout)
    r, published = shown["resolution"], p["published"]
    assert (r["f"], r["a"], r["ballots"], r["popularity"], r["outcome"]) == (
        published["f"], published["a"], published["ballots"], published["popularity"],
        published["outcome"])
    counted = {o: sorted(b["player"] for b in shown["ballots"] if b["counts_as"] == o)
               for o in ("FOR", "AGAINST", "PRESENT")}
    assert counted == {"FOR": sorted(published["for"]), "AGAINST": sorted(published["against"]),
                       "PRESENT": sorted(published["present"])}
    message = run(db, "2026-01-05T00:00:00Z", f"decision resolve {p['id']}").stdout
    assert p["published_text"] in message
    assert message.startswith(f"RESOLUTION OF PROPOSALS {p['id']}\n")
    assert verified(db)


OPEN = ("decision open 9355 --title 'More cards' --author ann --ai 1.0 --quorum 2 "
        "--closes 2026-01-04T11:00:00Z")


def _table(db: str, *, open_with: str = "") -> None:
    """ann, ben, cat, dan (and the Dealer, PurpleBob); decision 9355 open on day 1 until
    2026-01-04T11:00Z."""
    new_game(db, ["ann", "ben", "cat", "dan"])
    run(db, "2026-01-01T11:00:00Z", f"{OPEN} {open_with}")


def _ballots(db: str, decision: str = "9355") -> dict[str, Any]:
    with Nomic(db) as nomic, nomic.read() as tx:
        d = api.decision_show(tx, decision)
    return {b.player: (b.option, b.endorse, b.counts_as) for b in d.ballots}


def test_a_later_ballot_replaces_the_earlier_and_one_after_the_close_is_refused(
        db_url: str) -> None:
    _table(db_url)
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
    out = run(db_url, "2026-01-02T12:00:00Z", "vote cast ann --proposal 9355 --option against")
    assert "AGAINST" in out.stdout and "replacing event" in out.stdout
    assert _ballots(db_url) == {"ann": ("AGAINST", None, "AGAINST")}
    run(db_url, "2026-01-05T00:00:00Z", "tick")
    before = head(db_url)
    late = run(db_url, "2026-01-05T01:00:00Z", "vote cast ben --proposal 9355 --option FOR",
               ok=False)
    assert late.exit_code == 1 and late.stdout == ""
    assert late.stderr == ("error: decision 9355 is resolved (FAILED QUORUM): its voting ended "
                           "2026-01-04T11:00:00Z\n")
    assert head(db_url) == before
    assert verified(db_url)


class Ticking:
    """A clock that moves on a second at each reading, as a busy server's may between two."""

    def __init__(self, start: datetime) -> None:
        self.at = start

    def now(self) -> datetime:
        self.at += timedelta(seconds=1)
        return self.at


def test_a_ballot_cast_now_says_no_time_of_its_own_however_the_clock_moves(
        db_url: str) -> None:
    _table(db_url)
    start = datetime(2026, 1, 1, 12, 0, 0, 900_000, tzinfo=UTC)
    with Nomic(db_url, clock=Ticking(start)) as nomic, nomic.write() as tx:
        api.cast_ballot(tx, "ann", "9355", option="FOR")
    with Nomic(db_url) as nomic, nomic.read() as tx:
        (line,) = [e.text for e in api.public_log(tx, limit=5) if e.kind == "ballot.cast"]
    assert line == "ann voted on decision 9355: FOR"


def test_endorsements_follow_a_chain_count_present_without_a_ballot_and_refuse_a_loop(
        db_url: str) -> None:
    _table(db_url)
    t = "2026-01-01T12:00:00Z"
    run(db_url, t, "vote cast dan --proposal 9355 --endorse ann")  # ann has none yet
    assert _ballots(db_url)["dan"] == (None, "ann", "PRESENT")
    run(db_url, t, "vote cast cat --proposal 9355 --endorse dan")  # cat -> dan -> ann
    run(db_url, t, "vote cast ann --proposal 9355 --option FOR")
    assert _ballots(db_url) == {"ann": ("FOR", None, "FOR"), "dan": (None, "ann", "FOR"),
                                "cat": (None, "dan", "FOR")}
    before = head(db_url)
    loop = run(db_url, t, "vote cast ann --proposal 9355 --endorse cat", ok=False)
    assert loop.exit_code == 1
    assert loop.stderr == ("error: ann's endorsement of cat would close a loop of endorsements "
                           "(ann -> cat -> dan -> ann): no option could be found for any of "
                           "them\n")
    own = run(db_url, t, "vote cast ben --proposal 9355 --endorse ben", ok=False)
    assert own.stderr == "error: ben cannot endorse emself\n"
    assert head(db_url) == before
    run(db_url, "2026-01-05T00:00:00Z", "tick")
    block = run(db_url, "2026-01-05T00:00:00Z", "decision show 9355 --format agora").stdout
    assert "FOR (3): ann, cat, dan\n" in block and "OUTCOME: ADOPTED\n" in block
    assert "[\ncat: Endorsement of dan\ndan: Endorsement of ann\n]\n" in block


@pytest.mark.parametrize(("command", "error"), [
    ("vote cast zed --proposal 9355 --option FOR", "error: no player named 'zed'"),
    ("vote cast ann --proposal 9355 --option MAYBE",
     "error: a ballot's option is FOR, AGAINST or PRESENT, not 'MAYBE'"),
    ("vote cast ann --proposal 9355 --option FOR --endorse ben",
     "error: give the ballot as --option FOR|AGAINST|PRESENT or --endorse PLAYER, one of them"),
    ("vote cast ann --proposal 9355",
     "error: decision 9355 is on the ledger: give the ballot as --option FOR|AGAINST|PRESENT "
     "or --endorse PLAYER"),
    ("vote cast ann --proposal 9355 --endorse zed", "error: no player named 'zed'"),
    (f"{OPEN.replace('9355', '9356').replace('--ai 1.0', '--ai -1')}",
     "error: the adoption index is a non-negative decimal such as 1.0 or 2.5 (at most 1000, "
     "four decimals), not '-1'"),
    (f"{OPEN.replace('9355', '9356').replace('--ai 1.0', '--ai 1,5')}",
     "error: the adoption index is a non-negative decimal such as 1.0 or 2.5 (at most 1000, "
     "four decimals), not '1,5'"),
    (f"{OPEN}", "error: decision 9355 is on the ledger already (opened at event"),
    (f"{OPEN.replace('9355', '9356')} --strength ann=16",
     "error: --strength ann: a voting strength is from 0 to 15, not 16"),
    (f"{OPEN.replace('9355', '9356')} --strength zed=2", "error: no player named 'zed'"),
    (f"{OPEN.replace('9355', '9356')} --strength ann={'9' * 5000}",
     "error: --strength for 'ann' has 5000 digits: too large"),
    (f"{OPEN.replace('9355', '9356')} --change 'game amend pooker --version {'7' * 5000}'",
     "error: --version has 5000 digits: too large"),
    (f"{OPEN.replace('9355', '9!56')}", "error: a decision's id is 1 to 40 letters, digits"),
    (f"{OPEN.replace('9355', '9356').replace('2026-01-04', '2025-01-04')}",
     "error: --closes 2025-01-04T11:00:00Z is not after now"),
    (f"{OPEN.replace('9355', '9356')} --change 'rules amend nosuch --set x=1'",
     "error: unknown rule 'nosuch'"),
    (f"{OPEN.replace('9355', '9356')} --change 'rules amend cards-for-votes --set cards=99'",
     "error: cards-for-votes.cards must be from 0 to 52, not 99"),
    (f"{OPEN.replace('9355', '9356')} --class secret",
     "error: --class is ordinary or democratic, not 'secret'"),
    ("decision show 9999", "error: there is no decision 9999 on the ledger"),
    ("decision resolve 9355", "error: decision 9355 is not resolved yet: its voting ends "
                              "2026-01-04T11:00:00Z"),
    ("strength set ann 16 --reason x", "error: the strength: a voting strength is from 0 to "
                                       "15, not 16"),
    ("strength set ann 2 --reason ' '", "error: --reason must say why"),
    ("rules amend cards-for-votes --set cards=2 --proposal 9355",
     "error: decision 9355 is not resolved yet: a rule change cites it only once it is "
     "ADOPTED"),
])
def test_bad_input_is_one_line_and_nothing_is_written(db_url: str, command: str,
                                                      error: str) -> None:
    _table(db_url)
    before = head(db_url)
    result = run(db_url, "2026-01-01T13:00:00Z", command, ok=False)
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(error), result.stderr
    assert "Traceback" not in result.output
    assert head(db_url) == before


def _events(db: str) -> list[tuple[str, str, str]]:
    with Nomic(db) as nomic, nomic.read() as tx:
        return [(r.kind, r.at.isoformat(), json.dumps(r.payload, sort_keys=True))
                for r in tx.events()]


def test_a_late_tick_resolves_exactly_as_an_on_time_one(db_url: str, tmp_path: Path) -> None:
    """Two games alike: one ticks at the reminder and the close, the other a week later; the
    ledgers hold the same events with the same times (the reminder, the resolution and the
    rule change it carries dated at their moments, before the next nweek's work)."""
    late = f"sqlite:///{tmp_path / 'late.db'}"
    for db in (db_url, late):
        _table(db, open_with="--change 'rules amend cards-for-votes --set cards=2'")
        run(db, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
        run(db, "2026-01-02T12:00:00Z", "vote cast ben --proposal 9355 --option FOR")
        run(db, "2026-01-02T12:01:00Z", "vote cast cat --proposal 9355 --option PRESENT")
    run(db_url, "2026-01-03T11:00:00Z", "tick")
    run(db_url, "2026-01-04T11:00:00Z", "tick")
    run(db_url, "2026-01-12T00:00:00Z", "tick")
    run(late, "2026-01-12T00:00:00Z", "tick")
    on_time, later = _events(db_url), _events(late)
    # the dice's seeds are each game's own: the rest of the record is the same
    ours = ("decision.", "ballot.", "rule.", "notice.given", "votes.", "player.")
    assert [e for e in on_time if e[0].startswith(ours)] == \
        [e for e in later if e[0].startswith(ours)]
    assert [(k, at) for k, at, _p in on_time] == [(k, at) for k, at, _p in later]
    kinds = [k for k, _at, _p in later]
    assert kinds.index("decision.reminded") < kinds.index("decision.resolved") \
        < kinds.index("rule.amended") < kinds.index("nweek.started", kinds.index(
            "decision.resolved"))
    resolved = next(json.loads(p) for k, _at, p in later if k == "decision.resolved")
    assert resolved["outcome"] == "ADOPTED"
    amended = next((at, json.loads(p)) for k, at, p in later if k == "rule.amended")
    assert amended == ("2026-01-04T11:00:00+00:00", {"rule": "cards-for-votes",
                                                     "params": {"cards": 2},
                                                     "version": None, "proposal": "9355"})
    reminded = next(json.loads(p) for k, _at, p in later if k == "decision.reminded")
    assert reminded == {"decision": "9355", "players": ["PurpleBob", "dan"]}
    assert verified(db_url) and verified(late)


def test_cards_for_votes_are_dealt_from_ballots(db_url: str) -> None:
    """A ballot of any option in nweek 1 earns a card at nweek 2's start, the deal's reason
    naming it; a replaced ballot and an endorsement count once each; a plain vote counts as
    ever."""
    _table(db_url)
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
    run(db_url, "2026-01-02T12:00:00Z", "vote cast ann --proposal 9355 --option AGAINST")
    run(db_url, "2026-01-02T12:00:00Z", "vote cast ben --proposal 9355 --option PRESENT")
    run(db_url, "2026-01-02T12:00:00Z", "vote cast cat --proposal 9355 --endorse ann")
    run(db_url, "2026-01-02T12:00:00Z", "vote cast dan --proposal 301")
    run(db_url, "2026-01-11T00:00:00Z", "tick")
    with Nomic(db_url) as nomic, nomic.read() as tx:
        deals = [r.event for r in tx.events() if r.kind == "card.dealt"]
        ballots = {r.event.player: r.seq for r in tx.events() if r.kind == "ballot.cast"
                   and r.event.option != "AGAINST"}
    reasons = {d.player: d.reason for d in deals}
    assert sorted(reasons) == ["ann", "ben", "cat", "dan"] and len(deals) == 4
    assert reasons["dan"] == "Cards for Votes: voted in nweek 1 (rule 9)"
    assert reasons["ann"] == (f"Cards for Votes: voted in nweek 1 (rule 9): ballot on decision "
                              f"9355 (event {ballots['ann']})")  # her first ballot
    assert reasons["cat"].endswith(f"ballot on decision 9355 (event {ballots['cat']})")
    run(db_url, "2026-01-21T00:00:00Z", "tick")  # the report of nweek 2, when they were dealt
    report = " ".join(run(db_url, "2026-01-21T00:00:00Z", "report 2").stdout.split())
    assert f"for the ballot on decision 9355 (event {ballots['ann']})" in report
    assert f"for the ballot on decision 9355 (event {ballots['cat']})" in report
    assert report.count("for the ballot on decision") == 3  # ann, ben, cat; not dan's vote
    as_json = json.loads(run(db_url, "2026-01-21T00:00:00Z", "report 2 --format json").stdout)
    earned = {r["player"]: c.get("ballot") for r in as_json["received"] for c in r["cards"]}
    assert earned == {"ann": {"decision": "9355", "event": ballots["ann"]},
                      "ben": {"decision": "9355", "event": ballots["ben"]},
                      "cat": {"decision": "9355", "event": ballots["cat"]}, "dan": None}
    assert verified(db_url)


def test_a_rule_change_cites_a_decision_only_once_it_is_adopted(db_url: str) -> None:
    _table(db_url, open_with="--ai 2.0 --change 'rules amend cards-for-votes --set cards=3'")
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ben --proposal 9355 --option AGAINST")
    run(db_url, "2026-01-05T00:00:00Z", "tick")  # F 1 < 2 x A 1: REJECTED, nothing carried
    rules = json.loads(run(db_url, "2026-01-05T00:00:00Z", "rules show --json").stdout)
    assert next(r for r in rules if r["rule"] == "cards-for-votes")["params"] == {"cards": 1}
    refused = run(db_url, "2026-01-05T00:00:00Z",
                  "rules amend cards-for-votes --set cards=3 --proposal 9355", ok=False)
    assert refused.stderr == ("error: decision 9355 was REJECTED: a rule change cites it only "
                              "once it is ADOPTED\n")
    run(db_url, "2026-01-05T00:00:00Z", "rules amend cards-for-votes --set cards=3 "
                                        "--proposal 'P 12 (no decision here)'")


def test_strengths_set_with_a_reason_count_and_show(db_url: str) -> None:
    _table(db_url)
    run(db_url, "2026-01-01T11:30:00Z", "rules amend decisions --set strength-high=4 "
                                        "--proposal P1")
    run(db_url, "2026-01-01T11:31:00Z", "strength set ben 9 --reason 'Rule 2422: a Zombie'")
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ben --proposal 9355 --option AGAINST")
    run(db_url, "2026-01-05T00:00:00Z", "tick")
    shown = json.loads(run(db_url, "2026-01-05T00:00:00Z",
                           "decision show 9355 --format json").stdout)
    assert (shown["resolution"]["f"], shown["resolution"]["a"]) == (1, 4)
    with Nomic(db_url) as nomic, nomic.read() as tx:
        set_at = next(r.seq for r in tx.events() if r.kind == "strength.set")
    assert shown["strengths"] == [{"player": "ben", "strength": 4, "why": (
        f"Rule 2422: a Zombie (event {set_at}); 9 held to the bounds 0 to 4")}]
    assert "AGAINST (1): ben$\n" in run(db_url, "2026-01-05T00:00:00Z",
                                        "decision show 9355 --format agora").stdout


def test_a_resolved_decision_is_shown_and_published_as_its_close_counted_it(db_url: str
                                                                            ) -> None:
    """A strength set, or a bound amended, after the close changes nothing of a resolution:
    show, resolve and the Agora block say what the resolution recorded."""
    _table(db_url)
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
    run(db_url, "2026-01-01T12:00:00Z", "vote cast ben --proposal 9355 --option AGAINST")
    run(db_url, "2026-01-01T12:01:00Z", "vote cast cat --proposal 9355 --option AGAINST")
    run(db_url, "2026-01-05T00:00:00Z", "tick")
    at = "2026-01-05T00:00:00Z"
    before = [run(db_url, at, f"decision {c}").stdout
              for c in ("show 9355 --format json", "show 9355 --format agora", "resolve 9355")]
    assert json.loads(before[0])["resolution"]["outcome"] == "REJECTED"
    run(db_url, "2026-01-06T00:00:00Z", "strength set ann 5 --reason 'Rule 2422: a Zombie'")
    run(db_url, "2026-01-06T00:01:00Z", "rules amend decisions --set strength-high=3 "
                                        "--proposal P1")
    after = [run(db_url, "2026-01-06T00:02:00Z", f"decision {c}").stdout
             for c in ("show 9355 --format json", "show 9355 --format agora", "resolve 9355")]
    assert after == before
    assert verified(db_url)


def test_a_vote_file_of_six_columns_casts_ballots_and_one_of_three_loads_as_ever(
        db_url: str, tmp_path: Path) -> None:
    _table(db_url)
    six = tmp_path / "ballots.csv"
    with six.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["player", "proposal", "option", "time", "source", "as_cast"])
        w.writerow(["ann", "9355", "FOR", "2026-01-01T12:00:00Z", "<m1@x>", "9355 FOR"])
        w.writerow(["ben", "9355", "endorse ann", "2026-01-01T12:05:00Z", "<m2@x>",
                    "I endorse ann"])
        w.writerow(["cat", "301", "FOR", "2026-01-01T12:06:00Z", "", ""])
    out = run(db_url, "2026-01-01T13:00:00Z", f"vote import {six}").stdout
    assert out.startswith("3 vote(s) recorded, 0 already recorded")
    assert _ballots(db_url) == {"ann": ("FOR", None, "FOR"), "ben": (None, "ann", "FOR")}
    again = run(db_url, "2026-01-01T13:01:00Z", f"vote import {six}").stdout
    assert again.startswith("0 vote(s) recorded, 3 already recorded")
    three = tmp_path / "votes.csv"
    three.write_text("player,proposal,time\ndan,301,2026-01-01T12:10:00Z\n")
    assert run(db_url, "2026-01-01T13:02:00Z", f"vote import {three}").stdout.startswith(
        "1 vote(s) recorded")
    with Nomic(db_url) as nomic, nomic.read() as tx:
        shown = api.decision_show(tx, "9355")
    assert {b.player: (b.source, b.as_cast) for b in shown.ballots} == {
        "ann": ("<m1@x>", "9355 FOR"), "ben": ("<m2@x>", "I endorse ann")}


SCRIPT = ROOT / "scripts" / "verify_decisions.py"


def _script(export: list[dict[str, Any]], tmp_path: Path) -> tuple[int, str]:
    import subprocess
    import sys

    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(export))
    done = subprocess.run([sys.executable, "-I", str(SCRIPT), str(path)], capture_output=True,
                          text=True, timeout=60)
    return done.returncode, done.stdout


def test_the_public_record_alone_recomputes_every_resolution_and_catches_a_forgery(
        db_url: str, tmp_path: Path) -> None:
    """scripts/verify_decisions.py (the standard library alone) recomputes the shared
    example's 9028 from the public export; an outcome, a tally or a strength edited in the
    export is named by its event."""
    test_the_shared_example_is_published_byte_for_byte(db_url, 1)
    export = json.loads(run(db_url, "2026-01-05T00:00:00Z", "ledger export").stdout)
    assert _script(export, tmp_path) == (0, "1 resolution(s) recomputed, 0 problem(s)\n")
    resolved = next(e for e in export if e["kind"] == "decision.resolved")
    for field, forged in (("outcome", "REJECTED"), ("f", 21), ("popularity", "0.334"),
                          ("for", ["4st", "Janet", "Kate", "kiako", "nix", "snail"])):
        copy = json.loads(json.dumps(export))
        event = next(e for e in copy if e["seq"] == resolved["seq"])
        payload = json.loads(event["payload"])
        payload[field] = forged
        event["payload"] = json.dumps(payload)
        code, out = _script(copy, tmp_path)
        assert code == 1 and out.startswith(f"event {resolved['seq']}: decision 9028's "
                                            f"{field} is recorded as {forged!r}"), out
    opened = next(e for e in export if e["kind"] == "decision.opened")
    copy = json.loads(json.dumps(export))
    payload = json.loads(next(e for e in copy if e["seq"] == opened["seq"])["payload"])
    payload["strengths"] = [s if s["player"] != "Janet" else {"player": "Janet", "strength": 3}
                            for s in payload["strengths"]]
    next(e for e in copy if e["seq"] == opened["seq"])["payload"] = json.dumps(payload)
    code, out = _script(copy, tmp_path)
    assert code == 1 and "decision 9028's f is recorded as 20; its ballots and strengths give " \
                         "17" in out
