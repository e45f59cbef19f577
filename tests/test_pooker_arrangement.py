"""A Player's best arrangement in eir view of Pooker (issue 39, point 7): the exact best
arrangement of eir PCards, computed once per content of the Hand and score table and then kept
(``cardgames/pooker/scoring.py: best_hands``), on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from datetime import date
from typing import Any

import pytest
from freezegun import freeze_time

from nomic_cards.cardgames.pooker import scoring
from nomic_cards.cardgames.pooker import view as pooker_view
from nomic_cards.core import api
from nomic_cards.core.game import Game
from nomic_cards.poker.pookerhands import DEFAULT_SCORES, best_score
from tests.game_time import moment as day
from tests.helpers import new_game


@pytest.fixture
def pg(db_url: str) -> Iterator[Game]:
    with freeze_time(day(0.5)), new_game(db_url, epoch=date(2026, 1, 1), nweek_days=10,
                                         players=("ann", "ben")) as game:
        with game.write() as tx:
            api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
        yield game


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many Hands the poker library arranged (each call: the number of cards), with
    nothing kept from other tests."""
    made: list[int] = []
    real = scoring.best_arrangement

    def counted(codes: Sequence[int], table: Any) -> Any:
        made.append(len(codes))
        return real(codes, table)

    scoring._arranged.cache_clear()
    monkeypatch.setattr(scoring, "best_arrangement", counted)
    yield made
    scoring._arranged.cache_clear()


def give(game: Game, player: str, *cards: str) -> None:
    with freeze_time(day(0.5)), game.write() as tx:
        for card in cards:
            api.transfer(tx, card, player, "test setup", source="deck")


def seen(game: Game, player: str) -> pooker_view.PlayerPooker:
    with freeze_time(day(0.5)), game.read() as tx:
        return pooker_view.player_view(tx, player)


def labels(v: pooker_view.PlayerPooker) -> list[list[str]]:
    return [[c.card for c in h.cards] for h in v.hands]


def test_the_view_gives_the_best_arrangement_of_eir_hand(pg: Game, calls: list[int]) -> None:
    """A royal flush in spades (80) beats a pair of Aces (5): the Blue Ace and the Two stay
    unshown; the Kings, Queens... of the other pack make nothing more."""
    give(pg, "ann", "Red As", "Blue As", "Red Ks", "Red Qs", "Red Js", "Red 10s", "Red 2c")
    ann = seen(pg, "ann")
    assert ann.score == 80
    assert labels(ann) == [["Red As", "Red 10s", "Red Js", "Red Qs", "Red Ks"]]  # card order
    assert [(h.category, h.score) for h in ann.hands] == [("royal-flush", 80)]


def test_an_arrangement_is_computed_once_per_content_of_the_hand_and_table(
        pg: Game, calls: list[int]) -> None:
    give(pg, "ann", "Red As", "Red Ks")
    give(pg, "ben", "Blue As", "Blue Ks")  # the same faces, of the other pack
    first = seen(pg, "ann")
    again = seen(pg, "ann")
    assert calls == [2] and first == again  # read again: kept, not computed
    ben = seen(pg, "ben")
    assert calls == [2]  # the same content: the kept answer, with ben's own cards
    assert [c.card for c in ben.pcards] == ["Blue As", "Blue Ks"]
    assert all(c.card.startswith("Blue ") for h in ben.hands for c in h.cards)
    give(pg, "ann", "Blue Ah")  # the Hand changed: computed again
    assert seen(pg, "ann").score == 5 and calls == [2, 3]
    with freeze_time(day(0.5)), pg.write() as tx:  # the table changed: computed again
        api.game_amend(tx, "pooker", ["score-one-pair=7", "score-high-card=1"],
                       proposal="P500")
    ann = seen(pg, "ann")
    assert (ann.score, calls) == (8, [2, 3, 3])  # a pair of Aces 7, the King alone 1
    assert seen(pg, "ben").score == 2 and calls == [2, 3, 3, 2]


@pytest.mark.parametrize("seed", range(6))
def test_the_kept_arrangement_is_the_exact_one(seed: int, calls: list[int]) -> None:
    """Random Hands of 3 to 30 PCards of two packs: a valid arrangement (disjoint Poker Hands
    of 1 to 5 of the Hand's cards) whose Score is the poker library's exact best Score."""
    rng = random.Random(seed)
    table = dict(DEFAULT_SCORES)
    if seed % 2:
        table.update({"high-card": 1, "one-pair": 7, "flush": 55})
    for n in (3, 7, 12, 20, 30):
        cards = rng.sample(range(1, 105), n)
        best = scoring.best_hands(cards, table)
        used = [c for h in best.hands for c in h]
        assert len(used) == len(set(used)) and set(used) <= set(cards)
        assert all(1 <= len(h) <= 5 for h in best.hands)
        assert sum(scoring.score_of(table, [h]) for h in best.hands) == best.score
        assert best.score == best_score([scoring.code(c) for c in cards], table), (n, cards)
        assert scoring.best_hands(list(reversed(cards)), table) == best  # kept: same answer
    assert len(calls) == 5
