"""`nomic-cards bridge shape`, `bridge prob`, and `bridge run --stack/--exact`."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path

from typer.testing import CliRunner

from nomic_cards.cli import app

runner = CliRunner()


def _bridge(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["bridge", *args])


def test_shape_prints_like_dealer_dpp() -> None:
    res = _bridge("shape", "5+xx5+")
    assert res.exit_code == 0
    assert res.stdout == ("5008 + 5xx5 + 5xx6 + 5xx7 + 6007 + 6xx5 + 6xx6 + 7006 + 7xx5 + "
                          "8005\n")
    res = _bridge("shape", "shape{north, 4M(3+3+2+)}")
    assert res.stdout.startswith("shape(north,2434 + 2443 + ") and res.stdout.endswith(")\n")


def test_shape_json_lists_the_lengths() -> None:
    res = _bridge("shape", "--json", "(4333)")
    assert res.exit_code == 0
    assert json.loads(res.stdout) == [[4, 3, 3, 3], [3, 4, 3, 3], [3, 3, 4, 3], [3, 3, 3, 4]]
    ten = json.loads(_bridge("shape", "--json", "xxxx:s>=10").stdout)
    assert len(ten) == 20 and all(s[0] >= 10 and sum(s) == 13 for s in ten)


def test_shape_errors_are_one_line_with_a_caret() -> None:
    res = _bridge("shape", "5s(43")
    assert res.exit_code == 1
    assert res.stderr == ("error: expected a suit length, 'x', '[' or ')' to close the '(', "
                          "got end of spec (at column 6)\n  5s(43\n       ^\n")
    res = _bridge("shape", "shape{northeast, 5xxx}")
    assert res.exit_code == 1 and "unknown seat 'northeast'" in res.stderr


def test_prob_text_and_json() -> None:
    res = _bridge("prob", "spades(north) == 13")
    assert res.exit_code == 0
    deals = comb(52, 13)
    assert res.stdout.splitlines()[0] == f"probability     {1 / deals:.10g}  (1/{deals})"
    assert res.stdout.splitlines()[1] == f"deals per deal  {deals}"
    data = json.loads(_bridge("prob", "--json", "hcp(north) >= 22").stdout)
    p = Fraction(data["probability"])
    assert Fraction(data["deals_per_deal"]) == 1 / p
    assert round(float(p), 5) == 0.00424  # published: 0.42 % of hands have 22+ points
    assert data["types"] == []


def test_prob_leveling_types() -> None:
    res = _bridge("prob", "(hcp(north) >= 20 && rnd(100) < 30) || shape(north, 5xxx)")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[2] == "share of the produced deals, by || branch:"
    assert lines[3].endswith("hcp(north) >= 20 && rnd(100) < 30")
    assert lines[5].endswith("(more than one branch)")


def test_prob_errors(tmp_path: Path) -> None:
    res = _bridge("prob", "hcp(north) >= ")
    assert res.exit_code == 1
    assert res.stderr.startswith("error: unexpected end of the script: expected ")
    assert res.stderr.endswith("(at column 15)\n  hcp(north) >= \n" + " " * 16 + "^\n")
    res = _bridge("prob", "tricks(north, spades) > 9")
    assert res.exit_code == 1 and res.stderr.startswith("error: exact probabilities cannot ")
    path = tmp_path / "p.dl"
    path.write_text("predeal north SA\ncondition hcp(north) > 20\n", encoding="utf-8")
    res = _bridge("prob", "--script", str(path))
    assert res.exit_code == 1 and "predeal" in res.stderr
    assert _bridge("prob").exit_code == 2


def test_prob_of_a_script_uses_its_pointcount(tmp_path: Path) -> None:
    path = tmp_path / "p.dl"
    path.write_text("pointcount 1 1 1 1\ncondition hcp(north) >= 8\n", encoding="utf-8")
    data = json.loads(_bridge("prob", "--json", "--script", str(path)).stdout)
    want = Fraction(sum(comb(16, k) * comb(36, 13 - k) for k in range(8, 14)), comb(52, 13))
    assert Fraction(data["probability"]) == want


def test_run_stack_and_exact(tmp_path: Path) -> None:
    path = tmp_path / "c.dl"
    path.write_text("produce 50\ncondition hcp(north) >= 22\naction printoneline\n",
                    encoding="utf-8")
    res = _bridge("run", "-s", "3", "--stack", "--exact", str(path))
    assert res.exit_code == 0, res.output
    deals = [x for x in res.stdout.splitlines() if x.startswith("n ")]
    assert len(deals) == 50 and "Generated 50 hands" in res.stdout
    assert "stacking north: its constraint holds with probability 0.00423679" in res.stderr
    assert "exact 1 of stacked deals" in res.stderr
    plain = _bridge("run", "-s", "3", "--exact", str(path))
    assert "exact 0.00423679\n" in plain.stderr
    compat = _bridge("run", "-s", "3", "--stack", "--dealer-compatible", str(path))
    assert compat.exit_code == 2
