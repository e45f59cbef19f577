"""A season of the nomic played by mail (issue 47's "Done when"), through Debian's Dovecot run
for the test (tests/mail/imap_server.py) and a real SMTP server (aiosmtpd) standing for the players'
mailboxes and the game's list: the players' DKIM-signed messages are delivered into the
game's IMAP mailbox and ``mail poll`` (and, once, ``cron run`` in a process of its own) applies
them -- ballots on decision 9355 in the forms players write them, a Pooker trade notified
privately to the Dealer, a forged From left pending, then accepted or rejected by the officer
-- each answered by a receipt In-Reply-To its message; the Dealer's Report is posted to the list
(``list.posted`` with its Message-ID), doubted by players' mail replying to it (rule 8's
doubt_days set by a rule change), one claim denied and one withdrawn by mail, and the report
ratified by a later tick; ``ledger verify`` passes and no sender's address is in the public
export. Every command runs at a time of the game's clock (``--at``). Skipped without Dovecot,
except under ``CI``, where it fails."""

from __future__ import annotations

import json
import subprocess
import sys
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import sql
from tests.mail.imap_server import Dovecot
from tests.mail.support import ADDRESSES, Signer, SmtpServer, cli, message, ok, signed

pytestmark = pytest.mark.db

LIST = "spoon-business@lists.example.org"


def reply(signer: Signer, sender: str, body: str, *, message_id: str, in_reply_to: str,
          date: str, subject: str = "Re: OFF: [Dealer] Dealer's Report for nweek 1") -> bytes:
    """A player's answer on the list to the message ``in_reply_to``, DKIM-signed for eir
    domain, the References and In-Reply-To signed with the rest."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = LIST
    msg["Subject"] = subject
    msg["Date"] = date
    msg["Message-ID"] = message_id
    msg["In-Reply-To"] = in_reply_to
    msg["References"] = in_reply_to
    msg.set_content(body)
    raw = msg.as_bytes(policy=policy.SMTP)
    return signer.sign(raw, sender.rpartition("@")[2],
                       (b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to",
                        b"references"))


def unsigned(sender: str, body: str, message_id: str) -> bytes:
    """A message no DKIM signature vouches for, to the list."""
    return message(sender, body, message_id=message_id, to=LIST)


def events(db: str, *kinds: str, at: str) -> list[dict[str, Any]]:
    """The public export's events of ``kinds`` in order, payloads parsed."""
    return [{**e, "payload": json.loads(e["payload"])}
            for e in json.loads(ok(db, "ledger export", at=at).stdout) if e["kind"] in kinds]


def receipts(smtp: SmtpServer) -> dict[str, tuple[list[str], str]]:
    """Each receipt mailed, by the message it answers: its recipients and its text."""
    return {str(m["In-Reply-To"]): (rcpts, str(m.get_content()).replace("\r\n", "\n"))
            for rcpts, m in smtp.inbox.messages if m["In-Reply-To"]}


def posted(smtp: SmtpServer) -> list[EmailMessage]:
    return [m for rcpts, m in smtp.inbox.messages if rcpts == [LIST]]


