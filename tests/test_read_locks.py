"""Reads take no write lock: while another connection holds the ledger's write lock, the read
commands still finish (SQLite: a plain ``BEGIN`` under WAL; PostgreSQL: a snapshot, no lock)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.store.sql import LEDGER_LOCK_POSTGRESQL
from nomic_cards.core.store.urls import sqlite_path

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

#: Generous bound on one command on a loaded machine; SQLite would wait 30 s for the lock.
BOUND = 20


@contextmanager
def write_lock(url: str) -> Iterator[None]:
    """Hold the write lock from another connection until the block ends."""
    path = sqlite_path(url)
    if path is not None:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("UPDATE ledger_head SET seq = seq WHERE id = 1")
            yield
        finally:
            conn.execute("ROLLBACK")
            conn.close()
        return
    engine = create_engine(url)
    try:
        with engine.connect() as conn, conn.begin():
            conn.execute(text(LEDGER_LOCK_POSTGRESQL))
            yield
    finally:
        engine.dispose()


def run_cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NOMIC_CARDS_DB": url}
    return subprocess.run([sys.executable, "-c", "from nomic_cards.cli import main; main()",
                           *args], env=env, capture_output=True, text=True, timeout=BOUND)


@pytest.mark.parametrize("args", [["hand", "alice"], ["deck"], ["report", "1"],
                                  ["ledger", "verify"], ["dice", "verify"], ["log"],
                                  ["player", "list"], ["clock"]], ids=" ".join)
def test_read_commands_finish_while_a_writer_holds_the_lock(
        game: Nomic, args: list[str], tmp_path: Path) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
    url = game.url
    with write_lock(url):
        done = run_cli(url, *args)  # TimeoutExpired (a failure) if the read waits for the lock
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_a_second_writer_still_waits(sqlite_game: Nomic) -> None:
    """The lock held above is the real write lock: a writer with a short busy timeout is
    refused while it is held (so the test above could fail)."""
    path = sqlite_path(sqlite_game.url)
    assert path is not None
    with write_lock(sqlite_game.url):
        other = sqlite3.connect(path, isolation_level=None, timeout=0.1)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        other.close()


def test_a_write_waits_for_the_lock_held_above(game: Nomic) -> None:
    """On each backend the lock held above is the one a write takes: a deal waits while it is
    held and goes through once it is freed."""
    done = threading.Event()
    errors: list[BaseException] = []

    def deal() -> None:
        try:
            with Nomic(game.url) as other, other.write() as tx:
                api.deal(tx, "alice")
            done.set()
        except BaseException as exc:  # noqa: BLE001 - asserted on below
            errors.append(exc)

    with write_lock(game.url):
        writer = threading.Thread(target=deal)
        writer.start()
        assert not done.wait(1.0)  # it cannot finish while the lock is held
    writer.join(timeout=BOUND)
    assert errors == [] and done.is_set()
    with game.read() as r:
        assert len(api.hand(r, "alice").cards) == 1
