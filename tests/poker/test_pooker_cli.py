"""`nomic-cards poker arrange` and `poker advice` through the real CLI."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.poker import parse_cards
from nomic_cards.poker.pookerhands import DEFAULT_SCORES
from tests.poker import pooker_oracle as oracle

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_arrange_json() -> None:
    code, out, _ = run("poker", "arrange", "As Ks Qs Js Ts 9h 9d 9c 2s 2h 5c 5d 5h 5s 7d",
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"score", "hands"} and data["score"] == 190
    assert sorted(sorted(h) for h in data["hands"]) == sorted([
        sorted(["As", "Ks", "Qs", "Js", "Ts"]), sorted(["9h", "9d", "9c", "2s", "2h"]),
        sorted(["5c", "5d", "5h", "5s"])])


def test_arrange_text_and_scores() -> None:
    code, out, _ = run("poker", "arrange", "As As Ah Ah Kd Kd 2c", "--scores", "one-pair=100")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "score  300"
    assert sum("one-pair" in line for line in lines) == 3
    assert lines[-1] == "unshown  2c"


def test_arrange_duplicates_make_five_of_a_kind() -> None:
    code, out, _ = run("poker", "arrange", "7c 7c 7d 7h 7s", "--json")
    assert json.loads(out) == {"score": 80, "hands": [["7c", "7c", "7d", "7h", "7s"]]}


def test_advice_json_against_brute_force() -> None:
    mine, unseen = "As Ah Ks Qd", "Ad Kh Kd 2c 7s 7s"
    code, out, _ = run("poker", "advice", mine, "--unseen", unseen, "--json")
    assert code == 0
    data = json.loads(out)
    table = dict(DEFAULT_SCORES)
    cards = parse_cards(mine)
    expected = Counter(oracle.brute_force([*cards, c], table)[0] for c in parse_cards(unseen))
    assert data["score"] == oracle.brute_force(cards, table)[0] == 5
    assert data["unseen"] == 6
    assert {d["score"]: Fraction(d["probability"]) for d in data["distribution"]} == {
        s: Fraction(n, 6) for s, n in expected.items()}
    assert Fraction(data["expected"]) == sum(Fraction(s * n, 6) for s, n in expected.items())


def test_advice_default_unseen_is_the_packs_less_the_hand() -> None:
    code, out, _ = run("poker", "advice", "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac", "--packs",
                       "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["unseen"] == 39
    # thirteen clubs: a royal flush and a straight flush whatever comes
    assert data["score"] == 150
    assert sum(Fraction(d["probability"]) for d in data["distribution"]) == 1
