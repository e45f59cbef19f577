"""Exact probabilities: published tables, closed forms and independent counting oracles, and
simulation with the dealing code for what has no closed form."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction
from itertools import permutations, product
from math import comb
from pathlib import Path

import numpy as np
import pytest

from nomic_cards.bridge.deal.batch import HandBatch
from nomic_cards.bridge.deal.evaluate import Context, Evaluator
from nomic_cards.bridge.deal.tables import DEFAULT_TABLES, PointTables
from nomic_cards.bridge.errors import ScriptRuntimeError
from nomic_cards.bridge.exact.probability import NotExact, exact, exact_keep_rate
from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.language.script import parse_script

KNOWN = json.loads((Path(__file__).resolve().parent.parent / "data" / "bridge"
                    / "exact_known.json").read_text(encoding="utf-8"))
DEALS = comb(52, 13)


def prob(expr: str, prelude: str = "") -> Fraction:
    script = parse_script(f"{prelude}condition {expr}\n")
    return exact(script.condition, tables=PointTables.for_script(script),
                 text=script.text).probability


def rounds_to(value: Fraction, published: str) -> bool:
    """Whether ``value`` rounds to the printed decimal ``published``."""
    q = Decimal(published)
    half = Decimal(5) * Decimal(10) ** (q.as_tuple().exponent - 1)
    exact_value = Decimal(value.numerator) / Decimal(value.denominator)
    return abs(exact_value - q) <= half


def honour_oracle(points: tuple[int, ...] = (4, 3, 2, 1)) -> dict[int, int]:
    """Hands by point total, counting how many aces, kings, queens, jacks a hand holds."""
    out: dict[int, int] = {}
    for counts in product(range(5), repeat=4):
        held = sum(counts)
        if held > 13:
            continue
        ways = math.prod(comb(4, c) for c in counts) * comb(36, 13 - held)
        total = sum(p * c for p, c in zip(points, counts, strict=True))
        out[total] = out.get(total, 0) + ways
    return out


# ------------------------------------------------------------------ published single-hand tables
def test_hcp_distribution_equals_the_honour_count_oracle() -> None:
    oracle = honour_oracle()
    assert sum(oracle.values()) == DEALS
    for h in range(38):
        assert prob(f"hcp(north) == {h}") == Fraction(oracle.get(h, 0), DEALS), h


@pytest.mark.parametrize("h", range(38))
def test_hcp_tables_as_published(h: int) -> None:
    cumulative = KNOWN["hcp_cumulative"]["values"][str(h)]
    percent = KNOWN["hcp_percent"]["values"][str(h)]
    assert rounds_to(prob(f"hcp(north) <= {h}"), cumulative)
    assert rounds_to(prob(f"hcp(north) == {h}") * 100, percent)


@pytest.mark.parametrize("row", KNOWN["patterns"]["values"], ids=lambda r: r[0])
def test_hand_patterns_as_published(row: list) -> None:
    pattern, published, perms = row
    lengths = tuple(int(x) for x in pattern.split("-"))
    shapes = frozenset(permutations(lengths))
    assert len(shapes) == perms
    closed = Fraction(sum(math.prod(comb(13, k) for k in s) for s in shapes), DEALS)
    got = exact(n.Shape(0, shapes)).probability
    assert got == closed
    assert rounds_to(got, published)


@pytest.mark.parametrize("k", range(14))
def test_suit_lengths(k: int) -> None:
    got = prob(f"hearts(west) == {k}")
    assert got == Fraction(comb(13, k) * comb(39, 13 - k), DEALS)
    published = KNOWN["suit_length_percent"]["values"].get(str(k))
    if published is not None:
        assert rounds_to(got * 100, published)


# ------------------------------------------------------------------ closed forms, small cases
def test_cards_and_losers_closed_forms() -> None:
    assert prob("hascard(north, AS) && hascard(north, KS)") == Fraction(comb(50, 11), DEALS)
    assert prob("loser(north, spades) == 0 && spades(north) == 2") == Fraction(comb(39, 11),
                                                                               DEALS)
    assert prob("spades(north) == 13") == Fraction(1, DEALS)
    assert prob("shape(north, 4333)") == Fraction(comb(13, 4) * comb(13, 3) ** 3, DEALS)
    assert prob("1") == 1 and prob("0") == 0
    assert prob("rnd(10) < 3") == Fraction(3, 10)
    assert prob("rnd(-4) < 0") == Fraction(3, 4)


def test_suit_points_by_enumerating_the_suit() -> None:
    hcp = (0,) * 9 + (1, 2, 3, 4)
    want = sum(comb(39, 13 - bin(m).count("1")) for m in range(8192)
               if bin(m).count("1") >= 5 and sum(hcp[r] for r in range(13) if m >> r & 1) >= 4)
    assert prob("hcp(north, spades) >= 4 && spades(north) >= 5") == Fraction(want, DEALS)


def test_pointcount_of_the_script() -> None:
    # every ace, king, queen and jack counts 1: the number of honours, hypergeometric
    got = prob("hcp(north) >= 8", "pointcount 1 1 1 1\n")
    assert got == Fraction(sum(comb(16, k) * comb(36, 13 - k) for k in range(8, 14)), DEALS)


def _two_seat_oracle(test) -> Fraction:  # type: ignore[no-untyped-def]
    """Count deals of North and South by how many aces, kings, queens, jacks each holds."""
    hits = 0
    for a in product(range(5), repeat=4):
        ways_a = math.prod(comb(4, x) for x in a) * comb(36, 13 - sum(a)) if sum(a) <= 13 else 0
        if not ways_a:
            continue
        for b in product(*(range(5 - x) for x in a)):
            if sum(b) > 13:
                continue
            ways_b = (math.prod(comb(4 - x, y) for x, y in zip(a, b, strict=True))
                      * comb(36 - (13 - sum(a)), 13 - sum(b)))
            if test(a, b):
                hits += ways_a * ways_b
    return Fraction(hits, DEALS * comb(39, 13))


def _hcp(c: tuple[int, ...]) -> int:
    return 4 * c[0] + 3 * c[1] + 2 * c[2] + c[3]


def test_two_seats_against_the_oracle() -> None:
    assert prob("hcp(north) + hcp(south) >= 26") == _two_seat_oracle(
        lambda a, b: _hcp(a) + _hcp(b) >= 26)
    assert prob("hcp(north) >= 12 && controls(south) >= 3") == _two_seat_oracle(
        lambda a, b: _hcp(a) >= 12 and 2 * b[0] + b[1] >= 3)


# ------------------------------------------------------------------ simulation
def _deals(count: int, seed: int) -> HandBatch:
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((count, 52)), axis=1)  # card order[k] goes to seat k // 13
    seat = np.empty_like(order)
    np.put_along_axis(seat, order, np.repeat(np.arange(4), 13)[None, :], axis=1)
    masks = np.zeros((count, 4, 4), dtype=np.uint16)
    for card in range(52):
        suit, rank = divmod(card, 13)
        masks[np.arange(count), seat[:, card], suit] |= np.uint16(1 << rank)
    return HandBatch(masks)


@pytest.mark.slow
@pytest.mark.parametrize("expr", [
    "hcp(north) >= 15 && hcp(north) <= 17 && shape(north, any 4333 + any 4432 + any 5332) "
    "&& hcp(south) >= 8",
    "hcp(north) >= 10 && hcp(east) >= 10 && hcp(south) >= 10",
    "(hcp(north) >= 14 && rnd(100) < 30) || shape(north, 5xxx + x5xx)",
    "loser(west) <= 6 && hcp(west, hearts) >= 3",
    "spades(east) >= 5 ? hcp(east) >= 10 : quality(east, hearts) >= 600",
    "cccc(south) >= 1400",
])
def test_exact_agrees_with_simulation(expr: str) -> None:
    script = parse_script(f"condition {expr}\n")
    p = exact(script.condition, text=script.text).probability
    count = 200_000
    batch = _deals(count, 11)
    ctx = Context(batch, rng=np.random.PCG64(12))
    hits = int(Evaluator(script.text, DEFAULT_TABLES).truth(script.condition, ctx).sum())
    z = (hits - count * float(p)) / math.sqrt(count * float(p) * (1 - float(p)))
    assert abs(z) < 4.5, (hits / count, float(p))


# ------------------------------------------------------------------ leveling, errors, scripts
def test_leveling_shares() -> None:
    expr = "(hcp(north) >= 20 && rnd(100) < 30) || shape(north, 5xxx)"
    script = parse_script(f"condition {expr}\n")
    result = exact(script.condition, text=script.text)
    a, b = prob("hcp(north) >= 20"), prob("shape(north, 5xxx)")
    both = prob("hcp(north) >= 20 && shape(north, 5xxx)")
    p = Fraction(3, 10) * a + b - Fraction(3, 10) * both
    assert result.probability == p and result.deals_per_deal == 1 / p
    first, second = result.types
    assert first.text == "hcp(north) >= 20 && rnd(100) < 30"
    assert first.share == Fraction(3, 10) * a / p and second.share == b / p
    assert result.overlap == Fraction(3, 10) * both / p
    assert first.share + second.share - result.overlap == 1


@pytest.mark.parametrize(("expr", "message"), [
    ("tricks(north, notrumps) >= 9", "exact probabilities cannot use tricks(north, notrump): "
     "double-dummy tricks depend on all four hands card by card"),
    ("cccc(south) >= 1200 && hcp(south) <= 11", "the point counts in this condition span too "
     "many values for an exact answer"),
    ("shape(north, any 4333) && spades(south) > 4", "exact probabilities allow suit-by-suit "
     "features for one seat only: this condition uses shape(north, ...) and spades(south)"),
    ("rnd(hcp(north)) > 2", "exact probabilities need rnd() of a constant, as in rnd(100)"),
])
def test_refusals_name_the_function(expr: str, message: str) -> None:
    with pytest.raises(NotExact) as info:
        prob(expr)
    assert str(info.value) == message


def test_division_by_zero_only_where_reached() -> None:
    with pytest.raises(ScriptRuntimeError, match=r"division by zero in 'hcp\(north\) / "
                                                 r"spades\(north\)' \(line 1\)"):
        prob("hcp(north) / spades(north) > 2")
    guarded = prob("spades(north) > 0 && hcp(north) / spades(north) > 2")
    assert 0 < guarded < 1


def test_exact_keep_rate_of_scripts() -> None:
    plain = parse_script("produce 10\ncondition hcp(north) >= 22\n")
    assert exact_keep_rate(plain) == prob("hcp(north) >= 22")
    assert exact_keep_rate(parse_script("predeal north SA\ncondition hcp(north) > 3\n")) is None
    assert exact_keep_rate(parse_script("condition tricks(south, spades) > 9\n")) is None
