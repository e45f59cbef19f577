"""Independent references for Pooker's Poker Hands: the rules of docs/poker.md written out as
predicates, and a brute-force optimum over every way of splitting a few cards into hands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

NAMES = ("five-of-a-kind", "royal-flush", "straight-flush", "four-of-a-kind", "full-house",
         "flush", "straight", "three-of-a-kind", "two-pair", "one-pair", "high-card")


def _is_run(ranks: Sequence[int]) -> bool:
    # ranks 0 = deuce ... 12 = ace; the ace may also stand below the deuce
    if len(ranks) != 5 or len(set(ranks)) != 5:
        return False
    lows = sorted(-1 if r == 12 else r for r in ranks)
    highs = sorted(ranks)
    return highs[4] - highs[0] == 4 or lows[4] - lows[0] == 4


def statements(hand: Sequence[int]) -> list[str]:
    """Every category whose statement applies to the hand, in rule 397's order."""
    ranks = [c % 13 for c in hand]
    suits = {c // 13 for c in hand}
    counts = sorted(Counter(ranks).values(), reverse=True)
    five = len(hand) == 5
    out = []
    if five and counts[0] == 5:
        out.append("five-of-a-kind")
    if five and len(suits) == 1 and sorted(ranks) == [8, 9, 10, 11, 12]:
        out.append("royal-flush")
    if five and len(suits) == 1 and _is_run(ranks):
        out.append("straight-flush")
    if counts[0] >= 4:
        out.append("four-of-a-kind")
    if five and counts[:2] == [3, 2]:
        out.append("full-house")
    if five and len(suits) == 1:
        out.append("flush")
    if _is_run(ranks):
        out.append("straight")
    if counts[0] >= 3:
        out.append("three-of-a-kind")
    if len(counts) > 1 and counts[0] >= 2 and counts[1] >= 2:
        out.append("two-pair")
    if counts[0] >= 2:
        out.append("one-pair")
    out.append("high-card")
    return out


def category(hand: Sequence[int]) -> str:
    return statements(hand)[0]


def brute_force(cards: Sequence[int], table: dict[str, int]) -> tuple[int, int]:
    """(best total Score, fewest cards shown for it) over every split of some of the cards into
    hands of 1 to 5 cards."""
    n = len(cards)
    best: list[tuple[int, int]] = [(0, 0)]

    def go(i: int, hands: list[list[int]]) -> None:
        if i == n:
            score = sum(table[category([cards[j] for j in h])] for h in hands)
            shown = sum(len(h) for h in hands)
            if (score, -shown) > (best[0][0], -best[0][1]):
                best[0] = (score, shown)
            return
        go(i + 1, hands)  # card i unshown
        for h in hands:
            if len(h) < 5:
                h.append(i)
                go(i + 1, hands)
                h.pop()
        hands.append([i])
        go(i + 1, hands)
        hands.pop()

    go(0, [])
    return best[0]
