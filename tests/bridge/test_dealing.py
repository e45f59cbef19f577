"""Dealing: exact uniform subsets, lazy seats, parallel streams independent of -j."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from nomic_cards.bridge.deal.batch import (
    HandBatch,
    LazyDeals,
    _decoder,
    below,
    choose_positions,
    deposit,
)
from nomic_cards.bridge.deal.tables import POPCOUNT
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.run.loop import RunOptions, run


@pytest.mark.parametrize(("free", "k"), [(5, 2), (15, 3), (26, 4), (14, 1), (27, 5), (40, 3),
                                         (13, 13)])
def test_rank_decoding_is_a_bijection_onto_k_subsets(free: int, k: int) -> None:
    dec = _decoder(free, k)
    assert dec.total == math.comb(free, k)
    blocks = dec.decode(np.arange(dec.total, dtype=np.int64))
    subsets = np.zeros(dec.total, dtype=np.uint64)
    for b, bits in enumerate(blocks):
        subsets |= bits.astype(np.uint64) << np.uint64(13 * b)
    expected = {sum(1 << i for i in c) for c in combinations(range(free), k)}
    assert set(subsets.tolist()) == expected and len(set(subsets.tolist())) == dec.total


def test_deposit_places_positions_on_the_cards_left() -> None:
    remaining = np.array([[0b101], [0], [0b1110], [1 << 12]], dtype=np.uint16)  # 6 cards
    pos = np.array([0b101001], dtype=np.uint64)  # positions 0, 3, 5
    got = deposit(pos, remaining)[:, 0].tolist()
    assert got == [0b1, 0, 0b100, 1 << 12]


def _complete(n: int, seed: int, order: list[int], predeal: np.ndarray | None = None
              ) -> np.ndarray:
    deals = LazyDeals(n, np.random.PCG64(seed), predeal)
    for seat in order:
        deals.ensure(seat, None)
    deals.complete(np.arange(n))
    return deals.masks.astype(np.int64)


def test_every_card_is_dealt_exactly_once() -> None:
    pre = np.zeros((4, 4), dtype=np.uint16)
    pre[2] = [1 << 12, 0b11, 0, 0]  # south: SA, H2 H3
    m = _complete(4096, 1, [3, 0], pre)
    assert (np.bitwise_or.reduce(m, axis=1) == 8191).all()
    assert (POPCOUNT[m].sum(axis=1) == 13).all() and (POPCOUNT[m].sum(axis=2) == 13).all()
    assert ((m[:, 2] & pre[2]) == pre[2]).all()


def _chi2(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(((observed - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [2, 0], [3, 1, 0]])
def test_each_card_lands_on_each_seat_uniformly(order: list[int]) -> None:
    n = 40000
    m = _complete(n, 7, order)
    # counts[seat, suit, rank]: how often the seat got the card
    counts = np.stack([((m[:, :, s:s + 1] >> np.arange(13)) & 1).sum(axis=0)
                       for s in range(4)], axis=1)
    stat = _chi2(counts.reshape(4, -1).T, np.full((52, 4), n / 4))
    assert stat < 52 * 3 + 6 * math.sqrt(52 * 3 * 2)  # df 156, about 6 sd


def _exact_hcp() -> list[float]:
    """P(hcp = h) for 13 cards from 52, by the generating function
    (1 + y)**36 * prod over the 16 honours (1 + x**value * y), coefficient of y**13."""
    ways = [[0] * 41 for _ in range(14)]  # ways[cards][points]
    ways[0][0] = 1
    for value in [4, 3, 2, 1] * 4 + [0] * 36:
        for c in range(13, 0, -1):
            for p in range(40, value - 1, -1):
                ways[c][p] += ways[c - 1][p - value]
    total = math.comb(52, 13)
    assert sum(ways[13]) == total
    return [w / total for w in ways[13]]


def test_hcp_distribution_matches_the_exact_one() -> None:
    probs = _exact_hcp()
    exact = {h: probs[h] for h in (0, 5, 10, 13, 15, 20, 25)}
    m = _complete(200000, 3, [1])
    hcp = np.array([0] * 9 + [1, 2, 3, 4])
    pts = (hcp[None, :] * ((m[:, 1, :, None] >> np.arange(13)) & 1)).sum(axis=(1, 2))
    for h, p in exact.items():
        got = float((pts == h).mean())
        assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / len(pts)), (h, got, p)


def test_choose_positions_counts_each_subset_equally() -> None:
    pos = choose_positions(below(np.random.PCG64(2), math.comb(6, 3), 40000), 6, 3)
    values, counts = np.unique(pos, return_counts=True)
    assert len(values) == 20
    assert _chi2(counts, np.full(20, 2000.0)) < 19 + 6 * math.sqrt(38)


def _run(text: str, **opts: object) -> str:
    out: list[str] = []
    run(parse_script(text), RunOptions(**opts), out.append)  # type: ignore[arg-type]
    return "".join(out).rsplit("Time needed", 1)[0]


SCRIPT = ("produce 300\ngenerate 200000\ncondition hcp(north) > 14 && spades(south) >= 5\n"
          "action printoneline(hcp(east)), average hcp(west)\n")


def test_same_seed_same_deals_any_number_of_workers() -> None:
    one = _run(SCRIPT, seed=12)
    assert one == _run(SCRIPT, seed=12)
    assert one == _run(SCRIPT, seed=12, jobs=2)
    assert one != _run(SCRIPT, seed=13)


def test_generate_limit_counts_like_dealer() -> None:
    out = _run("generate 2500\ncondition hcp(north) >= 30\naction average hcp(north)\n", seed=1)
    assert "Generated 2500 hands" in out
    out = _run("produce 7\naction printoneline\n", seed=1)
    assert out.count("\n") == 7 + 3 and "Generated 7 hands\nProduced 7 hands" in out


def test_predeal_suit_length_is_enforced() -> None:
    out = _run("produce 200\npredeal spades(north) == 1\ncondition 1\n"
               "action frequency (spades(north), 0, 13)\n", seed=5)
    assert "    1\t     200\n" in out


def test_hand_batch_evaluates_given_hands() -> None:
    from nomic_cards.bridge.deal.evaluate import Context, Evaluator

    masks = np.zeros((2, 4, 4), dtype=np.uint16)
    masks[0, 0] = [0b1111000000000, 0b1000000000000, 0, 0b11111111]  # N: AKQJ, A, -, 9..2
    masks[1, 0] = [0, 0, 0, 8191]
    cond = parse_script("condition hcp(north) >= 14 && shape(north, 4108)").condition
    ev = Evaluator()
    assert ev.truth(cond, Context(HandBatch(masks))).tolist() == [True, False]


def test_the_deals_do_not_depend_on_what_is_looked_at_first() -> None:
    """The ranks are drawn up front (docs/bridge.md), so decoding seats in any order, for any
    rows, gives the same deals as decoding them all at once."""
    pre = np.zeros((4, 4), dtype=np.uint16)
    pre[1] = [0, 1 << 12, 0, 0b111]  # east: HA, C2 C3 C4
    whole = LazyDeals(300, np.random.PCG64(5), pre, (2, 1, 3, 0))
    whole.complete(None)
    piecemeal = LazyDeals(300, np.random.PCG64(5), pre, (2, 1, 3, 0))
    piecemeal.ensure(3, np.arange(0, 300, 7))
    piecemeal.ensure(1, np.arange(5, 120))
    piecemeal.ensure(0, np.array([3, 4, 250]))
    piecemeal.complete(None)
    assert (piecemeal.masks == whole.masks).all()
    assert ((whole.masks[:, 1] & pre[1]) == pre[1]).all()
