"""Evaluation: :data:`evaluate` (one hand, any size >= 5) and :func:`evaluate_batch` (numpy).

A hand of ``N >= 5`` cards is worth its best five cards. Wild cards follow the paper's rule: a
wild card may be any card not already in the hand, or a card of no particular suit when that
makes five of a kind. Jokers (code 52 and up) are always wild; the game may declare any other
faces wild too. Using a wild card is never worse than using a natural one (it could stand for
that card), so a best five uses ``min(w, 5)`` wild cards.

Single hands are evaluated in pure Python over the shipped tables
(:mod:`nomic_cards.poker.shipped`): one dict lookup per card (per two cards on the unrolled path)
yields a number whose high part is the key of the naturals' rank multiset
(:mod:`nomic_cards.poker.layout`) and whose low 16 bits count the cards of each suit (4 bits a
suit, starting at 3, so bit 3 of a suit is set exactly when the suit and the wild cards reach
five). One dict lookup gives the best non-flush value; only hands with five cards of a suit look
further, at the flush table. Hands of 5, 6 or 7 cards of the default game (high, no wild set)
take an unrolled path inside :func:`pure_evaluate`; everything else goes through an
:class:`Evaluator`. Sizes the tables do not cover (more than 7 cards; deuce-to-seven beyond 5
cards) are evaluated as the best 5-card sub-hand. :data:`evaluate` is the compiled accelerator
(:mod:`nomic_cards.poker.accel`) when it is built, else :func:`pure_evaluate`. Batches go through
:mod:`nomic_cards.poker.batch` (numpy, imported on first use).
"""

from __future__ import annotations

from itertools import combinations

from nomic_cards.errors import InputError
from nomic_cards.poker.accel import setup
from nomic_cards.poker.classes import GAMES
from nomic_cards.poker.layout import DIGIT, KEY_BITS, WILD_SHIFT
from nomic_cards.poker.shipped import game_tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    import numpy as np
    from numpy.typing import NDArray

    from nomic_cards.cards import Card
    from nomic_cards.poker.accel import Evaluate
    from nomic_cards.poker.classes import HandValue
    from nomic_cards.poker.codes import WildSet

    WildArg = WildSet | str | Iterable[str | int | Card] | None

JOKER = 52
SUIT_START = 0x3333  # every suit count starts at 3 ...
SUITED = 0x8888  # ... so bit 3 of a suit is set when it (with the wild cards) reaches 5
WILD_KEY = (1 << (16 + WILD_SHIFT)) | 0x1111  # a wild card: counts for every suit
JOKERS = 16 + WILD_SHIFT  # the number of wild cards, from this bit of the sum
FLUSH_ROW = 8192


