"""Notices by mail, against a real SMTP server (aiosmtpd) started in the test, on SQLite and
PostgreSQL: each notice is sent once, a server failing mid-batch leaves the sent ones sent and
the rest for the next run, and bad input is one line with exit 1."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api, mail
from nomic_cards.core.ledger.events import NoticeSent, PlayerEmailSet
from nomic_cards.core.mail import MailError, message_id, parse_endpoint
from nomic_cards.core.nomic import Nomic
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
#: the server's URL, where each notice says to act
BASE = "https://cards.example.org"
SEND = ("notices", "send", "--base-url", BASE)


def send(game: Nomic, *, smtp: str, sender: str | None = None) -> api.SendReport:
    return api.send_notices(game, smtp=smtp, base_url=BASE, sender=sender)


def _deal_round(db: Nomic, players: list[str], cards: list[int]) -> list[int]:
    """Deal the given cards in turn; returns the notice (event) numbers."""
    with db.write() as tx:
        return [api.deal(tx, p, **scripted([c])).event or 0 for p, c in zip(players, cards,
                                                                                  strict=True)]


def _with_addresses(db: Nomic) -> None:
    for name, addr in EMAILS.items():
        with db.write() as tx:
            api.set_email(tx, name, addr)


def _event_hash(db: Nomic, seq: int) -> str:
    return str(sql(db, "select hash from events where seq = :s", s=seq)[0][0])


def _kinds(db: Nomic) -> list[str]:
    return [str(k) for (k,) in sql(db, "select kind from events order by seq")]


def _sendings(db: Nomic) -> list[dict[str, Any]]:
    """The payload, private fields included, of each notices.mailed event, in order."""
    with db.read() as tx:
        return [e.payload for e in api.log(tx, limit=500, reveal=True)
                if e.kind == "notices.mailed"]


def _mailed(db: Nomic) -> list[int]:
    """Every notice recorded mailed by a sending, in the order recorded."""
    return [n for p in _sendings(db) for n in sorted([*p["notices"], *p["sealed"]])]


def _sent(db: Nomic) -> set[int]:
    with db.read() as tx:
        return {n.event for n in api.notices(tx) if n.sent}


def _body(msg: EmailMessage) -> str:
    return str(msg.get_content()).replace("\r\n", "\n")


def test_one_mail_per_player_gathers_eir_notices(game: Nomic, serve: Any) -> None:
    _with_addresses(game)
    seqs = _deal_round(game, ["alice", "bob", "carol", "alice"], [90, 5, 17, 1])
    server = serve()
    report = send(game, smtp=server.smtp, sender="officer@spoon.example")
    assert report.ok and report.unsent == 0 and report.mails == 2
    # alice's two notices in one mail (the first player's first), then bob's
    assert [n.notice for n in report.sent] == [seqs[0], seqs[3], seqs[1]]
    assert [(n.notice, n.player) for n in report.skipped] == [(seqs[2], "carol")]
    got = server.inbox.messages
    assert [rcpt for rcpt, _ in got] == [["alice@example.org"], ["bob@example.net"]]
    with game.read() as tx:
        texts = {n.event: n.text for n in api.notices(tx)}
    (_, alice), (_, bob) = got
    for msg, mine in ((alice, [seqs[0], seqs[3]]), (bob, [seqs[1]])):
        body = _body(msg)
        assert msg["From"] == "officer@spoon.example"
        assert msg["X-Nomic-Cards-Events"] == ", ".join(str(s) for s in mine)
        for i, seq in enumerate(mine, 1):
            head, *rest = texts[seq].splitlines()
            block = "\n".join([f"{i}. {head}", *(f"   {line}" for line in rest),
                               f"   Where: {BASE}/", f"   (ledger event {seq})"])
            assert block in body  # what, why, when, and where to act
    assert _body(alice).index(texts[seqs[0]].splitlines()[0]) < \
        _body(alice).index(texts[seqs[3]].splitlines()[0])
    assert "the Blue Queen of Hearts (card 90)" in _body(alice)
    # one notice: the subject says what happened, in which nweek, to which card
    subject = " ".join(bob["Subject"].split())  # unfolded, as a mail client shows it
    assert subject == f"Spoon Nomic Cards: {texts[seqs[1]].splitlines()[0]}"
    assert subject.startswith("Spoon Nomic Cards: Nweek 1: you were dealt the ")
    assert bob["Message-ID"] == f"<notice-{seqs[1]}.{_event_hash(game, seqs[1])}@nomic-cards>"
    assert " ".join(alice["Subject"].split()) == "Spoon Nomic Cards: 2 notices for alice"
    assert alice["Message-ID"].startswith(f"<notices-{seqs[0]}-{seqs[3]}.")
    assert _sent(game) == {seqs[0], seqs[1], seqs[3]}

    again = send(game, smtp=server.smtp)
    assert again.sent == () and len(server.inbox.messages) == 2
    assert [n.notice for n in again.skipped] == [seqs[2]]

    with game.write() as tx:
        api.set_email(tx, "carol", "carol@example.com")
    third = send(game, smtp=server.smtp)
    assert [n.notice for n in third.sent] == [seqs[2]] and third.skipped == ()
    assert server.inbox.messages[-1][0] == ["carol@example.com"]
    assert server.inbox.messages[-1][1]["From"] == "dealer@localhost"
    assert len(server.inbox.messages) == 3
    # one record per sending, the second one's empty: each notice recorded mailed once
    assert [p["notices"] for p in _sendings(game)] == [[seqs[0], seqs[1], seqs[3]], [],
                                                       [seqs[2]]]
    assert sorted(_mailed(game)) == seqs
    assert "notice.sent" not in _kinds(game)
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


@pytest.mark.parametrize("mode", ["451", "drop"])
def test_server_failing_mid_batch_keeps_sent_and_retries_the_rest(game: Nomic, serve: Any,
                                                                   mode: str) -> None:
    _with_addresses(game)
    with game.write() as tx:
        api.set_email(tx, "carol", "carol@example.com")
    seqs = _deal_round(game, ["alice", "bob", "carol", "bob", "alice"], [1, 2, 3, 4, 5])
    alice, bob, carol = [seqs[0], seqs[4]], [seqs[1], seqs[3]], [seqs[2]]
    flaky = serve(Inbox(fail_after=1, mode=mode))
    report = send(game, smtp=flaky.smtp)
    assert not report.ok and report.failed == ()
    assert [n.notice for n in report.sent] == alice
    assert [n.notice for n in report.retry] == bob + carol and report.unsent == 3
    if mode == "451":  # refused for now, one by one: each is tried, none is recorded
        assert report.error is None
        assert all(n.reason == "451 4.3.0 try later" for n in report.retry)
    else:  # the connection is lost at the second mail: the batch stops there
        assert report.error is not None and "lost the connection" in report.error
    assert _sent(game) == set(alice)
    assert len(flaky.inbox.messages) == 1
    assert [p["refused"] for p in _sendings(game)] == [[]]
    with game.read() as tx:
        assert api.ledger_verify(tx).ok

    healthy = serve()
    retry = send(game, smtp=healthy.smtp)
    assert retry.ok and [n.notice for n in retry.sent] == bob + carol
    assert [m["X-Nomic-Cards-Events"] for _, m in healthy.inbox.messages] == \
        [f"{bob[0]}, {bob[1]}", str(carol[0])]
    assert _sent(game) == set(seqs)
    ids = [m["Message-ID"] for _, m in flaky.inbox.messages + healthy.inbox.messages]
    assert len(set(ids)) == 3
    assert send(game, smtp=healthy.smtp).sent == ()
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


class Holding(Inbox):
    """Holds the first message it is handed until ``release`` is set (``holding`` says it has
    begun to)."""

    def __init__(self) -> None:
        super().__init__()
        self.holding = threading.Event()
        self.release = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if not self.holding.is_set():
            self.holding.set()
            while not self.release.is_set():
                await asyncio.sleep(0.01)
        return await super().handle_DATA(server, session, envelope)


def test_a_second_sender_stops_at_once_while_one_sends(game: Nomic, serve: Any) -> None:
    """One sender at a time: a second, while the first is handing over its mails, sends and
    records nothing, and says so in one line; the first mails each notice once."""
    _with_addresses(game)
    seqs = _deal_round(game, ["alice", "bob"] * 3, [11, 12, 13, 14, 15, 16])
    server = serve(Holding())
    reports: list[api.SendReport] = []
    first = threading.Thread(target=lambda: reports.append(send(game, smtp=server.smtp)))
    first.start()
    try:
        assert server.inbox.holding.wait(60)  # the first is handing over alice's mail
        head = _kinds(game)
        with pytest.raises(api.SenderBusy) as busy:
            send(game, smtp=server.smtp)
        assert str(busy.value) == (f"another notices send is running on {game.database}: "
                                   "this one sent nothing (run it again once that one has "
                                   "ended)")
        assert _kinds(game) == head  # nothing recorded
    finally:
        server.inbox.release.set()
        first.join(60)
    (report,) = reports
    assert report.ok and report.mails == 2
    assert [m["X-Nomic-Cards-Events"] for _, m in server.inbox.messages] == \
        [", ".join(map(str, seqs[0::2])), ", ".join(map(str, seqs[1::2]))]
    assert sorted(_mailed(game)) == seqs and len(_sendings(game)) == 1
    # the lock went with the first sending: the next one runs (and finds nothing due)
    assert send(game, smtp=server.smtp).sent == ()
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


class Slow(Inbox):
    """Takes ``delay`` seconds over each message: a slow relay."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.delay)
        return await super().handle_DATA(server, session, envelope)


