"""The rules in force, a fact of the ledger (docs/rules.md, "Changing the rules"): init enacts
the proposal's rules, rule changes are recorded, refused when bad, replayed and verified, and
tick, late votes, the calendar and the Dealer's Report follow the rules in force."""

from __future__ import annotations

import json
import re
import shlex
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from alembic import command
from freezegun.api import FrozenDateTimeFactory
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.store.migrate import alembic_config, migration_engine, upgrade
from nomic_cards.errors import InputError, NotFound, RuleViolation
from tests.game_time import at, day
from tests.helpers import flat, new_game, sql

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


# --- what init enacts -------------------------------------------------------------------------


def test_init_enacts_the_proposals_rules_and_the_calendar(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert runner.invoke(app, ["--db", db, "--at", "2026-01-01T10:00:00Z", "init", "--epoch",
                               "2026-01-01", "--nweek-days", "12"]).exit_code == 0
    result = runner.invoke(app, ["--db", db, "rules", "show", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert [(r["number"], r["rule"]) for r in shown] == [
        ("1", "properties"), ("2", "packs"), ("4", "dealer"), ("5", "dealing"), ("6", "hands"),
        ("7", "deck"), ("8", "report"), ("9", "cards-for-votes"), ("", "decisions"),
        ("", "nweeks")]
    cfv = next(r for r in shown if r["rule"] == "cards-for-votes")
    assert {k: cfv[k] for k in ("rule", "number", "in_force", "params", "changed_by", "since")} \
        == {"rule": "cards-for-votes", "number": "9", "in_force": True, "params": {"cards": 1},
            "changed_by": "init", "since": "2026-01-01T10:00:00Z"}
    nweeks = next(r for r in shown if r["rule"] == "nweeks")
    assert nweeks["params"] == {"days": 12, "epoch": "2026-01-01"}
    assert next(r for r in shown if r["rule"] == "report")["params"] == {"every": 1}
    # no event beyond the game's creation and its first dice period
    assert [k for (k,) in sql(f"sqlite:///{db}", "select kind from events order by seq")] == \
        ["game.created", "dice.committed"]


# --- recording changes ----------------------------------------------------------------------


def test_amend_repeal_enact_are_recorded_with_the_proposal_and_replayed(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 3)
    with weekly.write() as tx:
        api.amend_rule(tx, "9", ["cards=3"], proposal="Proposal 412")
    at(clock, 4)
    with weekly.write() as tx:
        api.repeal_rule(tx, "cards-for-votes", proposal="Proposal 420")
    at(clock, 5)
    with weekly.write() as tx:
        api.enact_rule(tx, "CARDS-FOR-VOTES", ["cards=2"], proposal="Proposal 430")
        rules = {v.rule: v for v in api.rules_show(tx)}
    assert (rules["cards-for-votes"].params, rules["cards-for-votes"].changed_by,
            rules["cards-for-votes"].since) == ({"cards": 2}, "Proposal 430",
                                                "2026-01-06T00:00:00Z")
    with weekly.read() as tx:
        history = [(c.action, c.params, c.proposal) for c in api.rules_history(tx, "9")]
    assert history == [("enacted", {"cards": 1}, "init"),
                       ("amended", {"cards": 3}, "Proposal 412"),
                       ("repealed", {"cards": 3}, "Proposal 420"),
                       ("enacted", {"cards": 2}, "Proposal 430")]
    kinds = [k for (k,) in sql(weekly, "select kind from events where kind like 'rule.%' "
                                       "order by seq")]
    assert kinds == ["rule.amended", "rule.repealed", "rule.enacted"]
    # as of a time between the changes
    with weekly.read() as tx:
        then = {v.rule: v for v in api.rules_show(tx, at=day(4.5))}
    assert not then["cards-for-votes"].in_force
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_amending_a_repealed_rule_is_refused_and_writes_nothing(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 2)
    with weekly.write() as tx:
        api.repeal_rule(tx, "report", proposal="Proposal 7")
    before = sql(weekly, "select count(*) from events")
    with (
        pytest.raises(RuleViolation, match=r"rule 8 \(report\) is repealed \(by 'Proposal 7' "
                                           r"at 2026-01-03T00:00:00Z\): cannot amend it"),
        weekly.write() as tx,
    ):
        api.amend_rule(tx, "8", ["every=2"], proposal="Proposal 8")
    with pytest.raises(RuleViolation, match="is repealed"), weekly.write() as tx:
        api.repeal_rule(tx, "report", proposal="Proposal 8")
    assert sql(weekly, "select count(*) from events") == before


def test_bad_changes_are_refused_before_anything_is_written(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    before = sql(weekly, "select count(*) from events")
    with pytest.raises(NotFound, match="unknown rule '3'"), weekly.write() as tx:
        api.amend_rule(tx, "3", ["cards=2"], proposal="P")
    with pytest.raises(NotFound, match="has no parameter 'every'"), weekly.write() as tx:
        api.amend_rule(tx, "9", ["every=2"], proposal="P")
    with (
        pytest.raises(InputError, match=r"cards-for-votes\.cards must be from 0 to 52, not -1"),
        weekly.write() as tx,
    ):
        api.amend_rule(tx, "9", ["cards=-1"], proposal="P")
    with (
        pytest.raises(InputError, match=r"nweeks\.days must be from 1 to 1000, not 1001"),
        weekly.write() as tx,
    ):
        api.amend_rule(tx, "nweeks", ["days=1001"], proposal="P")
    with pytest.raises(RuleViolation, match="cannot be repealed"), weekly.write() as tx:
        api.repeal_rule(tx, "7", proposal="P")
    assert sql(weekly, "select count(*) from events") == before


# --- Cards for Votes under the rule in force ------------------------------------------------


def test_cards_for_votes_deals_the_number_in_force_in_rounds(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        api.record_vote(tx, "ann", "1")
        api.record_vote(tx, "ben", "1")
        api.amend_rule(tx, "9", ["cards=3"], proposal="Proposal 412")
    at(clock, 10)
    with weekly.write() as tx:
        start = api.tick(tx)[-1]
    assert sorted(start.dealt) == ["ann", "ann", "ann", "ben", "ben", "ben"]
    # rounds: each voter's first card before anyone's second
    assert start.dealt[:2] == start.dealt[2:4] == start.dealt[4:]
    with weekly.read() as tx:
        assert [len(api.hand(tx, p).cards) for p in ("ann", "ben", "cat")] == [3, 3, 0]
    reasons = sorted(str(r) for (r,) in sql(weekly, "select reason from deals"))
    assert reasons == [f"Cards for Votes: voted in nweek 1 (rule 9), card {n} of 3"
                       for n in (1, 1, 2, 2, 3, 3)]
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_repealed_cards_for_votes_deals_nothing_and_says_why(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        api.record_vote(tx, "ann", "1")
        api.repeal_rule(tx, "9", proposal="Proposal 420")
    at(clock, 10)
    with weekly.write() as tx:
        start = api.tick(tx)[-1]
    assert start.dealt == ()
    assert [(x.player, x.reason) for x in start.not_dealt] == [
        ("ann", "Cards for Votes (rule 9) was repealed by 'Proposal 420'")]
    with weekly.read() as tx:
        assert api.hand(tx, "ann").cards == ()
    # a late vote for nweek 1 earns nothing either while the rule is repealed
    at(clock, 11)
    with weekly.write() as tx:
        late = api.record_vote(tx, "ben", "1", at=day(5)).late
    assert [(v.player, v.outcome) for v in late] == [
        ("ben", "not dealt: Cards for Votes (rule 9) was repealed by 'Proposal 420'")]


def test_a_late_vote_earns_the_cards_of_the_rule_in_force(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 10)
    with weekly.write() as tx:
        api.tick(tx)
        api.amend_rule(tx, "9", ["cards=2"], proposal="Proposal 412")
    at(clock, 11)
    with weekly.write() as tx:
        late = api.record_vote(tx, "cat", "1", at=day(5)).late
    assert [v.outcome for v in late] == ["dealt a card now", "dealt a card now"]
    with weekly.read() as tx:
        assert len(api.hand(tx, "cat").cards) == 2


# --- the report rule --------------------------------------------------------------------------


@pytest.mark.slow
def test_report_every_two_nweeks_covers_both(clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        api.amend_rule(tx, "report", ["every=2"], proposal="Proposal 500")
        api.record_vote(tx, "ann", "1")  # dealt at the start of nweek 2
        api.transfer(tx, "1", "ben", "Proposal 9")  # received in nweek 1
    at(clock, 12)
    with weekly.write() as tx:
        api.record_vote(tx, "cat", "2")  # dealt at the start of nweek 3: not covered
    at(clock, 30)
    with weekly.write() as tx:
        api.tick(tx)
    published = [k for (k,) in sql(weekly, "select nweek from reports order by nweek")]
    assert published == [2]  # nweeks 1-2 at the start of nweek 3; nweeks 3-4 not yet due
    with weekly.read() as tx:
        report = json.loads(api.report(tx, 2, fmt="json").body)
    assert (report["first_nweek"], report["nweek"]) == (1, 2)
    assert (report["from"], report["until"]) == ("2026-01-01T00:00:00Z", "2026-01-21T00:00:00Z")
    assert sorted(r["player"] for r in report["received"]) == ["ann", "ben"]
    assert [(c["rule"], c["action"], c["params"]) for c in report["rule_changes"]] == \
        [("rule 8 (report)", "amended", {"every": 2})]
    with weekly.read() as tx:
        text = api.report(tx, 2).body
    assert text.startswith("Dealer's Report for nweeks 1 to 2\n")
    assert "rule 8 (report) amended by 'Proposal 500': every=2" in flat(text)
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_repealed_report_publishes_none_until_enacted_again(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        api.repeal_rule(tx, "8", proposal="Proposal 600")
    at(clock, 25)  # nweek 3
    with weekly.write() as tx:
        api.enact_rule(tx, "8", proposal="Proposal 601")
    at(clock, 40)  # nweek 5 began: reports due for nweeks 3 and 4 only
    with weekly.write() as tx:
        api.tick(tx)
    assert [k for (k,) in sql(weekly, "select nweek from reports order by nweek")] == [3, 4]
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


def test_report_version_2_gives_the_backs_alone_from_its_amendment_on(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """A new version of a rule's code (docs/rules.md, "Rule versions"): rule 8 version 2
    reports the Backs alone. The report of the nweek before the amendment says how each card
    came; the one after, nothing but who and which Backs; replay and verify judge each report
    by the version then in force, and the rule enacted again comes back at that version."""
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    at(clock, 1)
    with weekly.write() as tx:
        api.deal(tx, "ann")
    at(clock, 10)
    with weekly.write() as tx:
        api.tick(tx)
    at(clock, 11)
    with weekly.write() as tx:
        change = api.amend_rule(tx, "report", [], proposal="Proposal 800", version=2)
    assert (change.action, change.version, change.params) == ("amended", 2, {"every": 1})
    with weekly.write() as tx:
        api.deal(tx, "ben")
        api.transfer(tx, api.hand(tx, "ann").cards[0].card, "cat", "Proposal 9")
    at(clock, 20)
    with weekly.write() as tx:
        api.tick(tx)
        before, after = api.report(tx, 1).body, api.report(tx, 2).body
    assert ": dealt, committed die, period 1" in before and "Dice commitments" in before
    assert "Under rule 8 version 2" not in before
    assert "Under rule 8 version 2: the Backs alone" in after
    assert "dealt" not in after and "transferred" not in after and "Proposal 9" not in after
    assert "Dice commitments" not in after and "period " not in after
    for player in ("ben", "cat"):
        assert re.search(rf"^  {player}: 1 card: 1 \w+$", after, re.M), after
    with weekly.read() as tx:
        doc = json.loads(api.report(tx, 2, fmt="json").body)
    assert doc["rule_version"] == 2 and "commitments" not in doc
    assert all(set(r) == {"player", "backs"} for r in doc["received"])
    with weekly.read() as tx:
        md = api.report(tx, 2, fmt="markdown").body
    assert "| Player | Cards | By Back |\n" in md and "How" not in md
    with weekly.read() as tx:
        shown = {v.rule: v for v in api.rules_show(tx)}
    assert shown["report"].version == 2
    with weekly.read() as tx:
        assert {v.rule: v for v in api.rules_show(tx, at=day(10.5))}["report"].version == 1
        assert api.ledger_verify(tx).ok
    # repealed and enacted again, it comes back as it was: version 2
    at(clock, 21)
    with weekly.write() as tx:
        api.repeal_rule(tx, "report", proposal="Proposal 801")
        assert api.enact_rule(tx, "report", proposal="Proposal 802").version == 2
    # a report that says how the cards came, published under version 2, is refused
    with weekly.read() as tx:
        state = State()
        for rec in tx.events():
            apply_event(state, rec.seq, rec.event, rec.at)
    forged = ev.ReportPublished(3, {"nweek": 3, "received": [
        {"player": "ben", "backs": ["Red"], "cards": [{"back": "Red", "how": "dealt"}]}]},
        ev.RenderedReport("t", "m", "j"))
    with pytest.raises(ReplayError, match="rule 8 version 2 in force gives the Backs alone"):
        apply_event(state, state.seq + 1, forged, datetime(2026, 1, 31, tzinfo=UTC))


@pytest.mark.slow
def test_rules_amend_version_on_the_command_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"

    def run(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, ["--db", db, *args])
        return result.exit_code, result.output

    assert run("--at", day(0), "init", "--epoch", "2026-01-01")[0] == 0
    code, out = run("--at", day(1), "rules", "amend", "8", "--version", "2", "--proposal",
                    "Proposal 800")
    assert code == 0, out
    code, out = run("--at", day(1), "rules", "show")
    assert re.search(r"^ 8 report\s+in force v2  every=1$", out, re.M), out
    code, out = run("--at", day(1), "rules", "amend", "8", "--version", "3", "--proposal", "P")
    assert code != 0 and "has no version 3" in out and len(out.strip().splitlines()) == 1


# --- the calendar rule ----------------------------------------------------------------------


@pytest.mark.slow
def test_new_nweek_length_starts_at_the_next_boundary(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 13)  # nweek 2 (days 10..19)
    with weekly.write() as tx:
        change = api.amend_rule(tx, "nweeks", ["days=3"], proposal="Proposal 700")
    assert change.from_nweek == 3
    with weekly.read() as tx:
        assert api.nweek_start(tx, 2) == "2026-01-11T00:00:00Z"  # keeps its 10 days
        assert api.nweek_start(tx, 3) == "2026-01-21T00:00:00Z"
        assert api.nweek_start(tx, 4) == "2026-01-24T00:00:00Z"
        assert api.nweek_start(tx, 5) == "2026-01-27T00:00:00Z"
    at(clock, 25.5)
    with weekly.write() as tx:
        assert [n.nweek for n in api.tick(tx)] == [3, 4]
        status = api.clock_status(tx)
    assert (status.nweek, status.nday, status.nweek_days) == (4, 3, 3)
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok


# --- verify ---------------------------------------------------------------------------------


def test_verify_names_a_rule_change_edited_in_the_tables(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 2)
    with weekly.write() as tx:
        api.amend_rule(tx, "9", ["cards=2"], proposal="Proposal 412")
    sql(weekly, "update rule_changes set params = '{\"cards\": 5}' "
                "where rule = 'cards-for-votes' and action = 'amended'")
    with weekly.read() as tx:
        report = api.ledger_verify(tx)
    assert not report.ok
    assert any("change of rule" in str(p) and "cards-for-votes" in str(p)
               for p in report.problems), \
        report.problems


def test_verify_refuses_a_tick_that_ignored_a_repeal(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """A Cards for Votes deal made although rule 9 was repealed (the nweek.started event
    rewritten to say so, every hash after it recomputed as a consistent forger would) is named
    by verify: the replay judges it by the rules in force then."""
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    at(clock, 1)
    with weekly.write() as tx:
        api.repeal_rule(tx, "9", proposal="Proposal 420")
    with weekly.read() as tx:
        state = State()
        for rec in tx.events():
            apply_event(state, rec.seq, rec.event, rec.at)
    bad = ev.NweekStarted(2, None, 1, "c", "o", ("ann",), ("ann",), ())
    with pytest.raises(ReplayError, match="rule 9 in force was repealed"):
        apply_event(state, state.seq + 1, bad, datetime(2026, 1, 11, tzinfo=UTC))


# --- the migration --------------------------------------------------------------------------


@pytest.mark.slow
def test_migration_0007_fills_the_rules_of_an_existing_game(
        clock: FrozenDateTimeFactory, db_url: str) -> None:
    """A game made before revision 0007 (here: the table dropped by downgrading to 0006) gets,
    on upgrade, the rows the replay of its game.created gives, and verifies."""
    with new_game(db_url, epoch=date(2026, 1, 1), nweek_days=7, players=("ann",)) as game:
        at(clock, 9)
        with game.write() as tx:
            api.record_vote(tx, "ann", "1")
    engine = migration_engine(db_url)
    try:
        cfg = alembic_config()
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0006")
    finally:
        engine.dispose()
    upgrade(db_url)
    with Nomic(db_url) as game:
        rows = sql(game, "select seq, rule, action, in_force, version, params, proposal, "
                         "from_nweek from rule_changes order by rule")
        assert [(r[1], r[5], r[7]) for r in rows] == [
            ("cards-for-votes", '{"cards":1}', None), ("dealer", "{}", None),
            ("dealing", "{}", None),
            ("decisions", '{"quorum":1,"strength-default":1,"strength-high":15,"strength-low":0}',
             None), ("deck", "{}", None), ("hands", "{}", None),
            ("nweeks", '{"days":7,"epoch":"2026-01-01"}', 1), ("packs", "{}", None),
            ("properties", "{}", None), ("report", '{"every":1}', None)]
        assert {(r[0], r[2], bool(r[3]), r[4], r[6]) for r in rows} == \
            {(1, "enacted", True, 1, "init")}
        with game.read() as tx:
            assert api.ledger_verify(tx).ok
            assert api.nweek_start(tx, 3) == "2026-01-15T00:00:00Z"


# --- the worked example of docs/rules.md ----------------------------------------------------


def _worked_example() -> list[tuple[list[str], list[str]]]:
    """The commands of docs/rules.md's worked example, each with the lines it must print."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("### Worked example", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    steps: list[tuple[list[str], list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ nomic-cards "):
            steps.append((shlex.split(line[len("$ nomic-cards "):]), []))
        elif line.strip():
            steps[-1][1].append(line)
    return steps


@pytest.mark.slow
def test_worked_example_of_changing_the_rules(tmp_path: Path) -> None:
    db = str(tmp_path / "spoon.db")
    steps = _worked_example()
    assert len(steps) >= 10
    for args, expected in steps:
        result = runner.invoke(app, ["--db", db, *args])
        assert result.exit_code == 0, (args, result.output)
        for line in expected:
            assert line in result.stdout.splitlines(), (args, result.stdout)
    with Nomic(db) as game:
        # ann voted in nweek 4 (2 February): two cards at the start of nweek 5 (10 February)
        with game.read() as tx:
            assert len(api.hand(tx, "ann").cards) == 2
            starts = {e.payload["nweek"]: e.payload for e in api.log(tx, limit=1000)
                      if e.kind == "nweek.started"}
        assert starts[5]["dealt"] == ["ann", "ann"]
        # ben voted in nweek 6: nothing at the start of nweek 7, the repeal named
        assert starts[7]["dealt"] == []
        assert starts[7]["not_dealt"] == [
            {"player": "ben", "reason": "Cards for Votes (rule 9) was repealed by "
                                        "'Proposal 420'"}]
        with game.read() as tx:
            assert api.hand(tx, "ben").cards == ()
        # the reports of nweeks 4 and 6 name the changes made in them
        with game.read() as tx:
            four = api.report(tx, 4).body
        assert "rule 9 (cards-for-votes) amended by 'Proposal 412': cards=2" in flat(four)
        with game.read() as tx:
            six = api.report(tx, 6).body
        assert "rule 9 (cards-for-votes) repealed by 'Proposal 420'" in flat(six)
        # the calendar: nweek 7 keeps ten days, then twelve-day nweeks
        with game.read() as tx:
            assert api.nweek_start(tx, 7) == "2026-03-02T00:00:00Z"
            assert api.nweek_start(tx, 8) == "2026-03-12T00:00:00Z"
            assert api.nweek_start(tx, 10) == "2026-04-05T00:00:00Z"
            shown = {v.rule: v for v in api.rules_show(tx)}
        assert (shown["nweeks"].params, shown["nweeks"].from_nweek) == \
            ({"days": 12, "epoch": "2026-01-01"}, 8)
        with game.read() as tx:
            assert api.ledger_verify(tx).ok
    show = runner.invoke(app, ["--db", db, "--at", "2026-03-05", "rules", "show"])
    assert re.search(r"nweeks +in force v1  days=12, epoch=2026-01-01 \(from nweek 8\)",
                     show.stdout), show.stdout


def test_verify_refuses_an_nweek_start_the_calendar_in_force_does_not_give(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """After the nweek's length changed, an nweek.started event claiming the old boundary is
    refused by the replay (and so named by verify)."""
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    at(clock, 2)
    with weekly.write() as tx:
        api.amend_rule(tx, "nweeks", ["days=4"], proposal="Proposal 700")
    at(clock, 14.5)
    with weekly.write() as tx:
        api.tick(tx)  # nweek 2 from day 10 (nweek 1 kept its 10 days), nweek 3 from day 14
    with weekly.read() as tx:
        state = State()
        for rec in tx.events():
            apply_event(state, rec.seq, rec.event, rec.at)
    assert sorted(state.nweeks) == [1, 2, 3]
    old_length = ev.NweekStarted(4, "2026-01-31T00:00:00Z", 1, "c", "o", (), (), ())
    with pytest.raises(ReplayError, match="the calendar in force has it begin "
                                          "2026-01-19T00:00:00Z"):
        apply_event(state, state.seq + 1, old_length, datetime(2026, 1, 31, tzinfo=UTC))


# --- owed later (cards-for-votes absent=owe) ---------------------------------------------------


def _absent_history(clock: FrozenDateTimeFactory, game: Nomic, absent: str) -> None:
    """ann and cat vote in nweek 1; at its end ann is the Dealer and cat retired; by the end of
    nweek 2 both are active players other than the Dealer again."""
    at(clock, 0.5)
    if absent != "skip":  # skip is the default: amending to it changes nothing (refused)
        with game.write() as tx:
            api.amend_rule(tx, "9", [f"absent={absent}"], proposal="Proposal 500")
    at(clock, 1)
    for p in ("ann", "ben", "cat"):
        with game.write() as tx:
            api.record_vote(tx, p, "1")
    at(clock, 2)
    with game.write() as tx:
        api.elect_dealer(tx, "ann")
        api.retire_player(tx, "cat")
    at(clock, 10)
    with game.write() as tx:
        api.tick(tx)
    at(clock, 12)
    with game.write() as tx:
        api.elect_dealer(tx, "ben")
        api.add_player(tx, "cat")


def test_absent_owe_deals_the_dealer_and_the_retired_their_cards_later(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    _absent_history(clock, weekly, "owe")
    with weekly.read() as tx:
        first = api.log(tx, limit=10_000)
    started = [e for e in first if e.kind == "nweek.started" and e.payload["nweek"] == 2][0]
    assert started.payload["dealt"] == ["ben"]
    assert sorted((n["player"], n["owed"]) for n in started.payload["not_dealt"]) == [
        ("ann", 1), ("cat", 1)]
    assert all("owed 1 card(s) later" in n["reason"] for n in started.payload["not_dealt"])
    at(clock, 20)
    with weekly.write() as tx:
        start = api.tick(tx)[-1]
    assert sorted((p.player, p.nweek, p.cards) for p in start.paid) == [("ann", 1, 1),
                                                                       ("cat", 1, 1)]
    with weekly.read() as tx:
        assert len(api.hand(tx, "ann").cards) == 1
        assert len(api.hand(tx, "cat").cards) == 1
    reasons = sorted(str(r) for (r,) in sql(weekly, "select reason from deals where "
                                                    "reason like '%owed%'"))
    assert reasons == ["Cards for Votes: voted in nweek 1 (rule 9); owed since nweek 2"] * 2
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok
        summary = [e.summary for e in api.log(tx, limit=10_000)
                   if e.kind == "nweek.started" and e.payload["nweek"] == 3][0]
    owed = summary.split("; owed cards dealt: ", 1)[1].split(", ")
    assert sorted(owed) == ["ann (1 for nweek 1)", "cat (1 for nweek 1)"], summary
    # paid once: the next boundary deals nothing more to them
    at(clock, 30)
    with weekly.write() as tx:
        assert api.tick(tx)[-1].paid == ()


def test_absent_skip_deals_them_nothing_later(clock: FrozenDateTimeFactory,
                                              weekly: Nomic) -> None:
    _absent_history(clock, weekly, "skip")
    at(clock, 20)
    with weekly.write() as tx:
        assert api.tick(tx)[-1].paid == ()
        assert api.hand(tx, "ann").cards == api.hand(tx, "cat").cards == ()
        assert api.ledger_verify(tx).ok


def test_owed_cards_wait_while_rule_9_is_repealed(clock: FrozenDateTimeFactory,
                                                  weekly: Nomic) -> None:
    _absent_history(clock, weekly, "owe")
    with weekly.write() as tx:
        api.repeal_rule(tx, "9", proposal="Proposal 510")
    at(clock, 20)
    with weekly.write() as tx:
        assert api.tick(tx)[-1].paid == ()
    at(clock, 21)
    with weekly.write() as tx:
        api.enact_rule(tx, "9", proposal="Proposal 520")
    at(clock, 30)
    with weekly.write() as tx:
        assert sorted(p.player for p in api.tick(tx)[-1].paid) == ["ann", "cat"]
        assert api.ledger_verify(tx).ok


def test_verify_refuses_an_owed_card_left_unpaid_or_a_voter_not_owed(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """Forged nweek starts, judged by the replay: under absent=owe the Dealer who voted must be
    owed the card, and a present player's debt must be paid while the Deck has cards."""
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    _absent_history(clock, weekly, "owe")

    def replayed(until_nweek: int) -> State:
        with weekly.read() as tx:
            state = State()
            for rec in tx.events():
                if rec.event.KIND == "nweek.started" and \
                        getattr(rec.event, "nweek", 0) >= until_nweek:
                    break
                apply_event(state, rec.seq, rec.event, rec.at)
        return state

    state = replayed(2)
    not_owed = ev.NweekStarted(2, None, 1, "c", "o", ("ann", "ben"), ("ben",),
                               (ev.NotDealt("ann", "is the Dealer"),))
    with pytest.raises(ReplayError, match="records ann owed 0 card.*owes 1"):
        apply_event(state, state.seq + 1, not_owed, datetime(2026, 1, 11, tzinfo=UTC))
    state = replayed(99)  # ann and cat owed, both present again, the Deck full
    unpaid = ev.NweekStarted(3, None, 2, "c", "o", (), (), (),
                             (ev.OwedPaid("cat", 1, 1),))
    with pytest.raises(ReplayError, match="left ann owed 1 card"):
        apply_event(state, state.seq + 1, unpaid, datetime(2026, 1, 21, tzinfo=UTC))
    state = replayed(99)
    overpaid = ev.NweekStarted(3, None, 2, "c", "o", (), (), (),
                               (ev.OwedPaid("ben", 1, 1),))
    with pytest.raises(ReplayError, match="dealt ben 1 card.*owed for nweek 1, but 0"):
        apply_event(state, state.seq + 1, overpaid, datetime(2026, 1, 21, tzinfo=UTC))


def _late_absent_history(clock: FrozenDateTimeFactory, game: Nomic, absent: str
                         ) -> api.VoteImport:
    """absent=ABSENT from day 1; nweek 2 starts with no voter; on day 11 cat retires, then
    votes of nweek 1 are recorded late: ann (present), cat (retired) and PurpleBob (the
    Dealer)."""
    at(clock, 1)
    if absent != "skip":  # skip is the default
        with game.write() as tx:
            api.amend_rule(tx, "9", [f"absent={absent}"], proposal="Proposal 500")
    at(clock, 10)
    with game.write() as tx:
        api.tick(tx)
    at(clock, 11)
    with game.write() as tx:
        api.retire_player(tx, "cat")
        return api.record_votes(tx, [(p, "7", datetime(2026, 1, 6, tzinfo=UTC))
                                            for p in ("ann", "cat", "PurpleBob")], source="late")


def test_a_late_vote_under_absent_owe_is_owed_to_the_absent_and_paid_later(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    """A late vote is judged when it is recorded (docs/rules.md, "Late votes"): a present
    voter is dealt at once, and under absent=owe a voter who is then the Dealer or retired is
    owed the cards, recorded in the votes' event and dealt at the first boundary where present,
    as an absent voter on time is."""
    imported = _late_absent_history(clock, weekly, "owe")
    outcome = {v.player: v.outcome for v in imported.late}
    assert outcome["ann"] == "dealt a card now"
    assert outcome["cat"].startswith("not dealt: retired") and \
        outcome["cat"].endswith("; owed 1 card(s) later (rule 9, absent=owe)")
    assert outcome["PurpleBob"].startswith("not dealt: is the Dealer") and \
        outcome["PurpleBob"].endswith("; owed 1 card(s) later (rule 9, absent=owe)")
    with weekly.read() as tx:
        event = [e for e in api.log(tx, limit=10_000) if e.kind == "votes.recorded"][-1]
    assert sorted((o["player"], o["nweek"], o["cards"]) for o in event.payload["owed"]) == [
        ("PurpleBob", 1, 1), ("cat", 1, 1)]
    assert event.summary.endswith("; late votes owed later: cat (1 for nweek 1), PurpleBob "
                                  "(1 for nweek 1)") or event.summary.endswith(
        "; late votes owed later: PurpleBob (1 for nweek 1), cat (1 for nweek 1)"), event.summary
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok
    at(clock, 12)
    with weekly.write() as tx:
        api.add_player(tx, "cat")
        api.elect_dealer(tx, "ben")
    at(clock, 20)
    with weekly.write() as tx:
        start = api.tick(tx)[-1]
    assert sorted((p.player, p.nweek, p.cards) for p in start.paid) == [
        ("PurpleBob", 1, 1), ("cat", 1, 1)]
    with weekly.read() as tx:
        assert [len(api.hand(tx, p).cards) for p in ("ann", "cat", "PurpleBob")] == [
            1, 1, 1]
        assert api.ledger_verify(tx).ok
    at(clock, 30)
    with weekly.write() as tx:
        assert api.tick(tx)[-1].paid == ()


def test_a_late_vote_under_absent_skip_owes_nothing(clock: FrozenDateTimeFactory,
                                                    weekly: Nomic) -> None:
    imported = _late_absent_history(clock, weekly, "skip")
    outcome = {v.player: v.outcome for v in imported.late}
    assert "owed" not in outcome["cat"] and "owed" not in outcome["PurpleBob"]
    with weekly.read() as tx:
        event = [e for e in api.log(tx, limit=10_000) if e.kind == "votes.recorded"][-1]
    assert "owed" not in event.payload  # stored as before absent existed
    at(clock, 12)
    with weekly.write() as tx:
        api.add_player(tx, "cat")
        api.elect_dealer(tx, "ben")
    at(clock, 20)
    with weekly.write() as tx:
        assert api.tick(tx)[-1].paid == ()
        assert api.ledger_verify(tx).ok


def test_verify_refuses_a_late_vote_owed_that_the_rule_did_not_owe(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    _late_absent_history(clock, weekly, "owe")
    with weekly.read() as tx:
        state = State()
        for rec in tx.events():
            apply_event(state, rec.seq, rec.event, rec.at)
    vote = (ev.VoteEntry("ann", "8", datetime(2026, 1, 7, tzinfo=UTC)),)
    when = datetime(2026, 1, 12, tzinfo=UTC)
    present = ev.VotesRecorded(vote, "x", (ev.LateOwed("ann", 1, 1),))
    with pytest.raises(ReplayError, match="late vote of ann in nweek 1 is recorded owed 1"):
        apply_event(state, state.seq + 1, present, when)
    vote = (ev.VoteEntry("cat", "8", datetime(2026, 1, 7, tzinfo=UTC)),)
    too_many = ev.VotesRecorded(vote, "x", (ev.LateOwed("cat", 1, 2),))
    with pytest.raises(ReplayError, match="owed 2"):
        apply_event(state, state.seq + 1, too_many, when)
    no_vote = ev.VotesRecorded(vote, "x", (ev.LateOwed("cat", 2, 1),))
    with pytest.raises(ReplayError, match="in nweek 2"):
        apply_event(state, state.seq + 1, no_vote, when)


# --- card games (Rule 399) ---------------------------------------------------------------------


def test_game_enact_binds_packs_recorded_replayed_and_shown(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    with weekly.write() as tx:
        enacted = api.game_enact(tx, "pooker", "Red,Blue", ["show-days=4"],
                                      proposal="P456")
    assert (enacted.rule, enacted.action, enacted.proposal) == ("pooker", "enacted", "P456")
    # the declaration of games.md: the defaults, the score table's first four entries
    params = enacted.params
    assert (params["packs"], params["show-days"], params["trade-fee"], params["trigger-pcards"],
            params["trigger-min-shown"], params["motion-threshold"], params["dealer-may-show"],
            params["prize"]) == ("0,1", 4, 1, 10, 2, "majority", "no", "score")
    assert [params[f"score-{h}"] for h in ("five-of-a-kind", "royal-flush", "straight-flush",
                                          "four-of-a-kind")] == [80, 80, 70, 60]
    at(clock, 2)
    with weekly.write() as tx:
        api.game_amend(tx, "pooker", packs="0,Fish", proposal="P460")
        listed = api.game_list(tx)
    assert [(g.game, g.packs, g.pack_names, g.changed_by) for g in listed] == [
        ("pooker", [0, 2], ["Red", "Fish"], "P460")]
    with weekly.read() as tx:
        shown = {v.rule: v for v in api.rules_show(tx)}
    assert shown["pooker"].in_force and shown["pooker"].params["packs"] == "0,2"
    # the event is a rule event naming the game and its packs
    with weekly.read() as tx:
        event = [e for e in api.log(tx, limit=1000) if e.kind == "rule.amended"][-1]
    assert (event.payload["rule"], event.payload["params"]["packs"]) == ("pooker", "0,2")
    with weekly.read() as tx:
        assert api.ledger_verify(tx).ok
    at(clock, 3)
    with weekly.write() as tx:
        api.game_repeal(tx, "pooker", proposal="P500")
        assert api.game_list(tx) == []
        assert api.ledger_verify(tx).ok
    # as it stood at day 2.5
    with weekly.read() as tx:
        before = {v.rule: v for v in api.rules_show(tx, at=day(2.5))}
    assert before["pooker"].in_force


def test_game_cli_list_and_bad_games(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    base = ["--db", db, "--at", "2026-01-01T10:00:00Z"]
    assert runner.invoke(app, [*base, "init", "--epoch", "2026-01-01"]).exit_code == 0
    ok = runner.invoke(app, [*base, "game", "enact", "pooker", "--packs", "Red,3",
                             "--proposal", "P456"])
    assert ok.exit_code == 0, ok.output
    listed = runner.invoke(app, ["--db", db, "game", "list", "--json"])
    assert [(g["game"], g["packs"], g["pack_names"]) for g in json.loads(listed.stdout)] == [
        ("pooker", [0, 3], ["Red", "Corporate"])]
    text = runner.invoke(app, ["--db", db, "game", "list"]).stdout
    assert text.startswith("pooker: packs 0 Red, 3 Corporate; since 2026-01-01T10:00:00Z")
    shown = json.loads(runner.invoke(app, ["--db", db, "rules", "show", "--json"]).stdout)
    assert [r["params"]["packs"] for r in shown if r["rule"] == "pooker"] == ["0,3"]


def test_a_pack_belongs_to_at_most_one_game(clock: FrozenDateTimeFactory, weekly: Nomic,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A second registered game (here made for the test) cannot take a pack of the first,
    neither from the command nor in a forged ledger."""
    from nomic_cards.cardgames.sdk import CardGame
    from nomic_cards.core import engine, installed
    from nomic_cards.core.ledger import events as ev
    from nomic_cards.core.ledger.replay import ReplayError, apply_event
    from nomic_cards.core.ledger.state import State

    engine.register(CardGame("snap", "Snap", "A test game."))
    try:
        at(clock, 1)
        with weekly.write() as tx:
            api.game_enact(tx, "pooker", "0,1", proposal="P456")
        before = sql(weekly, "select count(*) from events")
        with (
            pytest.raises(RuleViolation, match=r"pack 1 \(Blue\) belongs to card game pooker"),
            weekly.write() as tx,
        ):
            api.game_enact(tx, "snap", "Blue,Fish", proposal="P457")
        assert sql(weekly, "select count(*) from events") == before
        with weekly.write() as tx:
            api.game_enact(tx, "snap", "Fish", proposal="P457")
        with (
            pytest.raises(RuleViolation, match="pack 2 .* belongs to card game snap"),
            weekly.write() as tx,
        ):
            api.game_amend(tx, "pooker", packs="0,2", proposal="P458")
        with weekly.read() as tx:
            state = State()
            for rec in tx.events():
                apply_event(state, rec.seq, rec.event, rec.at)
        forged = ev.RuleAmended("pooker", {"packs": "0,2"}, None, "P458")
        with pytest.raises(ReplayError, match="belongs to card game snap"):
            apply_event(state, state.seq + 1, forged, datetime(2026, 1, 3, tzinfo=UTC))
        # once snap is repealed, its pack is free
        with weekly.write() as tx:
            api.game_repeal(tx, "snap", proposal="P459")
            api.game_amend(tx, "pooker", packs="0,2", proposal="P460")
            assert api.ledger_verify(tx).ok
    finally:
        installed.unregister("snap")


@pytest.mark.slow
def test_game_bad_input_is_refused_and_writes_nothing(
        clock: FrozenDateTimeFactory, weekly: Nomic) -> None:
    at(clock, 1)
    before = sql(weekly, "select count(*) from events")
    with (
        pytest.raises(NotFound, match="unknown card game 'tarot': the games installed are "
                                      ".*pooker"),
        weekly.write() as tx,
    ):
        api.game_enact(tx, "tarot", "Red", proposal="P1")
    with pytest.raises(NotFound, match="--packs: no pack named 'Green'"), weekly.write() as tx:
        api.game_enact(tx, "pooker", "Red,Green", proposal="P1")
    with pytest.raises(RuleViolation, match="there is no pack 7"), weekly.write() as tx:
        api.game_enact(tx, "pooker", "7", proposal="P1")
    with (
        pytest.raises(InputError, match="must be one of majority, two-thirds, unanimity"),
        weekly.write() as tx,
    ):
        api.game_enact(tx, "pooker", "Red", ["motion-threshold=most"], proposal="P1")
    with (
        pytest.raises(RuleViolation, match="card game pooker was never enacted"),
        weekly.write() as tx,
    ):
        api.game_amend(tx, "pooker", ["trade-fee=2"], proposal="P1")
    with (
        pytest.raises(RuleViolation, match="card game pooker was never enacted"),
        weekly.write() as tx,
    ):
        api.game_repeal(tx, "pooker", proposal="P1")
    assert sql(weekly, "select count(*) from events") == before


def test_pooker_is_registered_as_an_entry_point_and_unknown_names_are_none() -> None:
    from importlib.metadata import entry_points

    from nomic_cards.cardgames.pooker import GAME
    from nomic_cards.core import installed

    (ep,) = entry_points(group="nomic_cards.games", name="pooker")
    assert ep.load() is GAME
    assert installed.rule("no-such-game") is None
    found = installed.rule("pooker")
    assert found is not None and found.game and found.label == "card game pooker"