@pytest.mark.slow
def test_a_season_played_by_mail(db: str, dovecot: Dovecot, signer: Signer, smtp: SmtpServer,
                                 tmp_path: Path) -> None:
    env = {**dovecot.env(), **signer.env()}

    def poll(at: str) -> dict[str, Any]:
        result = cli(db, "mail", "poll", "--smtp", smtp.smtp, "--json", at=at, env=env)
        assert result.exit_code == 0, result.output
        out: dict[str, Any] = json.loads(result.stdout)
        return out

    # the rules: claims of error on (Agora's 14 days), Pooker in force with cards in hand
    ok(db, "rules amend report --set doubt_days=14 --proposal 'Proposal 501'",
       at="2026-01-01T11:30:00Z")
    ok(db, "game enact pooker --packs Red,Blue --proposal P456", at="2026-01-01T12:00:00Z")
    for card, who in (("Red As", "ann"), ("Red Kd", "ben")):
        ok(db, f"transfer '{card}' --to {who} --rule 'season setup'", at="2026-01-01T12:00:00Z")
    for who in ("ann", "ben"):
        ok(db, f"points grant {who} 10 --rule \"Scorekeeper's report\"",
           at="2026-01-01T12:00:00Z")

    # --- 2 January: the players' mail, one poll ----------------------------------------
    mail = [
        signed(signer, "Ann Example <ann@spoon.example>",
               "Hello all,\n\nI vote FOR on 9355\n\nOn Thu, ben wrote:\n> 9355 AGAINST\n",
               message_id="<ann-vote@spoon.example>", to=LIST),
        signed(signer, "cat@spoon.example", "I vote as follows:\n9355 AGAINST\n",
               message_id="<cat-vote@spoon.example>", to=LIST),
        signed(signer, "ann@spoon.example", "I trade my Red As with ben for eir Red Kd.\n",
               message_id="<ann-trade@spoon.example>", subject="to the Dealer",
               to="dealer@spoon.example"),
        signed(signer, "Ben@Mail.Example",
               "nomic-cards act pooker.trade with=ann give='Red Kd' get='Red As'\n",
               message_id="<ben-trade@mail.example>", subject="to the Dealer",
               to="dealer@spoon.example"),
        # ben's address on a message ben did not sign: a forgery, or ben's mail program
        unsigned("Ben@Mail.Example", "9355 PRESENT\n", "<forged-ben@mail.example>"),
        # dan's domain signs nothing the game can check: pending too
        unsigned("dan@other.example", "FOR on 9355\n", "<dan-vote@other.example>"),
    ]
    for raw in mail:
        dovecot.deliver(raw)
    first = poll("2026-01-02T12:00:00Z")
    outcome = {m["outcome"]["message_id"]: (m["outcome"]["status"], m["outcome"]["player"])
               for m in first["messages"]}
    assert outcome == {
        "<ann-vote@spoon.example>": ("applied", "ann"),
        "<cat-vote@spoon.example>": ("applied", "cat"),
        "<ann-trade@spoon.example>": ("applied", "ann"),
        "<ben-trade@mail.example>": ("applied", "ben"),
        "<forged-ben@mail.example>": ("pending", "ben"),
        "<dan-vote@other.example>": ("pending", "dan")}
    assert [f for _, f in dovecot.flags()] == ["\\Seen"] * 6
    # every message answered, at its sender's registered address, In-Reply-To it
    got = receipts(smtp)
    assert {k: v[0] for k, v in got.items()} == {
        "<ann-vote@spoon.example>": [ADDRESSES["ann"]],
        "<cat-vote@spoon.example>": [ADDRESSES["cat"]],
        "<ann-trade@spoon.example>": [ADDRESSES["ann"]],
        "<ben-trade@mail.example>": [ADDRESSES["ben"]],
        "<forged-ben@mail.example>": [ADDRESSES["ben"]],
        "<dan-vote@other.example>": [ADDRESSES["dan"]]}
    assert "your ballot on decision 9355 is FOR" in got["<ann-vote@spoon.example>"][1]
    assert "your ballot on decision 9355 is AGAINST" in got["<cat-vote@spoon.example>"][1]
    # the forgery's receipt goes to the real ben, who can object
    forged = got["<forged-ben@mail.example>"][1]
    assert "it waits for the officer" in forged and "If you did not send it" in forged
    assert "your ballot" not in forged
    # the trade went through, between the two hands
    hand = ok(db, "hand ann", at="2026-01-02T12:01:00Z").stdout
    assert "Red Kd" in hand and "Red As" not in hand

    # the officer: the forgery rejected, dan's message accepted (e confirmed it)
    pending = ok(db, "mail pending", at="2026-01-02T13:00:00Z").stdout
    assert pending.count(" pending ") == 2
    ids = {mid: n for n, mid in sql(db, "select id, message_id from mail_messages")}
    ok(db, f"mail reject {ids['<forged-ben@mail.example>']} --reason 'ben says he never sent "
           f"it' --smtp {smtp.smtp}", at="2026-01-02T13:00:00Z")
    ok(db, f"mail accept {ids['<dan-vote@other.example>']} --smtp {smtp.smtp}",
       at="2026-01-02T13:05:00Z")
    answers = [(m["In-Reply-To"], str(m.get_content()).replace("\r\n", "\n"))
               for _, m in smtp.inbox.messages[6:]]
    assert [a for a, _ in answers] == ["<forged-ben@mail.example>", "<dan-vote@other.example>"]
    assert "ben says he never sent it" in answers[0][1]
    assert "your ballot on decision 9355 is FOR" in answers[1][1]

    # the ballots: each citing its message, as cast, the forgery none
    casts = events(db, "ballot.cast", at="2026-01-02T13:05:00Z")
    assert [(c["payload"]["player"], c["payload"]["option"], c["payload"]["as_cast"],
             c["payload"]["source"]) for c in casts] == [
        ("ann", "FOR", "I vote FOR on 9355", "<ann-vote@spoon.example>"),
        ("cat", "AGAINST", "9355 AGAINST", "<cat-vote@spoon.example>"),
        ("dan", "FOR", "FOR on 9355", "<dan-vote@other.example>")]
    assert casts[2]["payload"]["at"] == "2026-01-02T12:00:00+00:00"  # when it came

    # --- the decision resolved, the report of nweek 1 posted to the list ------------------
    ok(db, "tick", at="2026-01-05T00:00:00Z")
    (resolved,) = events(db, "decision.resolved", at="2026-01-05T00:00:00Z")
    assert resolved["payload"]["outcome"] == "ADOPTED"
    ok(db, "tick", at="2026-01-11T00:05:00Z")
    ok(db, f"report 1 --post --smtp {smtp.smtp} --list {LIST}", at="2026-01-11T01:00:00Z")
    (report,) = posted(smtp)
    assert report["Subject"] == "OFF: [Dealer] Dealer's Report for nweek 1"
    report_id = str(report["Message-ID"])
    (post,) = events(db, "list.posted", at="2026-01-11T01:00:00Z")
    assert post["payload"] == {"what": "report", "ids": ["1"], "message_id": report_id,
                               "to": LIST, "to_list": True}

    # --- claims of error by mail, answering the post ------------------------------------
    dovecot.deliver(reply(signer, "ann@spoon.example",
                          "I doubt the Dealer's Report for nweek 1: dan's ballot came from "
                          "no signed message\n\n> Dealer's Report for nweek 1\n",
                          message_id="<ann-doubt@spoon.example>", in_reply_to=report_id,
                          date="Mon, 12 Jan 2026 09:00:00 +0000"))
    dovecot.deliver(reply(signer, "cat@spoon.example",
                          "I doubt the Dealer's Report for nweek 1, my Red card is missing\n",
                          message_id="<cat-doubt@spoon.example>", in_reply_to=report_id,
                          date="Mon, 12 Jan 2026 09:10:00 +0000"))
    second = poll("2026-01-12T10:00:00Z")
    assert [m["outcome"]["status"] for m in second["messages"]] == ["applied", "applied"]
    doubts = events(db, "report.doubted", at="2026-01-12T10:00:00Z")
    assert [d["payload"] for d in doubts] == [
        {"nweek": 1, "player": "ann", "claim": "dan's ballot came from no signed message",
         "source": "<ann-doubt@spoon.example>"},
        {"nweek": 1, "player": "cat", "claim": "my Red card is missing",
         "source": "<cat-doubt@spoon.example>"}]
    ann_doubt, cat_doubt = (d["seq"] for d in doubts)
    assert f"(event {ann_doubt})" in receipts(smtp)["<ann-doubt@spoon.example>"][1]
    ok(db, f"claim deny {ann_doubt} --reason 'the officer accepted it, as rule 2 allows'",
       at="2026-01-13T00:00:00Z")
    dovecot.deliver(reply(signer, "cat@spoon.example",
                          f"I withdraw my claim of error {cat_doubt}\n\nI found it.\n",
                          message_id="<cat-withdraws@spoon.example>",
                          in_reply_to="<cat-doubt@spoon.example>",
                          date="Wed, 14 Jan 2026 09:00:00 +0000"))

    # cron run, as deployed: a process of its own polling the mailbox before its tick
    log = tmp_path / "cron.log"
    cron_env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path), "NOMIC_CARDS_DB": db,
                "NOMIC_CARDS_LOG": str(log), "NOMIC_CARDS_SMTP": smtp.smtp,
                "NOMIC_CARDS_BASE_URL": "https://cards.spoon.example/", **env}

    def cron(at: str) -> None:
        done = subprocess.run([sys.executable, "-m", "nomic_cards", "cron", "run", "--at", at],
                              env=cron_env, capture_output=True, text=True, timeout=300)
        assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr

    cron("2026-01-14T10:00:00Z")
    assert "<cat-withdraws@spoon.example> from cat: applied: 1 recorded" in log.read_text()
    (withdrawn,) = events(db, "report.withdrawn", at="2026-01-14T10:00:00Z")
    assert withdrawn["payload"] == {"doubt": cat_doubt, "player": "cat"}
    assert withdrawn["actor"] == "cat (by mail <cat-withdraws@spoon.example>)"
    assert "<cat-withdraws@spoon.example>" in receipts(smtp)
    (denied,) = events(db, "report.denied", at="2026-01-14T10:00:00Z")
    assert denied["payload"]["doubt"] == ann_doubt

    # undoubted from the withdrawal on 14 January: ratified 14 days after, by a later tick
    cron("2026-01-28T09:59:00Z")
    assert events(db, "report.ratified", at="2026-01-28T09:59:00Z") == []
    cron("2026-02-02T00:00:00Z")
    (ratified,) = events(db, "report.ratified", at="2026-02-02T00:00:00Z")
    assert ratified["payload"] == {"nweek": 1, "days": 14}
    assert str(ratified["at"]).replace(" ", "T").startswith("2026-01-28T10:00:00")

    # --- the end of the season: the ledger checks out; the public record holds no address,
    # and the private trade's messages are the Dealer's alone
    verify = cli(db, "ledger", "verify", at="2026-02-02T00:00:00Z")
    assert verify.exit_code == 0, verify.output
    public = ok(db, "ledger export", at="2026-02-02T00:00:00Z").stdout.casefold()
    for address in ADDRESSES.values():
        assert address.casefold() not in public
    assert "ann-trade@spoon.example" not in public
    assert "ben-trade@mail.example" not in public
    assert "ann-vote@spoon.example" in public
    # the trade's notifications: events by mail, uncited, their fields private (a commitment)
    by_mail = [e for e in json.loads(ok(db, "ledger export", at="2026-02-02T00:00:00Z").stdout)
               if e["actor"] in ("ann (by mail)", "ben (by mail)")]
    assert [(e["kind"], e["actor"]) for e in by_mail if e["kind"].startswith("pooker.")] == [
        ("pooker.notified", "ann (by mail)"), ("pooker.notified", "ben (by mail)"),
        ("pooker.traded", "ben (by mail)")]
    assert all(e["private"] for e in by_mail)
    trades = sql(db, "select private from mail_messages where message_id in "
                     "('<ann-trade@spoon.example>', '<ben-trade@mail.example>')")
    assert [bool(p) for (p,) in trades] == [True, True]