BUSY = "error: another notices send is running on "


@pytest.mark.slow
@pytest.mark.parametrize("second", ["notices send", "cron run"])
def test_two_senders_started_at_once_mail_each_notice_exactly_once(
        game: Nomic, serve: Any, tmp_path: Path, second: str) -> None:
    """Two real senders (processes) started together on one game, against a slow SMTP
    server: one mails every notice, the other stops in one line; no notice is mailed twice.
    ``cron run`` stops the same way (its notices step says so in its log)."""
    players = ["alice", "bob", "carol"]
    for p in players:
        with game.write() as tx:
            api.set_email(tx, p, f"{p}@example.org")
    seqs = _deal_round(game, players * 2, [21, 22, 23, 24, 25, 26])
    server = serve(Slow(0.7))  # three mails: two seconds of sending
    log = tmp_path / "cron.log"
    env = {**os.environ, "NOMIC_CARDS_LOG": str(log), "TMPDIR": str(tmp_path)}
    commands = [_cli("--db", game.url, *SEND, "--smtp", server.smtp)]
    commands.append(commands[0] if second == "notices send" else
                    _cli("--db", game.url, "cron", "run", "--smtp", server.smtp,
                         "--base-url", BASE))
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for c in commands]
    done = [p.communicate(timeout=120) for p in procs]
    codes = [p.returncode for p in procs]
    mailed = [int(n) for _, m in server.inbox.messages
              for n in m["X-Nomic-Cards-Events"].split(", ")]
    assert sorted(mailed) == seqs  # each notice once
    assert len(server.inbox.messages) == 3
    assert sorted(_mailed(game)) == seqs and len(_sendings(game)) == 1
    line = f"{BUSY}{game.database}: this one sent nothing (run it again once that one has " \
           "ended)\n"
    (_, first_err), (_, second_err) = done
    cron_log = log.read_text() if log.exists() else ""
    # one of them stopped, with exit 1 and one line: a notices send on stderr, cron's notices
    # step in cron's log (and cron one line on stderr naming the step and the log)
    stopped = [first_err == line, second_err == line, line in cron_log]
    assert stopped.count(True) == 1, done
    assert sorted(codes) == [0, 1]
    if line in cron_log:
        assert codes[1] == 1 and second_err == \
            f"nomic-cards-cron: notices send (exit 1) failed; see {log}\n"
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


