"""The periodic work under cron's conditions (``env -i PATH=/usr/bin:/bin``, a real database, a
real SMTP server): ``nomic-cards cron run`` prints the new Dealer's Report and nothing else, logs
the rest, is silent on a quiet day, needs no PATH, and reports a failure in one line; the README's
crontab line works from a wheel installed into a fresh virtualenv; ``scripts/nomic-cards-cron.sh``
finds the executable and runs ``cron run``. And a ``tick`` killed midway has already printed each
nweek it committed."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.cli.cron import posix_cksum
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.helpers import new_game, sql
from tests.mailbox import Kept, free_port

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "nomic-cards-cron.sh"
BIN = Path(sys.executable).parent / "nomic-cards"
BARE_PATH = "/usr/bin:/bin"



@pytest.fixture
def voted(db_url: str) -> Iterator[Nomic]:
    """A game whose nweek 1 ended two days ago, with votes by ann and bob in it."""
    epoch = (datetime.now(UTC) - timedelta(days=12)).date()
    with freeze_time(f"{epoch}T13:00:00Z"):  # made, and voted in, during nweek 1
        game = new_game(db_url, epoch=epoch, nweek_days=10, players=["ann", "bob"])
        with game.write() as tx:
            api.set_email(tx, "ann", "ann@example.org")
            api.set_email(tx, "bob", "bob@example.net")
        for p in ("ann", "bob"):
            with game.write() as tx:
                api.record_vote(tx, p, "1", at=f"{epoch}T12:00:00Z")
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


def cron_run(tmp_path: Path, *args: str, exe: Path = BIN,
             **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``nomic-cards cron run`` as cron would, the executable named by its full path."""
    return subprocess.run([*cron_env(tmp_path, **env), str(exe), "cron", "run", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_cron_prints_only_the_report_and_logs_the_rest(voted: Nomic, tmp_path: Path,
                                                      smtp: tuple[str, Kept]) -> None:
    server, inbox = smtp
    log = tmp_path / "logs" / "cron.log"
    env = {"NOMIC_CARDS_DB": voted.url, "NOMIC_CARDS_LOG": str(log), "NOMIC_CARDS_SMTP": server,
           "NOMIC_CARDS_BASE_URL": "https://cards.example.org"}
    first = cron_run(tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""
    with voted.read() as tx:
        assert first.stdout == api.report(tx, 1).body
    assert first.stdout.startswith("Dealer's Report for nweek 1")
    assert "@" not in first.stdout
    # the Cards for Votes went out by mail; the lines saying so are in the log only
    assert sorted(inbox.rcpts) == ["ann@example.org", "bob@example.net"]
    text = log.read_text()
    assert "nweek 2 started" in text  # nweek 1 was started by the first write in it
    assert "published the Dealer's Report for nweek 1" in text
    assert "to ann <ann@example.org>" in text and "to bob <bob@example.net>" in text
    assert "$ nomic-cards notices send --smtp" in text and text.endswith("--- done\n")
    # the ledger names cron as the actor
    assert {a for (a,) in sql(voted, "select distinct actor from events where kind in "
                                     "('report.published', 'reports.posted')")} == {"cron"}

    second = cron_run(tmp_path, **env)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")
    again = log.read_text()
    assert again.startswith(text) and "Nothing due." in again[len(text):]
    assert len(inbox.rcpts) == 2
    assert sql(voted, "select count(*) from reports") == [(1,)]


@pytest.mark.slow
def test_cron_run_prints_each_report_a_catching_up_tick_published(db_url: str,
                                                                  tmp_path: Path) -> None:
    epoch = (datetime.now(UTC) - timedelta(days=25)).date()  # nweeks 1, 2 and 3 have begun
    with new_game(db_url, epoch=epoch, nweek_days=10, players=["ann"]) as game:
        done = cron_run(tmp_path, "--format", "markdown", NOMIC_CARDS_DB=game.url,
                        NOMIC_CARDS_LOG=str(tmp_path / "cron.log"))
        assert (done.returncode, done.stderr) == (0, "")
        with game.read() as tx:
            reports = [api.report(tx, n, fmt="markdown").body for n in (1, 2)]
        assert done.stdout == reports[0] + "\n" + reports[1]


@pytest.mark.slow
def test_cron_run_at_rehearses_a_day(tmp_path: Path) -> None:
    """``cron run --at TIME`` runs every step as if the time were TIME (the game's own dates,
    whatever the day the test runs)."""
    db = str(tmp_path / "g.db")
    runner = CliRunner()
    for args in (["--at", "2026-01-01", "init", "--epoch", "2026-01-01"],
                 ["--at", "2026-01-01T01:00Z", "player", "add", "ann"],
                 ["--at", "2026-01-02", "vote", "cast", "ann", "--proposal", "1"]):
        assert runner.invoke(app, ["--db", db, *args]).exit_code == 0, args
    log = tmp_path / "cron.log"
    before = cron_run(tmp_path, "--at", "2026-01-10T00:05Z", NOMIC_CARDS_DB=db,
                      NOMIC_CARDS_LOG=str(log))
    assert (before.returncode, before.stdout, before.stderr) == (0, "", "")
    done = cron_run(tmp_path, "--at", "2026-01-11T00:05Z", NOMIC_CARDS_DB=db,
                    NOMIC_CARDS_LOG=str(log))
    assert (done.returncode, done.stderr) == (0, "")
    with Nomic(db) as game:
        with game.read() as tx:
            assert done.stdout == api.report(tx, 1).body
        assert "From 2026-01-01T00:00:00Z to 2026-01-11T00:00:00Z" in done.stdout
    started, posted = json.loads(runner.invoke(app, ["--db", db, "log", "--json", "-n", "2"])
                                 .stdout)
    # nweek 2 began at its boundary, whenever the tick ran; the report went out at 00:05
    assert started["kind"] == "nweek.started" and started["at"].startswith("2026-01-11T00:00:00")
    assert posted["kind"] == "reports.posted" and posted["at"].startswith("2026-01-11T00:05:00")


@pytest.mark.slow
def test_cron_logs_under_home_by_default(voted: Nomic, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url, HOME=str(home))
    assert done.returncode == 0 and done.stderr == ""
    assert "nweek 2 started" in (home / ".local/state/nomic-cards/cron.log").read_text()
    state = tmp_path / "state"
    done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url, HOME=str(home),
                    XDG_STATE_HOME=str(state))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "Nothing due." in (state / "nomic-cards/cron.log").read_text()


def test_cron_without_a_log_says_so_in_one_line(voted: Nomic, tmp_path: Path) -> None:
    done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url)  # no HOME, no NOMIC_CARDS_LOG
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "nomic-cards-cron: set NOMIC_CARDS_LOG to a log file (HOME is not set)\n"
    (tmp_path / "file").write_text("")
    done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url,
                    NOMIC_CARDS_LOG=str(tmp_path / "file" / "cron.log"))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"nomic-cards-cron: cannot write the log file {tmp_path}/file/cron.log"
                           " (set NOMIC_CARDS_LOG)\n")
    assert sql(voted, "select count(*) from nweeks") == [(1,)]  # nweek 2 not started


