"""Points are whole numbers within 2^53 - 1 either way, what every JSON reader holds exactly: a
grant, and every balance it would leave (a Player's or the Bank's), is refused in one line past
that, and nothing is recorded."""

from __future__ import annotations

import pytest

from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from nomic_cards.errors import InputError
from nomic_cards.inputs import MAX_SAFE_INT


def _balances(game: Nomic) -> dict[str, int]:
    with game.read() as tx:
        return {b.player: b.points for b in points.balances(tx)}


def _head(game: Nomic) -> int:
    with game.read() as tx:
        return api.ledger_head(tx).event


def test_the_bound_is_what_json_readers_hold_exactly() -> None:
    assert MAX_SAFE_INT == 2**53 - 1 == 9007199254740991
    assert float(MAX_SAFE_INT) == MAX_SAFE_INT and float(MAX_SAFE_INT + 2) != MAX_SAFE_INT + 2


def test_a_grant_past_the_bound_is_refused(game: Nomic) -> None:
    before = _head(game)
    for n in (MAX_SAFE_INT + 1, MAX_SAFE_INT + 2, -(MAX_SAFE_INT + 1), 10**40):
        with pytest.raises(InputError, match=f"at most {MAX_SAFE_INT} Points"), \
                game.write() as tx:
            points.grant_points(tx, "alice", n, rule="Scorekeeper")
    assert _head(game) == before


def test_a_balance_past_the_bound_is_refused(game: Nomic) -> None:
    with game.write() as tx:
        points.grant_points(tx, "alice", MAX_SAFE_INT, rule="Scorekeeper")  # the bound: fine
    before = _head(game)
    with pytest.raises(InputError, match=f"take alice's balance to {MAX_SAFE_INT + 1} Points"), \
            game.write() as tx:
        points.grant_points(tx, "alice", 1, rule="Scorekeeper")
    with pytest.raises(InputError, match="take Bank's balance to"), game.write() as tx:
        points.grant_points(tx, "bob", 1, rule="Scorekeeper")  # the Bank has paid out the bound
    assert _head(game) == before
    assert _balances(game)["alice"] == MAX_SAFE_INT and _balances(game)["Bank"] == -MAX_SAFE_INT
    with game.write() as tx:
        points.grant_points(tx, "alice", -MAX_SAFE_INT, rule="Scorekeeper")
    assert _balances(game)["alice"] == 0
