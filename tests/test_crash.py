"""A dealing process killed with SIGKILL at random points (a real subprocess) leaves a ledger
that verifies, with each deal either wholly there or wholly absent."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from nomic_cards.core import Game, services
from tests.helpers import sql

DEALER_LOOP = """
import sys
from nomic_cards.core import Game, services
game = Game(sys.argv[1])
services.deck(game)  # warm up (imports, engine) so that the kill lands among the deals
print("ready", flush=True)
n = 0
while True:
    services.deal(game, "alice" if n % 2 else "bob")
    n += 1
"""


def test_sigkill_mid_deal_leaves_a_verifiable_ledger(game: Game, tmp_path: Path) -> None:
    rng = random.Random(20261122)
    script = tmp_path / "dealer_loop.py"
    script.write_text(DEALER_LOOP)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    total_dealt = 0
    for _ in range(6):
        proc = subprocess.Popen([sys.executable, str(script), game.url], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.05, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        report = services.ledger_verify(game)
        assert report.ok, [str(p) for p in report.problems]
        dealt = sql(game, "select count(*) from events where kind = 'card.dealt'")[0][0]
        assert sql(game, "select count(*) from deals where card is not null")[0][0] == dealt
        assert sql(game, "select count(*) from notices")[0][0] == dealt
        assert sql(game, "select count(*) from ownership where holder_id is not null")[0][0] \
            == dealt
        assert services.deck(game).total == 208 - dealt
        assert isinstance(dealt, int) and dealt >= total_dealt
        total_dealt = dealt
        if dealt > 180:
            break
    assert total_dealt > 0
