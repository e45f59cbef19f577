"""Benchmark: what this machine allows at most for the durable work of one action -- bare
commits of one small row, with as many writers as ``scripts/bench_server.py`` has clients.

Run by hand (bounded: about 40 s):

    .venv/bin/python scripts/bench_limit.py [--writers 16] [--duration 3] [--runs 3] [--skip-pg]

No nomic-cards code runs: each writer is a process of its own with its own connection, and
commits one row after another (``INSERT`` of a key and a small text, then ``COMMIT``) for
DURATION seconds, all starting together. Rows:

1. **SQLite**: a fresh file in WAL mode with ``synchronous=NORMAL``, as the project opens its
   databases (``nomic_cards/core/store/connect.py``): a commit is in the write-ahead log before
   it returns, and the log reaches the disk at checkpoints. Writers take turns as the
   project's do: an exclusive ``flock`` of a lock file, then ``BEGIN IMMEDIATE``.
2. **PostgreSQL, each commit on its own**: a table in a fresh schema (dropped afterwards) on
   the tests' server (127.0.0.1:5432, or ``NOMIC_CARDS_TEST_PG``), with the server's own
   ``synchronous_commit`` (a commit waits for its WAL to be flushed). Commits of different
   writers may share a flush. (Not a temporary table: PostgreSQL writes no WAL for one, so its
   commits would wait for nothing.)
3. **PostgreSQL, one at a time**: the same, each transaction first taking one transaction-level
   advisory lock, as every write of the ledger does (its hash chain allows one write at a
   time): no two commits share a flush.

Prints one table: commits a second (the median of RUNS runs, and each run's figure) and the
rows counted in the table afterwards (one for every commit a writer saw return); with the load
average at the start and at the end.
"""

from __future__ import annotations

import argparse
import fcntl
import multiprocessing as mp
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: the row each commit writes: a key of the run and a text about the size of a vote's
TEXT = "x" * 64


def sqlite_writer(path: str, lock: str, start: float, duration: float, w: int,
                  out: Any) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA synchronous=NORMAL")
    fd = os.open(lock, os.O_RDWR)
    n = 0
    time.sleep(max(0.0, start - time.time()))
    end = start + duration
    while time.time() < end:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO t (k, v) VALUES (?, ?)", (f"{w}-{n}", TEXT))
            conn.execute("COMMIT")
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
        n += 1
    conn.close()
    out.put(n)


def pg_writer(url: str, serial: bool, start: float, duration: float, w: int, out: Any) -> None:
    import psycopg

    n = 0
    with psycopg.connect(url) as conn:
        time.sleep(max(0.0, start - time.time()))
        end = start + duration
        while time.time() < end:
            with conn.cursor() as cur:
                if serial:
                    cur.execute("SELECT pg_advisory_xact_lock(424242)")
                cur.execute("INSERT INTO t (k, v) VALUES (%s, %s)", (f"{w}-{n}", TEXT))
            conn.commit()
            n += 1
    out.put(n)


def one_run(target: Any, args: tuple[Any, ...], writers: int, duration: float) -> int:
    """Start ``writers`` processes of ``target`` together; the commits they made."""
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    start = time.time() + 1.0  # every process connected and waiting
    procs = [ctx.Process(target=target, args=(*args, start, duration, w, out))
             for w in range(writers)]
    for p in procs:
        p.start()
    commits = sum(int(out.get(timeout=duration + 60)) for _ in procs)
    for p in procs:
        p.join(timeout=30)
        if p.exitcode != 0:
            raise SystemExit(f"a writer failed (exit {p.exitcode})")
    return commits


def measure(name: str, target: Any, args: tuple[Any, ...], count: Any,
            a: argparse.Namespace) -> list[str]:
    commits = [one_run(target, args, a.writers, a.duration) for _ in range(a.runs)]
    rows = count()
    assert rows == sum(commits), f"{name}: {rows} rows for {sum(commits)} commits"
    rates = [c / a.duration for c in commits]
    each = ", ".join(f"{r:,.0f}" for r in rates)
    return [f"| {name} | {a.writers} writers, {a.duration:g} s a run, one row of "
            f"{len(TEXT)} bytes a commit | {statistics.median(rates):,.0f} commits/s "
            f"(runs: {each}) | {rows:,} |"]


def sqlite_rows(a: argparse.Namespace, tmp: Path) -> list[str]:
    path, lock = str(tmp / "limit.db"), str(tmp / "limit.db-lock")
    Path(lock).touch()
    conn = sqlite3.connect(path, isolation_level=None)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL, v TEXT NOT NULL)")
    conn.close()

    def count() -> int:
        with sqlite3.connect(path) as c:
            return int(c.execute("SELECT count(*) FROM t").fetchone()[0])

    return measure("SQLite (WAL, synchronous=NORMAL), writers in turn (flock)", sqlite_writer,
                   (path, lock), count, a)


def pg_rows(a: argparse.Namespace) -> list[str]:
    import psycopg

    from scripts.benchkit import pg_schema

    rows: list[str] = []
    with pg_schema() as url:
        url = url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(url, autocommit=True) as conn:
            sync = conn.execute("SHOW synchronous_commit").fetchone()
            fsync = conn.execute("SHOW fsync").fetchone()
        settings = (f"synchronous_commit={sync[0] if sync else '?'}, "
                    f"fsync={fsync[0] if fsync else '?'}")
        for serial, what in ((False, "each commit on its own"),
                             (True, "one at a time (an advisory lock, as the ledger's writes)")):
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("DROP TABLE IF EXISTS t")
                conn.execute("CREATE TABLE t (id bigserial PRIMARY KEY, k text NOT NULL, "
                             "v text NOT NULL)")

            def count() -> int:
                with psycopg.connect(url) as c:
                    got = c.execute("SELECT count(*) FROM t").fetchone()
                    return int(got[0]) if got else 0

            rows += measure(f"PostgreSQL ({settings}), {what}", pg_writer, (url, serial),
                            count, a)
    return rows


def main() -> None:
    sys.path.append(str(ROOT))
    from scripts.benchkit import pg_reason

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--writers", type=int, default=16, help="writer processes (default 16)")
    ap.add_argument("--duration", type=float, default=3.0, help="seconds a run (default 3)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each row (medians)")
    ap.add_argument("--skip-pg", action="store_true", help="SQLite only")
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-limit-") as d:
        rows = sqlite_rows(a, Path(d))
    reason = None if a.skip_pg else pg_reason()
    if not a.skip_pg and reason is None:
        rows += pg_rows(a)
    elif reason is not None:
        print(f"PostgreSQL unreachable ({reason}): SQLite only", file=sys.stderr)
    load1 = os.getloadavg()[0]
    print(f"bare durable commits, medians of {a.runs} runs; {os.cpu_count()} cores shared with "
          f"whatever else the machine runs (load average {load0:.2f} at the start, {load1:.2f} "
          f"at the end); took {time.monotonic() - started:.0f} s")
    print()
    print("| measure | input | commits a second | rows in the table afterwards |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