class MarksAnother(Inbox):
    """While the first message is handed over, another writer records ``notice`` sent."""

    def __init__(self, url: str, notice: int) -> None:
        super().__init__()
        self.url, self.notice = url, notice

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if not self.messages:
            with Nomic(self.url) as other, other.write() as tx:
                tx.record(NoticeSent(self.notice), subject="bob")
        return await super().handle_DATA(server, session, envelope)


def test_a_notice_recorded_sent_meanwhile_is_not_mailed(game: Nomic, serve: Any) -> None:
    _with_addresses(game)
    first, second, third = _deal_round(game, ["alice", "bob", "alice"], [61, 62, 63])
    server = serve(MarksAnother(game.url, second))
    report = send(game, smtp=server.smtp)
    assert report.ok
    assert [(n.notice, n.event is None, n.reason) for n in report.sent] == \
        [(first, False, None), (third, False, None), (second, True, "sent by another run")]
    assert [m["X-Nomic-Cards-Events"] for _, m in server.inbox.messages] == \
        [f"{first}, {third}"]
    assert _kinds(game).count("notice.sent") == 1  # the other run's
    assert _mailed(game) == [first, third]
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


def test_unreachable_server_records_nothing(game: Nomic) -> None:
    _with_addresses(game)
    _deal_round(game, ["alice"], [7])
    port = _free_port()
    with pytest.raises(MailError, match=rf"cannot reach the SMTP server at 127.0.0.1:{port}"):
        send(game, smtp=f"127.0.0.1:{port}")
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


@pytest.mark.slow
@pytest.mark.parametrize("value", ["localhost", "mail.example.org:smtp", "x:99999"])
def test_cli_bad_smtp_is_one_line(cli_db: str, value: str) -> None:
    before = _last_event(cli_db)
    code, out, err = run(cli_db, *SEND, "--smtp", value)
    assert code == 1 and out == ""
    assert err == f"error: --smtp takes HOST:PORT (e.g. localhost:25), not {value!r}\n"
    assert _last_event(cli_db) == before


