"""Claims of error (docs/nweeks.md, "Claims of error"), through the command line and a real
SMTP server: off by default; with rule 8's doubt_days at 14, a report posted to the list is
doubted by a player (on the command line, or by a line of a message read as the action
cards.doubt), denied or revised by the Dealer, withdrawn by its doubter, and recorded ratified
by tick once it has stood undoubted 14 days -- dated at that moment, a late tick alike; each
step an event that ledger verify replays."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from freezegun import freeze_time
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.mail.reading import read as read_message
from tests.helpers import sql
from tests.mailbox import Inbox, free_port

pytestmark = pytest.mark.db

LIST = "spoon-business@lists.example.org"
runner = CliRunner()


@pytest.fixture
def smtp() -> Iterator[str]:
    port = free_port()
    controller = Controller(Inbox(), hostname="127.0.0.1", port=port)
    controller.start()
    yield f"127.0.0.1:{port}"
    controller.stop()


def run(db: str, at: str, command: str, *, ok: bool = True) -> Any:
    result = runner.invoke(app, ["--db", db, "--at", at, *shlex.split(command)])
    if ok:
        assert result.exit_code == 0, f"{command}: {result.output}"
    return result


def _game(db: str, smtp: str, *, days: int | None = 14) -> None:
    """ann and ben; rule 8's doubt_days set (unless None); the report of nweek 1 published at
    2026-01-11T00:00Z and posted to the list an hour later."""
    run(db, "2026-01-01T10:00:00Z", "init --epoch 2026-01-01 --nweek-days 10")
    for p in ("ann", "ben"):
        run(db, "2026-01-01T10:01:00Z", f"player add {p}")
    if days is not None:
        run(db, "2026-01-02T10:00:00Z",
            f"rules amend report --set doubt_days={days} --proposal 'Proposal 501'")
    run(db, "2026-01-11T00:05:00Z", "tick")
    run(db, "2026-01-11T01:00:00Z", f"report 1 --post --smtp {smtp} --list {LIST}")


def _kinds(db: str, *kinds: str) -> list[tuple[int, str, str, dict[str, Any]]]:
    marks = ", ".join(f"'{k}'" for k in kinds)
    with Nomic(db) as nomic:
        return [(s, a, k, json.loads(p)) for s, a, k, p in sql(
            nomic, f"select seq, at, kind, payload from events where kind in ({marks}) "
                   "order by seq")]


def _verified(db: str) -> bool:
    with Nomic(db) as nomic, nomic.read() as tx:
        return api.ledger_verify(tx).ok


def test_claims_of_error_are_off_by_default(db_url: str, smtp: str) -> None:
    _game(db_url, smtp, days=None)
    out = run(db_url, "2026-01-12T00:00:00Z", "claim doubt 1 --player ann --claim 'wrong'",
              ok=False)
    assert out.exit_code == 1
    assert out.output.strip().splitlines() == [
        "error: claims of error are off: rule 8's doubt_days is 0 (a rule change sets it: "
        "rules amend report --set doubt_days=14)"]
    run(db_url, "2026-03-01T00:00:00Z", "tick")
    assert _kinds(db_url, "report.doubted", "report.ratified") == []


def test_an_undoubted_report_is_ratified_after_14_days_by_a_late_tick_as_of_then(
        db_url: str, smtp: str) -> None:
    _game(db_url, smtp)
    run(db_url, "2026-01-25T00:59:00Z", "tick")  # 14 days less a minute: not yet
    assert _kinds(db_url, "report.ratified") == []
    run(db_url, "2026-02-20T00:00:00Z", "tick")  # weeks late
    [(_, at, _, payload)] = _kinds(db_url, "report.ratified")
    assert payload == {"nweek": 1, "days": 14}
    assert str(at).replace(" ", "T").startswith("2026-01-25T01:00:00")  # posted + 14 days
    out = run(db_url, "2026-02-20T01:00:00Z", "claim doubt 1 --player ann --claim late",
              ok=False)
    assert "not a report posted to the list and not yet ratified" in out.output
    assert _verified(db_url)


def test_doubt_deny_revise_withdraw_each_an_event_and_the_clock_restarts(
        db_url: str, smtp: str) -> None:
    _game(db_url, smtp)
    first = run(db_url, "2026-01-12T00:00:00Z",
                "claim doubt 1 --player ann --claim 'ben received 1 card, not 2' --json")
    doubt = json.loads(first.stdout)["event"]
    listed = run(db_url, "2026-01-12T00:00:00Z", "claim list").stdout
    assert listed == f"nweek 1: doubted by ann (event {doubt})\n"
    # a doubt holds the clock: no ratification while it is open
    run(db_url, "2026-01-30T00:00:00Z", "tick")
    assert _kinds(db_url, "report.ratified") == []
    # only the doubter withdraws it
    other = run(db_url, "2026-01-30T00:00:00Z", f"claim withdraw {doubt} --player ben",
                ok=False)
    assert other.exit_code == 1 and "ann's: only its doubter withdraws it" in other.output
    run(db_url, "2026-01-30T01:00:00Z", f"claim deny {doubt} --reason 'the ledger shows 2'")
    again = run(db_url, "2026-01-30T02:00:00Z", f"claim deny {doubt} --reason twice", ok=False)
    assert again.exit_code == 1 and f"event {doubt} is no open claim of error" in again.output
    second = run(db_url, "2026-02-01T00:00:00Z",
                 "claim doubt 1 --player ben --claim 'my Blue card is missing' --json")
    revised = json.loads(second.stdout)["event"]
    run(db_url, "2026-02-02T00:00:00Z",
        f"claim revise {revised} --correction 'ben received 1 Red and 1 Blue card'")
    third = json.loads(run(db_url, "2026-02-03T00:00:00Z",
                           "claim doubt 1 --player ann --claim 'still wrong' --json").stdout)
    run(db_url, "2026-02-04T00:00:00Z", f"claim withdraw {third['event']} --player ann")
    # undoubted from the withdrawal: ratified 14 days after it, not after the posting
    run(db_url, "2026-02-17T23:59:00Z", "tick")
    assert _kinds(db_url, "report.ratified") == []
    run(db_url, "2026-02-18T00:00:00Z", "tick")
    kinds = [(k, p) for _, _, k, p in _kinds(
        db_url, "report.doubted", "report.denied", "report.revised", "report.withdrawn",
        "report.ratified")]
    assert [k for k, _ in kinds] == ["report.doubted", "report.denied", "report.doubted",
                                     "report.revised", "report.doubted", "report.withdrawn",
                                     "report.ratified"]
    assert kinds[3][1] == {"doubt": revised, "correction": "ben received 1 Red and 1 Blue card"}
    log = run(db_url, "2026-02-18T01:00:00Z", "log").stdout
    assert "ann doubted the Dealer's Report for nweek 1: ben received 1 card, not 2" in log
    assert "the Dealer's Report for nweek 1 is ratified: it stood undoubted for 14 days" in log
    assert _verified(db_url)


@pytest.mark.parametrize(("command", "error"), [
    ("claim doubt 1 --player zed --claim x", "error: no player named 'zed'"),
    ("claim doubt 1 --player ann --claim ' '", "error: the claim says nothing"),
    ("claim doubt 2 --player ann --claim x",
     "error: the Dealer's Report for nweek 2 is not a report posted to the list and not yet "
     "ratified: it cannot be doubted"),
    ("claim deny 3 --reason x", "error: event 3 is no open claim of error"),
])
def test_bad_claims_are_refused_in_one_line(db_url: str, smtp: str, command: str,
                                            error: str) -> None:
    _game(db_url, smtp)
    out = run(db_url, "2026-01-12T00:00:00Z", command, ok=False)
    assert out.exit_code == 1
    assert out.output.strip().splitlines() == [error]
    assert _kinds(db_url, "report.doubted", "report.denied") == []


def test_a_doubt_and_its_withdrawal_as_players_write_them_in_a_message() -> None:
    from nomic_cards.core.services.acting import registry

    actions = registry()
    reading = read_message("I doubt the Dealer's Report for nweek 3: ann received 2 Red "
                           "cards, not 3\n\nI withdraw my claim of error 41\n", actions)
    acts = [(i.action, i.body) for i in reading.items if i.kind == "act"]
    assert acts == [("cards.doubt", {"nweek": 3, "claim": "ann received 2 Red cards, not 3"}),
                    ("cards.doubt_withdraw", {"doubt": 41})]


def test_the_action_a_message_applies_doubts_and_withdraws_as_its_player(
        db_url: str, smtp: str) -> None:
    from nomic_cards.core.services.acting import registry

    _game(db_url, smtp)
    actions = registry()
    with freeze_time("2026-01-12T00:00:00Z"), Nomic(db_url) as nomic:
        with nomic.write("ann") as tx:
            done = actions["cards.doubt"].run(tx, "ann", {"nweek": 1, "claim": "one too few",
                                                          "source": "<coe-1@spoon.example>"})
        [(seq, _, _, payload)] = _kinds(db_url, "report.doubted")
        assert done.seqs == (seq,)
        assert payload == {"nweek": 1, "player": "ann", "claim": "one too few",
                           "source": "<coe-1@spoon.example>"}
        with nomic.write("ann") as tx:
            actions["cards.doubt_withdraw"].run(tx, "ann", {"doubt": seq})
    assert [p for _, _, _, p in _kinds(db_url, "report.withdrawn")] == [
        {"doubt": seq, "player": "ann"}]
    assert _verified(db_url)
