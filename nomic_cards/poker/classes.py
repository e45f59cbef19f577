"""Hand classes: Type T, the Characteristic Vector CV, the value scales and their labels.

A *class* is a set of hands that tie. Every game ("scale") numbers its classes ``v = 0, 1, ...``
so that a higher ``v`` is a better hand in that game:

``high``
    Ness's Near Poker. ``v`` is the paper's dense V: 0...7461 in exactly the paper's per-type
    ranges, ordered by the CV (with the paper's filler rule and the 5-high-straight remap). Five
    of a kind -- which wild cards and several packs make possible -- extends the same scale
    upward: ``7462 + D`` (twos 7462 ... aces 7474). One scale for every game keeps values
    comparable across wild sets; a wild game simply never reaches some values ("holes").
``a5``
    Ace-to-five low: the ace is low, straights and flushes do not count; no pair beats one pair
    beats two pair ... beats five of a kind; within a type, lower cards win. 6188 classes, the
    wheel 5-4-3-2-A is the top value 6187.
``low8``
    The ace-to-five low that qualifies for the low half of a high/low split game: five different
    ranks, none above an eight. 56 classes (8-7-6-5-4 is 0, the wheel is 55); a hand with no
    qualifying low has no value (-1 in tables, ``None`` from :func:`evaluate`).
``27``
    Deuce-to-seven low: the ace is always high (so A-2-3-4-5 is ace high, not a straight),
    straights and flushes count against the hand. 7475 classes, 7-5-4-3-2 of mixed suits is the
    top value 7474.

Ranks inside this module are Ness denominations ``D`` 0...12 (2...A). A hand with the same rank
five times is five of a kind (type 9); a hand is a flush only if it holds five *different* ranks
of one suit (several packs can put the same card in a hand twice; a repeated card never makes a
flush, see ``docs/poker.md``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement

from nomic_cards.errors import InputError


class Type(enum.IntEnum):
    """Ness's type T of a hand."""

    NO_PAIR = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").capitalize()


GAMES = ("high", "a5", "low8", "27")

SYMBOL = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NAME = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
        "king", "ace")
PLURAL = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
          "jacks", "queens", "kings", "aces")

#: Values of the five-of-a-kind classes on the high scale start here (7462 + D).
FIVE_OF_A_KIND_BASE = 7462
#: The paper's per-type V ranges (inclusive) for the standard 52-card hands.
PAPER_RANGES: dict[Type, tuple[int, int]] = {
    Type.STRAIGHT_FLUSH: (7452, 7461),
    Type.FOUR_OF_A_KIND: (7296, 7451),
    Type.FULL_HOUSE: (7140, 7295),
    Type.FLUSH: (5863, 7139),
    Type.STRAIGHT: (5853, 5862),
    Type.THREE_OF_A_KIND: (4995, 5852),
    Type.TWO_PAIR: (4137, 4994),
    Type.ONE_PAIR: (1277, 4136),
    Type.NO_PAIR: (0, 1276),
}

_WHEEL = (12, 0, 1, 2, 3)


@dataclass(frozen=True, slots=True)
class HandValue:
    """The value of a hand in one game: ``v`` (higher wins), type ``t``, CV and a label.

    Instances are shared: every hand of a class gets the same object. ``cv`` is Ness's
    Characteristic Vector ``(T, I1, ..., I5)``; in ``a5``/``low8`` the I's are ranks counted with
    the ace low (A=0, 2=1, ..., K=12), elsewhere Ness denominations (2=0, ..., A=12).
    """

    game: str
    v: int
    t: int
    cv: tuple[int, ...]
    label: str

    @property
    def type(self) -> Type:
        return Type(self.t)

    def _other(self, other: object) -> HandValue | None:
        if not isinstance(other, HandValue):
            return None
        if other.game != self.game:
            raise TypeError(f"cannot compare a {self.game} value with a {other.game} value")
        return other

    def __lt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.v < o.v

    def __le__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.v <= o.v

    def __gt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.v > o.v

    def __ge__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.v >= o.v

    def __str__(self) -> str:
        return self.label


def counts_of(ranks: Sequence[int]) -> list[int]:
    """Ness's TypeCount of denominations: how many of each 0...12."""
    tc = [0] * 13
    for d in ranks:
        tc[d] += 1
    return tc


def _order(tc: Sequence[int]) -> tuple[int, ...]:
    """Denominations by frequency, ties and filler in descending order (the paper's rule)."""
    return tuple(sorted(range(13), key=lambda d: (-tc[d], -d))[:5])


def _straight_top(tc: Sequence[int], *, wheel: bool) -> int | None:
    """Highest denomination of a straight (3 for the wheel), or None."""
    present = [d for d in range(13) if tc[d]]
    if len(present) != 5 or max(tc) != 1:
        return None
    if present[-1] - present[0] == 4:
        return present[-1]
    if wheel and tuple(sorted(present)) == (0, 1, 2, 3, 12):
        return 3
    return None


