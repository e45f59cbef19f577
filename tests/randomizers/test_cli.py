"""`nomic-cards randomizer`: sample, stats (with --simulate) and presets, errors and docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.randomizers import PRESETS, Randomizer

runner = CliRunner()
DOC = (Path(__file__).resolve().parents[2] / "docs" / "randomizers.md").read_text(
    encoding="utf-8")


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["randomizer", *args])


def test_sample_is_reproducible_and_matches_the_library() -> None:
    res = _run("sample", "bag of I,J,L,O,S,T,Z", "-n", "21", "--seed", "7")
    assert res.exit_code == 0, res.output
    assert res.output.split() == Randomizer("bag of I,J,L,O,S,T,Z", seed=7).take(21)
    assert _run("sample", "7-BAG", "-n", "21", "--seed", "7").output == res.output


def test_sample_json_and_fresh_seed() -> None:
    res = _run("sample", "tgm1", "--count", "5", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["spec"] == PRESETS["tgm1"].spec and len(data["pieces"]) == 5
    assert data["pieces"] == Randomizer(PRESETS["tgm1"], seed=data["seed"]).take(5)


def test_sample_without_seed_prints_it_on_stderr() -> None:
    res = _run("sample", "S,Z", "-n", "3")
    assert res.exit_code == 0
    assert re.search(r"^seed: \d+$", res.output, re.M)


def test_stats_text_and_piece_tables() -> None:
    res = _run("stats", "7-bag", "--piece", "I", "--gaps", "14")
    assert res.exit_code == 0, res.output
    assert "repeat (next piece = last piece): 0.020408  1/49" in res.output
    assert re.search(r"^I\s+0\.142857 1/7\s+0\.020408\s+7\.0000\s+13$", res.output, re.M)
    assert re.search(r"^\s+13\s+0\.020408\s+1/49$", res.output, re.M)
    assert re.search(r"^\s+14\s+0\.000000$", res.output, re.M)
    assert "mean 7.000000; longest 13" in res.output
    assert "never 0.000000; mean 4.000000; latest 7" in res.output


def test_stats_json_has_exact_strings_and_decimals() -> None:
    res = _run("stats", "tgm2", "-p", "Z", "-k", "3", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["all_rolls_fail"]["exact"] == "4574196964864/137023139315083"
    assert abs(data["all_rolls_fail"]["decimal"] - 0.0333827) < 1e-6
    (z,) = data["per_piece"]
    assert z["piece"] == "Z" and z["frequency"] == {"exact": "1/7", "decimal": 1 / 7}
    assert len(z["gap"]) == len(z["first"]) == 3 and z["gap_max"] is None


def test_stats_simulate() -> None:
    res = _run("stats", "S,Z with 1 history", "--piece", "S", "-k", "3",
               "--simulate", "3000", "--seed", "1", "--json")
    assert res.exit_code == 0, res.output
    sim = json.loads(res.output)["simulation"]
    assert sim["count"] == 3000 and sim["repeat"] == 0.0 and sim["runs"] == 1000
    (s,) = sim["per_piece"]
    assert s["gap"] == [0.0, 1.0, 0.0]
    text = _run("stats", "tgm1", "-p", "I", "-k", "2", "--simulate", "2000").output
    assert "simulated" in text and "sim. frequency" in text and "sim. " in text


def test_presets_lists_every_preset() -> None:
    res = _run("presets")
    assert res.exit_code == 0
    for p in PRESETS.values():
        assert p.spec in res.output and p.name in res.output
    data = json.loads(_run("presets", "--json").output)
    assert [d["name"] for d in data] == list(PRESETS)


def test_spec_error_is_one_line_with_caret_and_exit_1() -> None:
    res = _run("sample", "bag I")
    assert res.exit_code == 1
    assert res.output.splitlines()[0] == "error: expected 'of' after 'bag', found 'I' (at column 5)"
    assert res.output.splitlines()[1:] == ["  bag I", "      ^"]


def test_unknown_piece_and_usage_errors() -> None:
    res = _run("stats", "S,Z", "--piece", "Q")
    assert res.exit_code == 1
    assert "error: unknown piece 'Q' (pieces: S, Z)" in res.output
    assert _run("stats", "S,Z", "--gaps", "0").exit_code == 2
    assert _run("sample", "S,Z", "--seed", "-1").exit_code == 2
    too_big = _run("stats", "A,B,C,D,E,F,G,H,I,J,K,L with 9 history 3 rolls")
    assert too_big.exit_code == 1 and "too many states" in too_big.output


def test_every_command_and_option_is_documented() -> None:
    assert "## Command line" in DOC
    for command in ("sample", "stats", "presets"):
        assert f"nomic-cards randomizer {command}" in DOC
    for option in ("-n N", "--seed", "--piece", "--gaps", "--simulate", "--json", "--count",
                   "-p", "-k", "-s"):
        assert option in DOC, option


def test_tests_cited_in_the_docs_exist() -> None:
    here = Path(__file__).resolve().parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in here.glob("test_*.py"))
    defined = set(re.findall(r"^def (test_\w+)", source, re.M))
    cited = set(re.findall(r"`(test_\w+\*?)`", DOC))
    assert cited
    for name in cited:
        if name.endswith("*"):
            assert any(d.startswith(name[:-1]) for d in defined), name
        else:
            assert name in defined, name