def test_a_doubt_by_mail_cites_its_message(db: str, signer: Signer, smtp: SmtpServer) -> None:
    """The action a message's line is read as keeps the message as its source, as a ballot
    does: a claim of error mailed in names its Message-ID, whatever the line says."""
    ok(db, "rules amend report --set doubt_days=14 --proposal 'Proposal 501'",
       at="2026-01-01T11:30:00Z")
    ok(db, "tick", at="2026-01-11T00:05:00Z")
    ok(db, f"report 1 --post --smtp {smtp.smtp} --list {LIST}", at="2026-01-11T01:00:00Z")
    raw = signed(signer, "ann@spoon.example",
                 "I doubt the Dealer's Report for nweek 1: ben's card is missing\n"
                 "cards.doubt nweek=1 claim=again source=<made-up@example.org>\n",
                 message_id="<doubt-1@spoon.example>")
    result = cli(db, "mail", "receive", at="2026-01-12T00:00:00Z", env=signer.env(), stdin=raw)
    assert result.exit_code == 0, result.output
    doubts = [json.loads(str(p)) for (p,) in sql(
        db, "select payload from events where kind = 'report.doubted' order by seq")]
    assert doubts == [
        {"nweek": 1, "player": "ann", "claim": "ben's card is missing",
         "source": "<doubt-1@spoon.example>"},
        {"nweek": 1, "player": "ann", "claim": "again", "source": "<doubt-1@spoon.example>"}]
