"""Mail in through the command line (docs/mail.md), on SQLite and PostgreSQL: a message signed
by its sender's domain (DKIM, the key pinned for the test) is applied, citing its Message-ID;
a forged From waits for the officer; a message from no player is kept, never applied; the same
message twice is applied once; the sender's address never reaches the public record; a private
act's message stays the Dealer's; receipts reach the player through a real SMTP server
(aiosmtpd), In-Reply-To the message; ``mail receive`` answers in sysexits; mbox and Maildir
archives are imported; bad mail is one line and a stored refusal."""

from __future__ import annotations

import json
import mailbox
import subprocess
import sys
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import sql
from tests.mail.support import (
    ADDRESSES,
    T1,
    Signer,
    SmtpServer,
    cli,
    message,
    ok,
    signed,
    table,
)

pytestmark = pytest.mark.db

SIGNED_DOMAINS = ("spoon.example", "mail.example", "other.example")


@pytest.fixture
def signer(tmp_path: Path) -> Signer:
    return Signer(tmp_path, SIGNED_DOMAINS)


@pytest.fixture
def db(db_url: str) -> str:
    table(db_url)
    return db_url


def receive(db: str, raw: bytes, signer: Signer, *args: str, at: str = T1) -> Any:
    return cli(db, "mail", "receive", *args, at=at, env=signer.env(), stdin=raw)


def events(db: str, kind: str) -> list[dict[str, Any]]:
    """The public record's events of ``kind`` (``ledger export``), payload parsed."""
    out = []
    for e in json.loads(ok(db, "ledger export").stdout):
        if e["kind"] == kind:
            out.append({**e, "payload": json.loads(e["payload"])})
    return out


def export(db: str) -> str:
    return ok(db, "ledger export").stdout


def rows(db: str) -> list[tuple[object, ...]]:
    return sql(db, "select id, message_id, status, sender from mail_messages order by id")


VOTES = ("Hello all,\n\nI vote as follows:\n9355 FOR\n\nOn Thu, ben wrote:\n> 9355 AGAINST\n"
         "> I vote AGAINST on 9355\n")


def test_a_signed_ballot_is_applied_citing_its_message_id(db: str, signer: Signer) -> None:
    raw = signed(signer, "Ann Example <ann@spoon.example>", VOTES,
                 message_id="<vote-1@spoon.example>")
    result = receive(db, raw, signer)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "message 1 <vote-1@spoon.example> from ann: applied: 1 recorded, 0 refused, 1 line(s) "
        "not read"]
    (ballot,) = events(db, "ballot.cast")
    assert ballot["actor"] == "ann (by mail <vote-1@spoon.example>)"
    assert ballot["payload"]["player"] == "ann"
    assert ballot["payload"]["option"] == "FOR"
    assert ballot["payload"]["as_cast"] == "9355 FOR"
    assert ballot["payload"]["source"] == "<vote-1@spoon.example>"
    assert ballot["private"] is None
    # the officer's view of it: who, how authenticated, what it said
    shown = ok(db, "mail show 1").stdout
    assert "  auth:      DKIM signature of spoon.example (selector s2026)\n" in shown
    assert "  from:      ann@spoon.example (ann)\n" in shown
    assert f"  events:    {ballot['seq']}\n" in shown
    assert "  not read  'Hello all,'\n" in shown
    assert "ann@spoon.example" not in export(db)


