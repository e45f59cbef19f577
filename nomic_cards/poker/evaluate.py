"""Evaluation: :func:`evaluate` (one hand, any size >= 5) and :func:`evaluate_batch` (numpy).

A hand of ``N >= 5`` cards is worth its best five cards. Wild cards follow the paper's rule: a
wild card may be any card not already in the hand, or a card of no particular suit when that
makes five of a kind. Jokers (code 52 and up) are always wild; the game may declare any other
faces wild too. Using a wild card is never worse than using a natural one (it could stand for
that card), so a best five uses ``min(w, 5)`` wild cards.

Both paths read the tables of :mod:`nomic_cards.poker.tables`:

* the non-flush part from the naturals' rank multiset,
* the flush part from the ranks each suit holds,

and take the better (high games) or let a natural flush override (deuce-to-seven, where a flush
is bad and wild cards always avoid one). Sizes the tables do not cover (more than 7 cards;
deuce-to-seven beyond 5 cards) are evaluated as the best of every 5-card sub-hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import combinations
from typing import TYPE_CHECKING, Any

from nomic_cards.cards import Card
from nomic_cards.errors import InputError
from nomic_cards.poker.classes import HandValue, scale
from nomic_cards.poker.codes import JOKER, NO_WILD, WildSet, parse_cards, wild_set

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

WILD_DIGIT = 8 ** 13  # the packed key counts wild cards in base-8 digit 13

WildArg = WildSet | str | Iterable[str | int | Card] | None


def _popcount(x: int) -> int:
    return bin(x).count("1")


class Evaluator:
    """Single-hand evaluation for one game and one wild set (plain Python dicts).

    Calling it with anything but a list of codes 0...63 raises ``KeyError`` or ``TypeError``
    (the card lookups are dicts); :func:`evaluate` parses its input first in that case.
    """

    def __init__(self, game: str, wild: WildSet) -> None:
        from nomic_cards.poker.tables import tables

        self.game = game
        self.wild = wild
        t = tables(game)
        self._t = t
        self.values: tuple[HandValue | None, ...] = (*t.scale.values, None)  # [-1] -> None
        is_wild = [c >= JOKER or c in wild.cards for c in range(64)]
        self.rk = {c: WILD_DIGIT if is_wild[c] else 8 ** (c % 13) for c in range(64)}
        self.sb = {c: 0 if is_wild[c] else 1 << min(c // 13, 3) for c in range(64)}
        self.bt = {c: 0 if is_wild[c] else 1 << (c % 13) for c in range(64)}
        self.suit = {c: -1 if is_wild[c] else c // 13 for c in range(64)}
        self.flush_best = t.scale.flush_best
        self.flk = (None if t.flk is None
                    else [t.flk[k * 8192:(k + 1) * 8192].tolist() for k in range(6)])
        self.fl5 = None if t.fl5 is None else t.fl5.tolist()
        self._nf: dict[int, dict[int, int]] = {}
        self.call = self._compile()

    def _compile(self) -> Callable[[Sequence[int]], HandValue | None]:
        """The hot path: five cards unrolled over local lookups, anything else delegated.

        One lookup per card yields ``8**D + 8**(14+S)`` (``8**13`` for a wild card), so the sum
        carries the rank multiset, the wild count and the suit counts at once.
        """
        is_wild = [c >= JOKER or c in self.wild.cards for c in range(64)]
        rk = {c: WILD_DIGIT if is_wild[c] else 8 ** (c % 13) + 8 ** (14 + min(c // 13, 3))
              for c in range(64)}
        bt, values = self.bt, self.values
        nf5 = self.nf(5)
        mask = 8 ** 14 - 1
        one_suit = [sum(1 for s in range(4) if (h >> (3 * s)) & 7) <= 1 for h in range(4096)]
        flk, fl5, other = self.flk, self.fl5, self._other
        max_suit = [max((h >> (3 * s)) & 7 for s in range(4)) for h in range(4096)]
        nf7: dict[int, int] = {}
        flush7 = self._flush

        def call7(codes: Sequence[int]) -> HandValue | None:
            a, b, c, d, e, f, g = codes
            key = rk[a] + rk[b] + rk[c] + rk[d] + rk[e] + rk[f] + rk[g]
            ranks = key & mask
            if not nf7:
                nf7.update(self.nf(7))
            v = nf7[ranks]
            if flk is not None:
                w = ranks // WILD_DIGIT
                if max_suit[key >> 42] >= 5 - min(w, 5):
                    v = max(v, flush7(codes, w))
            return values[v]

        def call(codes: Sequence[int]) -> HandValue | None:
            if len(codes) != 5:
                if len(codes) == 7 and self.flush_best:
                    return call7(codes)
                return other(codes)
            a, b, c, d, e = codes
            key = rk[a] + rk[b] + rk[c] + rk[d] + rk[e]
            ranks = key & mask
            v = nf5[ranks]
            if one_suit[key >> 42]:  # the naturals share one suit (or there are none)
                bits = bt[a] | bt[b] | bt[c] | bt[d] | bt[e]
                if flk is not None:
                    f = flk[5 - ranks // WILD_DIGIT][bits]
                    if f > v:
                        v = f
                elif fl5 is not None and ranks < WILD_DIGIT and fl5[bits] >= 0:
                    v = fl5[bits]  # deuce-to-seven: a natural flush counts against the hand
            return values[v]

        return call

    def __call__(self, codes: Sequence[int]) -> HandValue | None:
        return self.call(codes)

    def _other(self, codes: Sequence[int]) -> HandValue | None:
        n = len(codes)
        if n < 5:
            raise InputError(f"a poker hand needs at least 5 cards, got {n}")
        if n <= 7 and self.flush_best:
            return self.values[self.v_small(codes)]
        if self.flush_best:
            return self.values[self.v_general(codes)]
        return self.values[max(self.v5(sub) for sub in combinations(codes, 5))]

    def v5(self, codes: Sequence[int]) -> int:
        hv = self.call(codes)
        return -1 if hv is None else hv.v

    def nf(self, n: int) -> dict[int, int]:
        """Packed key (naturals + wild count in digit 13) -> best non-flush value, ``n`` cards."""
        d = self._nf.get(n)
        if d is None:
            from nomic_cards.poker.tables import g_table, multiset_index

            ix = multiset_index()
            g = g_table(self.game, n)
            sel = ix.sizes <= n
            keys = ix.keys[sel] + WILD_DIGIT * (n - ix.sizes[sel].astype("int64"))
            d = dict(zip(keys.tolist(), g[sel].tolist(), strict=True))
            self._nf[n] = d
        return d

    def v_small(self, codes: Sequence[int]) -> int:
        """6 or 7 cards through ``G[n]``."""
        rk = self.rk
        key = 0
        for c in codes:
            key += rk[c]
        v = self.nf(len(codes))[key]
        if self.flk is not None:
            v = max(v, self._flush(codes, key // WILD_DIGIT))
        return v

    def _flush(self, codes: Sequence[int], w: int) -> int:
        assert self.flk is not None
        per = [0, 0, 0, 0]
        suit, bt = self.suit, self.bt
        for c in codes:
            s = suit[c]
            if s >= 0:
                per[s] |= bt[c]
        k = 5 - min(w, 5)
        row = self.flk[k]
        return max(row[per[0]], row[per[1]], row[per[2]], row[per[3]])

    def v_general(self, codes: Sequence[int]) -> int:
        """Any size: best k-submultiset of the naturals' ranks, completed with the wild cards."""
        w = sum(1 for c in codes if self.suit[c] < 0)
        k = 5 - min(w, 5)
        tc = [0] * 13
        for c in codes:
            if self.suit[c] >= 0:
                tc[c % 13] += 1
        caps = [min(x, k) for x in tc]
        nf = self.nf(5)
        best = -1
        base = WILD_DIGIT * (5 - k)
        for key in _sub_keys(caps, k):
            v = nf[key + base]
            if v > best:
                best = v
        if self.flk is not None:
            best = max(best, self._flush(codes, w))
        return best