def test_cli_bad_from_is_one_line(cli_db: str) -> None:
    code, _, err = run(cli_db, *SEND, "--smtp", "127.0.0.1:25", "--from", "nobody")
    assert code == 1 and err == "error: --from takes an e-mail address, not 'nobody'\n"


@pytest.mark.slow
def test_cli_unreachable_server_is_one_line(cli_db: str) -> None:
    before = _last_event(cli_db)
    port = _free_port()
    code, out, err = run(cli_db, *SEND, "--smtp", f"127.0.0.1:{port}")
    assert code == 1 and out == ""
    assert err.startswith(f"error: cannot reach the SMTP server at 127.0.0.1:{port}: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert _last_event(cli_db) == before


@pytest.mark.slow
def test_cli_send_and_list(cli_db: str, serve: Any) -> None:
    code, out, _ = run(cli_db, "notices", "list")
    assert code == 0 and out.count("[not sent]") == 3
    server = serve()
    code, out, err = run(cli_db, *SEND, "--smtp", server.smtp)
    assert code == 0, err
    assert out.count("sent    #") == 2 and "skipped #" in out and "bob has no e-mail" in out
    assert "2 notice(s) sent in 1 mail(s) via" in out and len(server.inbox.messages) == 1
    code, out, _ = run(cli_db, "notices", "list", "alice", "--json")
    assert code == 0 and [n["sent"] for n in json.loads(out)] == [True, True]
    code, out, _ = run(cli_db, *SEND, "--smtp", server.smtp, "--json")
    data = json.loads(out)
    assert code == 0 and data["sent"] == data["failed"] == data["retry"] == []
    assert data["error"] is None
    assert [n["player"] for n in data["skipped"]] == ["bob"]


def test_cli_failure_mid_batch_exits_1_with_one_line(cli_db: str, serve: Any) -> None:
    assert run(cli_db, "player", "email", "bob", "bob@example.net")[0] == 0
    flaky = serve(Inbox(fail_after=1))
    code, out, err = run(cli_db, *SEND, "--smtp", flaky.smtp)
    assert code == 1 and out.count("sent    #") == 2 and out.count("retry   #") == 1
    assert err == ("error: 0 notice(s) refused for good, 1 refused for now (tried again next "
                   "run); 2 sent\n")
    healthy = serve()
    code, out, _ = run(cli_db, *SEND, "--smtp", healthy.smtp)
    assert code == 0 and len(healthy.inbox.messages) == 1
    assert run(cli_db, "ledger", "verify")[0] == 0


def test_message_date_comes_from_the_clock(game: Nomic, serve: Any) -> None:
    class Fixed:
        def now(self) -> datetime:
            return datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)

    _with_addresses(game)
    _deal_round(game, ["bob"], [33])
    server = serve()
    with Nomic(game.url, clock=Fixed(), allow_future=True) as fixed:  # a rehearsal
        send(fixed, smtp=server.smtp)
    assert server.inbox.messages[0][1]["Date"] == "Tue, 06 May 2031 07:08:09 +0000"


# --- refusals for good and for now, per address -----------------------------------------------


class Picky(Inbox):
    """Refuses the recipients in ``refuse`` (address -> reply) at RCPT, keeps the rest; notes
    every address it was asked to deliver to."""

    def __init__(self, refuse: dict[str, str]) -> None:
        super().__init__()
        self.refuse = refuse
        self.asked: list[str] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        self.asked.append(address)
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"


