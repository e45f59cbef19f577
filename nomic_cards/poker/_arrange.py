"""The exact optimiser behind :func:`nomic_cards.poker.pookerhands.best_arrangement`.

Only *minimal* Poker Hands need be considered: every hand of a category contains a hand of the
same category that is one of five of a kind (5 cards of a rank), a royal or straight flush, four
of a kind (4 cards), a full house, a flush, a straight (5 cards each), three of a kind (3), two
pair (2 + 2), one pair (2) or high card (1 card). Replacing a hand by that part keeps the Score
and shows fewer cards, and a hand scoring 0 or less is better left out; so an optimum (highest
Score, then fewest cards) is a set of disjoint minimal hands with positive Scores.

The value of an arrangement is ``score * W - cards`` with ``W`` larger than the number of cards,
so that comparing values compares Scores first and then prefers fewer cards.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from nomic_cards.errors import InputError
from nomic_cards.poker._pookercore import STRAIGHTS, Arrangement, category_of

Counts = tuple[int, ...]


def _weight(n: int) -> int:
    return max(n, 5) + 1


def _multisets(items: Sequence[tuple[int, int]], k: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``k`` faces from ``(face, available)`` pairs, as sorted tuples."""
    if k == 0:
        yield ()
        return
    if not items:
        return
    (face, avail), rest = items[0], items[1:]
    for take in range(min(avail, k), -1, -1):
        for tail in _multisets(rest, k - take):
            yield (face,) * take + tail


def _hands_with(c: int, cnt: Counts, table: dict[str, int]) -> Iterator[tuple[int, ...]]:
    """Minimal Poker Hands with a positive Score that contain face ``c`` (and other faces
    available in ``cnt`` besides that copy of ``c``)."""
    avail = list(cnt)
    avail[c] -= 1
    r, s = c % 13, c // 13
    seen: set[tuple[int, ...]] = set()

    def emit(hand: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        key = tuple(sorted(hand))
        if key not in seen:
            seen.add(key)
            if table[category_of(key)] > 0:
                yield key

    same_rank = [(r + 13 * t, avail[r + 13 * t]) for t in range(4) if avail[r + 13 * t]]
    n_same = sum(a for _, a in same_rank)
    # groups of one rank: pair, trips, quads, five of a kind
    for k in range(1, min(4, n_same) + 1):
        for others in _multisets(same_rank, k):
            yield from emit((c, *others))
    # full houses and two pairs with another rank
    for r2 in range(13):
        if r2 == r:
            continue
        other_rank = [(r2 + 13 * t, avail[r2 + 13 * t]) for t in range(4) if avail[r2 + 13 * t]]
        n_other = sum(a for _, a in other_rank)
        if n_other < 2:
            continue
        for mine, theirs in ((1, 2), (2, 2), (1, 3)):
            if n_same < mine or n_other < theirs:
                continue
            for m in _multisets(same_rank, mine):
                for o in _multisets(other_rank, theirs):
                    yield from emit((c, *m, *o))
    # flushes (and straight flushes) in c's suit
    suit = [(s * 13 + q, avail[s * 13 + q]) for q in range(13) if avail[s * 13 + q]]
    if sum(a for _, a in suit) >= 4:
        for others in _multisets(suit, 4):
            yield from emit((c, *others))
    # straights through c's rank
    for ranks in STRAIGHTS:
        if r not in ranks:
            continue
        choices = []
        for q in ranks:
            if q == r:
                continue
            faces = [q + 13 * t for t in range(4) if avail[q + 13 * t]]
            if not faces:
                break
            choices.append(faces)
        else:
            for pick in product(*choices):
                yield from emit((c, *pick))


Memo = dict[Counts, tuple[int, tuple[int, ...] | None]]


def _search(cards: Sequence[int], table: dict[str, int], memo: Memo | None = None
            ) -> tuple[int, Memo]:
    """The best value by the memoised search; ``memo`` may be shared by searches of as many
    cards under the same table (the values depend on both)."""
    w = _weight(len(cards))
    single = table["high-card"] * w - 1 if table["high-card"] > 0 else 0
    if memo is None:
        memo = {}
    values = {name: table[name] * w for name in table}

    def best(cnt: Counts) -> int:
        hit = memo.get(cnt)
        if hit is not None:
            return hit[0]
        c = next((i for i, n in enumerate(cnt) if n), -1)
        if c < 0:
            memo[cnt] = (0, None)
            return 0
        rest = list(cnt)
        rest[c] -= 1
        top = best(tuple(rest)) + single
        choice: tuple[int, ...] | None = (c,) if single > 0 else None
        for hand in _hands_with(c, cnt, table):
            after = list(cnt)
            for f in hand:
                after[f] -= 1
            v = values[category_of(hand)] - len(hand) + best(tuple(after))
            if v > top:
                top, choice = v, hand
        memo[cnt] = (top, choice)
        return top

    start = [0] * 52
    for c in cards:
        start[c] += 1
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(cards) + 200))
    try:
        return best(tuple(start)), memo
    finally:
        sys.setrecursionlimit(limit)


