"""Independent references for Pooker's Poker Hands: the rules of docs/poker.md written out as
predicates, and a brute-force optimum over every way of splitting a few cards into hands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

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


def _multisets(faces: list[tuple[int, int]], k: int) -> list[tuple[int, ...]]:
    if k == 0:
        return [()]
    if not faces:
        return []
    (f, n), rest = faces[0], faces[1:]
    return [(f,) * t + tail for t in range(min(n, k), -1, -1)
            for tail in _multisets(rest, k - t)]


def explicit_hands(cards: Sequence[int]) -> list[tuple[int, ...]]:
    """Every hand of 2 to 5 cards that is one of the minimal shapes, listed face by face:
    groups of one rank, two ranks (3 + 2, 2 + 2), five cards of a suit, five consecutive ranks."""
    have = Counter(cards)
    by_rank = {q: [(f, n) for f, n in sorted(have.items()) if f % 13 == q] for q in range(13)}
    by_suit = {s: [(f, n) for f, n in sorted(have.items()) if f // 13 == s] for s in range(4)}
    out: set[tuple[int, ...]] = set()
    for q in range(13):
        for k in (2, 3, 4, 5):
            out.update(_multisets(by_rank[q], k))
        for q2 in range(13):
            if q2 != q:
                for a in _multisets(by_rank[q], 3) + _multisets(by_rank[q], 2):
                    for b in _multisets(by_rank[q2], 2):
                        out.add(tuple(sorted(a + b)))
    for s in range(4):
        out.update(_multisets(by_suit[s], 5))
    runs = [[12, 0, 1, 2, 3], *([r + i for i in range(5)] for r in range(9))]
    for run in runs:
        hands: list[tuple[int, ...]] = [()]
        for q in run:
            hands = [h + (f,) for h in hands for f, _ in by_rank[q]]
        out.update(tuple(sorted(h)) for h in hands)
    return sorted(out)


def integer_program(cards: Sequence[int], table: dict[str, int]) -> tuple[int, int]:
    """(best total Score, fewest cards shown for it) by an integer program over every hand
    listed explicitly (:func:`explicit_hands`, plus single cards): one integer variable per
    hand, one capacity row per face. Solved by HiGHS with no gap."""
    import highspy

    have = Counter(cards)
    hands = [h for h in explicit_hands(cards) + [(f,) for f in have]
             if table[category(h)] > 0]
    if not hands:
        return 0, 0
    weight = len(cards) + 6
    new_solver: Callable[[], highspy.Highs] = highspy.Highs  # its __init__ is unannotated
    h = new_solver()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)
    xs = [h.addIntegral(lb=0, ub=len(cards)) for _ in hands]
    for f, n in have.items():
        terms = [(x, hand.count(f)) for x, hand in zip(xs, hands, strict=True) if f in hand]
        if terms:
            h.addConstr(sum(c * x for x, c in terms) <= n)
    h.maximize(sum((table[category(hand)] * weight - len(hand)) * x
                   for x, hand in zip(xs, hands, strict=True)))
    value = round(h.getInfo().objective_function_value)
    score = -((-value) // weight)
    return score, score * weight - value
