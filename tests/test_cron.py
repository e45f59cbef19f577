"""The cron script under cron's conditions (``env -i PATH=/usr/bin:/bin``, a real database, a
real SMTP server): it prints the new Dealer's Report and nothing else, logs the rest, is silent
on a quiet day, finds the executable without PATH, and reports a failure in one line. And a
``tick`` killed midway has already printed each nweek it committed."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Sink
from freezegun import freeze_time

from nomic_cards.core import Game, services
from tests.helpers import new_game, sql

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "nomic-cards-cron.sh"
BIN = Path(sys.executable).parent / "nomic-cards"
BARE_PATH = "/usr/bin:/bin"


class Inbox(Sink):
    def __init__(self) -> None:
        self.rcpts: list[str] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        self.rcpts.extend(envelope.rcpt_tos)  # type: ignore[attr-defined]
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[str, Inbox]]:
    inbox = Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield f"127.0.0.1:{port}", inbox
    controller.stop()


@pytest.fixture
def voted(db_url: str) -> Iterator[Game]:
    """A game whose nweek 1 ended two days ago, with votes by ann and bob in it."""
    epoch = (datetime.now(UTC) - timedelta(days=12)).date()
    with freeze_time(f"{epoch}T13:00:00Z"):  # made, and voted in, during nweek 1
        game = new_game(db_url, epoch=epoch, nweek_days=10, players=["ann", "bob"])
        services.set_email(game, "ann", "ann@example.org")
        services.set_email(game, "bob", "bob@example.net")
        for p in ("ann", "bob"):
            services.record_vote(game, p, "1", at=f"{epoch}T12:00:00Z")
    with game:
        yield game


def cron_env(tmp_path: Path, **env: str) -> list[str]:
    """``env -i`` and cron's environment: PATH=/usr/bin:/bin and nothing else but ``env`` (and,
    under faketime -- CI runs this file again a year ahead -- the moved clock)."""
    base = {"PATH": BARE_PATH, "TMPDIR": str(tmp_path)}
    base.update({k: v for k, v in os.environ.items()
                 if k == "LD_PRELOAD" or k.startswith("FAKETIME")})
    return ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in {**base, **env}.items())]


def cron(script: Path, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the script as cron would."""
    return subprocess.run([*cron_env(tmp_path, **env), str(script)],
                          capture_output=True, text=True, timeout=300)


