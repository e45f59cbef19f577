"""Every default of a new game has one source, GameSettings: init uses it, the CLI help shows
it and docs/cli.md states it."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.settings import DEFAULT_DATABASE_FILE, GameSettings

ROOT = Path(__file__).resolve().parent.parent


def _defaults_table() -> dict[str, str]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\s*\| (.+?) \| (.+?) \|$", text, re.MULTILINE)
    return {k: v for k, v in rows}


def test_docs_state_the_settings_defaults() -> None:
    table = _defaults_table()
    d = GameSettings()
    assert table["packs (rule 2), in numbering order"] == ", ".join(n for n, _ in d.packs)
    assert table["the original Dealer (rule 4)"] == d.dealer
    assert table["game days in an nweek"] == str(d.nweek_days)
    assert table["database"].startswith(f"`{DEFAULT_DATABASE_FILE}`")


def test_init_help_shows_the_settings_defaults() -> None:
    out = CliRunner().invoke(app, ["init", "--help"], env={"COLUMNS": "200"}).stdout
    d = GameSettings()
    assert ", ".join(n for n, _ in d.packs) in " ".join(out.split())
    assert f"[default: {d.dealer}]" in out and f"[default: {d.nweek_days}" in out


def test_init_creates_the_game_the_settings_describe(tmp_path: Path) -> None:
    with Nomic(str(tmp_path / "g.db"), create=True) as game:
        result = api.init_game(game)
        d = GameSettings()
        assert (result.dealer, result.packs) == (d.dealer, len(d.packs))
        with game.read() as tx:
            assert [p.name for p in api.list_packs(tx)] == [n for n, _ in d.packs]
            assert [p.back for p in api.list_packs(tx)] == [b for _, b in d.packs]