def _sub_keys(caps: list[int], k: int) -> Iterable[int]:
    """Packed keys of every multiset of size ``k`` with at most ``caps[r]`` of rank r."""
    def rec(r: int, left: int, key: int) -> Iterable[int]:
        if left == 0:
            yield key
            return
        if r == 13:
            return
        for take in range(min(caps[r], left), -1, -1):
            yield from rec(r + 1, left - take, key + take * 8 ** r)
    return rec(0, k, 0)


@cache
def _evaluator(game: str, wild: WildSet) -> Evaluator:
    scale(game)  # validates the name
    return Evaluator(game, wild)


_DEFAULT: dict[str, Evaluator] = {}
_CALLS: dict[str, Callable[[Sequence[int]], HandValue | None]] = {}


def evaluator(game: str = "high", wild: WildArg = None) -> Evaluator:
    """The cached :class:`Evaluator` of a game and wild set."""
    if wild is None:
        ev = _DEFAULT.get(game)
        if ev is None:
            ev = _DEFAULT[game] = _evaluator(game, NO_WILD)
            _CALLS[game] = ev.call
        return ev
    return _evaluator(game, wild_set(wild))


def evaluate(cards: Any, *, wild: WildArg = None, game: str = "high") -> HandValue | None:
    """Value of the best five of ``cards`` (5 or more) in a game.

    ``cards``: text (``'As Ks Qs Js Th'``), or a list of codes, strings or
    :class:`~nomic_cards.cards.Card`. ``wild``: ``None``, a preset (``'deuces'``), text or cards.
    ``game``: ``high`` (default), ``a5``, ``27`` or ``low8`` (the 8-or-better low of high/low
    split games; ``None`` when the hand has no qualifying low).
    """
    if wild is None and type(cards) is list:
        call = _CALLS.get(game)
        if call is not None:
            try:
                return call(cards)
            except (KeyError, TypeError):
                pass
    ev = evaluator(game, wild)
    if type(cards) is list:
        try:
            return ev.call(cards)
        except (KeyError, TypeError):
            pass
    codes = parse_cards(cards)
    return ev.call([min(c, 63) for c in codes])


