"""Every bad input gets one line on stderr, exit 1 or 2, no traceback, and changes nothing.

The corpus is ``tests/data/cli/bad_inputs.toml`` (its header describes a case). Each case runs
the real entry point in a subprocess against its own copy of a small SQLite game; the test
compares every table of that game (events and projections alike) before and after, and the
files of the case's folder.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from tests.helpers import new_game

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "data" / "cli" / "bad_inputs.toml"
CASES: list[dict[str, Any]] = tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]
ENTRY = "from nomic_cards.cli import main; main()"


@pytest.fixture(scope="module")
def base_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bad-inputs") / "base.db"
    with new_game(str(path), players=["alice", "bob"]) as game, game.write() as tx:
        api.deal(tx, "alice")
    return path


@pytest.fixture(scope="module")
def epoch(base_game: Path) -> str:
    """The base game's first day: the game is made on the day the test runs, so a case names
    its dates through ``{epoch}``, never written out."""
    with Nomic(str(base_game)) as game, game.read() as tx:
        return api.clock_status(tx).epoch


def fill(text: str, *, folder: Path, epoch: str) -> str:
    text = text.replace("{dir}", str(folder)).replace("{epoch}", epoch)
    return re.sub(r"\{(.)\*([0-9]+)\}", lambda m: m.group(1) * int(m.group(2)), text)


def copy_game(src: Path, dst: Path) -> None:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    a.close()
    b.close()


def snapshot(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (the event log and each projection), in a stable order."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)
                for t in tables}
    finally:
        conn.close()


def folder(path: Path) -> set[str]:
    return {p.name for p in path.iterdir()
            if not p.name.endswith(("-wal", "-shm", "-journal"))}


def make_files(where: Path, files: dict[str, Any], *, epoch: str) -> None:
    for name, spec in files.items():
        target = where / name
        if isinstance(spec, str):
            target.write_text(fill(spec, folder=where, epoch=epoch), encoding="utf-8")
        elif spec.get("dir"):
            target.mkdir()
        else:
            target.write_bytes(bytes.fromhex(spec["hex"]))


def case_id(case: dict[str, Any]) -> str:
    return " ".join(case["args"])[:60]


def test_corpus_is_broad() -> None:
    groups = {c["args"][0] if not c["args"][0].startswith("-") else "--db" for c in CASES}
    assert len(CASES) >= 60
    assert {"--db", "init", "player", "dealer", "pack", "deal", "transfer", "hand", "log",
            "notices", "clock", "vote", "tick", "report", "cron", "dice", "ledger", "token",
            "serve", "poker", "deals", "randomizer", "bridge", "rules"} <= groups


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_bad_input_one_line_no_traceback_nothing_written(
        case: dict[str, Any], base_game: Path, epoch: str, tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    copy_game(base_game, db)
    make_files(tmp_path, case.get("files", {}), epoch=epoch)
    watched = [db]
    if "copy_db" in case:
        other = tmp_path / case["copy_db"]
        copy_game(base_game, other)
        with sqlite3.connect(other) as conn:
            conn.execute(case["sql"])
        conn.close()
        watched.append(other)
    before = {str(p): snapshot(p) for p in watched}
    files_before = folder(tmp_path)

    args = [fill(a, folder=tmp_path, epoch=epoch) for a in case["args"]]
    env = {**os.environ, "NOMIC_CARDS_DB": str(db), "NOMIC_CARDS_ACTOR": "tester",
           "COLUMNS": "80", **case.get("env", {})}
    env.pop("NOMIC_CARDS_SMTP", None)
    done = subprocess.run([sys.executable, "-c", ENTRY, *args], env=env, cwd=tmp_path,
                          input=case.get("stdin", ""), capture_output=True, text=True,
                          timeout=120)

    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.split("\n")
    assert lines.pop() == "", done.stderr  # every line ends with a newline
    extra = 2 if case.get("caret") else 0
    assert len(lines) == case.get("lines", 1 + extra), done.stderr
    error = next(i for i, line in enumerate(lines)
                 if line.startswith(("error: ", "usage error: ")))
    assert error == case.get("error_line", 0), done.stderr
    assert case["message"] in lines[error], lines[error]
    if extra:
        assert lines[2].strip() == "^"
    if "last" in case:
        assert case["last"] in lines[-1], lines[-1]
    assert not any(0 < ord(c) < 32 or 127 <= ord(c) < 160 for c in done.stderr
                   if c != "\n"), repr(done.stderr)  # no control character reaches a terminal
    assert done.returncode == case["exit"], (done.returncode, done.stderr)
    assert done.stdout == "", done.stdout
    assert {str(p): snapshot(p) for p in watched} == before
    assert folder(tmp_path) == files_before