def _pattern_type(tc: Sequence[int]) -> Type:
    shape = sorted((c for c in tc if c), reverse=True)
    return {
        (5,): Type.FIVE_OF_A_KIND,
        (4, 1): Type.FOUR_OF_A_KIND,
        (3, 2): Type.FULL_HOUSE,
        (3, 1, 1): Type.THREE_OF_A_KIND,
        (2, 2, 1): Type.TWO_PAIR,
        (2, 1, 1, 1): Type.ONE_PAIR,
        (1, 1, 1, 1, 1): Type.NO_PAIR,
    }[tuple(shape)]


def high_cv(ranks: Sequence[int], *, flush: bool = False, wheel: bool = True) -> tuple[int, ...]:
    """Ness's CV of a 5-card hand given its denominations and whether it is a flush.

    ``flush`` may only be true for five different denominations. With ``wheel=False`` (the
    deuce-to-seven reading) A-2-3-4-5 is not a straight.
    """
    if len(ranks) != 5:
        raise InputError(f"a CV needs 5 denominations, got {len(ranks)}")
    tc = counts_of(ranks)
    t = _pattern_type(tc)
    if flush and t != Type.NO_PAIR:
        raise InputError("a flush holds five different denominations")
    top = _straight_top(tc, wheel=wheel)
    digits = _order(tc)
    if top is not None:
        t = Type.STRAIGHT_FLUSH if flush else Type.STRAIGHT
        if top == 3 and 12 in digits:  # the paper's remap: 5-high, ace last
            digits = (3, 2, 1, 0, 12)
    elif flush:
        t = Type.FLUSH
    return (int(t), *digits)


def low_cv(ranks: Sequence[int]) -> tuple[int, ...]:
    """Ace-to-five CV: type by pattern only, digits are ranks with the ace low (A=0 ... K=12)."""
    low = [(d + 1) % 13 for d in ranks]
    tc = counts_of(low)
    return (int(_pattern_type(tc)), *_order(tc))


def _dash(ds: Sequence[int]) -> str:
    return "-".join(SYMBOL[d] for d in ds)


def _article(d: int) -> str:
    return ("an " if d in (6, 12) else "a ") + NAME[d]


def high_label(cv: Sequence[int]) -> str:
    """Human label of a high-game CV: ``Full house, fours over nines``."""
    t, d = Type(cv[0]), cv[1:]
    if t == Type.FIVE_OF_A_KIND:
        return f"Five of a kind, {PLURAL[d[0]]}"
    if t == Type.STRAIGHT_FLUSH:
        return "Royal flush" if d[0] == 12 else f"Straight flush, {NAME[d[0]]} high"
    if t == Type.FOUR_OF_A_KIND:
        return f"Four of a kind, {PLURAL[d[0]]} with {_article(d[1])}"
    if t == Type.FULL_HOUSE:
        return f"Full house, {PLURAL[d[0]]} over {PLURAL[d[1]]}"
    if t == Type.FLUSH:
        return f"Flush, {_dash(d)}"
    if t == Type.STRAIGHT:
        return f"Straight, {NAME[d[0]]} high"
    if t == Type.THREE_OF_A_KIND:
        return f"Three of a kind, {PLURAL[d[0]]} with {_dash(d[1:3])}"
    if t == Type.TWO_PAIR:
        return f"Two pair, {PLURAL[d[0]]} and {PLURAL[d[1]]} with {_article(d[2])}"
    if t == Type.ONE_PAIR:
        return f"One pair, {PLURAL[d[0]]} with {_dash(d[1:4])}"
    return f"No pair, {_dash(d)}"


_LOW_SYMBOL = ("A", *SYMBOL[:-1])
_LOW_PLURAL = ("aces", *PLURAL[:-1])


def a5_label(cv: Sequence[int]) -> str:
    """Label of an ace-to-five CV: ``7-5-4-3-A low``, ``One pair, threes with 7-5-A``."""
    t, d = Type(cv[0]), cv[1:]
    dash = "-".join(_LOW_SYMBOL[x] for x in d)
    if t == Type.NO_PAIR:
        return f"{dash} low" + (" (the wheel)" if tuple(d) == (4, 3, 2, 1, 0) else "")
    if t == Type.FIVE_OF_A_KIND:
        return f"Five of a kind, {_LOW_PLURAL[d[0]]}"
    kick = {Type.ONE_PAIR: 4, Type.TWO_PAIR: 3, Type.THREE_OF_A_KIND: 3,
            Type.FULL_HOUSE: 2, Type.FOUR_OF_A_KIND: 2}[t]
    lead = {Type.TWO_PAIR: f"{_LOW_PLURAL[d[0]]} and {_LOW_PLURAL[d[1]]}",
            Type.FULL_HOUSE: f"{_LOW_PLURAL[d[0]]} over {_LOW_PLURAL[d[1]]}"}.get(
        t, _LOW_PLURAL[d[0]])
    rest = "-".join(_LOW_SYMBOL[x] for x in d[1 if t not in (Type.TWO_PAIR,
                                                                Type.FULL_HOUSE) else 2:kick])
    return f"{t.title}, {lead}" + (f" with {rest}" if rest else "")


