"""``mail poll`` against a real IMAP server -- Debian's Dovecot, run for the test with TLS and a
certificate made for it (tests/mail/imap_server.py) -- and a real SMTP server for the receipts
(aiosmtpd): each unseen message taken, applied, marked seen (or moved) once kept and answered
In-Reply-To; settings from the environment or a private file, never the command line; a
server that cannot be trusted or reached, or a refused login, is one line. Skipped without
Dovecot, except under ``CI``, where it fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import Result

from tests.helpers import sql
from tests.mail.imap_server import Dovecot
from tests.mail.support import ADDRESSES, T1, Signer, SmtpServer, cli, message, signed

pytestmark = pytest.mark.db


def poll(db: str, env: dict[str, str], *args: str, at: str = T1) -> Result:
    return cli(db, "mail", "poll", *args, at=at, env=env)


def test_poll_takes_each_unseen_message_and_answers_it(db: str, dovecot: Dovecot,
                                                       signer: Signer, smtp: SmtpServer) -> None:
    dovecot.deliver(signed(signer, "ann@spoon.example", "I vote FOR on 9355\n",
                           message_id="<p1@spoon.example>"))
    dovecot.deliver(message("ben@mail.example", "9355 AGAINST\n",
                            message_id="<p2@mail.example>"))
    env = {**dovecot.env(), **signer.env()}
    result = poll(db, env, "--smtp", smtp.smtp, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["mailbox"] == f"game@127.0.0.1:{dovecot.port}/INBOX (ssl)"
    statuses = [(m["where"], m["outcome"]["status"]) for m in out["messages"]]
    assert statuses == [("UID 1", "applied"), ("UID 2", "pending")]
    assert all(m["seconds"] >= 0 for m in out["messages"])
    ballots = sql(db, "select subject from events where kind = 'ballot.cast'")
    assert ballots == [("ann",)]
    # each kept message marked seen; each player answered, In-Reply-To eir message
    assert dovecot.flags() == [("<p1@spoon.example>", "\\Seen"),
                               ("<p2@mail.example>", "\\Seen")]
    got = {m["In-Reply-To"]: rcpts for rcpts, m in smtp.inbox.messages}
    assert got == {"<p1@spoon.example>": [ADDRESSES["ann"]],
                   "<p2@mail.example>": [ADDRESSES["ben"]]}
    again = poll(db, env, "--smtp", smtp.smtp)
    assert again.exit_code == 0
    assert again.output == "no unseen message in INBOX\n"
    assert len(smtp.inbox.messages) == 2


def test_a_message_kept_before_is_not_applied_again(db: str, dovecot: Dovecot,
                                                    signer: Signer) -> None:
    raw = signed(signer, "ann@spoon.example", "9355 FOR\n", message_id="<both@spoon.example>")
    # the list delivered it to the alias too (mail receive) before the poll
    assert cli(db, "mail", "receive", env=signer.env(), stdin=raw).exit_code == 0
    dovecot.deliver(raw)
    result = poll(db, {**dovecot.env(), **signer.env()})
    assert result.exit_code == 0
    assert result.output.strip() == ("message <both@spoon.example>: a copy of message 1 "
                                     "(applied): not applied again")
    assert dovecot.flags() == [("<both@spoon.example>", "\\Seen")]
    assert sql(db, "select count(*) from events where kind = 'ballot.cast'") == [(1,)]


def test_dry_run_marks_nothing_seen(db: str, dovecot: Dovecot, signer: Signer) -> None:
    dovecot.deliver(signed(signer, "ann@spoon.example", "9355 FOR\n"))
    result = poll(db, {**dovecot.env(), **signer.env()}, "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "UID 1: message <m1@spoon.example> from ann: would be applied",
        "  understood: ballot on 9355: FOR  <- '9355 FOR'"]
    assert dovecot.flags() == [("<m1@spoon.example>", "")]
    assert sql(db, "select count(*) from mail_messages") == [(0,)]


def test_messages_are_moved_when_a_folder_is_given(db: str, dovecot: Dovecot,
                                                   signer: Signer) -> None:
    dovecot.deliver(signed(signer, "ann@spoon.example", "9355 FOR\n"))
    result = poll(db, dovecot.env(NOMIC_CARDS_IMAP_MOVE_TO="Kept") | signer.env())
    assert result.exit_code == 0, result.output
    assert dovecot.flags() == []
    assert dovecot.flags("Kept") == [("<m1@spoon.example>", "\\Seen")]


def test_starttls_is_used_when_asked(db: str, dovecot: Dovecot, signer: Signer) -> None:
    dovecot.deliver(signed(signer, "ann@spoon.example", "9355 FOR\n"))
    env = dovecot.env(NOMIC_CARDS_IMAP_TLS="starttls",
                      NOMIC_CARDS_IMAP_PORT=str(dovecot.starttls_port)) | signer.env()
    result = poll(db, env)
    assert result.exit_code == 0, result.output
    assert "from ann: applied: 1 recorded" in result.output


def test_settings_from_a_private_file(db: str, dovecot: Dovecot, signer: Signer,
                                      tmp_path: Path) -> None:
    dovecot.deliver(signed(signer, "ann@spoon.example", "9355 FOR\n"))
    settings = tmp_path / "imap.env"
    settings.write_text("# the business list's mailbox\n" + "".join(
        f"{k}={v}\n" for k, v in dovecot.env().items()))
    settings.chmod(0o644)
    env = {"NOMIC_CARDS_IMAP_FILE": str(settings), **signer.env()}
    shared = poll(db, env)
    assert shared.exit_code == 1
    assert shared.output == (f"error: NOMIC_CARDS_IMAP_FILE {settings} may be read by "
                             f"others: it holds a password (chmod 600 {settings})\n")
    settings.chmod(0o600)
    result = poll(db, env)
    assert result.exit_code == 0, result.output
    assert "from ann: applied" in result.output


@pytest.mark.parametrize("case", ["no CA", "bad password", "no server", "plain text", "no user"])
def test_a_server_that_cannot_be_used_is_one_line(db: str, dovecot: Dovecot, signer: Signer,
                                                  case: str) -> None:
    dovecot.deliver(signed(signer, "ann@spoon.example", "9355 FOR\n"))
    env = dovecot.env()
    if case == "no CA":
        env["NOMIC_CARDS_IMAP_CA_FILE"] = ""
        said = "its TLS certificate was not accepted"
    elif case == "bad password":
        env["NOMIC_CARDS_IMAP_PASSWORD"] = "guess"
        said = "refused the login of 'game'"
    elif case == "no server":
        from tests.mailbox import free_port

        env["NOMIC_CARDS_IMAP_PORT"] = str(free_port())
        said = "cannot reach the IMAP server at 127.0.0.1:"
    elif case == "plain text":
        env["NOMIC_CARDS_IMAP_TLS"] = "none"
        said = "NOMIC_CARDS_IMAP_TLS takes ssl or starttls, not 'none'"
    else:
        env["NOMIC_CARDS_IMAP_USER"] = ""
        said = "mail poll needs NOMIC_CARDS_IMAP_USER"
    result = poll(db, env | signer.env())
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("error: ")
    assert said in result.output
    assert "guess" not in result.output
    assert dovecot.flags() == [("<m1@spoon.example>", "")]
    assert sql(db, "select count(*) from mail_messages") == [(0,)]


def test_the_password_is_never_taken_on_the_command_line(db: str) -> None:
    result = cli(db, "mail", "poll", "--password", "x")
    assert result.exit_code == 2


def test_cron_run_polls_the_mailbox_first(db: str, dovecot: Dovecot, signer: Signer,
                                          tmp_path: Path) -> None:
    """With an IMAP mailbox configured, ``cron run`` takes the players' mail before the tick:
    a ballot mailed in time counts, and the run prints nothing (its lines go to the log)."""
    import subprocess
    import sys

    dovecot.deliver(signed(signer, "ann@spoon.example", "9355 FOR\n",
                           message_id="<cron@spoon.example>"))
    log = tmp_path / "cron.log"
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path), "NOMIC_CARDS_DB": db,
           "NOMIC_CARDS_LOG": str(log), **dovecot.env(), **signer.env()}
    done = subprocess.run([sys.executable, "-m", "nomic_cards", "cron", "run", "--at", T1],
                          env=env, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert ("message 1 <cron@spoon.example> from ann: applied: 1 recorded, 0 refused, 0 "
            "line(s) not read") in log.read_text()
    assert sql(db, "select actor from events where kind = 'ballot.cast'") == [
        ("ann (by mail <cron@spoon.example>)",)]
    assert dovecot.flags() == [("<cron@spoon.example>", "\\Seen")]
