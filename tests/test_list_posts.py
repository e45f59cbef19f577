"""Reports to the list (docs/mail.md, "Reports to the list"): the Dealer's Report and a
decision's resolution posted by SMTP to the game's list through a real SMTP server (aiosmtpd),
each with the tag in its Subject, plain text of at most 72 columns, the date of this report and
of the last, its Message-ID recorded on the ledger (``list.posted``); never posted twice; one
the server refuses for now left for the next run; cron posting when the list is configured."""

from __future__ import annotations

import shlex
import threading
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.helpers import sql
from tests.mailbox import free_port

pytestmark = pytest.mark.db

LIST = "spoon-business@lists.example.org"
runner = CliRunner()


class Kept:
    """An aiosmtpd handler keeping each message it takes; ``refuse`` answers 451 instead."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.refuse = False
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            if self.refuse:
                return "451 4.3.0 try later"
            msg = message_from_bytes(envelope.content, policy=policy.default)
            self.messages.append((list(envelope.rcpt_tos), msg))  # type: ignore[arg-type]
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[str, Kept]]:
    kept = Kept()
    port = free_port()
    controller = Controller(kept, hostname="127.0.0.1", port=port)
    controller.start()
    yield f"127.0.0.1:{port}", kept
    controller.stop()


def run(db: str, at: str, command: str, *, ok: bool = True,
        env: dict[str, str] | None = None) -> Any:
    result = runner.invoke(app, ["--db", db, "--at", at, *shlex.split(command)], env=env)
    if ok:
        assert result.exit_code == 0, f"{command}: {result.output}"
    return result


def _season(db: str) -> None:
    """ann and ben vote in nweek 1 (2026-01-01 to 01-11) and nweek 2; decision 9355 open until
    2026-01-04T11:00Z with two ballots FOR; ticks publish the report of nweek 1 on 01-11."""
    run(db, "2026-01-01T10:00:00Z", "init --epoch 2026-01-01 --nweek-days 10")
    for p in ("ann", "ben"):
        run(db, "2026-01-01T10:01:00Z", f"player add {p}")
    run(db, "2026-01-01T11:00:00Z", "decision open 9355 --title 'More cards' --author ann "
        "--ai 1.0 --quorum 2 --closes 2026-01-04T11:00:00Z")
    run(db, "2026-01-01T12:00:00Z", "vote cast ann --proposal 9355 --option FOR")
    run(db, "2026-01-02T12:00:00Z", "vote cast ben --proposal 9355 --option FOR")
    run(db, "2026-01-05T00:00:00Z", "tick")  # resolves 9355
    run(db, "2026-01-11T00:05:00Z", "tick")  # publishes the report of nweek 1


def _posted(db: str) -> list[dict[str, Any]]:
    import json

    return [json.loads(p) for (p,) in sql(Nomic(db), "select payload from events where kind = "
                                                     "'list.posted' order by seq")]


def _verified(db: str) -> bool:
    with Nomic(db) as nomic, nomic.read() as tx:
        return api.ledger_verify(tx).ok


def test_the_report_is_posted_to_the_list_once_with_its_message_id(
        db_url: str, smtp: tuple[str, Kept]) -> None:
    server, kept = smtp
    _season(db_url)
    out = run(db_url, "2026-01-11T01:00:00Z", f"report 1 --post --smtp {server} --list {LIST}")
    assert len(kept.messages) == 1
    rcpts, msg = kept.messages[0]
    assert rcpts == [LIST] and msg["To"] == LIST
    assert msg["Subject"] == "OFF: [Dealer] Dealer's Report for nweek 1"
    body = msg.get_content().replace("\r\n", "\n")
    lines = body.splitlines()
    assert lines[0] == "Date of this report: 2026-01-11 00:00 UTC"
    assert lines[1] == "Date of last report: none, this is the first"
    assert max(len(line) for line in lines) <= 72
    printed = run(db_url, "2026-01-11T01:00:00Z", "report 1").stdout
    assert printed.startswith("Dealer's Report for nweek 1\n")
    assert body.split("\n\n", 1)[1] == printed  # the report exactly as published
    [event] = _posted(db_url)
    assert event == {"what": "report", "ids": ["1"], "message_id": msg["Message-ID"],
                     "to": LIST, "to_list": True}
    assert msg["Message-ID"] in out.stdout and msg["Date"] == "Sun, 11 Jan 2026 01:00:00 +0000"
    # never twice: refused in one line, nothing sent, nothing recorded
    again = run(db_url, "2026-01-11T02:00:00Z", f"report 1 --post --smtp {server} --list {LIST}",
                ok=False)
    assert again.exit_code == 1
    assert again.output.strip().splitlines() == [
        "error: the Dealer's Report for nweek 1 was already posted to the list (the ledger's "
        "list.posted event); it is posted once"]
    assert len(kept.messages) == 1 and len(_posted(db_url)) == 1
    # nor again by --new, nor through cron's output
    run(db_url, "2026-01-11T02:00:00Z", f"report --new --post --smtp {server} --list {LIST}")
    assert run(db_url, "2026-01-11T02:00:00Z", "report --new").stdout == ""
    assert len(kept.messages) == 1
    log = run(db_url, "2026-01-11T02:00:00Z", "log").stdout
    assert f"posted the Dealer's Report for nweek 1 to the list ({LIST}) as " \
           f"{msg['Message-ID']}" in log
    assert _verified(db_url)


def test_a_report_the_server_refuses_for_now_waits_for_the_next_run(
        db_url: str, smtp: tuple[str, Kept]) -> None:
    server, kept = smtp
    _season(db_url)
    kept.refuse = True
    cmd = f"report --new --post --smtp {server} --list {LIST} --tag '[Cards]'"
    refused = run(db_url, "2026-01-11T01:00:00Z", cmd, ok=False)
    assert refused.exit_code == 1 and "451 4.3.0 try later" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    assert _posted(db_url) == [] and kept.messages == []
    kept.refuse = False
    run(db_url, "2026-01-21T00:05:00Z", "tick")  # the report of nweek 2 too
    run(db_url, "2026-01-21T01:00:00Z", cmd)
    assert [m["Subject"] for _, m in kept.messages] == [
        "[Cards] Dealer's Report for nweek 1", "[Cards] Dealer's Report for nweek 2"]
    second = kept.messages[1][1].get_content().splitlines()
    assert second[:2] == ["Date of this report: 2026-01-21 00:00 UTC",
                          "Date of last report: 2026-01-11 00:00 UTC (nweek 1)"]
    assert [e["ids"] for e in _posted(db_url)] == [["1"], ["2"]]
    assert [e["message_id"] for e in _posted(db_url)] == [m["Message-ID"]
                                                          for _, m in kept.messages]
    run(db_url, "2026-01-21T02:00:00Z", cmd)
    assert len(kept.messages) == 2


def test_a_copy_to_another_address_leaves_the_list_its_post(
        db_url: str, smtp: tuple[str, Kept]) -> None:
    server, kept = smtp
    _season(db_url)
    run(db_url, "2026-01-11T01:00:00Z",
        f"report 1 --post --smtp {server} --to officer@example.org")
    assert [r for r, _ in kept.messages] == [["officer@example.org"]]
    assert _posted(db_url)[0]["to_list"] is False
    run(db_url, "2026-01-11T01:00:00Z", f"report --new --post --smtp {server} --list {LIST}")
    assert [r for r, _ in kept.messages] == [["officer@example.org"], [LIST]]


def test_the_resolution_is_posted_once(db_url: str, smtp: tuple[str, Kept]) -> None:
    server, kept = smtp
    _season(db_url)
    env = {"NOMIC_CARDS_SMTP": server, "NOMIC_CARDS_LIST": LIST,
           "NOMIC_CARDS_LIST_TAG": "OFF: [Assessor]"}
    run(db_url, "2026-01-11T01:00:00Z", "decision post 9355", env=env)
    [(rcpts, msg)] = kept.messages
    assert rcpts == [LIST] and msg["Subject"] == "OFF: [Assessor] Resolution of decision 9355"
    body = msg.get_content().replace("\r\n", "\n")
    assert body.startswith("RESOLUTION OF PROPOSALS 9355\n")
    assert max(len(line) for line in body.splitlines()) <= 72
    assert _posted(db_url) == [{"what": "resolution", "ids": ["9355"], "to": LIST,
                                "message_id": msg["Message-ID"], "to_list": True}]
    again = run(db_url, "2026-01-11T02:00:00Z", "decision post 9355", ok=False, env=env)
    assert again.exit_code == 1 and "already posted" in again.output
    run(db_url, "2026-01-11T02:00:00Z", "decision post --new", env=env)
    assert len(kept.messages) == 1
    assert _verified(db_url)


@pytest.mark.parametrize(("command", "error"), [
    ("report 1 --post --smtp 127.0.0.1:1",
     "error: set NOMIC_CARDS_LIST (or --list) to the game's list address, or give --to ADDR"),
    (f"report 1 --post --list {LIST}",
     "error: posting needs --smtp HOST:PORT (or NOMIC_CARDS_SMTP)"),
    ("report 1 --post --smtp 127.0.0.1:1 --list 'a@b.org, c@d.org'",
     "error: NOMIC_CARDS_LIST (--list) takes the list's e-mail address, not 'a@b.org, "
     "c@d.org'"),
    (f"report 3 --post --smtp 127.0.0.1:1 --list {LIST}",
     "error: the Dealer's Report for nweek 3 is not published yet"),
    (f"decision post 9999 --smtp 127.0.0.1:1 --list {LIST}",
     "error: there is no decision 9999 on the ledger"),
])
def test_bad_posts_are_refused_in_one_line(db_url: str, command: str, error: str) -> None:
    _season(db_url)
    out = run(db_url, "2026-01-11T01:00:00Z", command, ok=False)
    assert out.exit_code == 1
    assert out.output.strip().splitlines() == [error]
    assert _posted(db_url) == []


def test_cron_posts_the_new_report_and_resolution_to_the_list(
        db_url: str, smtp: tuple[str, Kept], tmp_path: Path) -> None:
    server, kept = smtp
    _season(db_url)
    env = {"NOMIC_CARDS_DB": db_url, "NOMIC_CARDS_LOG": str(tmp_path / "cron.log"),
           "NOMIC_CARDS_SMTP": server, "NOMIC_CARDS_BASE_URL": "https://cards.example.org",
           "NOMIC_CARDS_LIST": LIST, "NOMIC_CARDS_AT": "2026-01-11T01:00:00Z",
           "TMPDIR": str(tmp_path)}
    first = runner.invoke(app, ["cron", "run"], env=env)
    assert first.exit_code == 0, (first.output, (tmp_path / "cron.log").read_text())
    assert first.stdout == ""  # posted by SMTP, not through cron's MAILTO
    assert sorted(m["Subject"] for r, m in kept.messages if r == [LIST]) == [
        "OFF: [Dealer] Dealer's Report for nweek 1", "OFF: [Dealer] Resolution of decision 9355"]
    assert sorted(e["what"] for e in _posted(db_url)) == ["report", "resolution"]
    second = runner.invoke(app, ["cron", "run"], env=env)
    assert second.exit_code == 0 and second.stdout == ""
    assert len([r for r, _ in kept.messages if r == [LIST]]) == 2
