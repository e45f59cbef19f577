"""`nomic-cards deals ...` through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from nomic_cards.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["deals", *args])
    return result.exit_code, result.stdout, result.stderr


def test_terms_text_and_json() -> None:
    code, out, _ = run("terms", "(1 or 2)^?", "--count", "8")
    assert code == 0 and out.strip() == "1, 1, 2, 3, 5, 8, 13, 21"
    code, out, _ = run("terms", "...1...", "-n", "4", "--json")
    data = json.loads(out)
    assert code == 0 and data == {"deal": "...1...", "normal": "... 1 ...", "terms": [0, 1, 2, 3]}


def test_term_exact_and_mod() -> None:
    code, out, _ = run("term", "(1 or 2)^?", "99")
    assert code == 0 and out.strip() == "354224848179261915075"
    code, out, _ = run("term", "(1 or 1)^?", "1000000000000000000", "--mod", "1000000007")
    assert code == 0 and int(out) == pow(2, 10**18, 1_000_000_007)
    code, out, _ = run("term", "(1 or 2)^?", "10", "--json")
    assert json.loads(out) == {"deal": "(1 or 2)^?", "n": 10, "mod": None, "value": 89}


def test_gf() -> None:
    code, out, _ = run("gf", "...1...")
    assert code == 0
    assert "generating function: x / (1 - 2x + x^2)" in out
    assert "factored:            x / (1 - x)^2" in out
    assert "a(n) = 2 a(n-1) - a(n-2) for n >= 2; a(0) = 0, a(1) = 1" in out
    assert "canonical form:      1 (1^?)^2" in out
    code, out, _ = run("gf", "(1 or 2)^?", "--json")
    data = json.loads(out)
    assert data["numerator"] == [1] and data["denominator"] == [1, -1, -1]
    assert data["recurrence"]["coefficients"] == [1, 1]


def test_same_exit_codes() -> None:
    code, out, _ = run("same", "2 * 5", "5 or 5")
    assert code == 0 and out.startswith("same")
    code, out, _ = run("same", "(1 or 2)^?", "(1 or 2 or 3)^?")
    assert code == 1 and "first at n = 3, where a(n) = 3 and 4" in out
    code, out, _ = run("same", "5", "6", "--json")
    assert code == 1 and json.loads(out)["first_difference"] == 5


def test_canon() -> None:
    code, out, _ = run("canon", "5 or 5")
    assert code == 0 and out.strip() == "2 * 5"
    code, out, _ = run("canon", "3^? 2^? 1^?", "--json")
    assert json.loads(out)["canonical"] == "1^? 2^? 3^?"
    code, out, _ = run("canon", "2^? or 3^?")
    assert out.strip() == "(2 + 2x + x^2) / (1 + x - x^3 - x^4)"


def test_sample_standard_explicit_and_none() -> None:
    code, out, _ = run("sample", "13^4", "52", "--seed", "1")
    assert code == 0 and "one of 1 way (seed 1)" in out and "Kc" in out
    code, out, _ = run("sample", "2 * (1 or 3)^2-4", "8", "--seed", "1",
                       "--cards", "As, Kd,Qh,Jc,10s,9d,8h,7c,6s", "--json")
    data = json.loads(out)
    assert code == 0 and data["ways"] == 12 and data["seed"] == 1
    dealt = [c for s in data["steps"] for c in s["dealt"]]
    assert dealt == ["As", "Kd", "Qh", "Jc", "10s", "9d", "8h", "7c"]
    assert data["steps"][0]["choices"][0]["kind"] == "person"
    code, out, _ = run("sample", "60", "60", "--cards", "none")
    assert code == 0 and "60 cards" in out
    again = run("sample", "(1 or 2)^?", "20", "--seed", "9")
    assert again == run("sample", "(1 or 2)^?", "20", "--seed", "9")


def test_errors_are_one_line_then_a_caret() -> None:
    code, out, err = run("terms", "(0 or 1)^?")
    lines = err.splitlines()
    assert code == 1 and out == ""
    assert lines[0] == (
        "error: '(0 or 1)' can deal 0 cards (1 way), so repeating it with no upper bound "
        "would give infinitely many ways (at column 9)"
    )
    assert lines[1:] == ["  (0 or 1)^?", "          ^"]
    code, _, err = run("sample", "5", "3")
    assert code == 1 and err.strip() == "error: there is no way to deal 3 cards with '5'"
    code, _, err = run("sample", "5", "60")
    assert code == 1 and "cannot deal 60 cards from a list of 52" in err
    code, _, err = run("sample", "5", "5", "--cards", "As,,Kd")
    assert code == 1 and "empty card label" in err
    code, _, err = run("sample", "5", "5", "--from-deck", "--cards", "none")
    assert code == 1 and "only one of" in err
    code, _, err = run("term", "(1 or 1)^?", "1000000000000")
    assert code == 1 and "modulo a number" in err
    assert run("term", "5", "-1")[0] == 2  # usage error


def test_sample_from_the_ledger(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    base = ["--db", db]
    assert runner.invoke(app, [*base, "init"]).exit_code == 0
    assert runner.invoke(app, [*base, "player", "add", "alice"]).exit_code == 0
    result = runner.invoke(app, [*base, "deals", "sample", "(1 or 2)^?", "5", "--from-deck",
                                 "--seed", "4", "--json"])
    assert result.exit_code == 0, result.stderr
    dealt = [c for s in json.loads(result.stdout)["steps"] for c in s["dealt"]]
    assert len(dealt) == 5 and all(" " in c for c in dealt)  # labels like "Red Qh"
    result = runner.invoke(app, [*base, "deals", "sample", "0", "0", "--from-player", "alice"])
    assert result.exit_code == 0, result.stderr
    result = runner.invoke(app, [*base, "deals", "sample", "1", "1", "--from-player", "nobody"])
    assert result.exit_code == 1 and "nobody" in result.stderr


def test_a_unicode_space_is_one_line_naming_it() -> None:
    code, out, err = run("terms", "5\u00a0or 5")
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (
        "error: unexpected character U+00A0 NO-BREAK SPACE (only spaces, tabs and newlines may "
        "separate the parts of a deal) (at column 2)"
    )
    code, out, _ = run("terms", "5\tor\n5", "-n", "6")
    assert code == 0 and out.strip() == "0, 0, 0, 0, 0, 2"


def test_gf_shows_the_recurrence_when_its_initial_terms_are_too_large() -> None:
    # 1 / (1 - 2x - x^100000): a(n) = 2^n for n < 100000, about 5 * 10^9 bits in all
    code, out, err = run("gf", "(1 or 1 or 100000)^?")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "generating function: 1 / (1 - 2x - x^100000)"
    assert lines[1].startswith(
        "recurrence:          a(n) = 2 a(n-1) + a(n-100000) for n >= 100000 "
        "(the 100000 initial terms of the recurrence would be too large (about ")
    assert lines[2] == "canonical form:      (2 * 1 or 100000)^?"
    code, out, _ = run("gf", "(1 or 1 or 100000)^?", "--json")
    rec = json.loads(out)["recurrence"]
    assert code == 0 and rec["initial"] is None and rec["start"] == 100000
    assert rec["coefficients"][:2] == [2, 0] and rec["coefficients"][-1] == 1