def test_cron_prints_only_the_report_and_logs_the_rest(voted: Game, tmp_path: Path,
                                                      smtp: tuple[str, Inbox]) -> None:
    server, inbox = smtp
    log = tmp_path / "logs" / "cron.log"
    env = {"NOMIC_CARDS_DB": voted.url, "NOMIC_CARDS_LOG": str(log),
           "NOMIC_CARDS_BIN": str(BIN), "NOMIC_CARDS_SMTP": server}
    first = cron(SCRIPT, tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""
    assert first.stdout == services.report(voted, 1).body
    assert first.stdout.startswith("Dealer's Report for nweek 1")
    assert "@" not in first.stdout
    # the Cards for Votes went out by mail; the lines saying so are in the log only
    assert sorted(inbox.rcpts) == ["ann@example.org", "bob@example.net"]
    text = log.read_text()
    assert "nweek 2 started" in text  # nweek 1 was started by the first write in it
    assert "published the Dealer's Report for nweek 1" in text
    assert "to ann <ann@example.org>" in text and "to bob <bob@example.net>" in text

    second = cron(SCRIPT, tmp_path, **env)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")
    again = log.read_text()
    assert again.startswith(text) and "Nothing due." in again[len(text):]
    assert len(inbox.rcpts) == 2
    assert sql(voted, "select count(*) from reports") == [(1,)]


def test_cron_finds_the_executable_next_to_it(voted: Game, tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(SCRIPT, bindir / SCRIPT.name)
    (bindir / "nomic-cards").symlink_to(BIN)
    log = tmp_path / "cron.log"
    done = cron(bindir / SCRIPT.name, tmp_path, NOMIC_CARDS_DB=voted.url,
                NOMIC_CARDS_LOG=str(log))
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout == services.report(voted, 1).body


def test_cron_logs_under_home_by_default(voted: Game, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = cron(SCRIPT, tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_BIN=str(BIN),
                HOME=str(home))
    assert done.returncode == 0 and done.stderr == ""
    assert "nweek 2 started" in (home / ".local/state/nomic-cards/cron.log").read_text()


def test_cron_without_an_executable_says_so_in_one_line(voted: Game, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(SCRIPT, alone / SCRIPT.name)
    log = tmp_path / "cron.log"
    done = cron(alone / SCRIPT.name, tmp_path, NOMIC_CARDS_DB=voted.url,
                NOMIC_CARDS_LOG=str(log))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("nomic-cards-cron: cannot find the nomic-cards executable: set "
                           f"NOMIC_CARDS_BIN (see {log})\n")
    assert sql(voted, "select count(*) from nweeks") == [(1,)]  # nweek 2 not started


def test_a_failing_run_says_one_line_naming_the_log(voted: Game, tmp_path: Path) -> None:
    log = tmp_path / "cron.log"
    port = _free_port()  # nothing listens there
    done = cron(SCRIPT, tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_BIN=str(BIN),
                NOMIC_CARDS_LOG=str(log), NOMIC_CARDS_SMTP=f"127.0.0.1:{port}")
    assert done.returncode == 1
    # the report was published, so it goes to the list all the same
    assert done.stdout == services.report(voted, 1).body
    assert done.stderr == f"nomic-cards-cron: notices send (exit 1) failed; see {log}\n"
    assert f"error: cannot reach the SMTP server at 127.0.0.1:{port}" in log.read_text()


def test_cron_needs_a_database(tmp_path: Path) -> None:
    done = cron(SCRIPT, tmp_path, NOMIC_CARDS_BIN=str(BIN))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "nomic-cards-cron: set NOMIC_CARDS_DB to the game database\n"


# --- a tick killed midway ----------------------------------------------------------------------

# Runs the command line, killing itself (SIGKILL) when asked to start nweek number LIMIT + 1:
# by then the transactions of the first LIMIT nweeks have committed.
KILLER = """
import os, signal, sys
from nomic_cards.core.services import time
from nomic_cards.cli import main

limit, calls = int(sys.argv[1]), [0]
start_nweek = time.start_nweek

def start_then_die(*args, **kwargs):
    calls[0] += 1
    if calls[0] > limit:
        os.kill(os.getpid(), signal.SIGKILL)
    return start_nweek(*args, **kwargs)

time.start_nweek = start_then_die
main(sys.argv[2:])
"""


def test_a_killed_tick_has_printed_each_nweek_it_committed(db_url: str) -> None:
    epoch = (datetime.now(UTC) - timedelta(days=55)).date()  # nweeks 2 to 6 are due
    with freeze_time(f"{epoch}T13:00:00Z"):  # made in nweek 1 (which its first write starts)
        game = new_game(db_url, epoch=epoch, nweek_days=10, players=["ann"])
    with game:
        proc = subprocess.run([sys.executable, "-c", KILLER, "3", "--db", db_url, "tick"],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        committed = [int(n) for (n,) in sql(game, "select nweek from nweeks order by nweek")]
        printed = [int(line.split()[1]) for line in proc.stdout.splitlines()
                   if line.startswith("nweek ")]
        assert committed == [1, 2, 3, 4]
        assert printed == committed[1:]
        assert services.ledger_verify(game).ok


def test_the_readme_crontab_line_works_under_cron(tmp_path: Path,
                                                  smtp: tuple[str, Inbox]) -> None:
    """The README's crontab line, its /srv paths replaced by this test's, run as cron runs a
    line: by /bin/sh, with only cron's PATH."""
    readme = (ROOT / "README.md").read_text()
    (line,) = [x for x in readme.splitlines() if x.startswith("5 0 * * * ")]
    server, inbox = smtp
    db, log = tmp_path / "cards.db", tmp_path / "cron.log"
    epoch = (datetime.now(UTC) - timedelta(days=12)).date()
    with freeze_time(f"{epoch}T13:00:00Z"):  # made, and voted in, during nweek 1
        game = new_game(str(db), epoch=epoch, nweek_days=10, players=["ann"])
        services.set_email(game, "ann", "ann@example.org")
        services.record_vote(game, "ann", "1", at=f"{epoch}T12:00:00Z")
    with game:
        command = line.removeprefix("5 0 * * * ")
        for old, new in [("/srv/nomic/cards.db", str(db)), ("/srv/nomic/cron.log", str(log)),
                         ("/srv/nomic/venv/bin/nomic-cards", str(BIN)),
                         ("localhost:25", server), ("/srv/nomic/nomic-cards-cron.sh", str(SCRIPT))]:
            assert old in command
            command = command.replace(old, new)
        done = subprocess.run([*cron_env(tmp_path), "/bin/sh", "-c", command],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stderr == "" and done.stdout == services.report(game, 1).body
        assert inbox.rcpts == ["ann@example.org"] and "ann@example.org" in log.read_text()


def test_a_run_while_another_holds_the_lock_is_silent(voted: Game, tmp_path: Path) -> None:
    digest = subprocess.run(["sh", "-c", 'printf "%s" "$1" | cksum', "sh", voted.url],
                            capture_output=True, text=True, check=True).stdout.split()[0]
    log = tmp_path / "cron.log"
    with open(tmp_path / f"nomic-cards-cron.{digest}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = cron(SCRIPT, tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_BIN=str(BIN),
                    NOMIC_CARDS_LOG=str(log))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "another run holds" in log.read_text()
    assert sql(voted, "select count(*) from nweeks") == [(1,)]  # nweek 2 not started
