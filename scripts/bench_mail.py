"""Mail in, measured.

    .venv/bin/python scripts/bench_mail.py [--messages 10000] [--polled 50] [--pg]

1. ``mail import`` of an mbox this script writes: ``--messages`` messages from 100 players (and
   a few from no one), every one DKIM-signed by its sender's domain (a key made for the run,
   pinned in ``NOMIC_CARDS_DKIM_KEYS``), a tenth of them ballots on ten open decisions, the rest
   talk with quoted text. It runs as a process of its own, as the officer runs it: its messages
   per second, and its peak memory (the child's maximum resident set size).
2. ``mail poll`` against a real IMAP server (Debian's Dovecot, as the tests run it) with a real
   SMTP server for the receipts (aiosmtpd): ``--polled`` signed ballots delivered to the INBOX,
   then one poll; for each message, the time from the poll finding it to its receipt being
   handed to the SMTP server and the message marked seen (what ``mail poll --json`` reports as
   ``seconds``).

On SQLite by default (a file in a temporary folder); ``--pg`` uses a fresh schema of the test
PostgreSQL server (``NOMIC_CARDS_TEST_PG``).
"""

from __future__ import annotations

import argparse
import json
import mailbox
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import drop_pg_schema, new_pg_schema_url  # noqa: E402
from tests.helpers import sql  # noqa: E402
from tests.mail.imap_server import Dovecot, missing_reason  # noqa: E402
from tests.mail.support import Signer, SmtpServer, message, ok  # noqa: E402

PLAYERS = [f"p{n:03d}" for n in range(100)]
DECISIONS = [str(9001 + n) for n in range(10)]
START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
NOW = "2026-01-05T00:00:00Z"


def address(player: str) -> str:
    return f"{player}@spoon.example"


def setup(db: str) -> None:
    ok(db, "init --epoch 2026-01-01 --nweek-days 10", at="2026-01-01T10:00:00Z")
    for p in PLAYERS:
        ok(db, f"player add {p}", at="2026-01-01T10:01:00Z")
    for p in PLAYERS:
        ok(db, f"player email {p} {address(p)}", at="2026-01-01T10:02:00Z")
    for d in DECISIONS:
        ok(db, f"decision open {d} --title 'Proposal {d}' --author p000 --ai 1.0 "
               "--closes 2026-01-09T00:00:00Z", at="2026-01-01T11:00:00Z")


def body(n: int) -> str:
    """A ballot every tenth message; talk with a quoted reply otherwise."""
    if n % 10 == 0:
        d = DECISIONS[(n // 10) % len(DECISIONS)]
        option = ("FOR", "AGAINST", "PRESENT")[n % 3]
        return (f"I vote as follows:\n{d} {option}\n\nOn Thu, p001 wrote:\n> {d} AGAINST\n"
                "> shall we?\n")
    return (f"Message {n}: I think the Blue pack is under-dealt this nweek.\n\n"
            "On Thu, p002 wrote:\n> The Red pack was dealt twice as often.\n> Any ideas?\n"
            "-- \nsent from the spoon\n")


def write_mbox(path: Path, signer: Signer, count: int) -> int:
    box = mailbox.mbox(str(path))
    box.lock()
    total = 0
    try:
        for n in range(count):
            sender = address(PLAYERS[n % len(PLAYERS)]) if n % 50 != 7 \
                else f"guest{n}@spoon.example"
            raw = signer.sign(message(sender, body(n), message_id=f"<m{n}@spoon.example>",
                                      subject=f"Re: business {n // 10}",
                                      date=format_datetime(START + timedelta(seconds=20 * n))),
                              "spoon.example")
            total += len(raw)
            box.add(raw)
        box.flush()
    finally:
        box.unlock()
        box.close()
    return total


def timed(args: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Run ``args``; its wall time, its peak resident set (KiB) and its stdout."""
    start = time.perf_counter()
    child = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    out = child.stdout.read()
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args[3:])} exited {child.returncode}: "
                         f"{err.decode()[-500:]}")
    return wall, int(usage.ru_maxrss), out.decode()


def bench_import(db: str, folder: Path, signer: Signer, count: int) -> None:
    path = folder / "archive.mbox"
    size = write_mbox(path, signer, count)
    env = {**os.environ, **signer.env()}
    cmd = [sys.executable, "-m", "nomic_cards", "--db", db, "--at", NOW, "mail", "import",
           str(path)]
    wall, rss, out = timed(cmd, env)
    summary = out.strip().splitlines()[-1]
    ballots = sql(db, "select count(*) from events where kind = 'ballot.cast'")[0][0]
    print(f"| mail import, {count:,} messages ({size / 2**20:.1f} MiB mbox) | {wall:.1f} s | "
          f"{count / wall:,.0f} messages/s | peak RSS {rss / 1024:.0f} MiB |")
    print(f"| its summary | {summary}; {ballots} ballots cast | | |")


def bench_poll(db: str, folder: Path, signer: Signer, count: int) -> None:
    reason = missing_reason()
    if reason is not None:
        print(f"| mail poll | skipped: {reason} | | |")
        return
    imap_root = folder / "imap"
    imap_root.mkdir()
    dovecot = Dovecot(imap_root).start()
    smtp = SmtpServer()
    smtp.controller.start()
    try:
        for n in range(count):
            player = PLAYERS[n % len(PLAYERS)]
            dovecot.deliver(signer.sign(message(
                address(player), f"{DECISIONS[n % len(DECISIONS)]} FOR\n",
                message_id=f"<poll{n}@spoon.example>", subject="vote"), "spoon.example"))
        env = {**os.environ, **signer.env(), **dovecot.env()}
        cmd = [sys.executable, "-m", "nomic_cards", "--db", db, "--at", NOW, "mail", "poll",
               "--smtp", smtp.smtp, "--json"]
        wall, rss, out = timed(cmd, env)
        seconds = sorted(m["seconds"] for m in json.loads(out)["messages"])
        sent = len(smtp.inbox.messages)
        assert sent == count, f"{sent} receipts for {count} messages"
        ms = [s * 1000 for s in seconds]
        p90 = ms[int(len(ms) * 0.9) - 1] if len(ms) >= 10 else ms[-1]
        print(f"| mail poll, {count} ballots: found -> receipt sent | median "
              f"{statistics.median(ms):.0f} ms | p90 {p90:.0f} ms, max {ms[-1]:.0f} ms | "
              f"whole poll {wall:.1f} s, peak RSS {rss / 1024:.0f} MiB |")
    finally:
        smtp.controller.stop()
        dovecot.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--polled", type=int, default=50)
    parser.add_argument("--pg", action="store_true", help="PostgreSQL instead of SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mail-") as tmp:
        folder = Path(tmp)
        schema = None
        if args.pg:
            url, schema = new_pg_schema_url()
        else:
            url = f"sqlite:///{folder / 'game.db'}"
        try:
            signer = Signer(folder, ("spoon.example",))
            setup(url)
            print(f"| mail in on {'PostgreSQL' if args.pg else 'SQLite'} (load "
                  f"{os.getloadavg()[0]:.2f}) | time | rate | memory |")
            print("|---|---|---|---|")
            bench_import(url, folder, signer, args.messages)
            bench_poll(url, folder, signer, args.polled)
        finally:
            if schema is not None:
                drop_pg_schema(schema)


if __name__ == "__main__":
    main()
