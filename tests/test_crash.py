"""A dealing process killed with SIGKILL in the middle of a deal (a real subprocess) leaves a
ledger that verifies, with each deal either wholly there or wholly absent.

The kill does not depend on timing: the child kills itself just before the N-th SQL statement
that holds a given word (``BEGIN``, ``SELECT``, ``INSERT``, ``UPDATE``, ``COMMIT``; counted from
the first deal, on the driver's cursor), so it dies inside a deal's transaction -- after the
lock, after some of the deal's rows were sent (SQLite sends each at once), or just before the
rows and the ``COMMIT`` go (on PostgreSQL they go together) -- at points chosen by a seeded
generator. Every deal
the child finished was announced on stdout before the next began, so the test knows exactly how
many deals must be in the ledger.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.helpers import sql

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

DEALER_LOOP = """
import os, signal, sqlite3, sys
import psycopg
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
seen, armed = 0, False

def _maybe_die(statement):
    global seen
    if not armed or kill_word not in str(statement).upper():
        return
    seen += 1
    if seen == kill_at:
        print("killed before", kill_word, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

# every statement the process sends: SQLite's connections trace each one as it starts;
# psycopg's cursor calls are wrapped (the transaction's BEGIN and COMMIT included)
_connect = sqlite3.connect

def _traced(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    conn.set_trace_callback(_maybe_die)
    return conn

sqlite3.connect = _traced

def _wrap(cls, name):
    inner = getattr(cls, name)
    def call(self, *args, **kwargs):
        _maybe_die(args[0])
        return inner(self, *args, **kwargs)
    setattr(cls, name, call)

_wrap(psycopg.Cursor, "execute")
_wrap(psycopg.Cursor, "executemany")
game = Nomic(sys.argv[1])
kill_word, kill_at = sys.argv[2], int(sys.argv[3])
with game.read() as r:
    api.deck(r)  # warm up (imports, connection, schema check) before counting statements
armed = True

n = 0
while True:
    with game.write() as tx:
        api.deal(tx, "alice" if n % 2 else "bob")
    n += 1
    print("dealt", flush=True)
"""


def test_sigkill_mid_deal_leaves_a_verifiable_ledger(game: Nomic, tmp_path: Path) -> None:
    rng = random.Random(20261122)
    script = tmp_path / "dealer_loop.py"
    script.write_text(DEALER_LOOP)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    finished = 0
    killed_before: list[str] = []
    words = ["BEGIN", "SELECT", "INSERT", "UPDATE", "COMMIT", "SELECT", "INSERT", "COMMIT"]
    for word in words:
        kill_at = rng.randint(1, 12 if word == "SELECT" else 4)
        proc = subprocess.run([sys.executable, str(script), game.url, word, str(kill_at)],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        lines = proc.stdout.splitlines()
        assert lines[-1].startswith("killed before "), proc.stdout
        killed_before.append(lines[-1].removeprefix("killed before "))
        finished += lines.count("dealt")

        with game.read() as tx:
            report = api.ledger_verify(tx)
        assert report.ok, [str(p) for p in report.problems]
        # exactly the finished deals are there: the one the kill interrupted left nothing
        dealt = sql(game, "select count(*) from events where kind = 'card.dealt'")[0][0]
        assert dealt == finished
        assert sql(game, "select count(*) from deals where card is not null")[0][0] == dealt
        assert sql(game, "select count(*) from notices")[0][0] == dealt
        assert sql(game, "select count(*) from ownership where holder_id is not null")[0][0] \
            == dealt
        with game.read() as tx:
            assert api.deck(tx).total == 208 - dealt
    # the kills landed where they were aimed, after some deals were finished
    assert finished > 0
    assert killed_before == words