def test_mail_without_the_servers_url_is_refused_before_anything(voted: Nomic,
                                                                 tmp_path: Path) -> None:
    done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_LOG=str(tmp_path / "c.log"),
                    NOMIC_CARDS_SMTP="127.0.0.1:25")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == ("nomic-cards-cron: --smtp needs --base-url URL (or "
                           "NOMIC_CARDS_BASE_URL): each notice says where to act\n")
    assert sql(voted, "select count(*) from nweeks") == [(1,)]  # nothing was done


@pytest.mark.slow
def test_a_failing_run_says_one_line_naming_the_log(voted: Nomic, tmp_path: Path) -> None:
    log = tmp_path / "cron.log"
    port = free_port()  # nothing listens there
    done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_LOG=str(log),
                    NOMIC_CARDS_SMTP=f"127.0.0.1:{port}",
                    NOMIC_CARDS_BASE_URL="https://cards.example.org")
    assert done.returncode == 1
    # the report was published, so it goes to the list all the same
    with voted.read() as tx:
        assert done.stdout == api.report(tx, 1).body
    assert done.stderr == f"nomic-cards-cron: notices send (exit 1) failed; see {log}\n"
    text = log.read_text()
    assert f"error: cannot reach the SMTP server at 127.0.0.1:{port}" in text
    assert text.endswith("(exit 1)\n$ nomic-cards report --new (to stdout)\n"
                         "--- failed: notices send (exit 1)\n")


