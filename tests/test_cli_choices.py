"""Options with a fixed set of values are choices: a bad value is a usage error (exit 2, one
line) listing the valid values; and the sets are the ones the core and the libraries accept.
Votes have two sub-commands, so no player name is mistaken for one."""

from __future__ import annotations

import json
import typing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nomic_cards.cli import app, common

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("args", "option", "valid"), [
    (["deal", "alice", "--dice", "loaded"], "--dice", ["committed", "manual", "system"]),
    (["report", "--format", "html"], "--format", ["text", "markdown", "json"]),
    (["poker", "eval", "As Ks Qs Js Ts", "--game", "hilo8"], "--game",
     ["high", "a5", "27", "low8"]),
    (["poker", "table", "--game", "razz"], "--game", ["high", "a5", "27", "low8"]),
    (["poker", "showdown", "-H", "a=As Ks Qs Js Ts", "--game", "low8"], "--game",
     ["high", "a5", "27", "hilo8"]),
    (["bridge", "run", "-", "--format", "csv"], "--format", ["text", "pbn", "lin", "json"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_a_bad_choice_is_a_one_line_usage_error_listing_the_values(
        tmp_path: Path, args: list[str], option: str, valid: list[str]) -> None:
    code, out, err = run("--db", str(tmp_path / "none.db"), *args)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert option in lines[0] and all(f"'{v}'" in lines[0] for v in valid), lines[0]
    assert not (tmp_path / "none.db").exists()


def _values(alias: object) -> set[str]:
    return set(typing.get_args(alias))


def test_choice_sets_are_the_ones_the_code_accepts() -> None:
    from nomic_cards import poker
    from nomic_cards.core import dice, report

    assert _values(common.DiceSource) == set(dice.SOURCES)
    assert _values(common.ReportFormat) == set(report.FORMATS)
    assert _values(common.PokerGame) == set(poker.GAMES)
    assert _values(common.ShowdownGame) == set(poker.SHOWDOWN_GAMES)


def test_bridge_formats_are_each_accepted(tmp_path: Path) -> None:
    script = tmp_path / "s.dl"
    script.write_text("produce 1\n")
    for fmt in ("text", "pbn", "lin", "json"):
        code, out, err = run("bridge", "run", str(script), "--seed", "1", "--format", fmt)
        assert code == 0, (fmt, err)
        assert out.strip()


@pytest.fixture
def voters(tmp_path: Path) -> str:
    db = str(tmp_path / "v.db")
    assert run("--db", db, "init")[0] == 0
    for name in ("alice", "import", "cast"):
        code, _, err = run("--db", db, "player", "add", name)
        assert code == 0, err
    return db


@pytest.mark.slow
def test_vote_cast_records_a_vote_even_for_a_player_named_import(voters: str) -> None:
    for name in ("import", "cast", "alice"):
        code, out, err = run("--db", voters, "vote", "cast", name, "--proposal", "301", "--json")
        assert code == 0, err
        assert json.loads(out)["recorded"] == 1


@pytest.mark.slow
def test_vote_import_reads_the_file(voters: str, tmp_path: Path) -> None:
    csv = tmp_path / "votes.csv"
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    csv.write_text(f"player,proposal,time\nalice,301,{now}\nimport,301,{now}\n")
    code, out, err = run("--db", voters, "vote", "import", str(csv), "--json")
    assert code == 0, err
    assert json.loads(out)["recorded"] == 2


@pytest.mark.parametrize("args", [
    ["vote", "alice", "--proposal", "301"],            # the old form: no sub-command
    ["vote", "import", "--proposal", "301"],           # the old way to vote for 'import'
    ["vote", "import"],                                # no file
    ["vote", "cast", "alice"],                         # no proposal
], ids=" ".join)
def test_vote_misuse_is_a_usage_error(voters: str, args: list[str]) -> None:
    code, _, err = run("--db", voters, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("usage error: "), err
