"""``nomic-cards cron run``: the periodic work as cron runs it.

Cron mails whatever a job prints, stdout and stderr, to the crontab's ``MAILTO``: the game's
list. So a run prints the Dealer's Report(s) not yet posted and nothing else; everything else
(tick's lines, each notice sent with its player's address, errors) goes to a log file. A quiet
day prints nothing. A run in which a command failed also writes ONE line to stderr, naming the
command and the log file, so the failure reaches the officer without leaking the details.

Each step is the ordinary command (``mail poll`` when an IMAP mailbox is configured, ``tick``,
``notices send``, ``report --new``) run as a child
process of this interpreter (``python -m nomic_cards``), its output appended to the log as it
comes: a step that crashes or is killed leaves what it committed, and what it printed, behind,
and the run goes on to the next step. No ``PATH`` is needed: cron names this executable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import typer

from nomic_cards.cli.common import ReportFormat, Tls, act_at, at_option, cli_options

ME = "nomic-cards-cron"

cron_app = typer.Typer(help="The periodic work for cron: the players' mail (IMAP), tick, "
                            "notices by mail, the new Dealer's Reports on stdout, the rest to "
                            "a log.",
                       no_args_is_help=True)

def posix_cksum(data: bytes) -> int:
    """The checksum POSIX ``cksum`` prints for ``data`` (CRC-32, polynomial 0x04C11DB7, most
    significant bit first, the length appended, complemented). The lock file is named by it, as
    the shell version of this job named it, so the two never run at once on one database."""
    crc = 0

    def feed(byte: int) -> None:
        nonlocal crc
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF

    for byte in data:
        feed(byte)
    length = len(data)
    while length:
        feed(length & 0xFF)
        length >>= 8
    return ~crc & 0xFFFFFFFF


def default_log(environ: Mapping[str, str]) -> str | None:
    """``${XDG_STATE_HOME:-$HOME/.local/state}/nomic-cards/cron.log`` (None: neither is set)."""
    state = environ.get("XDG_STATE_HOME") or (
        f"{environ['HOME']}/.local/state" if environ.get("HOME") else None)
    return None if state is None else f"{state}/nomic-cards/cron.log"


def lock_path(db: str, environ: Mapping[str, str]) -> Path:
    """The lock file of the runs on database ``db``, in ``$TMPDIR`` (default /tmp)."""
    name = f"nomic-cards-cron.{posix_cksum(db.encode())}.lock"
    return Path(environ.get("TMPDIR") or "/tmp") / name


class _Run:
    """One run: the log, the children's environment, and what failed."""

    def __init__(self, log: BinaryIO, log_name: str, env: dict[str, str], lock_fd: int) -> None:
        self.log, self.log_name, self.env, self.lock_fd = log, log_name, env, lock_fd
        self.failed: list[str] = []

    def note(self, text: str) -> None:
        self.log.write(f"{text}\n".encode())

    def child(self, args: list[str], *, stdout: int | BinaryIO) -> tuple[int, bytes]:
        """Run ``nomic-cards ARGS``, stderr to the log; its exit status (as a shell gives it:
        128 + N when killed by signal N) and, with ``stdout`` PIPE, what it printed."""
        import subprocess

        try:
            done = subprocess.run([sys.executable, "-m", "nomic_cards", *args], env=self.env,
                                  stdin=subprocess.DEVNULL, stdout=stdout, stderr=self.log,
                                  pass_fds=(self.lock_fd,), check=False)
        except OSError as exc:
            self.note(f"cannot run {sys.executable}: {exc}")
            return 127, b""
        code = done.returncode if done.returncode >= 0 else 128 - done.returncode
        return code, done.stdout or b""

    def step(self, *args: str) -> None:
        """Run one command with its stdout and stderr appended to the log."""
        self.note(f"$ nomic-cards {' '.join(args)}")
        code, _ = self.child(list(args), stdout=self.log)
        if code != 0:
            self.note(f"(exit {code})")
            self.failed.append(f"{' '.join(args[:2])} (exit {code})")


def _fail(text: str) -> typer.Exit:
    typer.echo(f"{ME}: {text}", err=True)
    return typer.Exit(1)


