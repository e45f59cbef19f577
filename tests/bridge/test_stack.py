"""Smart stacking: drawn hands meet the constraint, are uniform among the hands that do
(chi-square against exact counts, and hand by hand on a small set), and runs with a stacker
produce deals distributed as rejection's."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from nomic_cards.bridge.deal.batch import HandBatch
from nomic_cards.bridge.deal.evaluate import condition_mask
from nomic_cards.bridge.deal.tables import DEFAULT_TABLES, POPCOUNT, suit_table
from nomic_cards.bridge.exact.probability import exact, rows_for
from nomic_cards.bridge.exact.stack import SeatSampler, seat_constraints, stacker_for
from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.run.loop import RunOptions, run

HCP = suit_table(DEFAULT_TABLES.table("hcp"))


def _chi2_ok(observed: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    """The statistic (bins with expected counts under 5 merged) and a bound 6 sd above df."""
    order = np.argsort(expected)
    obs, exp = observed[order].astype(float), expected[order].astype(float)
    small = np.cumsum(exp) < 5
    merged_o = np.append(obs[~small], obs[small].sum())
    merged_e = np.append(exp[~small], exp[small].sum())
    keep = merged_e > 0
    stat = float(((merged_o[keep] - merged_e[keep]) ** 2 / merged_e[keep]).sum())
    df = int(keep.sum()) - 1
    return stat, df + 6 * math.sqrt(2 * df)


def _hands(constraint: str, size: int, seed: int) -> tuple[int, np.ndarray]:
    script = parse_script(f"condition {constraint}\n")
    found = stacker_for(script, min_gain=1.0)
    assert found is not None
    stack, _ = found
    return stack(np.random.PCG64(seed), size)


@pytest.mark.parametrize("constraint", [
    "hcp(north) >= 22",
    "hcp(south) >= 15 && hcp(south) <= 17 && shape(south, any 4333 + any 4432 + any 5332)",
    "spades(east) >= 6 && hcp(east, spades) >= 5 && hcp(east) <= 10",
])
def test_drawn_hands_meet_the_constraint(constraint: str) -> None:
    seat, hands = _hands(constraint, 5000, 1)
    assert (POPCOUNT[hands].sum(axis=1) == 13).all()
    masks = np.zeros((len(hands), 4, 4), dtype=np.uint16)
    masks[:, seat] = hands
    script = parse_script(f"condition {constraint}\n")
    assert condition_mask(script.condition, HandBatch(masks), text=script.text).all()


def test_uniform_over_classes() -> None:
    """Classes (point total, spade length, heart length) drawn in proportion to their
    exact number of hands (one exact table holds all the classes)."""
    _, hands = _hands("hcp(north) >= 22", 40000, 2)
    got = Counter(zip(HCP[hands].sum(axis=1).tolist(), POPCOUNT[hands[:, 0]].tolist(),
                      POPCOUNT[hands[:, 1]].tolist(), strict=True))
    script = parse_script("condition hcp(north) >= 22 && spades(north) >= 0 "
                          "&& hearts(north) >= 0\n")
    points, spades, hearts = (x for x in n.walk(script.condition)
                              if isinstance(x, n.Points | n.Length))
    rows = rows_for(script.condition)
    table: Counter[tuple[int, int, int]] = Counter()
    for h, s, he, w in zip(rows.columns[id(points)].tolist(), rows.columns[id(spades)].tolist(),
                           rows.columns[id(hearts)].tolist(), rows.weights, strict=True):
        if h >= 22:
            table[h, s, he] += int(w)
    keys = sorted(table)
    assert set(got) <= set(keys)
    total = sum(table.values())
    expected = np.array([table[k] / total * len(hands) for k in keys])
    stat, bound = _chi2_ok(np.array([got[k] for k in keys]), expected)
    assert stat < bound, (stat, bound)


def test_uniform_hand_by_hand() -> None:
    """36 points or more: 64 hands (13 honours but JJJ or JJQ; or 12 honours, no jack, and
    one of 36 spot cards). Each is drawn equally often."""
    seat, hands = _hands("hcp(west) >= 36", 64 * 150, 3)
    got = Counter(map(tuple, hands))
    assert len(got) == 64
    stat, bound = _chi2_ok(np.array(list(got.values())), np.full(64, 150.0))
    assert stat < bound


def test_seat_constraints_and_refusals() -> None:
    script = parse_script("condition hcp(north) >= 20 && shape(south, 5xxx) && "
                          "hcp(north) + hcp(south) > 25 && rnd(3) == 1\n")
    found = seat_constraints(script.condition)
    assert sorted(found) == [0, 2] and len(found[0]) == 1 and len(found[2]) == 1
    assert stacker_for(parse_script("condition hcp(north) > 5\n")) is None  # not rare
    assert stacker_for(parse_script("predeal north SA\ncondition hcp(north) > 25\n")) is None
    sampler = SeatSampler.build(0, parse_script("condition hcp(north) >= 22\n").condition)
    assert sampler.probability == exact(parse_script("condition hcp(north) >= 22\n")
                                        .condition).probability


def test_stacked_runs_produce_rejection_distribution() -> None:
    """North 20+ and South 5+: the share of produced deals where South has 8+ points is the
    exact conditional probability, with and without stacking."""
    text = "produce 3000\ncondition hcp(north) >= 20 && hcp(south) >= 5\naction printoneline\n"
    script = parse_script(text)
    want = (exact(parse_script("condition hcp(north) >= 20 && hcp(south) >= 8\n").condition)
            .probability / exact(script.condition).probability)
    found = stacker_for(script)
    assert found is not None and found[1].seat == 0
    for stacker in (found[0], None):
        lines: list[str] = []
        run(script, RunOptions(seed=5, stacker=stacker, verbose=False), lines.append)
        deals = [line for chunk in lines for line in chunk.splitlines() if line.startswith("n ")]
        assert len(deals) == 3000
        south = [_points(line.split(" s ")[1].split(" w ")[0]) for line in deals]
        share = sum(p >= 8 for p in south) / len(south)
        sd = math.sqrt(float(want) * (1 - float(want)) / len(south))
        assert abs(share - float(want)) < 4.5 * sd, (stacker is not None, share, float(want))
    assert isinstance(want, Fraction)


def _points(hand: str) -> int:
    return sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(ch, 0) for ch in hand)