def test_a_refused_address_is_recorded_and_blocks_nothing(game: Nomic, serve: Any) -> None:
    _with_addresses(game)
    with game.write() as tx:
        api.set_email(tx, "carol", "carol@example.com")
    a1, b, c, a2 = _deal_round(game, ["alice", "bob", "carol", "alice"], [21, 22, 23, 24])
    server = serve(Picky({"bob@example.net": "550 5.1.1 no such user here",
                          "carol@example.com": "450 4.2.1 mailbox busy"}))
    first = send(game, smtp=server.smtp)
    assert not first.ok
    assert [n.notice for n in first.sent] == [a1, a2]
    assert [(n.notice, n.reason) for n in first.failed] == [(b, "550 5.1.1 no such user here")]
    assert [(n.notice, n.reason) for n in first.retry] == [(c, "450 4.2.1 mailbox busy")]
    failed_event = first.failed[0].event
    assert failed_event is not None
    assert first.event == failed_event == first.sent[0].event
    with game.read() as tx:
        (record,) = [e for e in api.log(tx, limit=50, reveal=True) if e.event == failed_event]
        (public,) = [e for e in api.log(tx, limit=50) if e.event == failed_event]
    assert record.kind == "notices.mailed"
    assert record.payload == {"notices": [a1, a2], "sealed": [], "refused": [
        {"notice": b, "address": "bob@example.net", "reply": "550 5.1.1 no such user here"}]}
    hidden = "(hidden: use --reveal)"  # the refusal is the Dealer's alone
    assert public.payload == {"notices": [a1, a2], "sealed": hidden, "refused": hidden}
    assert _sent(game) == {a1, a2}
    with game.read() as tx:
        assert api.ledger_verify(tx).ok

    # The next runs do not try bob's notice at the refused address again; carol's is retried.
    server.inbox.asked.clear()
    second = send(game, smtp=server.smtp)
    assert [n.notice for n in second.held] == [b] and second.failed == ()
    assert [n.notice for n in second.retry] == [c]
    assert server.inbox.asked == ["carol@example.com"]
    del server.inbox.refuse["carol@example.com"]
    third = send(game, smtp=server.smtp)
    assert third.ok and [n.notice for n in third.sent] == [c]
    assert [n.notice for n in third.held] == [b]

    # A new address for bob makes his notice due again.
    with game.write() as tx:
        api.set_email(tx, "bob", "bob@example.org")
    fourth = send(game, smtp=server.smtp)
    assert fourth.ok and [n.notice for n in fourth.sent] == [b] and fourth.held == ()
    assert server.inbox.messages[-1][0] == ["bob@example.org"]
    assert _sent(game) == {a1, b, c, a2}
    assert [len(p["refused"]) for p in _sendings(game)] == [1, 0, 0, 0]
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


@pytest.mark.slow
def test_cli_reports_a_refusal_for_good_once_then_holds_it(cli_db: str, serve: Any) -> None:
    assert run(cli_db, "player", "email", "bob", "bob@example.net")[0] == 0
    server = serve(Picky({"bob@example.net": "550 5.1.1 no such user"}))
    code, out, err = run(cli_db, *SEND, "--smtp", server.smtp)
    assert code == 1
    assert out.count("sent    #") == 2
    assert out.count("failed  #") == 1 and "to bob <bob@example.net>: 550 5.1.1 no such user" in out
    (failed_line,) = [line for line in out.splitlines() if line.startswith("failed  #")]
    failed_event = int(failed_line.rsplit("[event ", 1)[1].rstrip("]"))
    assert sql(f"sqlite:///{cli_db}", "select kind from events where seq = :s",
               s=failed_event) == [("notices.mailed",)]
    assert err == ("error: 1 notice(s) refused for good, 0 refused for now (tried again next "
                   "run); 2 sent\n")
    code, out, err = run(cli_db, *SEND, "--smtp", server.smtp)
    assert code == 0 and err == ""
    assert out.count("held    #") == 1 and "sent    #" not in out
    code, out, _ = run(cli_db, "notices", "list", "bob", "--json")
    (bobs,) = json.loads(out)
    assert code == 0 and bobs["sent"] is False and bobs["refused"] == failed_event
    code, out, _ = run(cli_db, "notices", "list", "bob")
    assert out.endswith(f"[not sent: refused for good at event {failed_event}]\n")
    assert run(cli_db, "ledger", "verify")[0] == 0


# --- no database lock while the server is talked to -------------------------------------------


def _write_lock_free(url: str) -> bool:
    """Whether another connection can take the ledger's write lock at once, without waiting."""
    if url.startswith("sqlite:///"):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=0,
                               isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            conn.close()
    engine = create_engine(url)
    try:
        with engine.connect() as conn, conn.begin():
            conn.execute(text("select id from ledger_head for update nowait"))
        return True
    except OperationalError:
        return False
    finally:
        engine.dispose()


class Probing(Inbox):
    """Checks, while each message is being handed over, whether the ledger lock is free."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.lock_free: list[bool] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.lock_free.append(_write_lock_free(self.url))
        return await super().handle_DATA(server, session, envelope)


def test_no_database_lock_is_held_while_mailing(game: Nomic, serve: Any) -> None:
    _with_addresses(game)
    _deal_round(game, ["alice", "bob", "alice"], [31, 32, 33])
    server = serve(Probing(game.url))
    report = send(game, smtp=server.smtp)
    assert report.ok and len(report.sent) == 3 and report.mails == 2
    assert server.inbox.lock_free == [True, True]


# --- a crash between sending and recording ----------------------------------------------------


class Killing(Inbox):
    """Kills the sending process (SIGKILL) when it hands over message number ``at`` (1-based),
    after keeping the message and before answering: the message is delivered, the sender never
    records it."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at
        self.pid: int | None = None
        self.pid_known = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        reply = await super().handle_DATA(server, session, envelope)
        if len(self.messages) == self.at:
            assert self.pid_known.wait(60)
            assert self.pid is not None
            os.kill(self.pid, signal.SIGKILL)
        return reply


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from nomic_cards.cli import main; main()", *args]