@cron_app.command("run")
def run(
    ctx: typer.Context,
    log: str = typer.Option(None, "--log", metavar="PATH", envvar="NOMIC_CARDS_LOG",
                            help="The log file, appended to (default: "
                                 "${XDG_STATE_HOME:-$HOME/.local/state}/nomic-cards/cron.log)."),
    smtp: str = typer.Option(None, "--smtp", metavar="HOST:PORT", envvar="NOMIC_CARDS_SMTP",
                             help="The mail server for the notices (none: no mail)."),
    tls: Tls = typer.Option(Tls.none, "--tls", envvar="NOMIC_CARDS_SMTP_TLS",
                            help="As for notices send: none, starttls or ssl."),
    cafile: str = typer.Option(None, "--ca-file", metavar="PATH",
                               envvar="NOMIC_CARDS_SMTP_CA_FILE",
                               help="As for notices send: the CA of the mail server's "
                                    "certificate."),
    sender: str = typer.Option(None, "--from", metavar="ADDR", envvar="NOMIC_CARDS_FROM",
                               help="The From address of the notices."),
    base_url: str = typer.Option(None, "--base-url", metavar="URL",
                                 envvar="NOMIC_CARDS_BASE_URL",
                                 help="As for notices send: the server's URL, where each "
                                      "notice says to act (needed with --smtp)."),
    fmt: ReportFormat = typer.Option("text", "--format", envvar="NOMIC_CARDS_REPORT_FORMAT",
                                     help="The reports' format: text, markdown or json."),
    at: str = at_option(),
) -> None:
    """Do the periodic work as cron runs it: take the players' mail (when NOMIC_CARDS_IMAP_HOST
    or NOMIC_CARDS_IMAP_FILE is set), tick, then e-mail the notices (with --smtp), then print
    each Dealer's Report not yet posted; everything else goes to the log. A quiet day
    prints nothing; a failure prints one line naming the log; one run at a time per database."""
    act_at(ctx, at)
    opts = cli_options(ctx)
    if not opts.db:
        raise _fail("set NOMIC_CARDS_DB to the game database")
    if smtp and not base_url:
        raise _fail("--smtp needs --base-url URL (or NOMIC_CARDS_BASE_URL): each notice says "
                    "where to act")
    log = log or default_log(os.environ) or ""
    if not log:
        raise _fail("set NOMIC_CARDS_LOG to a log file (HOME is not set)")
    try:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
        log_file = open(log, "ab", buffering=0)  # noqa: SIM115 - closed below
    except OSError:
        raise _fail(f"cannot write the log file {log} (set NOMIC_CARDS_LOG)") from None
    with log_file:
        code = _run(opts.db, opts.at, log_file, log, smtp=smtp, tls=tls.value, cafile=cafile,
                    sender=sender, fmt=fmt, base_url=base_url)
    raise typer.Exit(code)


def _run(db: str, at: str | None, log: BinaryIO, log_name: str, *, smtp: str | None,
         tls: str, cafile: str | None, sender: str | None, fmt: str,
         base_url: str | None = None) -> int:
    """The run itself, once the log is open; the exit status."""
    import fcntl

    env = {**os.environ, "NOMIC_CARDS_DB": db,
           "NOMIC_CARDS_ACTOR": os.environ.get("NOMIC_CARDS_ACTOR") or "cron"}
    if at is not None:
        env["NOMIC_CARDS_AT"] = at
    log.write(f"--- {ME} {datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ} pid {os.getpid()}\n".encode())

    # One run at a time on this machine: two runs would mail the same notices twice.
    lock = lock_path(db, os.environ)
    try:
        lock_fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError:
        log.write(f"cannot open the lock file {lock}\n".encode())
        typer.echo(f"{ME}: cannot open the lock file {lock}; see {log_name}", err=True)
        return 1
    try:
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.write(f"another run holds {lock}: nothing done\n".encode())
            return 0
        except OSError:
            log.write(f"flock failed on {lock}\n".encode())
            typer.echo(f"{ME}: cannot lock {lock}; see {log_name}", err=True)
            return 1
        return _steps(_Run(log, log_name, env, lock_fd), smtp=smtp, tls=tls, cafile=cafile,
                      sender=sender, fmt=fmt, base_url=base_url)
    finally:
        os.close(lock_fd)


def _steps(run: _Run, *, smtp: str | None, tls: str, cafile: str | None, sender: str | None,
           fmt: str, base_url: str | None = None) -> int:
    from nomic_cards.mail.imap import is_configured

    # the mail server, as each step that sends mail is given it (none: no step sends)
    box = ["--smtp", smtp, "--tls", tls, *(["--ca-file", cafile] if cafile else []),
           *(["--from", sender] if sender else [])] if smtp else []
    # The players' mail first (an IMAP mailbox configured): the ballots and acts it carries are
    # recorded before the periodic work, each answered when a mail server is given.
    if is_configured(run.env):
        run.step("mail", "poll", *box)
    run.step("tick")

    if box:
        run.step("notices", "send", *box, "--base-url", base_url or "")

    # The game's list configured (NOMIC_CARDS_LIST) and a mail server given: each report
    # published and each resolution not yet on the list is posted to it by SMTP, once, its
    # Message-ID recorded; a post the server does not take now waits for the next run.
    if box and run.env.get("NOMIC_CARDS_LIST"):
        run.step("report", "--new", "--post", *box)
        run.step("decision", "post", "--new", *box)
        return _done(run)

    # Every report published and not yet posted -- by this tick, by one that died midway, or by
    # a command that did a boundary's work first -- once, in order, exactly as stored, a blank
    # line between two; recorded as posted (``report --new``).
    import subprocess

    run.note("$ nomic-cards report --new (to stdout)")
    code, body = run.child(["report", "--new", "--format", fmt], stdout=subprocess.PIPE)
    typer.echo(body, nl=False)
    if code != 0:
        run.note("(report --new failed)")
        run.failed.append("report --new")
    return _done(run)


def _done(run: _Run) -> int:
    """The run's end in the log, and its exit status (a failure said in one line)."""
    if run.failed:
        failed = ", ".join(run.failed)
        run.note(f"--- failed: {failed}")
        typer.echo(f"{ME}: {failed} failed; see {run.log_name}", err=True)
        return 1
    run.note("--- done")
    return 0