def _natural_key(c: int) -> int:
    return (DIGIT[c % 13] << 16) | (1 << (4 * (c // 13)))


class Evaluator:
    """Single-hand evaluation for one game and one set of wild faces (pure Python).

    :attr:`call` takes a list of codes 0...63 and returns the value; anything else raises
    ``KeyError`` or ``TypeError`` (:func:`evaluate` parses its input first in that case). Cards
    are looked up in dicts, not lists, so that a negative code is an error, not a card counted
    from the end.
    """

    def __init__(self, game: str, wild: WildSet | None = None) -> None:
        if game not in GAMES:
            raise InputError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
        self.game = game
        self.wild = wild
        faces = wild.cards if wild is not None else frozenset()
        self.tables = gt = game_tables(game)
        self.flush_best = game != "27"
        self.is_wild = [c >= JOKER or c in faces for c in range(64)]
        self.key = {c: WILD_KEY if self.is_wild[c] else _natural_key(c) for c in range(64)}
        self.bits = [0 if self.is_wild[c] else 1 << (c % 13) for c in range(64)]
        self.suit = [-1 if self.is_wild[c] else c // 13 for c in range(64)]
        flk = gt.array("flk")
        self.flk = ([flk[k * FLUSH_ROW:(k + 1) * FLUSH_ROW] for k in range(6)]
                    if len(flk) and self.flush_best else None)
        fl5 = gt.array("fl5")
        self.fl5 = fl5 if len(fl5) and not self.flush_best else None
        self.call: Callable[[Sequence[int]], HandValue | None] = self._compile()

    def __call__(self, codes: Sequence[int]) -> HandValue | None:
        return self.call(codes)

    def _compile(self) -> Callable[[Sequence[int]], HandValue | None]:
        """The hot path: 5 and 7 cards unrolled over local lookups, anything else delegated."""
        key = self.key
        key0 = {c: k + SUIT_START for c, k in key.items()}
        bt = self.bits
        gt = self.tables
        get, value = gt.get, gt.value
        d5, d7 = gt.table(5), gt.table(7)
        flk, fl5, other, flush7 = self.flk, self.fl5, self._other, self._flush
        seven = self.flush_best

        def call(codes: Sequence[int]) -> HandValue | None:
            n = len(codes)
            if n == 5:
                a, b, c, d, e = codes
                k = key0[a] + key[b] + key[c] + key[d] + key[e]
                try:
                    hv = d5[k >> 16]
                except KeyError:
                    hv = get(5, k >> 16)
                if k & SUITED:  # the naturals share one suit (or there are none)
                    bits = bt[a] | bt[b] | bt[c] | bt[d] | bt[e]
                    if flk is not None:
                        f = flk[5 - (k >> (16 + WILD_SHIFT))][bits]
                        if hv is None or f > hv.v:
                            hv = value(f)
                    elif fl5 is not None and k >> (16 + WILD_SHIFT) == 0 and fl5[bits] >= 0:
                        hv = value(fl5[bits])  # deuce-to-seven: a natural flush counts against
                return hv
            if n == 7 and seven:
                a, b, c, d, e, f, g = codes
                k = key0[a] + key[b] + key[c] + key[d] + key[e] + key[f] + key[g]
                try:
                    hv = d7[k >> 16]
                except KeyError:
                    hv = get(7, k >> 16)
                if k & SUITED and flk is not None:
                    return flush7(codes, k, hv)
                return hv
            return other(codes)

        return call

    def _flush(self, codes: Sequence[int], k: int, hv: HandValue | None) -> HandValue | None:
        """``hv`` or the best flush, whichever is better (high games with a suit reaching 5)."""
        assert self.flk is not None
        per = [0, 0, 0, 0]
        suit, bt = self.suit, self.bits
        for c in codes:
            s = suit[c]
            if s >= 0:
                per[s] |= bt[c]
        row = self.flk[5 - min(k >> (16 + WILD_SHIFT), 5)]
        f = max(row[per[0]], row[per[1]], row[per[2]], row[per[3]])
        if hv is None or f > hv.v:
            return self.tables.value(f)
        return hv

    def _other(self, codes: Sequence[int]) -> HandValue | None:
        n = len(codes)
        if n < 5:
            raise InputError(f"a poker hand needs at least 5 cards, got {n}")
        if n <= 7 and self.flush_best:
            return self.small(codes)
        if self.flush_best:
            return self.tables.value(self.v_general(codes))
        best: HandValue | None = None
        for sub in combinations(codes, 5):
            hv = self.call(sub)
            if best is None or (hv is not None and hv.v > best.v):
                best = hv
        return best

    def natural_key(self, codes: Sequence[int]) -> int:
        """The table key of a hand (naturals, and wild cards from bit 42)."""
        k = 0
        key = self.key
        for c in codes:
            k += key[c]
        return k >> 16

    def small(self, codes: Sequence[int]) -> HandValue | None:
        """5 to 7 cards through the tables, in a loop."""
        k = SUIT_START
        key = self.key
        for c in codes:
            k += key[c]
        hv = self.tables.get(len(codes), k >> 16)
        if k & SUITED and self.flk is not None:
            return self._flush(codes, k, hv)
        return hv

    def v_general(self, codes: Sequence[int]) -> int:
        """Any size: best k-submultiset of the naturals' ranks, completed with the wild cards."""
        is_wild = self.is_wild
        w = sum(1 for c in codes if is_wild[c])
        k = 5 - min(w, 5)
        tc = [0] * 13
        for c in codes:
            if not is_wild[c]:
                tc[c % 13] += 1
        caps = [min(x, k) for x in tc]
        get = self.tables.get
        best = -1
        base = (5 - k) << WILD_SHIFT
        for key in _sub_keys(caps, k):
            hv = get(5, key | base)
            if hv is not None and hv.v > best:
                best = hv.v
        if self.flk is not None:
            per = [0, 0, 0, 0]
            for c in codes:
                if not is_wild[c]:
                    per[c // 13] |= self.bits[c]
            row = self.flk[k]
            best = max(best, *(row[p] for p in per))
        return best


def _sub_keys(caps: list[int], k: int) -> Iterable[int]:
    """Keys of every multiset of size ``k`` with at most ``caps[r]`` of rank r."""
    def rec(r: int, left: int, key: int) -> Iterable[int]:
        if left == 0:
            yield key
            return
        if r == 13:
            return
        for take in range(min(caps[r], left), -1, -1):
            yield from rec(r + 1, left - take, key + take * DIGIT[r])
    return rec(0, k, 0)


_NAMED: dict[tuple[str, Any], Evaluator] = {}
_BY_SET: dict[tuple[str, Any], Evaluator] = {}


def evaluator(game: str = "high", wild: WildArg = None) -> Evaluator:
    """The cached :class:`Evaluator` of a game and wild set."""
    named = wild is None or type(wild) is str
    if named:
        ev = _NAMED.get((game, wild))
        if ev is not None:
            return ev
    from nomic_cards.poker.codes import wild_set

    ws = wild_set(wild)
    ev = _BY_SET.get((game, ws))
    if ev is None:
        ev = _BY_SET[(game, ws)] = Evaluator(game, ws)
    if named and len(_NAMED) < 256:
        _NAMED[(game, wild)] = ev
    return ev


# -- the default game's unrolled path ----------------------------------------------------------

_HIGH = game_tables("high")
# The dicts of hands of natural cards (and of jokers, for the pieces such hands asked for).
_D5, _D6, _D7 = (_HIGH.table(n, fast=True) for n in (5, 6, 7))
# Codes 0...63 (52 and up are jokers), in dicts so that a negative code is a KeyError (a list
# would count it from the end). Two cards in one lookup, ``_P[a][b] = _K[a] + _K[b]``, cost two
# subscripts but save an addition of large ints; the ``0`` tables also start the suit counts.
_K = {_c: WILD_KEY if _c >= JOKER else _natural_key(_c) for _c in range(64)}
_K0 = {_c: _k + SUIT_START for _c, _k in _K.items()}
_P = {_a: {_b: _K[_a] + _K[_b] for _b in range(64)} for _a in range(64)}
_P0 = {_a: {_b: _k + SUIT_START for _b, _k in _row.items()} for _a, _row in _P.items()}
# Past the dict lookups and the joker test, the codes are natural cards, so lists: rank bits,
# and rank bits of one suit keyed by the suit's "reached five" bit.
_B = [1 << (_c % 13) for _c in range(JOKER)]
_SUIT_ROW = {8 << (4 * _s): [_b if _c // 13 == _s else 0 for _c, _b in enumerate(_B)]
             for _s in range(4)}
_FLK5 = _HIGH.array("flk")[5 * FLUSH_ROW:6 * FLUSH_ROW]
_VALUE = _HIGH.value
_NAMED[("high", None)] = Evaluator("high")
_JOKERS = _NAMED[("high", None)].call  # five of a suit with jokers: the general path
assert KEY_BITS + 16 + 3 < 62


def pure_evaluate(cards: Any, wild: WildArg = None, game: str = "high") -> HandValue | None:
    """Value of the best five of ``cards`` (5 or more) in a game.

    ``cards``: text (``'As Ks Qs Js Th'``), or a list of codes, strings or
    :class:`~nomic_cards.cards.Card`. ``wild``: ``None``, a preset (``'deuces'``), text or cards.
    ``game``: ``high`` (default), ``a5``, ``27`` or ``low8`` (the 8-or-better low of high/low
    split games; ``None`` when the hand has no qualifying low).
    """
    if wild is None and game == "high":
        try:
            n = len(cards)
            if n == 7:
                a, b, c, d, e, f, g = cards
                k = _P[a][b] + _P[c][d] + _P[e][f] + _K0[g]
                hv = _D7[k >> 16]
                if k & SUITED:  # five or more of one suit: the flush, unless hv is better
                    if k >> JOKERS:
                        return _JOKERS(cards)
                    row = _SUIT_ROW[k & SUITED]
                    x = _FLK5[row[a] | row[b] | row[c] | row[d] | row[e] | row[f] | row[g]]
                    if hv is None or x > hv.v:
                        return _VALUE(x)
                return hv
            if n == 5:
                a, b, c, d, e = cards
                k = _P[a][b] + _P[c][d] + _K0[e]
                hv = _D5[k >> 16]
                if k & SUITED:  # one suit: a flush unless a rank repeats
                    if k >> JOKERS:
                        return _JOKERS(cards)
                    x = _FLK5[_B[a] | _B[b] | _B[c] | _B[d] | _B[e]]
                    if x >= 0:
                        return _VALUE(x)
                return hv
            if n == 6:
                a, b, c, d, e, f = cards
                k = _P0[a][b] + _P[c][d] + _P[e][f]
                hv = _D6[k >> 16]
                if k & SUITED:
                    if k >> JOKERS:
                        return _JOKERS(cards)
                    row = _SUIT_ROW[k & SUITED]
                    x = _FLK5[row[a] | row[b] | row[c] | row[d] | row[e] | row[f]]
                    if hv is None or x > hv.v:
                        return _VALUE(x)
                return hv
        except (KeyError, TypeError):
            pass  # a table piece not loaded yet, other sizes, or not a list of codes
    return _evaluate(cards, wild, game)


def _evaluate(cards: Any, wild: WildArg, game: str) -> HandValue | None:
    """:func:`pure_evaluate` past its unrolled path."""
    ev = evaluator(game, wild)
    if type(cards) is list or type(cards) is tuple:
        try:
            hv = ev.call(cards)
        except (KeyError, TypeError):
            pass
        else:
            if ev is _NAMED[("high", None)] and 5 <= len(cards) <= 7:
                _HIGH.load(len(cards), ev.natural_key(cards), fast=True)  # for the next time
            return hv
    from nomic_cards.poker.codes import parse_cards

    codes = parse_cards(cards)
    return ev.call([min(c, 63) for c in codes])


#: The public call: the compiled accelerator (:mod:`nomic_cards.poker.accel`) when it is built,
#: else :func:`pure_evaluate`; the two give the same results.
evaluate: Evaluate = setup(pure_evaluate, _HIGH) or pure_evaluate


# -- batches -----------------------------------------------------------------------------------


def evaluate_batch(hands: Any, *, wild: WildArg = None, game: str = "high") -> NDArray[np.int16]:
    """Values of many hands at once: an ``(n, N)`` array of codes (or rows of cards) in, an
    ``int16`` array of ``v`` out (-1 where a ``low8`` hand has no qualifying low).

    5, 6 and 7 cards go through table lookups, a block of rows at a time; more cards (and
    deuce-to-seven beyond five) take the best of every 5-card sub-hand.
    """
    from nomic_cards.poker import batch

    return batch.evaluate_batch(hands, wild=wild, game=game)


def evaluate_columns(cols: list[NDArray[Any]], *, wild: WildArg = None,
                     game: str = "high") -> NDArray[np.int16]:
    """:func:`evaluate_batch` for hands given column by column (``cols[i]`` holds every hand's
    i-th card as codes 0...255, 5 to 7 columns); skips the input checks."""
    from nomic_cards.poker import batch

    return batch.evaluate_columns(cols, wild=wild, game=game)