def _decode(value: int, n: int) -> tuple[int, int]:
    w = _weight(n)
    score = -((-value) // w)
    return score, score * w - value


#: up to this many cards, with no suit holding more than SEARCH_SUIT_LIMIT of them, the search
#: is quicker than the integer program
SEARCH_LIMIT = 16
SEARCH_SUIT_LIMIT = 8
#: the search stands in for the integer program (three packs and more under some tables) up to
#: this many cards; beyond, it could take hours
FALLBACK_LIMIT = 24


def _use_search(cards: Sequence[int]) -> bool:
    if len(cards) > SEARCH_LIMIT:
        return False
    suits = [0] * 4
    for c in cards:
        suits[c // 13] += 1
    return max(suits) <= SEARCH_SUIT_LIMIT


def _optimum(cards: Sequence[int], table: dict[str, int]) -> tuple[int, list[tuple[int, ...]]]:
    """(best value, hands as faces)."""
    if not _use_search(cards):
        from nomic_cards.poker import _arrange_mip

        w = _weight(len(cards))
        try:
            value, hands = _arrange_mip.solve(cards, table, w)
        except _arrange_mip.Unrealizable as exc:
            why = str(exc)
        else:
            if sum(table[category_of(h)] * w - len(h) for h in hands) == value:
                return value, hands
            why = "its hands fell short of its bound"  # pragma: no cover - never seen
        if len(cards) > FALLBACK_LIMIT:
            raise InputError(f"no exact arrangement of {len(cards)} cards in reasonable time: "
                             f"the integer program could not serve ({why}) and the search is "
                             f"for {FALLBACK_LIMIT} cards at most")
    value, memo = _search(cards, table)
    cnt = [0] * 52
    for c in cards:
        cnt[c] += 1
    hands = []
    while any(cnt):
        _, choice = memo[tuple(cnt)]
        if choice is None:
            cnt[next(i for i, n in enumerate(cnt) if n)] -= 1
            continue
        hands.append(choice)
        for f in choice:
            cnt[f] -= 1
    return value, hands


def best_scores(hands: Sequence[Sequence[int]], table: dict[str, int]) -> list[int]:
    """The highest total Score of each hand; the searches of hands of one size share what
    they learn (advice asks for one hand and each possible next card)."""
    memos: dict[int, Memo] = {}
    out = []
    for cards in hands:
        if _use_search(cards):
            value, _ = _search(cards, table, memos.setdefault(len(cards), {}))
        else:
            value = _optimum(cards, table)[0]
        out.append(_decode(value, len(cards))[0])
    return out


def best_value(cards: Sequence[int], table: dict[str, int]) -> tuple[int, int]:
    """(highest total Score, fewest cards shown for it)."""
    return _decode(_optimum(cards, table)[0], len(cards))


def solve(cards: Sequence[int], table: dict[str, int]) -> Arrangement:
    value, hands = _optimum(cards, table)
    return _arrangement(cards, hands, _decode(value, len(cards))[0])


def _arrangement(cards: Sequence[int], hands_faces: Sequence[Sequence[int]],
                 score: int) -> Arrangement:
    where: dict[int, list[int]] = {}
    for i, c in enumerate(cards):
        where.setdefault(c, []).append(i)
    for idx in where.values():
        idx.reverse()
    hands = [tuple(sorted(where[f].pop() for f in hand)) for hand in hands_faces]
    return Arrangement(score, tuple(sorted(hands)))
