"""The Ness Enumeration NE: sorted 5-card hands <-> 0...2598959.

The paper orders hands lexicographically by their sorted codes: the ``Comb(51,4)`` hands whose
lowest card is 0 come first, then the ``Comb(50,4)`` whose lowest card is 1, and so on, the same
way recursively for the later cards, so ``(47,48,49,50,51)`` is 2598959. Counting the hands that
come *after* a hand gives the closed form used here:

    NE(c0 < c1 < c2 < c3 < c4) = C(52,5) - 1 - sum_i C(51 - c_i, 5 - i)

(the sum is the colex rank of the complemented codes ``51 - c_i``). Unranking inverts that sum
greedily. Scalar and numpy-vectorised versions of both directions live here.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import comb

from nomic_cards.cards import Card
from nomic_cards.errors import InputError
from nomic_cards.poker.codes import FACES, parse_cards

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


HANDS = comb(FACES, 5)  # 2598960
_C = [[comb(n, k) for k in range(6)] for n in range(FACES + 1)]


def ne_rank(cards: str | Iterable[str | int | Card]) -> int:
    """NE of a hand of five different cards (any order; no jokers)."""
    codes = parse_cards(cards)
    if len(codes) != 5:
        raise InputError(f"NE numbers 5-card hands; got {len(codes)} cards")
    if any(c >= FACES for c in codes):
        raise InputError("NE numbers hands from one 52-card pack; a joker has no NE")
    if len(set(codes)) != 5:
        raise InputError("NE numbers hands of five different cards; this hand repeats a card")
    s = sorted(codes)
    return HANDS - 1 - sum(_C[FACES - 1 - c][5 - i] for i, c in enumerate(s))


def ne_unrank(n: int) -> list[int]:
    """The sorted hand (Ness codes, ascending) whose NE is ``n``."""
    if not 0 <= n < HANDS:
        raise InputError(f"NE must be 0...{HANDS - 1}, not {n}")
    r = HANDS - 1 - n
    d: list[int] = []
    top = FACES
    for j in range(5, 0, -1):
        x = top - 1
        while _C[x][j] > r:
            x -= 1
        d.append(x)
        r -= _C[x][j]
        top = x
    return [FACES - 1 - x for x in d]


def _binom_table() -> NDArray[np.int64]:
    import numpy as np

    return np.array(_C, dtype=np.int64)  # [n][k]


def ne_rank_batch(hands: NDArray[np.integer]) -> NDArray[np.int64]:
    """NE of each row of an ``(n, 5)`` array of different codes 0...51 (rows in any order)."""
    import numpy as np

    h = np.sort(np.asarray(hands), axis=1).astype(np.int64)
    if h.ndim != 2 or h.shape[1] != 5:
        raise InputError("ne_rank_batch needs an (n, 5) array of card codes")
    if h.size and (h.min() < 0 or h.max() >= FACES):
        raise InputError("ne_rank_batch needs codes 0...51")
    if h.size and (np.diff(h, axis=1) == 0).any():
        raise InputError("ne_rank_batch needs five different cards in every row")
    b = _binom_table()
    total = np.zeros(h.shape[0], dtype=np.int64)
    for i in range(5):
        total += b[FACES - 1 - h[:, i], 5 - i]
    return HANDS - 1 - total


def ne_unrank_batch(ns: NDArray[np.integer]) -> NDArray[np.int64]:
    """Sorted hands (an ``(n, 5)`` array of codes) for an array of NE numbers."""
    import numpy as np

    r = HANDS - 1 - np.asarray(ns, dtype=np.int64)
    if r.size and (r.min() < 0 or r.max() >= HANDS):
        raise InputError(f"NE must be 0...{HANDS - 1}")
    b = _binom_table()
    out = np.empty((r.shape[0], 5), dtype=np.int64)
    for pos, j in enumerate(range(5, 0, -1)):
        col = b[:, j]  # nondecreasing in n
        x = np.searchsorted(col, r, side="right") - 1
        out[:, pos] = FACES - 1 - x
        r = r - col[x]
    return out
