"""New events, as they are committed, for a long-running process (the server's event streams).

On PostgreSQL a trigger (migration 0010) sends ``NOTIFY nomic_cards_ledger, '<seq>'`` in each
writing transaction, delivered when it commits, to every process that listens, on any host: a
thread here holds one connection that ``LISTEN``s and hands each number on. On SQLite (one
host) the thread watches the ledger head instead, a one-row read every ``poll`` seconds. Either
way, after (re)connecting it hands on the head as it then is, so nothing committed while the
connection was down is missed. A notification only wakes the thread: it hands on this game's
head as read then (the channel is shared by every schema of the database), so several
notifications close together cost one read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import make_url, select

from nomic_cards.core.store import models as m
from nomic_cards.core.store.engine import Engine
from nomic_cards.core.store.plain import KEEPALIVE

CHANNEL = "nomic_cards_ledger"


def _head(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(m.LedgerHead.seq).where(m.LedgerHead.id == 1))
                   .scalar_one())


def watch(engine: Engine, on_event: Callable[[int], None], stop: threading.Event, *,
          poll: float = 0.1, retry: float = 1.0) -> None:
    """Call ``on_event(seq)`` for each new event (or a later head: streams read every event up
    to it) until ``stop`` is set. Runs in the caller's thread; errors are retried."""
    postgres = engine.dialect.name == "postgresql"
    while not stop.is_set():
        try:
            if postgres:
                _listen(engine, on_event, stop)
            else:
                _poll(engine, on_event, stop, poll)
        except Exception:  # noqa: BLE001 - the database away: try again shortly
            stop.wait(retry)


def _poll(engine: Engine, on_event: Callable[[int], None], stop: threading.Event,
          poll: float) -> None:
    last = -1
    while not stop.is_set():
        head = _head(engine)
        if head != last:
            last = head
            on_event(head)
        stop.wait(poll)


def _listen(engine: Engine, on_event: Callable[[int], None], stop: threading.Event) -> None:
    import psycopg

    url = make_url(engine.url).set(drivername="postgresql")
    conninfo = psycopg.conninfo.make_conninfo(
        url.render_as_string(hide_password=False), connect_timeout=3, **dict(KEEPALIVE))
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        on_event(_head(engine))  # what was committed while not listening
        while not stop.is_set():
            # the channel is the database's: another game in another schema of the same
            # database notifies it too, so each wake-up reads this game's own head
            if any(True for _ in conn.notifies(timeout=1.0, stop_after=1)):
                on_event(_head(engine))