def test_cron_needs_a_database(tmp_path: Path) -> None:
    done = cron_run(tmp_path, NOMIC_CARDS_LOG=str(tmp_path / "cron.log"))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "nomic-cards-cron: set NOMIC_CARDS_DB to the game database\n"
    assert not (tmp_path / "cron.log").exists()


def test_a_run_while_another_holds_the_lock_is_silent(voted: Nomic, tmp_path: Path) -> None:
    # the lock file is named as the shell version of this job named it (POSIX cksum of the
    # database), so the two never run at once on one database
    digest = subprocess.run(["sh", "-c", 'printf "%s" "$1" | cksum', "sh", voted.url],
                            capture_output=True, text=True, check=True).stdout.split()[0]
    log = tmp_path / "cron.log"
    with open(tmp_path / f"nomic-cards-cron.{digest}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = cron_run(tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_LOG=str(log))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "another run holds" in log.read_text()
    assert sql(voted, "select count(*) from nweeks") == [(1,)]  # nweek 2 not started


@pytest.mark.parametrize("data", [b"", b"a", b"cards.db", "sqlite:///\u20ac.db".encode(),
                                  bytes(range(256)) * 3])
def test_posix_cksum_is_the_cksum_command(data: bytes) -> None:
    out = subprocess.run(["cksum"], input=data, capture_output=True, check=True).stdout
    assert posix_cksum(data) == int(out.split()[0])


# --- the script for crontabs that name it ------------------------------------------------------


def test_the_script_runs_cron_run_with_the_executable_next_to_it(voted: Nomic,
                                                                  tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(SCRIPT, bindir / SCRIPT.name)
    (bindir / "nomic-cards").symlink_to(BIN)
    log = tmp_path / "cron.log"
    done = cron(bindir / SCRIPT.name, tmp_path, NOMIC_CARDS_DB=voted.url,
                NOMIC_CARDS_LOG=str(log))
    assert done.returncode == 0, done.stderr
    with voted.read() as tx:
        assert done.stderr == "" and done.stdout == api.report(tx, 1).body
    assert "nomic-cards-cron" in log.read_text()


@pytest.mark.slow
def test_the_script_runs_the_executable_it_is_given(voted: Nomic, tmp_path: Path) -> None:
    done = cron(SCRIPT, tmp_path, NOMIC_CARDS_DB=voted.url, NOMIC_CARDS_BIN=str(BIN),
                NOMIC_CARDS_LOG=str(tmp_path / "cron.log"))
    assert (done.returncode, done.stderr) == (0, "")
    with voted.read() as tx:
        assert done.stdout == api.report(tx, 1).body


def test_the_script_without_an_executable_says_so_in_one_line(voted: Nomic,
                                                              tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(SCRIPT, alone / SCRIPT.name)
    done = cron(alone / SCRIPT.name, tmp_path, NOMIC_CARDS_DB=voted.url,
                NOMIC_CARDS_LOG=str(tmp_path / "cron.log"))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("nomic-cards-cron: cannot find the nomic-cards executable: set "
                           "NOMIC_CARDS_BIN\n")
    assert sql(voted, "select count(*) from nweeks") == [(1,)]  # nweek 2 not started


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


def test_a_killed_tick_commits_nothing_and_the_next_does_it_all(db_url: str) -> None:
    """A tick is one transaction: killed midway it leaves the ledger as it was and prints
    nothing; the next tick does every nweek due, each as of its boundary."""
    epoch = (datetime.now(UTC) - timedelta(days=55)).date()  # nweeks 2 to 6 are due
    with freeze_time(f"{epoch}T13:00:00Z"):  # made in nweek 1 (which its first write starts)
        game = new_game(db_url, epoch=epoch, nweek_days=10, players=["ann"])
    with game:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, "-c", KILLER, "3", "--db", db_url, "tick"],
                              capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        nweeks = "select nweek from nweeks order by nweek"
        assert [int(n) for (n,) in sql(game, nweeks)] == [1]
        assert not [line for line in proc.stdout.splitlines() if line.startswith("nweek ")]
        again = subprocess.run([sys.executable, "-c", KILLER, "100", "--db", db_url, "tick"],
                               capture_output=True, text=True, timeout=300, env=env)
        assert again.returncode == 0, again.stderr
        printed = [int(line.split()[1]) for line in again.stdout.splitlines()
                   if line.startswith("nweek ")]
        assert [int(n) for (n,) in sql(game, nweeks)] == [1, 2, 3, 4, 5, 6]
        assert printed == [2, 3, 4, 5, 6]
        with game.read() as tx:
            assert api.ledger_verify(tx).ok


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``nomic-cards`` of a fresh virtualenv into which a wheel built from a copy of the
    package's sources (no scripts/, no tests/) was installed. Its dependencies are those of the
    interpreter running the tests, put on its path by a .pth file (the wheel is installed with
    --no-deps, so nothing is downloaded but the build backend)."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info", "build")
    for name in ("nomic_cards", "migrations"):
        shutil.copytree(ROOT / name, src / name, ignore=skip)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "-q", "--no-deps", "-w", str(base / "dist"), str(src)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = (base / "dist").glob("nomic_cards-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True)
    paths = sysconfig.get_paths()
    Path(site.stdout.strip(), "test-deps.pth").write_text(
        f"{paths['purelib']}\n{paths['platlib']}\n")
    where = subprocess.run([str(python), "-c", "import nomic_cards; print(nomic_cards.__file__)"],
                           capture_output=True, text=True, check=True, cwd=base)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout
    return venv / "bin" / "nomic-cards"


@pytest.mark.slow
def test_the_readme_crontab_line_works_under_cron(tmp_path: Path, smtp: tuple[str, Kept],
                                                  installed: Path) -> None:
    """The README's crontab line, its /srv paths replaced by this test's (the virtualenv by one
    that a wheel was installed into), run as cron runs a line: by /bin/sh, with only cron's
    PATH. docs/nweeks.md gives the same line."""
    readme = (ROOT / "README.md").read_text()
    (line,) = [x for x in readme.splitlines() if x.startswith("*/5 * * * * ")]
    assert line in (ROOT / "docs" / "nweeks.md").read_text().splitlines()
    server, inbox = smtp
    db, log = tmp_path / "cards.db", tmp_path / "cron.log"
    epoch = (datetime.now(UTC) - timedelta(days=12)).date()
    with freeze_time(f"{epoch}T13:00:00Z"):  # made, and voted in, during nweek 1
        game = new_game(str(db), epoch=epoch, nweek_days=10, players=["ann"])
        with game.write() as tx:
            api.set_email(tx, "ann", "ann@example.org")
            api.record_vote(tx, "ann", "1", at=f"{epoch}T12:00:00Z")
    with game:
        command = line.removeprefix("*/5 * * * * ")
        for old, new in [("/srv/nomic/cards.db", str(db)), ("/srv/nomic/cron.log", str(log)),
                         ("/srv/nomic/venv/bin/nomic-cards", str(installed)),
                         ("localhost:25", server)]:
            assert old in command
            command = command.replace(old, new)
        assert "/srv/" not in command
        done = subprocess.run([*cron_env(tmp_path), "/bin/sh", "-c", command],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        with game.read() as tx:
            assert done.stderr == "" and done.stdout == api.report(tx, 1).body
        assert inbox.rcpts == ["ann@example.org"] and "ann@example.org" in log.read_text()

