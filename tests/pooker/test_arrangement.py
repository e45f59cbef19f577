"""A Player's best arrangement in eir view of Pooker: the exact best arrangement of eir PCards,
computed once per content of the Hand and score table and then kept
(``cardgames/pooker/scoring.py``), on SQLite and PostgreSQL; under a budget per Player, the view
saying whether what it shows is exact, the exact one shown by a later read, and two Players
trading back and forth held to their share of the arranging thread."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from nomic_cards.cardgames.pooker import scoring
from nomic_cards.cardgames.pooker import view as pooker_view
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.poker.pookerhands import DEFAULT_SCORES, best_score
from tests.pooker.support import fund, give


@pytest.fixture
def players() -> tuple[str, ...]:
    return ("ann", "ben", "cat")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many Hands the poker library arranged (each call: the number of cards), with
    nothing kept from other tests."""
    made: list[int] = []
    real = scoring.best_arrangement

    def counted(codes: Sequence[int], table: Any) -> Any:
        made.append(len(codes))
        return real(codes, table)

    scoring.ARRANGER.forget()
    monkeypatch.setattr(scoring, "best_arrangement", counted)
    yield made
    scoring.ARRANGER.forget()


def seen(game: Nomic, player: str) -> pooker_view.PlayerPooker:
    with game.read() as tx:
        return pooker_view.player_view(tx, player)


def labels(v: pooker_view.PlayerPooker) -> list[list[str]]:
    return [[c.card for c in h.cards] for h in v.hands]


def test_the_view_gives_the_best_arrangement_of_eir_hand(pg: Nomic, calls: list[int]) -> None:
    """A royal flush in spades (80) beats a pair of Aces (5): the Blue Ace and the Two stay
    unshown; the Kings, Queens... of the other pack make nothing more."""
    give(pg, "ann", "Red As", "Blue As", "Red Ks", "Red Qs", "Red Js", "Red 10s", "Red 2c")
    ann = seen(pg, "ann")
    assert ann.score == 80
    assert labels(ann) == [["Red As", "Red 10s", "Red Js", "Red Qs", "Red Ks"]]  # card order
    assert [(h.category, h.score) for h in ann.hands] == [("royal-flush", 80)]


def test_an_arrangement_is_computed_once_per_content_of_the_hand_and_table(
        pg: Nomic, calls: list[int]) -> None:
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
    with pg.write() as tx:  # the table changed: computed again
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


def _valid(best: scoring.BestHands, cards: Sequence[int], table: dict[str, int]) -> None:
    """Disjoint Poker Hands of 1 to 5 of ``cards``, scoring what ``best`` says."""
    used = [c for h in best.hands for c in h]
    assert len(used) == len(set(used)) and set(used) <= set(cards)
    assert all(1 <= len(h) <= 5 for h in best.hands)
    assert sum(scoring.score_of(table, [h]) for h in best.hands) == best.score


@pytest.mark.parametrize("seed", range(4))
def test_the_best_found_so_far_is_a_valid_arrangement_of_eir_cards(seed: int) -> None:
    rng = random.Random(seed)
    table = dict(DEFAULT_SCORES)
    if seed % 2:
        table.update({"high-card": 1, "one-pair": 7, "flush": 55})
    for n in (9, 20, 35, 60, 104):
        cards = rng.sample(range(1, 105), n)
        codes = sorted(scoring.code(c) for c in cards)
        quick = scoring.quick(codes, table)
        ordered = sorted(cards, key=lambda c: (scoring.code(c), c))
        best = scoring.BestHands(quick.score, tuple(
            tuple(sorted(ordered[i] for i in h)) for h in quick.hands), False)
        _valid(best, cards, table)
        assert 0 < best.score <= best_score(codes, table)


class Held:
    """The poker library's exact arrangement, held back until the test lets it go (a large
    Hand's integer program, as long as the test likes), each call counted (its number of
    cards, and the thread that made it)."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.made: list[int] = []
        self.by: list[str] = []
        self._called = threading.Condition()

    def __call__(self, key: scoring.Key) -> Any:
        with self._called:
            self.made.append(len(key[0]))
            self.by.append(threading.current_thread().name)
            self._called.notify_all()
        assert self.go.wait(60), "never let go"
        return scoring.best_arrangement(key[0], dict(key[1]))

    def called(self, n: int) -> None:
        """Wait until the thread has begun ``n`` arrangements in all."""
        with self._called:
            assert self._called.wait_for(lambda: len(self.made) >= n, 60), self.made


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    """The process's arranger made afresh (a budget no test here exhausts), its exact
    arrangements :class:`Held`; let go and stopped afterwards."""
    exact = Held()
    arranger = scoring.Arranger(exact=exact, burst=1000.0)
    monkeypatch.setattr(scoring, "ARRANGER", arranger)
    yield exact
    exact.go.set()
    arranger.close()


#: 12 PCards each (more than are arranged at once by the read), no face in both
ANN = ("Red As", "Red Ks", "Red Qs", "Red Js", "Red 10s", "Red 2c", "Red 3c", "Red 4d",
       "Red 5d", "Red 7h", "Red 8h", "Red 9h")
BEN = ("Blue Ah", "Blue Kh", "Blue Qh", "Blue Jh", "Blue 10h", "Blue 2d", "Blue 3d", "Blue 4c",
       "Blue 5c", "Blue 7s", "Blue 8s", "Blue 9s")


def _exact_score(game: Nomic, player: str) -> int:
    with game.read() as tx:
        codes = [scoring.code(c.number) for c in api.hand(tx, player).cards]
    return best_score(codes, dict(DEFAULT_SCORES))


def _shows_eir_own(v: pooker_view.PlayerPooker) -> None:
    """Disjoint hands of eir own PCards, each scoring what the table says, summing to the
    Score shown, and something scores (the best found so far is no empty answer)."""
    cards = [c.card for h in v.hands for c in h.cards]
    assert len(cards) == len(set(cards)) and set(cards) <= {c.card for c in v.pcards}
    assert all(h.score == v.scores[h.category] for h in v.hands)
    assert sum(h.score for h in v.hands) == v.score > 0


def test_a_view_does_not_wait_for_the_exact_arrangement_says_so_and_a_later_read_shows_it(
        pg: Nomic, held: Held) -> None:
    """The exact arrangement is held back: the read answers all the same (its wait is
    bounded) with the best found so far, a valid arrangement of eir PCards said to be not
    exact; once it is found, a read shows it, exact, computed once and kept."""
    give(pg, "ann", *ANN)
    ann = seen(pg, "ann")
    assert ann.exact is False and held.made == [12]
    _shows_eir_own(ann)
    assert seen(pg, "ann").exact is False and held.made == [12]  # asked once, not again
    held.go.set()
    scoring.ARRANGER.settle()
    ann = seen(pg, "ann")
    assert ann.exact is True and ann.score == _exact_score(pg, "ann") == 80
    _shows_eir_own(ann)
    assert seen(pg, "ann") == ann and held.made == [12]  # kept


def test_a_small_hand_is_arranged_exactly_by_the_read_itself(pg: Nomic, held: Held) -> None:
    """Up to eight PCards: exact at once, by the read's own thread, not the arranging one."""
    give(pg, "ann", *ANN[:8])
    held.go.set()
    ann = seen(pg, "ann")
    assert ann.exact is True and ann.score == _exact_score(pg, "ann") == 80
    assert held.made == [8] and held.by == [threading.current_thread().name]
    give(pg, "ann", ANN[8])  # nine: the arranging thread's
    seen(pg, "ann")
    scoring.ARRANGER.settle()
    assert held.made == [8, 9] and held.by[1] == "pooker-arranger"


