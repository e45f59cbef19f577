"""Notices by mail, against a real SMTP server (aiosmtpd) started in the test, on SQLite and
PostgreSQL: each notice is sent once, a server failing mid-batch leaves the sent ones sent and
the rest for the next run, and bad input is one line with exit 1."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import Game, mail, services
from nomic_cards.core.mail import MailError, message_id, parse_endpoint
from nomic_cards.errors import InputError
from tests.helpers import scripted, sql


class Inbox:
    """An aiosmtpd handler keeping what it accepts; after ``fail_after`` messages it answers
    ``451`` (mode "451") or drops the connection (mode "drop")."""

    def __init__(self, fail_after: int | None = None, mode: str = "451") -> None:
        self.fail_after = fail_after
        self.mode = mode
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            if self.fail_after is not None and len(self.messages) >= self.fail_after:
                if self.mode == "drop":
                    server.transport.close()
                return "451 4.3.0 try later"
            msg = message_from_bytes(envelope.content, policy=policy.default)
            self.messages.append((list(envelope.rcpt_tos), msg))  # type: ignore[arg-type]
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, inbox: Inbox) -> None:
        self.inbox = inbox
        self.port = _free_port()
        self.controller = Controller(inbox, hostname="127.0.0.1", port=self.port)

    @property
    def smtp(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture
def serve() -> Iterator[Any]:
    """``serve(inbox)`` starts an SMTP server for the test; all are stopped afterwards."""
    started: list[Server] = []

    def start(inbox: Inbox | None = None) -> Server:
        server = Server(inbox or Inbox())
        server.controller.start()
        started.append(server)
        return server

    yield start
    for s in started:
        s.controller.stop()


EMAILS = {"alice": "alice@example.org", "bob": "bob@example.net"}


def _deal_round(db: Game, players: list[str], cards: list[int]) -> list[int]:
    """Deal the given cards in turn; returns the notice (event) numbers."""
    return [services.deal(db, p, **scripted([c])).event or 0 for p, c in zip(players, cards,
                                                                              strict=True)]


def _with_addresses(db: Game) -> None:
    for name, addr in EMAILS.items():
        services.set_email(db, name, addr)


def _event_hash(db: Game, seq: int) -> str:
    return str(sql(db, "select hash from events where seq = :s", s=seq)[0][0])


def _sent(db: Game) -> set[int]:
    return {n.event for n in services.notices(db) if n.sent}


def test_each_notice_is_mailed_once_to_its_player(game: Game, serve: Any) -> None:
    _with_addresses(game)
    seqs = _deal_round(game, ["alice", "bob", "carol", "alice"], [90, 5, 17, 1])
    server = serve()
    report = services.send_notices(game, smtp=server.smtp, sender="officer@spoon.example")
    assert report.ok and report.unsent == 0
    assert [n.notice for n in report.sent] == [seqs[0], seqs[1], seqs[3]]
    assert [(n.notice, n.player) for n in report.skipped] == [(seqs[2], "carol")]
    got = server.inbox.messages
    assert [rcpt for rcpt, _ in got] == [["alice@example.org"], ["bob@example.net"],
                                         ["alice@example.org"]]
    texts = {n.event: n.text for n in services.notices(game)}
    for (_, msg), seq in zip(got, [seqs[0], seqs[1], seqs[3]], strict=True):
        body = msg.get_content()
        assert texts[seq] in body and f"ledger event {seq}" in body
        assert msg["From"] == "officer@spoon.example"
        assert msg["Subject"] == "Spoon Nomic Cards: a private notice"
        assert msg["Message-ID"] == message_id(seq, _event_hash(game, seq))
    assert "the Blue Queen of Hearts (card 90)" in got[0][1].get_content()
    assert _sent(game) == {seqs[0], seqs[1], seqs[3]}

    again = services.send_notices(game, smtp=server.smtp)
    assert again.sent == () and len(server.inbox.messages) == 3
    assert [n.notice for n in again.skipped] == [seqs[2]]

    services.set_email(game, "carol", "carol@example.com")
    third = services.send_notices(game, smtp=server.smtp)
    assert [n.notice for n in third.sent] == [seqs[2]] and third.skipped == ()
    assert server.inbox.messages[-1][0] == ["carol@example.com"]
    assert server.inbox.messages[-1][1]["From"] == "dealer@localhost"
    assert len(server.inbox.messages) == 4
    log = services.log(game, limit=50, reveal=True)
    assert sorted(e.payload["notice"] for e in log if e.kind == "notice.sent") == seqs
    assert services.ledger_verify(game).ok


@pytest.mark.parametrize("mode", ["451", "drop"])
def test_server_failing_mid_batch_keeps_sent_and_retries_the_rest(game: Game, serve: Any,
                                                                   mode: str) -> None:
    _with_addresses(game)
    seqs = _deal_round(game, ["alice", "bob", "alice", "bob", "alice"], [1, 2, 3, 4, 5])
    flaky = serve(Inbox(fail_after=2, mode=mode))
    report = services.send_notices(game, smtp=flaky.smtp)
    assert not report.ok and report.failed is not None
    assert [n.notice for n in report.sent] == seqs[:2]
    assert report.failed.notice == seqs[2] and report.unsent == 3
    assert report.failed.reason and (mode != "451" or "451" in report.failed.reason)
    assert _sent(game) == set(seqs[:2])
    assert len(flaky.inbox.messages) == 2
    assert services.ledger_verify(game).ok

    healthy = serve()
    retry = services.send_notices(game, smtp=healthy.smtp)
    assert retry.ok and [n.notice for n in retry.sent] == seqs[2:]
    assert [m["X-Nomic-Cards-Event"] for _, m in healthy.inbox.messages] == \
        [str(s) for s in seqs[2:]]
    assert _sent(game) == set(seqs)
    ids = [m["Message-ID"] for _, m in flaky.inbox.messages + healthy.inbox.messages]
    assert len(set(ids)) == 5
    assert services.send_notices(game, smtp=healthy.smtp).sent == ()
    assert services.ledger_verify(game).ok


def test_two_senders_at_once_send_each_notice_once(game: Game, serve: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _with_addresses(game)
    seqs = _deal_round(game, ["alice", "bob"] * 3, [11, 12, 13, 14, 15, 16])
    server = serve()
    # Both senders list the same six unsent notices before either sends one.
    both_listed = threading.Barrier(2, timeout=60)
    connect = mail.Sender.__enter__

    def connect_after_both_listed(self: mail.Sender) -> mail.Sender:
        both_listed.wait()
        return connect(self)

    monkeypatch.setattr(mail.Sender, "__enter__", connect_after_both_listed)
    reports: list[services.SendReport] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            reports.append(services.send_notices(game, smtp=server.smtp))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    events = sorted(int(m["X-Nomic-Cards-Event"]) for _, m in server.inbox.messages)
    assert events == seqs
    assert sorted(n.notice for r in reports for n in r.sent) == seqs
    assert _sent(game) == set(seqs)
    assert services.ledger_verify(game).ok


def test_unreachable_server_records_nothing(game: Game) -> None:
    _with_addresses(game)
    _deal_round(game, ["alice"], [7])
    port = _free_port()
    with pytest.raises(MailError, match=rf"cannot reach the SMTP server at 127.0.0.1:{port}"):
        services.send_notices(game, smtp=f"127.0.0.1:{port}")
    assert _sent(game) == set()


@pytest.mark.parametrize("text", ["localhost", "localhost:", ":25", "host:port", "h:0",
                                  "h:70000", "a b:25", ""])
def test_bad_smtp_values(text: str) -> None:
    with pytest.raises(InputError, match=r"--smtp takes HOST:PORT \(e.g. localhost:25\), not"):
        parse_endpoint(text)


def test_good_smtp_values() -> None:
    assert str(parse_endpoint("mail.example.org:2525")) == "mail.example.org:2525"
    assert parse_endpoint("[::1]:25").host == "::1"
    assert str(parse_endpoint("[::1]:25")) == "[::1]:25"


# --- the command line -----------------------------------------------------------------------

runner = CliRunner()


def run(db: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", db, *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def cli_db(tmp_path: Path) -> Iterator[str]:
    db = str(tmp_path / "g.db")
    assert run(db, "init")[0] == 0
    assert run(db, "player", "add", "alice", "--email", "alice@example.org")[0] == 0
    assert run(db, "player", "add", "bob")[0] == 0
    for p in ("alice", "bob", "alice"):
        assert run(db, "deal", p)[0] == 0
    yield db


def _last_event(db: str) -> int:
    return int(json.loads(run(db, "log", "--json", "-n", "1")[1])[0]["event"])


@pytest.mark.parametrize("value", ["localhost", "mail.example.org:smtp", "x:99999"])
def test_cli_bad_smtp_is_one_line(cli_db: str, value: str) -> None:
    before = _last_event(cli_db)
    code, out, err = run(cli_db, "notices", "send", "--smtp", value)
    assert code == 1 and out == ""
    assert err == f"error: --smtp takes HOST:PORT (e.g. localhost:25), not {value!r}\n"
    assert _last_event(cli_db) == before


def test_cli_bad_from_is_one_line(cli_db: str) -> None:
    code, _, err = run(cli_db, "notices", "send", "--smtp", "127.0.0.1:25", "--from", "nobody")
    assert code == 1 and err == "error: --from takes an e-mail address, not 'nobody'\n"


def test_cli_unreachable_server_is_one_line(cli_db: str) -> None:
    before = _last_event(cli_db)
    port = _free_port()
    code, out, err = run(cli_db, "notices", "send", "--smtp", f"127.0.0.1:{port}")
    assert code == 1 and out == ""
    assert err.startswith(f"error: cannot reach the SMTP server at 127.0.0.1:{port}: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert _last_event(cli_db) == before


def test_cli_send_and_list(cli_db: str, serve: Any) -> None:
    code, out, _ = run(cli_db, "notices", "list")
    assert code == 0 and out.count("[not sent]") == 3
    server = serve()
    code, out, err = run(cli_db, "notices", "send", "--smtp", server.smtp)
    assert code == 0, err
    assert out.count("sent    #") == 2 and "skipped #" in out and "bob has no e-mail" in out
    assert "2 notice(s) sent via" in out and len(server.inbox.messages) == 2
    code, out, _ = run(cli_db, "notices", "list", "alice", "--json")
    assert code == 0 and [n["sent"] for n in json.loads(out)] == [True, True]
    code, out, _ = run(cli_db, "notices", "send", "--smtp", server.smtp, "--json")
    data = json.loads(out)
    assert code == 0 and data["sent"] == [] and data["failed"] is None
    assert [n["player"] for n in data["skipped"]] == ["bob"]


def test_cli_failure_mid_batch_exits_1_with_one_line(cli_db: str, serve: Any) -> None:
    assert run(cli_db, "player", "email", "bob", "bob@example.net")[0] == 0
    flaky = serve(Inbox(fail_after=1))
    code, out, err = run(cli_db, "notices", "send", "--smtp", flaky.smtp)
    assert code == 1 and out.count("sent    #") == 1
    assert err.count("\n") == 1 and err.startswith("error: notice #")
    assert "451 4.3.0 try later; 1 sent, 2 left unsent for the next run" in err
    healthy = serve()
    code, out, _ = run(cli_db, "notices", "send", "--smtp", healthy.smtp)
    assert code == 0 and len(healthy.inbox.messages) == 2
    assert run(cli_db, "ledger", "verify")[0] == 0


def test_message_date_comes_from_the_clock(game: Game, serve: Any) -> None:
    class Fixed:
        def now(self) -> datetime:
            return datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)

    _with_addresses(game)
    _deal_round(game, ["bob"], [33])
    server = serve()
    with Game(game.url, clock=Fixed()) as fixed:
        services.send_notices(fixed, smtp=server.smtp)
    assert server.inbox.messages[0][1]["Date"] == "Tue, 06 May 2031 07:08:09 +0000"