def test_the_same_message_twice_is_applied_once(db: str, signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example", "9355 FOR\n", message_id="<twice@spoon.example>")
    assert receive(db, raw, signer).exit_code == 0
    again = receive(db, raw, signer)
    assert again.exit_code == 0
    assert again.output.strip() == ("message <twice@spoon.example>: a copy of message 1 "
                                    "(applied): not applied again")
    # a copy that differs on the way (another Received: header) is the same message too
    third = receive(db, b"Received: from relay.example\r\n" + raw, signer)
    assert third.exit_code == 0 and "a copy of message 1" in third.output
    assert len(events(db, "ballot.cast")) == 1
    assert [r[2] for r in rows(db)] == ["applied"]


def test_a_second_ballot_by_mail_replaces_the_first(db: str, signer: Signer) -> None:
    first = signed(signer, "ann@spoon.example", "9355 FOR\n", message_id="<a1@spoon.example>")
    second = signed(signer, "ann@spoon.example", "I vote AGAINST on 9355.\n",
                    message_id="<a2@spoon.example>")
    assert receive(db, first, signer).exit_code == 0
    assert receive(db, second, signer, at="2026-01-02T13:00:00Z").exit_code == 0
    casts = events(db, "ballot.cast")
    assert [(c["payload"]["option"], c["payload"]["source"]) for c in casts] == [
        ("FOR", "<a1@spoon.example>"), ("AGAINST", "<a2@spoon.example>")]
    decision = json.loads(ok(db, "decision show 9355 --format json",
                             at="2026-01-02T13:00:00Z").stdout)
    assert [(b["player"], b["option"]) for b in decision["ballots"]] == [("ann", "AGAINST")]


def test_dry_run_prints_what_was_understood_and_keeps_nothing(db: str, signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example",
                 'I vote as follows:\n9355 FOR\npooker.trade with=ben give="Red As" '
                 'get="Red Kd"\nI like cards.\n> 9355 AGAINST\n')
    result = receive(db, raw, signer, "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "message <m1@spoon.example> from ann: would be applied",
        "  understood: ballot on 9355: FOR  <- '9355 FOR'",
        "  understood: pooker.trade (private) with=ben give=Red As get=Red Kd  <- "
        "'pooker.trade with=ben give=\"Red As\" get=\"Red Kd\"'",
        "  not read:   'I like cards.'",
    ]
    as_json = json.loads(receive(db, raw, signer, "--dry-run", "--json").stdout)
    assert as_json["would_be"] == "applied" and as_json["player"] == "ann"
    assert as_json["not_read"] == ["I like cards."] and as_json["quoted"] == 1
    assert len(as_json["understood"]) == 2
    assert rows(db) == [] and events(db, "ballot.cast") == []


def test_json_says_what_became_of_each_line(db: str, signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example", "9355 FOR\n9999 AGAINST\n")
    out = json.loads(receive(db, raw, signer, "--json").stdout)
    results = out["outcome"]["results"]
    assert [(r["line"], r["recorded"]) for r in results] == [("9355 FOR", True),
                                                              ("9999 AGAINST", False)]
    assert "9999" in results[1]["text"]
    assert out["outcome"]["status"] == "applied"


FORGERIES = {
    "unsigned": "it has no DKIM signature",
    "other domain": "it is signed by other.example, not by spoon.example, the From's domain",
    "altered body": "body hash mismatch",
    "From rewritten": "the signature of spoon.example does not verify",
    "Message-ID not signed": "the signature of spoon.example does not cover the From and the "
                             "Message-ID",
    "part of the body signed": "the signature of spoon.example covers only part of the body "
                               "(l=)",
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forged_from_is_left_pending(db: str, signer: Signer, forgery: str) -> None:
    plain = message("ann@spoon.example", "9355 AGAINST\n")
    if forgery == "unsigned":
        raw = plain
    elif forgery == "other domain":  # a valid signature, but of dan's domain, not ann's
        raw = signer.sign(plain, "other.example")
    elif forgery == "altered body":
        raw = signer.sign(plain, "spoon.example").replace(b"9355 AGAINST", b"9355 FOR")
    elif forgery == "From rewritten":  # cat's own signed message, its From made ann's
        raw = signer.sign(message("cat@spoon.example", "9355 AGAINST\n"), "spoon.example")
        raw = raw.replace(b"From: cat@spoon.example", b"From: ann@spoon.example")
    elif forgery == "Message-ID not signed":  # it could be replayed under a new Message-ID
        raw = signer.sign(plain, "spoon.example", headers=(b"from", b"subject"))
    else:  # l=: anyone may add lines after the part signed
        import dkim

        raw = dkim.sign(plain, b"s2026", b"spoon.example", signer.private,
                        include_headers=[b"from", b"message-id"], length=True) + plain
        raw = raw.replace(b"9355 AGAINST\r\n", b"9355 AGAINST\r\n9356 FOR\r\n")
    result = receive(db, raw, signer)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("message 1 <m1@spoon.example> from ann: pending: not "
                                    f"authenticated ({FORGERIES[forgery]}")
    assert result.output.rstrip().endswith("it waits for the officer's acceptance")
    assert events(db, "ballot.cast") == []
    assert [r[2] for r in rows(db)] == ["pending"]
    queue = ok(db, "mail pending").stdout
    assert queue.startswith("#1 2026-01-02T12:00:00Z pending   ann ")
    assert "    says: '9355 " in queue


def test_the_officer_accepts_a_pending_message(db: str, signer: Signer,
                                               smtp: SmtpServer) -> None:
    raw = message("ben@mail.example", "FOR on 9355\n", message_id="<ben-1@mail.example>")
    assert receive(db, raw, signer, "--no-receipt").exit_code == 0
    accepted = ok(db, f"mail accept 1 --smtp {smtp.smtp}", at="2026-01-03T09:00:00Z").stdout
    assert accepted.splitlines()[0] == ("message 1 <ben-1@mail.example> from ben: applied: 1 "
                                        "recorded, 0 refused, 0 line(s) not read")
    (ballot,) = events(db, "ballot.cast")
    # cast when the message came, not when the officer accepted it
    assert ballot["payload"]["at"] == "2026-01-02T12:00:00+00:00"
    assert ballot["payload"]["source"] == "<ben-1@mail.example>"
    shown = ok(db, "mail show 1", at="2026-01-03T09:00:00Z").stdout
    assert "  auth:      accepted by " in shown
    assert "  decided:   2026-01-03T09:00:00Z by " in shown
    (rcpts, receipt), = smtp.inbox.messages
    assert rcpts == [ADDRESSES["ben"]]
    assert receipt["In-Reply-To"] == "<ben-1@mail.example>"
    again = cli(db, "mail", "accept", "1", at="2026-01-03T09:01:00Z")
    assert again.exit_code == 1
    assert again.output.strip() == ("error: message 1 is applied, not pending: only a pending "
                                    "message is accepted")
    assert len(events(db, "ballot.cast")) == 1


def test_the_officer_rejects_a_pending_message_saying_why(db: str, signer: Signer,
                                                          smtp: SmtpServer) -> None:
    raw = message("ben@mail.example", "FOR on 9355\n", message_id="<ben-2@mail.example>",
                  subject="my vote")
    assert receive(db, raw, signer, "--no-receipt").exit_code == 0
    no_reason = cli(db, "mail", "reject", "1", "--reason", "  ")
    assert no_reason.exit_code == 1
    assert no_reason.output.strip() == "error: --reason must say why the message is rejected"
    ok(db, f"mail reject 1 --reason 'ben says he never sent it' --smtp {smtp.smtp}")
    assert events(db, "ballot.cast") == []
    assert [r[2] for r in rows(db)] == ["rejected"]
    (rcpts, receipt), = smtp.inbox.messages
    assert rcpts == [ADDRESSES["ben"]]
    assert receipt["Subject"] == "Re: my vote"
    assert receipt["In-Reply-To"] == "<ben-2@mail.example>"
    assert str(receipt.get_content()).replace("\r\n", "\n") == (
        "ben, the officer rejected your message <ben-2@mail.example> (\"my vote\"): ben says "
        "he never sent it.\n\nNothing in it was recorded.\n")
    assert cli(db, "mail", "accept", "1").exit_code == 1


def test_a_message_from_no_player_is_kept_not_applied(db: str, signer: Signer) -> None:
    raw = signed(signer, "eve@spoon.example", "9355 FOR\n", message_id="<eve@spoon.example>")
    result = receive(db, raw, signer)
    assert result.exit_code == 0
    assert result.output.strip() == ("message 1 <eve@spoon.example> from no player: unmatched: "
                                     "its From address is no player's")
    assert events(db, "ballot.cast") == []
    listed = ok(db, "mail list --status unmatched").stdout
    assert listed.startswith("#1 2026-01-02T12:00:00Z unmatched no player    <eve@spoon.example>")
    assert cli(db, "mail", "accept", "1").exit_code == 1
    assert "eve@spoon.example" not in export(db)


def test_the_from_is_matched_without_regard_to_case(db: str, signer: Signer,
                                                    smtp: SmtpServer) -> None:
    # ben registered Ben@Mail.Example; his mail program writes it in lower case
    raw = signed(signer, "ben <ben@mail.example>", "9355 PRESENT\n",
                 message_id="<b@mail.example>")
    result = receive(db, raw, signer, "--smtp", smtp.smtp, "--from", "dealer@spoon.example")
    assert result.exit_code == 0, result.output
    assert "from ben: applied: 1 recorded" in result.output
    assert result.output.splitlines()[-1] == "receipt of message 1 to ben: sent"
    (rcpts, receipt), = smtp.inbox.messages
    assert rcpts == ["Ben@Mail.Example"]
    assert receipt["From"] == "dealer@spoon.example"
    assert receipt["In-Reply-To"] == "<b@mail.example>"
    assert receipt["References"] == "<b@mail.example>"
    assert receipt["Auto-Submitted"] == "auto-replied"
    body = str(receipt.get_content()).replace("\r\n", "\n")
    assert body.startswith("ben, the game read your message <b@mail.example> (\"Votes\").\n\n"
                           "Recorded:\n- \"9355 PRESENT\": your ballot on decision 9355 is "
                           "PRESENT (event ")
    assert "Refused" not in body
    assert "receipt:   sent (2026-01-02T12:00:00Z)" in ok(db, "mail show 1").stdout


def test_a_receipt_lists_what_was_recorded_and_refused(db: str, signer: Signer,
                                                       smtp: SmtpServer) -> None:
    raw = signed(signer, "cat@spoon.example", "9355 FOR\n9355 endorse cat\nhi\n",
                 message_id="<c@spoon.example>", subject="Re: votes")
    assert receive(db, raw, signer, "--smtp", smtp.smtp).exit_code == 0
    (rcpts, receipt), = smtp.inbox.messages
    assert receipt["Subject"] == "Re: votes"
    body = str(receipt.get_content()).replace("\r\n", "\n")
    recorded, refused = body.split("\n\nRefused:\n")
    assert "- \"9355 FOR\": your ballot on decision 9355 is FOR (event " in recorded
    assert refused.startswith("- \"9355 endorse cat\": ")
    assert body.endswith("1 other line(s) were not read as a ballot or an action; they are kept "
                         "with the message.\n")


def test_a_pending_message_is_answered_so_its_player_can_object(db: str, signer: Signer,
                                                                 smtp: SmtpServer) -> None:
    raw = message("ann@spoon.example", "9355 AGAINST\n", message_id="<forged@evil.example>")
    assert receive(db, raw, signer, "--smtp", smtp.smtp).exit_code == 0
    (rcpts, receipt), = smtp.inbox.messages
    assert rcpts == [ADDRESSES["ann"]]
    body = str(receipt.get_content())
    assert "it waits for the officer" in body and "If you did not send it" in body


def test_the_senders_address_never_reaches_the_public_record(db: str, signer: Signer) -> None:
    # a Message-ID holding the address (some mail programs make them so), the address in the
    # line too: the public record cites the message by a digest and blanks the address
    mid = "<1234.ann@spoon.example>"
    raw = signed(signer, "ann@spoon.example", "9355 FOR\n", message_id=mid)
    assert receive(db, raw, signer).exit_code == 0
    (ballot,) = events(db, "ballot.cast")
    assert ballot["payload"]["source"].startswith("Message-ID sha256:")
    assert "ann@spoon.example" not in ballot["actor"]
    public = export(db)
    for address in ADDRESSES.values():
        assert address not in public and address.lower() not in public.lower()
    assert "ann@spoon.example" not in ok(db, "log --limit 100").stdout


def test_an_archive_address_is_cited_when_configured(db: str, signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example", "9355 FOR\n", message_id="<x1@spoon.example>")
    env = {**signer.env(),
           "NOMIC_CARDS_MAIL_ARCHIVE": "https://lists.spoon.example/msg/{message_id}"}
    result = cli(db, "mail", "receive", env=env, stdin=raw)
    assert result.exit_code == 0, result.output
    (ballot,) = events(db, "ballot.cast")
    assert ballot["payload"]["source"] == ("<x1@spoon.example> "
                                           "https://lists.spoon.example/msg/x1@spoon.example")
    bad = cli(db, "mail", "receive", env={**env, "NOMIC_CARDS_MAIL_ARCHIVE": "lists/{id}"},
              stdin=raw)
    assert bad.exit_code == 78
    assert bad.output.count("\n") == 1 and "NOMIC_CARDS_MAIL_ARCHIVE" in bad.output


# --- mail receive's exit statuses (sysexits) -------------------------------------------------


def _receive_process(db: str, stdin: bytes,
                     env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """``nomic-cards mail receive`` as the mail server runs it: a process of its own."""
    return subprocess.run([sys.executable, "-m", "nomic_cards", "--db", db, "--at", T1, "mail",
                           "receive"], input=stdin, capture_output=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", **env})


def test_receive_exit_statuses_follow_sysexits(tmp_path: Path, signer: Signer) -> None:
    db = f"sqlite:///{tmp_path / 'game.db'}"
    good = signed(signer, "ann@spoon.example", "9355 FOR\n")
    # the game not yet created: the mail server is to try again later
    early = _receive_process(db, good, signer.env())
    assert early.returncode == 75, early.stderr
    assert early.stderr.count(b"\n") == 1 and early.stderr.startswith(b"error: ")
    table(db)
    for stdin, code in ((b"", 65), (b"this is no message\n", 65), (good, 0), (good, 0)):
        done = _receive_process(db, stdin, signer.env())
        assert done.returncode == code, (stdin[:30], done.stderr)
        assert b"Traceback" not in done.stderr
        if code:
            assert done.stderr.count(b"\n") == 1
    # settings that cannot be used: the server keeps the message queued
    missing = _receive_process(db, good, {"NOMIC_CARDS_DKIM_KEYS": str(tmp_path / "nope")})
    assert missing.returncode == 78
    assert missing.stderr.decode().strip() == (
        f"error: NOMIC_CARDS_DKIM_KEYS {tmp_path / 'nope'}: cannot be read (No such file or "
        "directory)")
    broken = tmp_path / "broken-keys"
    broken.write_text("s1.spoon.example v=DKIM1; p=AAAA\n")
    bad = _receive_process(db, good, {"NOMIC_CARDS_DKIM_KEYS": str(broken)})
    assert bad.returncode == 78 and b"line 1" in bad.stderr
    assert [r[2] for r in rows(db)] == ["applied"]


# --- bad mail: one line, a stored refusal, nothing applied -----------------------------------


def _nested(depth: int) -> bytes:
    head = (b"From: ann@spoon.example\r\nTo: business@spoon.example\r\nSubject: deep\r\n"
            b"Message-ID: <deep@spoon.example>\r\nMIME-Version: 1.0\r\n")
    body = b"Content-Type: text/plain\r\n\r\n9355 FOR\r\n"
    for n in range(depth):
        body = (f"Content-Type: multipart/mixed; boundary=\"b{n}\"\r\n\r\n--b{n}\r\n".encode()
                + body + f"\r\n--b{n}--\r\n".encode())
    return head + body


def _bad(kind: str) -> bytes:
    plain = message("ann@spoon.example", "9355 FOR\n", message_id=f"<{kind}@spoon.example>")
    if kind == "two-froms":
        return b"From: cat@spoon.example\r\n" + plain
    if kind == "broken-from":
        return plain.replace(b"From: ann@spoon.example", b"From: ann@@spoon.example <")
    if kind == "50mb":
        return plain + b"9355 FOR\r\n" * (5 * 1024 * 1024)
    if kind == "nested":
        return _nested(100)
    if kind == "charset":
        return plain.replace(b'charset="utf-8"', b'charset="x-klingon"')
    if kind == "html":
        return (b"From: ann@spoon.example\r\nMessage-ID: <html@spoon.example>\r\n"
                b"MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n<p>9355 FOR</p>\r\n")
    if kind == "encoded-from":  # an encoded word posing as the address
        return plain.replace(b"From: ann@spoon.example",
                             b"From: =?utf-8?q?ann=40spoon=2Eexample?=")
    raise AssertionError(kind)


BAD = {
    "two-froms": "it has 2 From headers",
    "broken-from": "its From header does not hold one plain address",
    "50mb": "more than the 8,388,608 a message to the game may be",
    "nested": "its MIME parts nest more than 10 deep",
    "charset": "its text is in an unknown charset ('x-klingon')",
    "html": "it has no plain-text part (HTML only): write it as plain text",
    "encoded-from": "its From header",
}


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_mail_is_one_line_and_a_stored_refusal(db: str, signer: Signer, kind: str) -> None:
    raw = _bad(kind)
    result = receive(db, raw, signer)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert result.output.count("\n") == 1
    assert ": refused: " in result.output and BAD[kind] in result.output
    (row,) = sql(db, "select status, reason, size, length(raw) from mail_messages")
    assert row[0] == "refused" and BAD[kind] in str(row[1])
    assert row[2] == len(raw)
    if kind == "50mb":
        assert int(str(row[3])) < 100_000  # its head kept, not the 50 MB
    assert events(db, "ballot.cast") == []


def test_an_encoded_word_display_name_is_read(db: str, signer: Signer) -> None:
    raw = signed(signer, "=?utf-8?q?Ann_Ex=C3=A4mple?= <ann@spoon.example>", "9355 FOR\n")
    result = receive(db, raw, signer)
    assert "from ann: applied: 1 recorded" in result.output, result.output


def test_a_message_from_a_retired_player_is_refused(db: str, signer: Signer) -> None:
    ok(db, "player retire dan", at="2026-01-02T11:00:00Z")
    raw = signed(signer, "dan@other.example", "9355 FOR\n", message_id="<dan@other.example>")
    result = receive(db, raw, signer)
    assert result.exit_code == 0
    assert result.output.strip() == ("message 1 <dan@other.example> from no player: refused: "
                                     "its From address is dan's, who has retired")
    assert [r[2] for r in rows(db)] == ["refused"]
    assert events(db, "ballot.cast") == []


# --- mailbox archives ------------------------------------------------------------------------


def _archive_messages(signer: Signer) -> list[bytes]:
    return [
        signed(signer, "ann@spoon.example", "9355 FOR\n", message_id="<arc-1@spoon.example>",
               date="Fri, 02 Jan 2026 08:00:00 +0000"),
        signed(signer, "cat@spoon.example", "Nice weather.\n", message_id="<arc-2@spoon.example>"),
        message("ben@mail.example", "9355 AGAINST\n", message_id="<arc-3@mail.example>"),
        signed(signer, "cat@spoon.example", "PRESENT on 9355\n",
               message_id="<arc-4@spoon.example>", date="Fri, 02 Jan 2026 10:00:00 +0000"),
    ]


@pytest.mark.parametrize("kind", ["mbox", "maildir"])
def test_an_archive_is_imported_each_ballot_cast_at_its_date(db: str, signer: Signer,
                                                             tmp_path: Path, kind: str) -> None:
    path = tmp_path / kind
    box: mailbox.Mailbox[Any] = (mailbox.mbox(str(path)) if kind == "mbox"
                                 else mailbox.Maildir(str(path)))
    for raw in _archive_messages(signer):
        box.add(message_from_bytes(raw, policy=policy.compat32))
    box.close()
    dry = ok(db, f"mail import {path} --dry-run", env=signer.env()).stdout
    assert dry.splitlines()[-1] == "4 message(s): 3 applied, 1 pending (dry run: nothing kept)"
    assert f"{path}#3: message <arc-3@mail.example> from ben: would be pending (" in dry
    assert rows(db) == []
    out = ok(db, f"mail import {path}", env=signer.env()).stdout
    assert out.splitlines()[-1] == "4 message(s): 3 applied, 1 pending"
    casts = events(db, "ballot.cast")
    assert [(c["payload"]["player"], c["payload"]["option"], c["payload"]["at"])
            for c in casts] == [("ann", "FOR", "2026-01-02T08:00:00+00:00"),
                                ("cat", "PRESENT", "2026-01-02T10:00:00+00:00")]
    # imported again (the archive fetched anew): every one a copy
    assert ok(db, f"mail import {path}", env=signer.env()).stdout.splitlines()[-1] == \
        "4 message(s): 4 copies"
    assert len(events(db, "ballot.cast")) == 2


def test_import_of_a_path_that_is_no_mailbox_is_one_line(db: str, tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    for path, said in ((tmp_path / "nothing", "no such file"),
                       (tmp_path / "folder", "is a folder but not a Maildir")):
        result = cli(db, "mail", "import", str(path))
        assert result.exit_code == 1
        assert f"error: {path}" in result.output and said in result.output


# --- a private act: the message is the Dealer's, as the act is -------------------------------


@pytest.fixture
def pooker_db(db: str) -> str:
    at = "2026-01-01T12:00:00Z"
    ok(db, "game enact pooker --packs Red,Blue --proposal P456", at=at)
    for card, who in (("Red As", "ann"), ("Red Kd", "ben"), ("Blue 2c", "ben")):
        ok(db, f"transfer '{card}' --to {who} --rule 'test setup'", at=at)
    for who in ("ann", "ben"):
        ok(db, f"points grant {who} 10 --rule \"Scorekeeper's report\"", at=at)
    return db


def test_a_trade_notified_by_mail_stays_private(pooker_db: str, signer: Signer) -> None:
    db = pooker_db
    ann = signed(signer, "ann@spoon.example", "I trade my Red As with ben for eir Red Kd.\n",
                 message_id="<trade-ann@spoon.example>", subject="to the Dealer")
    result = receive(db, ann, signer)
    assert result.exit_code == 0, result.output
    assert "from ann: applied: 1 recorded, 0 refused" in result.output
    ben = signed(signer, "ben@mail.example",
                 "nomic-cards act pooker.trade with=ann give='Red Kd' get='Red As'\n",
                 message_id="<trade-ben@mail.example>")
    assert "from ben: applied: 1 recorded" in receive(db, ben, signer,
                                                      at="2026-01-02T12:05:00Z").output
    hand = ok(db, "hand ann", at="2026-01-02T12:05:00Z").stdout
    assert "Red Kd" in hand and "Red As" not in hand
    public = export(db)
    assert "trade-ann@spoon.example" not in public
    assert "trade-ben@mail.example" not in public
    assert "(by mail)" in public
    assert [bool(p) for (p,) in sql(db, "select private from mail_messages order by id")] == [
        True, True]
    shown = ok(db, "mail show 1", at="2026-01-02T12:05:00Z").stdout
    assert "  private:   yes\n" in shown


def test_a_game_action_refused_by_the_rules_is_reported_and_the_rest_recorded(
        pooker_db: str, signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example",
                 '9355 FOR\npooker.trade with=ben give="Blue 2c" get="Red Kd"\n')
    out = json.loads(receive(pooker_db, raw, signer, "--json").stdout)
    results = out["outcome"]["results"]
    assert [r["recorded"] for r in results] == [True, False]
    assert len(events(pooker_db, "ballot.cast")) == 1


def test_a_nomic_without_the_pooker_game_refuses_its_actions(db: str, signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example", 'pooker.motion\n')
    out = json.loads(receive(db, raw, signer, "--json").stdout)
    (result,) = out["outcome"]["results"]
    assert result["recorded"] is False
    assert "pooker" in result["text"]


class _Refusing:
    """An SMTP server's handler answering every message with ``code``."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.tries = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.tries += 1
        return self.code


@pytest.mark.parametrize(("reply", "state"), [("451 4.3.0 try later", "due"),
                                              ("550 5.1.1 no such user", "failed")])
def test_a_receipt_refused_stays_due_for_now_or_is_failed_for_good(
        db: str, signer: Signer, smtp: SmtpServer, reply: str, state: str) -> None:
    from aiosmtpd.controller import Controller

    from tests.mailbox import free_port

    refusing = _Refusing(reply)
    port = free_port()
    controller = Controller(refusing, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        raw = signed(signer, "ann@spoon.example", "9355 FOR\n")
        result = receive(db, raw, signer, "--smtp", f"127.0.0.1:{port}")
    finally:
        controller.stop()
    assert result.exit_code == 0, result.output  # the message is kept: the receipt is apart
    assert refusing.tries == 1
    line = result.output.splitlines()[-1]
    assert line.startswith(f"receipt of message 1 to ann: {state} (")
    assert reply.split()[0] in line
    (receipt,) = sql(db, "select receipt from mail_messages")
    assert receipt == (state,)
    # the next sending: a receipt still due goes out, a failed one is not tried again
    later = cli(db, "mail", "receipts", "--smtp", smtp.smtp)
    if state == "due":
        assert later.exit_code == 0, later.output
        assert later.output.splitlines() == ["receipt of message 1 to ann: sent",
                                             "1 receipt(s) sent"]
        assert [m["In-Reply-To"] for _, m in smtp.inbox.messages] == ["<m1@spoon.example>"]
    else:
        assert later.output.splitlines() == ["0 receipt(s) sent"]
        assert smtp.inbox.messages == []


def test_a_receipt_to_an_address_that_is_not_one_fails_alone(db: str, signer: Signer,
                                                             smtp: SmtpServer) -> None:
    """ben's address stored before addresses were checked as one (as an older ledger may hold
    it): his receipt is refused for good, before the server is asked, and ann's after it
    still goes, over the same connection."""
    from datetime import datetime

    from nomic_cards.core.clock import FixedClock
    from nomic_cards.core.ledger.events import PlayerEmailSet
    from nomic_cards.core.nomic import Nomic

    for sender, body, mid in (("ben@mail.example", "9355 AGAINST\n", "<b1@mail.example>"),
                              ("ann@spoon.example", "9355 FOR\n", "<a1@spoon.example>")):
        raw = signed(signer, sender, body, message_id=mid)
        assert receive(db, raw, signer).exit_code == 0
    with Nomic(db, clock=FixedClock(datetime.fromisoformat(T1))) as nomic, nomic.write() as tx:
        tx.record(PlayerEmailSet("ben", "ben@mail.example,evil@e.test"))  # past the check
    result = cli(db, "mail", "receipts", "--smtp", smtp.smtp)
    lines = result.output.splitlines()
    assert lines[0].startswith("receipt of message 1 to ben: failed (553 5.1.3 "), lines
    assert lines[1:] == ["receipt of message 2 to ann: sent", "1 receipt(s) sent"]
    assert [rcpts for rcpts, _ in smtp.inbox.messages] == [[ADDRESSES["ann"]]]
    assert sql(db, "select receipt from mail_messages order by id") == [("failed",), ("sent",)]


def test_a_maildir_is_read_in_the_order_its_messages_were_delivered(tmp_path: Path) -> None:
    """A Maildir's names hold the delivery time and its microseconds unpadded: M99999 came
    before M123456, which a sort of the names as text would put first."""
    from nomic_cards.mail.boxes import messages

    folder = tmp_path / "box"
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True)
    for name, text in (("1767225600.M123456P7Q2.host", "second"),
                       ("1767225600.M99999P7Q1.host", "first"),
                       ("1767225601.M5P7Q3.host", "third")):
        (folder / "new" / name).write_bytes(f"Subject: {text}\n\n{text}\n".encode())
    assert [s.raw.split(b"\n", 1)[0] for s in messages(str(folder))] == [
        b"Subject: first", b"Subject: second", b"Subject: third"]
