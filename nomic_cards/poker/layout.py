"""The rank-multiset index that every evaluation path and the shipped tables share.

The non-flush value of a hand depends only on the multiset of its natural ranks (up to 7 cards,
any rank up to 7 times, so hands from several packs fit). Such a multiset is read from the cards
as a sum of one number per card, the *key*: base-8 counts, ranks split into three groups

* ``A`` -- ranks 2...5 (Ness denominations 0...3), bits 0...11,
* ``B`` -- ranks 6...9 (4...7), bits 12...23 (bits 24...26 stay free for a counter),
* ``C`` -- ranks 10...A (8...12), bits 27...41.

Every multiset of at most ``N`` naturals (``N`` = 5, 6, 7; wild cards fill the rest) gets a dense
*index* ``0 ... C(N+13, 13) - 1``, in the order: by the ``C`` part, then the ``B`` part, then the
``A`` part, each part ordered by size then key. With ``beta = N - |C part|``:

    index = SC[N][C part] + OB[beta][B part] + DA[A part]

``DA`` ranks the ``A`` parts by size; ``OB[beta]`` is where a ``B`` part's block starts inside a
``C`` block of budget ``beta``; ``SC[N]`` is where a ``C`` block starts. The shipped tables
(:mod:`nomic_cards.poker.shipped`) list values in this order, the batch evaluator computes the
index with three small lookups, and the single-hand evaluator loads the entries of one ``C``
and ``B`` part at a time (:func:`piece`: at most 330 entries). Everything here is pure Python
and takes about a millisecond to build.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from math import comb

MAX_NATURALS = 7
SIZES = (5, 6, 7)
A_SHIFT, B_SHIFT, COUNTER_SHIFT, C_SHIFT = 0, 12, 24, 27
A_MASK, B_MASK, C_MASK = 0xFFF, 0xFFF, 0x7FFF
KEY_BITS = 42
#: Keys of the single-hand tables count the wild cards from this bit up.
WILD_SHIFT = KEY_BITS
#: The key of one card of each denomination 0...12.
DIGIT = tuple(
    1 << (A_SHIFT + 3 * d) if d < 4 else
    1 << (B_SHIFT + 3 * (d - 4)) if d < 8 else
    1 << (C_SHIFT + 3 * (d - 8))
    for d in range(13)
)


def entries(n: int) -> int:
    """How many multisets of at most ``n`` ranks out of 13 there are: ``C(n + 13, 13)``."""
    return comb(n + 13, 13)


def key_of(ranks: list[int] | tuple[int, ...]) -> int:
    """The key of a multiset of denominations."""
    return sum(DIGIT[d] for d in ranks)


def size_of(key: int) -> int:
    """How many ranks a key counts (the sum of its base-8 digits)."""
    return sum((key >> (3 * i)) & 7 for i in range(14))


def _parts(ranks: range) -> list[tuple[int, int]]:
    """(size, key) of every multiset of at most 7 of these ranks, by size then key."""
    out = [(size, key_of(ms)) for size in range(MAX_NATURALS + 1)
           for ms in combinations_with_replacement(ranks, size)]
    return sorted(out)


@cache
def a_parts() -> tuple[tuple[int, int], ...]:
    return tuple(_parts(range(0, 4)))


@cache
def b_parts() -> tuple[tuple[int, int], ...]:
    return tuple((s, k >> B_SHIFT) for s, k in _parts(range(4, 8)))


@cache
def c_parts() -> tuple[tuple[int, int], ...]:
    return tuple((s, k >> C_SHIFT) for s, k in _parts(range(8, 13)))


def count_a(budget: int) -> int:
    """``A`` parts of size at most ``budget``."""
    return comb(budget + 4, 4)


def block_size(budget: int) -> int:
    """Entries in a ``C`` block of this budget: multisets of at most ``budget`` over 8 ranks."""
    return comb(budget + 8, 8)


@cache
def da() -> dict[int, int]:
    """``A`` part key -> its rank among the ``A`` parts (by size)."""
    return {k: i for i, (_, k) in enumerate(a_parts())}


@cache
def ob() -> tuple[dict[int, int], ...]:
    """``OB[beta]``: ``B`` part key -> start of its block inside a ``C`` block of budget
    ``beta`` (only ``B`` parts of size at most ``beta``)."""
    out = []
    for beta in range(MAX_NATURALS + 1):
        starts: dict[int, int] = {}
        at = 0
        for s, k in b_parts():
            if s <= beta:
                starts[k] = at
                at += count_a(beta - s)
        assert at == block_size(beta)
        out.append(starts)
    return tuple(out)


@cache
def sc(n: int) -> dict[int, int]:
    """``SC[n]``: ``C`` part key -> start of its block in the index of ``n``-card hands."""
    starts: dict[int, int] = {}
    at = 0
    for s, k in c_parts():
        if s <= n:
            starts[k] = at
            at += block_size(n - s)
    assert at == entries(n)
    return starts


@cache
def part_sizes() -> tuple[dict[int, int], dict[int, int]]:
    """Sizes of the ``B`` parts and of the ``C`` parts, by key."""
    return {k: s for s, k in b_parts()}, {k: s for s, k in c_parts()}


def index(key: int, n: int) -> int:
    """The dense index of a multiset (its key) among the multisets of at most ``n`` ranks."""
    a, b, c = key & A_MASK, (key >> B_SHIFT) & B_MASK, (key >> C_SHIFT) & C_MASK
    return sc(n)[c] + ob()[n - part_sizes()[1][c]][b] + da()[a]


@cache
def _a_by_budget() -> tuple[tuple[tuple[int, int], ...], ...]:
    return tuple(tuple(p for p in a_parts() if p[0] <= beta) for beta in range(MAX_NATURALS + 1))


def piece(c: int, b: int, n: int, *, wild: bool = False,
          natural: bool = False) -> tuple[int, list[int]]:
    """The entries of the index of ``n``-card hands whose ``C`` part is ``c`` and ``B`` part is
    ``b`` (consecutive: one per ``A`` part that fits): the first one's index and their keys.
    With ``wild``, each key also counts the wild cards that fill the hand (``n`` minus the
    naturals) from bit :data:`WILD_SHIFT` up; with ``natural``, only the entries of ``n``
    naturals (no wild card), still consecutive. ``KeyError`` if no multiset of at most ``n``
    ranks has these parts."""
    b_size, c_size = part_sizes()
    beta = n - c_size[c]
    room = beta - b_size[b]
    if room < 0:
        raise KeyError((c, b))
    start = sc(n)[c] + ob()[beta][b]
    base = (c << C_SHIFT) | (b << B_SHIFT)
    parts = _a_by_budget()[room]
    if natural:
        first = count_a(room - 1) if room else 0
        return start + first, [base | a for _, a in parts[first:]]
    if wild:
        return start, [base | a | ((room - sa) << WILD_SHIFT) for sa, a in parts]
    return start, [base | a for _, a in parts]


def all_keys(n: int) -> list[int]:
    """Keys of every multiset of at most ``n`` ranks, in index order."""
    out: list[int] = []
    for sc_, c in c_parts():
        for sb, b in b_parts():
            if sc_ + sb <= n:
                out.extend(piece(c, b, n)[1])
    return out
