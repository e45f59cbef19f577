"""New events, as they are committed, for a long-running process (the server's event streams).

On PostgreSQL a trigger (migration 0010) sends ``NOTIFY nomic_cards_ledger, '<seq>'`` in each
writing transaction, delivered when it commits, to every process that listens, on any host: a
thread here holds one connection that ``LISTEN``s and hands on the ledger head. On SQLite (one
host) the thread reads the ledger head every ``poll`` seconds instead. Either way, after
(re)connecting it hands on the head as it then is, so nothing committed while the connection
was down is missed. A notification only wakes the thread: it hands on this game's head as read
then (the channel is shared by every schema of the database), so several notifications close
together cost one read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from nomic_cards.core.store import sql
from nomic_cards.core.store.connect import KEEPALIVE, Database

CHANNEL = "nomic_cards_ledger"


def _head(database: Database) -> int:
    with database.transaction("narrow") as cur:
        cur.execute(sql.HEAD)
        row = cur.fetchone()
    return 0 if row is None else int(row[0])


def watch(database: Database, on_head: Callable[[int], None], stop: threading.Event, *,
          poll: float = 0.1, retry: float = 1.0) -> None:
    """Call ``on_head(seq)`` with the ledger head each time it may have moved, until ``stop``
    is set. Runs in the caller's thread; errors (the database away) are retried."""
    while not stop.is_set():
        try:
            if database.postgres:
                _listen(database, on_head, stop)
            else:
                _poll(database, on_head, stop, poll)
        except Exception:  # noqa: BLE001 - the database away: try again shortly
            stop.wait(retry)


def _poll(database: Database, on_head: Callable[[int], None], stop: threading.Event,
          poll: float) -> None:
    last = -1
    while not stop.is_set():
        head = _head(database)
        if head != last:
            last = head
            on_head(head)
        stop.wait(poll)


def _listen(database: Database, on_head: Callable[[int], None], stop: threading.Event) -> None:
    import psycopg

    with psycopg.connect(database.conninfo(), autocommit=True, connect_timeout=3,
                         **KEEPALIVE) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        on_head(_head(database))  # what was committed while not listening
        while not stop.is_set():
            # the channel is the database's: another game in another schema of the same
            # database notifies it too, so each wake-up reads this game's own head
            if any(True for _ in conn.notifies(timeout=1.0, stop_after=1)):
                on_head(_head(database))