def d27_label(cv: Sequence[int]) -> str:
    """Label of a deuce-to-seven CV (ace high, no wheel): ``7-5-4-3-2 low``."""
    if cv[0] == Type.NO_PAIR:
        best = " (number one)" if tuple(cv[1:]) == (5, 3, 2, 1, 0) else ""
        return f"{_dash(cv[1:])} low{best}"
    return high_label(cv)


@dataclass(frozen=True)
class Scale:
    """All classes of one game, with the values of every natural 5-card hand.

    ``nf5`` maps the packed rank key of five denominations (``sum 8**D``) to the value as a
    non-flush hand; ``fl5`` maps a 5-bit rank set (``sum 1<<D``) to the value as a flush
    (absent for games that ignore flushes). ``flush_best`` says whether a flush is the better
    reading of suited cards (high) or the worse one (deuce-to-seven).
    """

    game: str
    values: tuple[HandValue, ...]
    nf5: dict[int, int]
    fl5: dict[int, int] | None
    flush_best: bool

    def value(self, v: int) -> HandValue | None:
        if v < 0:
            return None
        return self.values[v]


def packed_key(ranks: Sequence[int]) -> int:
    """``sum 8**D``: the rank multiset as base-8 counts (up to 7 of a rank)."""
    return sum(8 ** d for d in ranks)


def _multisets() -> list[tuple[int, ...]]:
    return list(combinations_with_replacement(range(13), 5))


def _build_high() -> Scale:
    standard: dict[tuple[int, ...], None] = {}
    rows: list[tuple[int, tuple[int, ...], bool]] = []  # (key, cv, is_flush)
    for ms in _multisets():
        cv = high_cv(ms)
        rows.append((packed_key(ms), cv, False))
        if cv[0] != Type.FIVE_OF_A_KIND:
            standard[cv] = None
    for ds in combinations(range(13), 5):
        cv = high_cv(ds, flush=True)
        rows.append((sum(1 << d for d in ds), cv, True))
        standard[cv] = None
    order = sorted(standard)
    v_of = {cv: i for i, cv in enumerate(order)}
    for d in range(13):
        five = (9, *_order(counts_of([d] * 5)))
        v_of[five] = FIVE_OF_A_KIND_BASE + d
    values = [HandValue("high", 0, 0, (), "")] * len(v_of)
    for cv, v in v_of.items():
        values[v] = HandValue("high", v, cv[0], cv, high_label(cv))
    nf5 = {k: v_of[cv] for k, cv, fl in rows if not fl}
    fl5 = {k: v_of[cv] for k, cv, fl in rows if fl}
    return Scale("high", tuple(values), nf5, fl5, True)


def _build_a5(*, qualify8: bool) -> Scale:
    cvs = {ms: low_cv(ms) for ms in _multisets()}
    if qualify8:
        ok = {ms: cv for ms, cv in cvs.items() if cv[0] == Type.NO_PAIR and cv[1] <= 7}
    else:
        ok = cvs
    order = sorted(set(ok.values()), reverse=True)  # worst low first
    v_of = {cv: i for i, cv in enumerate(order)}
    game = "low8" if qualify8 else "a5"
    values = tuple(HandValue(game, i, cv[0], cv, a5_label(cv)) for i, cv in enumerate(order))
    nf5 = {packed_key(ms): v_of.get(cv, -1) for ms, cv in cvs.items()}
    return Scale(game, values, nf5, None, True)


def _build_27() -> Scale:
    rows: list[tuple[int, tuple[int, ...], bool]] = []
    for ms in _multisets():
        rows.append((packed_key(ms), high_cv(ms, wheel=False), False))
    for ds in combinations(range(13), 5):
        rows.append((sum(1 << d for d in ds), high_cv(ds, flush=True, wheel=False), True))
    order = sorted({cv for _, cv, _ in rows}, reverse=True)  # worst (five aces) first
    v_of = {cv: i for i, cv in enumerate(order)}
    values = tuple(HandValue("27", i, cv[0], cv, d27_label(cv)) for i, cv in enumerate(order))
    nf5 = {k: v_of[cv] for k, cv, fl in rows if not fl}
    fl5 = {k: v_of[cv] for k, cv, fl in rows if fl}
    return Scale("27", values, nf5, fl5, False)


@cache
def scale(game: str) -> Scale:
    """The scale of a game: ``high``, ``a5``, ``low8`` or ``27`` (built once, cached)."""
    if game == "high":
        return _build_high()
    if game == "a5":
        return _build_a5(qualify8=False)
    if game == "low8":
        return _build_a5(qualify8=True)
    if game == "27":
        return _build_27()
    raise InputError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
