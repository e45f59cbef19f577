"""Tables by enumeration against the paper's two tables and published quint counts."""

from __future__ import annotations

from math import comb

import pytest

from nomic_cards.errors import InputError
from nomic_cards.poker import Table, table
from nomic_cards.poker.counting import all_hands
from tests.poker.conftest import load

PAPER = load("ness_paper.json")


def _as_dict(tb: Table) -> dict[str, list[int]]:
    out = {r.category: [r.hands, r.distinct] for r in tb.rows}
    out["Total"] = [tb.hands, tb.distinct]
    return out


def test_standard_table_is_the_papers() -> None:
    assert _as_dict(table()) == PAPER["standard"]


def test_deuces_wild_table_is_the_papers() -> None:
    assert _as_dict(table(wild="deuces")) == PAPER["deuces_wild"]
    assert _as_dict(table(wild="2c,2d,2h,2s")) == PAPER["deuces_wild"]


@pytest.mark.parametrize("case", load("alspach_quints.json")["five_card"])
def test_five_of_a_kind_counts_for_other_wild_sets(case: dict[str, object]) -> None:
    tb = table(wild=case["wild"])
    assert tb.rows[0].category == "Five of a kind"
    assert tb.rows[0].hands == case["quints"]
    assert tb.hands == comb(52, 5)


def test_jokers_enlarge_the_pack() -> None:
    one = table(jokers=1)
    assert one.hands == comb(53, 5)
    assert one.rows[0].hands == 13  # the joker and four of a kind
    # hands without the joker are the standard hands: no-pair count is unchanged
    assert one.rows[-1].hands == PAPER["standard"]["No pair"][0]
    two = table(jokers=2, wild="deuces")
    assert two.hands == comb(54, 5)


def test_low_game_tables_cover_every_hand() -> None:
    for game in ("a5", "27", "low8"):
        tb = table(game=game)
        assert sum(r.hands for r in tb.rows) == tb.hands == comb(52, 5)
    low8 = table(game="low8")
    # qualifying lows: 56 rank sets of 5 from A..8, any suits
    assert low8.rows[0].hands == comb(8, 5) * 4 ** 5 and low8.distinct == 56


def test_all_hands_is_lexicographic() -> None:
    cols = all_hands(7, 3)
    rows = list(zip(*(c.tolist() for c in cols), strict=True))
    from itertools import combinations

    assert rows == list(combinations(range(7), 3))
    with pytest.raises(InputError):
        all_hands(3, 5)
    with pytest.raises(InputError):
        table(jokers=9)