def _as_codes(hands: Any) -> NDArray[np.uint8]:
    import numpy as np

    if isinstance(hands, np.ndarray) and hands.dtype.kind in "iu":
        arr = hands
    else:
        rows = [parse_cards(r) for r in hands]
        if len({len(r) for r in rows}) > 1:
            raise InputError("evaluate_batch needs hands of one size")
        arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1 if rows else 5)
    if arr.ndim != 2:
        raise InputError("evaluate_batch needs a 2-d array: one hand of N cards per row")
    if arr.shape[1] < 5:
        raise InputError(f"a poker hand needs at least 5 cards, got {arr.shape[1]}")
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0:
            raise InputError(f"card codes must be 0 or more, not {lo}")
        if hi > 63:
            arr = np.minimum(arr, 63)
    if arr.dtype != np.uint8:
        arr = arr.astype(np.uint8)
    return arr


def evaluate_batch(hands: Any, *, wild: WildArg = None, game: str = "high") -> NDArray[np.int16]:
    """Values of many hands at once: an ``(n, N)`` array of codes (or rows of cards) in, an
    ``int16`` array of ``v`` out (-1 where a ``low8`` hand has no qualifying low).

    5, 6 and 7 cards go through table lookups; more cards (and deuce-to-seven beyond five) take
    the best of every 5-card sub-hand.
    """
    import numpy as np

    from nomic_cards.poker.tables import tables

    arr = _as_codes(hands)
    ws = wild_set(wild)
    t = tables(game)
    n_cards = arr.shape[1]
    if arr.shape[0] == 0:
        return np.zeros(0, dtype=np.int16)
    if n_cards <= 7 and (t.scale.flush_best or n_cards == 5):
        cols = [arr[:, i] for i in range(n_cards)]
        return _fast(cols, ws, game)
    best = np.full(arr.shape[0], -1, dtype=np.int16)
    for sub in combinations(range(n_cards), 5):
        best = np.maximum(best, _fast([arr[:, i] for i in sub], ws, game))
    return best


def evaluate_columns(cols: list[NDArray[Any]], *, wild: WildArg = None,
                     game: str = "high") -> NDArray[np.int16]:
    """:func:`evaluate_batch` for hands given column by column (``cols[i]`` holds every hand's
    i-th card as codes 0...63, 5 to 7 columns); skips the input checks."""
    return _fast(cols, wild_set(wild), game)


def _fast(cols: list[NDArray[Any]], ws: WildSet, game: str) -> NDArray[np.int16]:
    import numpy as np

    from nomic_cards.poker.tables import (
        LO_MASK,
        LO_RANKS,
        MAX_SUIT,
        card_lookups,
        g_table,
        multiset_index,
        tables,
    )

    t = tables(game)
    lk = card_lookups(ws)
    ix = multiset_index()
    n_cards = len(cols)
    rk = lk.rank_key
    key = rk[cols[0]]
    for c in cols[1:]:
        key += rk[c]
    out = g_table(game, n_cards)[ix.dl[key & LO_MASK] + ix.off[key >> (3 * LO_RANKS)]]
    if t.fl5 is None:
        return out
    has_wild = bool(ws.cards) or any(int(c.max()) >= JOKER for c in cols)
    if has_wild:
        iw = lk.is_wild
        w = iw[cols[0]].astype(np.int16)
        for c in cols[1:]:
            w += iw[c]
        need = 5 - np.minimum(w, 5)
    else:
        need = np.int16(5)
    sc = lk.suit_count[cols[0]]
    for c in cols[1:]:
        sc = sc + lk.suit_count[c]
    if t.flk is not None:
        cand = np.nonzero(MAX_SUIT[sc] >= need)[0]
    else:  # deuce-to-seven: only a natural 5-card flush counts (against the hand)
        cand = np.nonzero((MAX_SUIT[sc] == 5) & (need == 5))[0]
    if cand.size == 0:
        return out
    sub = [c[cand] for c in cols]
    if t.flk is not None:
        k = need[cand].astype(np.int32) if has_wild else 5
        best = np.full(cand.size, -1, dtype=np.int16)
        for s in range(4):
            sbits = lk.suit_bits[s]
            bits = sbits[sub[0]]
            for c in sub[1:]:
                bits = bits | sbits[c]
            best = np.maximum(best, t.flk[k * 8192 + bits])
        out[cand] = np.maximum(out[cand], best)
    else:
        assert t.fl5 is not None
        allbits = lk.suit_bits.sum(axis=0)
        bits = allbits[sub[0]]
        for c in sub[1:]:
            bits = bits | allbits[c]
        f = t.fl5[bits]
        out[cand] = np.where(f >= 0, f, out[cand])
    return out
