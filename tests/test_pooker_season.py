"""A season of Pooker played from the command line, as docs/games.md walks it, on SQLite and
PostgreSQL: trades, a Motion, a Showdown closed by ``tick``, Points, the public record checked
by scripts/verify_chain.py and scripts/verify_showdowns.py (the latter also catching a forged
opening)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nomic_cards.cli import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

#: (time, command) as docs/games.md gives them
SEASON = [
    ("2026-01-01T10:00:00Z", "init --epoch 2026-01-01 --nweek-days 10"),
    ("2026-01-01T10:01:00Z", "player add ann"),
    ("2026-01-01T10:02:00Z", "player add ben"),
    ("2026-01-01T10:03:00Z", "player add cat"),
    ("2026-01-01T11:00:00Z", "game enact pooker --packs Red,Blue --proposal 'P456'"),
    ("2026-01-01T11:10:00Z", "transfer 'Red As' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:11:00Z", "transfer 'Red Ks' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:12:00Z", "transfer 'Red Qs' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:13:00Z", "transfer 'Red Js' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:14:00Z", "transfer 'Blue 2h' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:15:00Z", "transfer 'Red 10s' --to ben --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:16:00Z", "transfer 'Red 2h' --to ben --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:17:00Z", "transfer 'Red 3c' --to cat --from deck --rule 'P470: dealt'"),
    ("2026-01-02T09:00:00Z", "points grant ann 5 --rule 'Scorekeeper report, nweek 1'"),
    ("2026-01-02T09:01:00Z", "points grant ben 5 --rule 'Scorekeeper report, nweek 1'"),
    ("2026-01-02T12:00:00Z", "pooker trade ann --give 'Blue 2h' --get 'Red 10s' --with ben"),
    ("2026-01-02T15:00:00Z", "pooker trade ben --give 'Red 10s' --get 'Blue 2h' --with ann"),
    ("2026-01-03T08:00:00Z", "pooker motion cat"),
    ("2026-01-03T09:00:00Z", "pooker vote ann yes"),
    ("2026-01-03T09:30:00Z", "pooker vote ben yes"),
    ("2026-01-03T10:00:00Z", "pooker vote cat yes"),
    ("2026-01-04T10:00:00Z", "pooker show ann --hand 'Red As,Red Ks,Red Qs,Red Js,Red 10s'"),
    ("2026-01-05T10:00:00Z", "pooker show ben --hand 'Red 2h,Blue 2h'"),
    ("2026-01-07T00:00:00Z", "tick"),
]


def run(db: str, at: str | None, command: str) -> str:
    args = ["--db", db, *(["--at", at] if at else []), *shlex.split(command)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, f"{command}: {result.output}"
    return result.stdout


@pytest.mark.slow
def test_a_season_of_pooker_from_the_command_line(db_url: str, tmp_path: Path) -> None:
    out = {command: run(db_url, at, command) for at, command in SEASON}
    assert "waits for ben's" in out[SEASON[15][1]]
    assert "ben and ann traded 1 PCard(s)" in out[SEASON[16][1]]
    assert "it passed: Showdown 1 is open" in out[SEASON[20][1]]
    assert "(Score 80)" in out[SEASON[21][1]]
    assert out["tick"] == "card game pooker: Showdown 1 ends (2026-01-06T10:00:00Z)\n"
    status = json.loads(run(db_url, None, "pooker status --json"))
    assert status["showdown"] is None and status["showdowns"] == 1
    assert status["last"]["winners"] == ["ann"] and status["last"]["prize"] == 80
    assert status["last"]["scores"] == {"ann": 80, "ben": 5}
    balances = {r["player"]: r["points"] for r in json.loads(run(db_url, None,
                                                                "points show --json"))}
    assert balances == {"ann": 84, "ben": 4, "cat": 0, "PurpleBob": 2, "Bank": -90}
    csv = run(db_url, None, "points export --since 2026-01-03").splitlines()
    assert csv[0] == "event,at,from,to,points,rule,note" and len(csv) == 2
    assert ",Bank,ann,80,card game pooker: prize of Showdown 1," in csv[1]
    assert json.loads(run(db_url, None, "hand ann --json"))["cards"] == []
    assert [c["card"] for c in json.loads(run(db_url, None, "hand ben --json"))["cards"]] \
        == []
    run(db_url, None, "ledger verify")  # exits 0 only when the replay equals the tables
    advice = json.loads(run(db_url, None, "pooker advise cat --json"))
    # every PCard but eir own is unseen (nothing shown at an open Showdown)
    assert advice["score"] == 0 and advice["hands"] == [] and advice["unseen"] == 104 - 1
    # the public record alone proves every shown card
    exported = tmp_path / "ledger.json"
    exported.write_text(run(db_url, None, "ledger export"), encoding="utf-8")
    for script in ("verify_chain.py", "verify_showdowns.py"):
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), str(exported)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "7 shown card(s) checked, 0 unproven, 0 problem(s)" in done.stdout
    # a forged opening is caught
    events = json.loads(exported.read_text(encoding="utf-8"))
    shown = next(e for e in events if e["kind"] == "pooker.shown")
    payload = json.loads(shown["payload"])
    payload["openings"][0]["card"], payload["openings"][1]["card"] = \
        payload["openings"][1]["card"], payload["openings"][0]["card"]
    shown["payload"] = json.dumps(payload)
    exported.write_text(json.dumps(events), encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "verify_showdowns.py"),
                           str(exported)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "does not match a commitment" in done.stdout