def _lock_free(game: Nomic, timeout: float = 10.0) -> bool:
    """Whether the sending lock is free, waiting for it up to ``timeout`` seconds (a killed
    process's PostgreSQL session ends a moment after the process)."""
    deadline = time.monotonic() + timeout
    while True:
        with game.db.job_lock("notices") as free:
            if free:
                return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


@pytest.mark.slow
def test_a_crash_before_the_sending_is_recorded_resends_with_the_same_message_ids(
        game: Nomic, serve: Any) -> None:
    _with_addresses(game)
    seqs = _deal_round(game, ["alice", "bob", "alice"], [41, 42, 43])
    killer = serve(Killing(at=2))
    proc = subprocess.Popen(_cli("--db", game.url, *SEND,
                                 "--smtp", killer.smtp),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    killer.inbox.pid = proc.pid
    killer.inbox.pid_known.set()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err
    assert len(killer.inbox.messages) == 2
    # Both mails (alice's two, then bob's) were delivered; the sending, recorded once its
    # mails are handed over, was not: the next run sends them again.
    assert _sent(game) == set() and _sendings(game) == []
    with game.read() as tx:
        assert api.ledger_verify(tx).ok
    assert _lock_free(game)  # the killed sender's lock went with it

    healthy = serve()
    rerun = subprocess.run(_cli("--db", game.url, *SEND,
                                "--smtp", healthy.smtp),
                           capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert [m["X-Nomic-Cards-Events"] for _, m in healthy.inbox.messages] == \
        [f"{seqs[0]}, {seqs[2]}", str(seqs[1])]
    for (_, before), (_, after) in zip(killer.inbox.messages, healthy.inbox.messages,
                                       strict=True):
        assert before["Message-ID"] == after["Message-ID"]
    assert healthy.inbox.messages[1][1]["Message-ID"] == \
        message_id(seqs[1], _event_hash(game, seqs[1]))
    assert _sent(game) == set(seqs) and _mailed(game) == seqs
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


# --- TLS and login, against a server with a certificate from a test CA -------------------------

USERS = {"dealer": "correct horse battery staple"}


def _authenticate(server: Any, session: Any, envelope: Any, mechanism: str,
                  auth_data: Any) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and \
        USERS.get(auth_data.login.decode()) == auth_data.password.decode()
    return AuthResult(success=ok, handled=False)  # a refusal answers 535


# aiosmtpd warns about a login without its STARTTLS when the connection is TLS from the start
QUIET_IMPLICIT_TLS = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> str:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


@pytest.fixture
def serve_tls(ca: trustme.CA) -> Iterator[Any]:
    """``serve_tls(mode)``: an SMTP server on 127.0.0.1 with a certificate for 127.0.0.1 from
    the test CA, requiring a login (only over TLS); mode ``starttls`` or ``ssl`` (implicit)."""
    started: list[Server] = []

    def start(mode: str) -> Server:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1").configure_cert(context)
        server = Server.__new__(Server)
        server.inbox = Inbox()
        server.port = _free_port()
        common: dict[str, Any] = {"authenticator": _authenticate, "auth_required": True}
        if mode == "starttls":
            server.controller = Controller(server.inbox, hostname="127.0.0.1", port=server.port,
                                           tls_context=context, require_starttls=True,
                                           auth_require_tls=True, **common)
        else:  # the whole connection is TLS, which aiosmtpd's own check does not see
            server.controller = Controller(server.inbox, hostname="127.0.0.1", port=server.port,
                                           ssl_context=context, auth_require_tls=False, **common)
        server.controller.start()
        started.append(server)
        return server

    yield start
    for s in started:
        s.controller.stop()


def _login(user: str = "dealer", password: str = USERS["dealer"]) -> dict[str, str]:
    return {"NOMIC_CARDS_SMTP_USER": user, "NOMIC_CARDS_SMTP_PASSWORD": password}


def run_env(db: str, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", db, *args], env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.slow
@QUIET_IMPLICIT_TLS
@pytest.mark.parametrize("mode", ["starttls", "ssl"])
def test_tls_with_login_delivers(cli_db: str, serve_tls: Any, ca_file: str, mode: str) -> None:
    server = serve_tls(mode)
    code, out, err = run_env(cli_db, _login(), *SEND, "--smtp", server.smtp,
                             "--tls", mode, "--ca-file", ca_file)
    assert code == 0, err
    assert f"2 notice(s) sent in 1 mail(s) via {server.smtp} ({mode})" in out
    assert [rcpt for rcpt, _ in server.inbox.messages] == [["alice@example.org"]]


@pytest.mark.slow
@QUIET_IMPLICIT_TLS
@pytest.mark.parametrize("mode", ["starttls", "ssl"])
def test_wrong_password_is_one_line_and_records_nothing(cli_db: str, serve_tls: Any,
                                                        ca_file: str, mode: str) -> None:
    server = serve_tls(mode)
    before = _last_event(cli_db)
    code, out, err = run_env(cli_db, _login(password="wrong"), *SEND, "--smtp",
                             server.smtp, "--tls", mode, "--ca-file", ca_file)
    assert code == 1 and out == ""
    assert err.startswith(f"error: the SMTP server at {server.smtp} refused the login of "
                          "'dealer': 535 ")
    assert err.count("\n") == 1 and "wrong" not in err
    assert server.inbox.messages == [] and _last_event(cli_db) == before


@pytest.mark.slow
@QUIET_IMPLICIT_TLS
@pytest.mark.parametrize("mode", ["starttls", "ssl"])
def test_an_untrusted_certificate_is_refused(cli_db: str, serve_tls: Any, mode: str) -> None:
    server = serve_tls(mode)  # signed by the test CA, which the system does not trust
    code, out, err = run_env(cli_db, _login(), *SEND, "--smtp", server.smtp,
                             "--tls", mode)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: cannot reach the SMTP server at {server.smtp}: its TLS "
                          "certificate was not accepted (")
    assert err.endswith("give the CA that signed it with --ca-file\n")
    assert server.inbox.messages == []


def test_no_login_offered_without_tls(cli_db: str, serve_tls: Any) -> None:
    server = serve_tls("starttls")  # offers AUTH only after STARTTLS
    code, _, err = run_env(cli_db, _login(), *SEND, "--smtp", server.smtp)
    assert code == 1
    assert err == (f"error: the SMTP server at {server.smtp} offers no login (AUTH) on this "
                   "connection, but NOMIC_CARDS_SMTP_USER is set\n")


@pytest.mark.slow
@pytest.mark.parametrize(("env", "args", "message"), [
    ({"NOMIC_CARDS_SMTP_USER": "dealer"}, [],
     "NOMIC_CARDS_SMTP_USER is set but NOMIC_CARDS_SMTP_PASSWORD is not: set both to log in, "
     "or neither"),
    ({"NOMIC_CARDS_SMTP_PASSWORD": "x"}, [],
     "NOMIC_CARDS_SMTP_PASSWORD is set but NOMIC_CARDS_SMTP_USER is not: set both to log in, "
     "or neither"),
    (_login(), ["--smtp", "mail.example.org:25"],
     "NOMIC_CARDS_SMTP_USER is set but --tls is none: the password would cross the network in "
     "clear to mail.example.org:25; use --tls starttls or --tls ssl"),
    ({}, ["--tls", "none", "--ca-file", "/nonexistent/ca.pem"],
     "--ca-file needs --tls starttls or --tls ssl"),
    ({}, ["--tls", "ssl", "--ca-file", "/nonexistent/ca.pem"],
     "--ca-file '/nonexistent/ca.pem' cannot be read as PEM certificates: "),
])
def test_bad_tls_and_login_settings_are_one_line(cli_db: str, env: dict[str, str],
                                                 args: list[str], message: str) -> None:
    smtp = [] if "--smtp" in args else ["--smtp", "127.0.0.1:25"]
    before = _last_event(cli_db)
    code, out, err = run_env(cli_db, env, *SEND, *smtp, *args)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {message}")
    assert _last_event(cli_db) == before


def test_tls_is_a_choice(cli_db: str) -> None:
    code, _, err = run(cli_db, *SEND, "--smtp", "127.0.0.1:25", "--tls", "tls1.3")
    assert code == 2
    assert "'tls1.3' is not one of 'none', 'starttls', 'ssl'" in " ".join(
        err.replace("│", " ").split())


@pytest.mark.slow
@QUIET_IMPLICIT_TLS
def test_token_mail_uses_tls_and_login_too(cli_db: str, serve_tls: Any, ca_file: str) -> None:
    server = serve_tls("ssl")
    code, _, err = run_env(cli_db, _login(), "token", "issue", "alice", "--mail", "--smtp",
                           server.smtp, "--tls", "ssl", "--ca-file", ca_file, "--base-url",
                           BASE)
    assert code == 0, err
    assert [(rcpt, m["Subject"]) for rcpt, m in server.inbox.messages] == \
        [(["alice@example.org"], "Spoon Nomic Cards: your player token")]
    # A bad mail setting is refused before any token is issued.
    code, _, err = run_env(cli_db, {"NOMIC_CARDS_SMTP_USER": "dealer"}, "token", "issue", "bob",
                           "--mail", "--smtp", server.smtp, "--tls", "ssl", "--base-url",
                           BASE)
    assert code == 1 and err.startswith("error: NOMIC_CARDS_SMTP_USER is set but ")
    code, out, _ = run(cli_db, "token", "list", "--json")
    assert code == 0 and [t["player"] for t in json.loads(out)] == ["alice"]


def test_verify_checks_the_refusals_in_the_tables(game: Nomic, serve: Any) -> None:
    _with_addresses(game)
    (b,) = _deal_round(game, ["bob"], [51])
    server = serve(Picky({"bob@example.net": "550 5.1.1 no such user"}))
    failed = send(game, smtp=server.smtp).failed[0].event
    with game.read() as tx:
        assert api.ledger_verify(tx).ok
    sql(game, "update notices set failed_to = 'someone@else.example' where seq = :s", s=b)
    with game.read() as tx:
        problems = [str(p) for p in api.ledger_verify(tx).problems]
        (text,) = [n.text for n in api.notices(tx, "bob")]
    assert text.startswith("Nweek 1: you were dealt the Red Queen of Clubs (card 51)\n")
    assert problems == [f"event {b}: notice of event {b} differs: the log has to bob, not sent, "
                        f"refused for bob@example.net at event {failed}: {text!r}; the tables "
                        f"have to bob, not sent, refused for someone@else.example at event "
                        f"{failed}: {text!r}"]


# --- an address stored before addresses were checked as one -----------------------------------

TWO = "dan@x.test,evil@e.test"


def test_a_stored_address_that_is_not_one_is_reported_and_never_mailed(
        game: Nomic, serve: Any) -> None:
    """An address stored before the check (as an older ledger may hold) that is not exactly
    one address: ``ledger verify`` names the event that set it, the mailer holds its notices
    (one line each) and never gives the server a recipient for it, a token is not mailed to
    it; another address set makes them due again."""
    with game.write() as tx:
        (bad,) = tx.record(PlayerEmailSet("bob", TWO))  # past the check, as written long ago
        api.set_email(tx, "alice", "alice@example.org")
    a, b = _deal_round(game, ["alice", "bob"], [71, 72])
    server = serve(Picky({}))
    report = send(game, smtp=server.smtp)
    assert server.inbox.asked == ["alice@example.org"]  # never dan's nor evil's
    assert [rcpt for rcpt, _ in server.inbox.messages] == [["alice@example.org"]]
    assert [n.notice for n in report.sent] == [a] and report.ok
    assert [(n.notice, n.address, n.reason) for n in report.held] == [
        (b, TWO, "the address is not exactly one address (it holds more than one address: "
                 "give one); set another to send it")]
    with game.read() as tx:
        problems = [str(p) for p in api.ledger_verify(tx).problems]
    assert problems == [f"event {bad.seq}: bob's e-mail address {TWO!r} is not exactly one "
                        "address (it holds more than one address: give one): nothing is "
                        "mailed to it; set another with `nomic-cards player email bob ADDR`"]
    with pytest.raises(InputError, match=r"^bob's e-mail address .* cannot be mailed to"), \
            game.write() as tx:
        api.mail_token(tx, "bob", smtp=server.smtp, base_url=BASE)
    assert server.inbox.asked == ["alice@example.org"]

    with game.write() as tx:
        api.set_email(tx, "bob", "bob@example.org")
    with game.read() as tx:
        assert api.ledger_verify(tx).ok
    again = send(game, smtp=server.smtp)
    assert [n.notice for n in again.sent] == [b] and again.held == ()
    assert server.inbox.asked == ["alice@example.org", "bob@example.org"]


def test_a_message_goes_to_the_one_address_its_to_names_or_to_no_one(serve: Any) -> None:
    """The last guard: the sender hands a message to the server for exactly one recipient,
    the one address its To: names; a To: naming two (or none, or one that is not one address)
    is refused before the server is asked (553), and the connection goes on."""
    server = serve(Picky({}))
    now = datetime(2026, 1, 1, tzinfo=UTC)

    def message(address: str) -> EmailMessage:
        notice = mail.Notice(1, "0" * 64, "dan", address, "Nweek 1: hello\nWhy: a test", "dan")
        return mail.build_message([notice], sender="dealer@localhost", now=now, page=BASE)

    with mail.Sender(mail.smtp_config(server.smtp)) as conn:
        for bad in (TWO, "a@x>,<evil@e"):
            with pytest.raises(mail.Refused, match=r"^553 5\.1\.3 ") as refused:
                conn.send(message(bad))
            assert refused.value.permanent
        conn.send(message("dan@x.test"))
    assert server.inbox.asked == ["dan@x.test"]
