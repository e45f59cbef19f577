"""What the card game SDK offers a game beyond the core's declarations: its state as a typed
dataclass with a JSON round trip (:func:`~nomic_cards.cardgames.sdk.game_state`), and
:func:`~nomic_cards.cardgames.sdk.can` over a rule's one check."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nomic_cards.cardgames.sdk import (
    DataDecodeError,
    RuleViolation,
    State,
    can,
    from_json,
    game_state,
    put_game_state,
    to_json,
)


@dataclass
class Side:
    event: int
    commitment: str
    shown: tuple[int, ...] = ()
    note: str | None = None


@dataclass
class Table:
    count: int = 0
    open: bool = False
    sides: dict[str, Side] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
sides = st.builds(Side, st.integers(0, 2**53 - 1), names,
                  st.tuples(st.integers(1, 208)) | st.just(()), st.none() | names)
tables = st.builds(Table, st.integers(0, 10**6), st.booleans(),
                   st.dictionaries(names, sides, max_size=4),
                   st.dictionaries(names, st.integers(-(2**53), 2**53), max_size=4))


@given(tables)
def test_a_games_state_comes_back_equal_from_its_json(table: Table) -> None:
    """``from_json(cls, to_json(x)) == x``, through the text a projection keeps."""
    text = json.dumps(to_json(table))
    assert from_json(Table, json.loads(text), "the table") == table


def test_a_state_that_does_not_fit_is_refused_naming_the_field() -> None:
    bad = {"count": 1, "sides": {"ann": {"event": "seven", "commitment": "c"}}}
    with pytest.raises(DataDecodeError) as info:
        from_json(Table, bad, "card game table's state")
    assert str(info.value) == ("field 'sides.ann.event' of card game table's state should be "
                               "a whole number, not 'seven'")
    with pytest.raises(DataDecodeError, match="'sides.ann.commitment' of the table is missing"):
        from_json(Table, {"sides": {"ann": {"event": 1}}}, "the table")


def test_a_games_state_is_kept_and_read_back_typed() -> None:
    state = State()
    assert game_state(state, "table", Table) == Table()  # before the game recorded anything
    kept = Table(2, True, {"ann": Side(5, "c0ffee", (3, 4))}, {"ann": -1})
    put_game_state(state, "table", kept, 9)
    assert state.game_data("table") == {
        "count": 2, "open": True, "scores": {"ann": -1},
        "sides": {"ann": {"event": 5, "commitment": "c0ffee", "shown": [3, 4], "note": None}}}
    again = game_state(state, "table", Table)
    assert again == kept and again is not kept


def test_can_asks_a_rules_check_without_raising() -> None:
    def verify_small(n: int) -> None:
        if n > 3:
            raise RuleViolation(f"{n} is more than 3")

    assert can(verify_small, 2) and not can(verify_small, 4)
    with pytest.raises(ZeroDivisionError):  # anything but a refusal is not an answer
        can(lambda: 1 // 0)
