"""Evaluation: C integer semantics, short-circuits, IMPs, scores, point tables, errors."""

from __future__ import annotations

import numpy as np
import pytest

from nomic_cards.bridge.deal.batch import HandBatch
from nomic_cards.bridge.deal.evaluate import DEALER_IMPS, Context, Evaluator, imps, score
from nomic_cards.bridge.deal.tables import PointTables
from nomic_cards.bridge.errors import ScriptRuntimeError
from nomic_cards.bridge.language.script import parse_script


def _hand(spec: str) -> list[int]:
    """'AKQ.JT9.-.' style holdings (spades first) to suit masks."""
    out = []
    for part in spec.split("."):
        out.append(sum(1 << "23456789TJQKA".index(c) for c in part if c != "-"))
    return out


# North: S AKQ2, H J3, D T98765, C A  (hcp 4+3+2+1+4 = 14)
DEAL = ["AKQ2.J3.T98765.A", "JT98.AK2.AKQ.KQJ", "7653.QT9876.J.T9", "4.54.432.8765432"]


def _values(expr_text: str, *, script_prefix: str = "", compat: bool = False) -> int:
    script = parse_script(f"{script_prefix}\ncondition {expr_text}\n")
    masks = np.array([[_hand(h) for h in DEAL]], dtype=np.uint16)
    tables = PointTables.for_script(script, dealer_compatible=compat)
    ev = Evaluator(script.text, tables, imp_table=DEALER_IMPS if compat else
                   Evaluator().imp_table)
    return int(ev.values(script.condition, Context(HandBatch(masks)))[0])


@pytest.mark.parametrize(("expr", "value"), [
    ("7 / 2", 3), ("-7 / 2", -3), ("7 / -2", -3), ("-7 % 2", -1), ("7 % -2", 1),
    ("-8 / 4", -2), ("1 - 1 + 1", 1), ("3 % 2 * 2", 2), ("!0 * 2", 2), ("2 - -1", 3),
    ("1 ? 0 ? 3 : 2 : 1", 2), ("0 ? 3 : 1 ? 2 : 1", 2), ("-2 < -1 <= 0", 0),
    ("(hcp(north) > 10) + (hcp(north) > 11)", 2), ("-hcp(north)", -14),
    ("hcp(north)", 14), ("hcp(north, spades)", 9), ("spades(north)", 4), ("clubs(west)", 7),
    ("control(north)", 5), ("loser(north)", 0 + 2 + 3 + 0), ("loser(north, hearts)", 2),
    ("loser(west, spades)", 1), ("loser(south, diamonds)", 1), ("aces(east)", 2),
    ("top3(east, diamonds)", 3), ("c13(north)", 6 + 4 + 2 + 1 + 6), ("tens(north)", 1),
    ("shape(north, 4261)", 1), ("shape(north, any 6421)", 1), ("shape(north, any 6421 - 4xxx)", 0),
    ("hascard(north, QS)", 1), ("hascard(north, QH)", 0),
    ("0 && 1 / 0", 0), ("1 || 1 % 0", 1), ("0 ? 1 / 0 : 5", 5),
])
def test_values(expr: str, value: int) -> None:
    assert _values(expr) == value


def test_division_by_zero_names_the_expression_and_line() -> None:
    with pytest.raises(ScriptRuntimeError) as info:
        _values("hcp(north) > 0 &&\n   spades(north) % (hcp(south) - hcp(south)) == 1")
    assert str(info.value) == ("remainder by zero in 'spades(north) % (hcp(south) - "
                               "hcp(south))' (line 3)")
    with pytest.raises(ScriptRuntimeError, match=r"^division by zero in 'x / 0' \(line 2\)$"):
        _values("y", script_prefix="x = 12\ny = x / 0")


@pytest.mark.parametrize(("diff", "wbf", "dealer"), [
    (0, 0, 0), (10, 0, 0), (20, 1, 1), (420, 9, 10), (430, 10, 10), (1200, 15, 16),
    (1290, 15, 16), (1300, 16, 16), (3990, 23, 23), (4000, 24, 24), (-420, -9, -10),
    (7600, 24, 24),
])
def test_imps_wbf_and_dealer_tables(diff: int, wbf: int, dealer: int) -> None:
    assert int(imps(np.array([diff]))[0]) == wbf
    assert int(imps(np.array([diff]), DEALER_IMPS)[0]) == dealer
    assert _values(f"imps({diff})") == wbf
    assert _values(f"imps({diff})", compat=True) == dealer


@pytest.mark.parametrize(("vul", "level", "strain", "tricks", "points"), [
    (False, 3, 4, 9, 400), (False, 3, 4, 10, 430), (True, 4, 0, 10, 620), (False, 1, 0, 7, 80),
    (False, 6, 3, 12, 920), (True, 7, 4, 13, 2220), (True, 3, 4, 7, -200),
    (False, 5, 2, 11, 400), (False, 2, 1, 8, 110), (True, 4, 1, 9, -100), (False, 3, 3, 9, 110),
])
def test_scores(vul: bool, level: int, strain: int, tricks: int, points: int) -> None:
    assert int(score(vul, level, strain, np.array([tricks]))[0]) == points


def test_score_in_scripts() -> None:
    assert _values("score(vul, x4S, spades(north) + 6)") == 620
    assert _values("score(nv, x3N, 8)") == -50


def test_pointcount_and_altcount() -> None:
    assert _values("hcp(north)", script_prefix="pointcount 6 4 2 1") == 6 + 4 + 2 + 1 + 6
    assert _values("pt2(north)", script_prefix="altcount 2 5") == 5 + 5  # SA and CA
    assert _values("hcp(north)", script_prefix="altcount 2 5") == 14
    # Debian dealer writes altcount N into its table N: altcount 2 then changes pt0 (tens)
    assert _values("pt0(north)", script_prefix="altcount 2 5", compat=True) == 10
    assert _values("hcp(north)", script_prefix="altcount 0 1", compat=True) == 2


@pytest.mark.parametrize(("limit", "values"), [(10, set(range(10))), (-3, {0, -1, -2}),
                                               (0, {0}), (1, {0})])
def test_rnd_stays_in_range(limit: int, values: set[int]) -> None:
    script = parse_script(f"condition rnd({limit})")
    masks = np.zeros((3000, 4, 4), dtype=np.uint16)
    ctx = Context(HandBatch(masks), rng=np.random.PCG64(1))
    assert set(Evaluator().values(script.condition, ctx).tolist()) == values