def test_players_trading_back_and_forth_wait_for_their_latest_hands_and_a_bystander_does_not(
        pg: Nomic, held: Held) -> None:
    """ann and ben trade a card each time and read their views after each trade while the
    arranging thread is held on ann's first new Hand: each read answers, not exact; cat, whose
    Hand does not change, reads eir kept exact arrangement each time, never computed again.
    Let go, the thread arranges only each trader's latest Hand, the ones their views then
    show exactly."""
    from nomic_cards.cardgames.pooker import rules as pooker

    give(pg, "ann", *ANN)
    give(pg, "ben", *BEN)
    give(pg, "cat", "Blue Ad", "Blue Kd", "Blue Qd", "Blue Jd", "Blue 10d", "Blue 2h",
         "Blue 3h", "Blue 4h", "Blue 6c", "Blue 7c")
    fund(pg, "ann", "ben", n=100)
    held.go.set()
    seen(pg, "cat")
    scoring.ARRANGER.settle()
    cat = seen(pg, "cat")
    assert cat.exact is True and cat.score == _exact_score(pg, "cat") == 80
    assert held.made == [10]
    held.go.clear()
    for mine, theirs in zip(ANN[:5], BEN[:5], strict=True):  # a new Hand each time
        with pg.write() as tx:
            pooker.trade(tx, "ann", [mine], [theirs], "ben")
            pooker.trade(tx, "ben", [theirs], [mine], "ann")
        for who in ("ann", "ben"):
            v = seen(pg, who)
            assert v.exact is False
            _shows_eir_own(v)
        held.called(2)  # the thread is on ann's first new Hand (the first asked)
        assert seen(pg, "cat") == cat
    assert held.made == [10, 12]  # cat's; ann's first new Hand, still under way
    held.go.set()
    scoring.ARRANGER.settle()
    assert held.made == [10, 12, 12, 12]  # then ann's latest and ben's, no other
    for who in ("ann", "ben"):
        v = seen(pg, who)
        assert v.exact is True and v.score == _exact_score(pg, who)
    assert seen(pg, "cat") == cat and len(held.made) == 4


def test_the_arranging_thread_holds_each_player_to_eir_share_and_serves_others_first() -> None:
    """The budget alone, on a clock of its own: every exact arrangement takes 1 s; ann and ben
    ask for a new Hand every 0.1 s for a minute, cat once, at 30 s. ann and ben each get
    their burst and their share of the minute, no more (but the one arrangement begun in
    credit); cat's is the next one made after the one under way."""
    now = [0.0]

    def exact(key: scoring.Key) -> Any:
        now[0] += 1.0
        return scoring.quick(key[0], dict(key[1]))

    arranger = scoring.Arranger(rate=0.1, burst=2.0, clock=lambda: now[0], exact=exact,
                                thread=False)
    table = tuple(sorted(DEFAULT_SCORES.items()))
    rng = random.Random(7)
    asked_cat = served_cat = None
    while now[0] < 60:
        for who in ("ann", "ben"):
            arranger.ask(who, (tuple(sorted(rng.sample(range(52), 20))), table), wait=0)
        if asked_cat is None and now[0] >= 30:
            asked_cat = now[0]
            arranger.ask("cat", (tuple(range(20)), table), wait=0)
        ran = arranger.step()
        if ran == "cat":
            served_cat = now[0]
        if ran is None:
            now[0] += 0.1
    for who in ("ann", "ben"):
        assert 2.0 + 0.1 * 60 - 1.0 <= arranger.spent[who] <= 2.0 + 0.1 * 60 + 1.0, \
            arranger.spent
    assert asked_cat is not None and served_cat is not None
    assert served_cat - asked_cat <= 2.0  # at most the one under way, then cat's
    assert arranger.spent["cat"] == 1.0
