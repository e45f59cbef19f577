"""Drawing one way to deal, uniformly at random, and showing it as steps on real cards.

A *way* is a derivation tree (:mod:`nomic_cards.deals.ways`); a(n) counts exactly these trees.
:func:`sample` draws one tree uniformly among the a(n), top-down with exact integer weights
taken from the truncated series of every sub-deal (so every choice is weighted by the number of
ways it leaves), using an injected random source (``random.Random(seed)`` by default; anything
with ``randrange(n)``). It then flattens the tree into :class:`Step` values — the cards of each
dealt number, in order, with the choices on the path to it — and deals an actual list of cards
from the top.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Protocol

from flint import fmpz_poly

from nomic_cards.deals import budget, polys
from nomic_cards.deals.budget import MAX_HELD_BITS
from nomic_cards.deals.errors import NoWayToDeal, ResultTooLarge
from nomic_cards.deals.parser import parse
from nomic_cards.deals.polys import ONE
from nomic_cards.deals.series import SeriesEvaluator
from nomic_cards.deals.syntax import (
    Alternative,
    Chain,
    Deal,
    Dots,
    Group,
    Item,
    Node,
    Number,
    Options,
    Repeat,
    decimal,
    quote,
    short,
)
from nomic_cards.deals.ways import (
    ChainWay,
    Choice,
    Leaf,
    OptionWay,
    PersonWay,
    RoundsWay,
    Sample,
    Step,
    Way,
    steps_of,
)
from nomic_cards.errors import InputError

__all__ = [
    "MAX_STEPS",
    "ChainWay",
    "Choice",
    "Leaf",
    "OptionWay",
    "PersonWay",
    "RandomSource",
    "RoundsWay",
    "Sample",
    "Step",
    "Way",
    "sample",
    "steps_of",
]

#: A sampled way with more dealt numbers (or rounds) than this is refused.
MAX_STEPS = 100_000


class RandomSource(Protocol):
    def randrange(self, stop: int, /) -> int: ...


class _Sampler:
    """Draws ways top-down. Every series is kept as a list of Python ints (length n + 1) with
    the indices of its non-zero terms, and each choice scans its candidates lazily against one
    ``randrange`` of the known total, so a step costs little more than the choice it makes."""

    def __init__(self, deal: Deal, n: int, rng: RandomSource, max_steps: int) -> None:
        self.deal = deal
        self.n = n
        self.rng = rng
        self.max_steps = max_steps
        self.ev = SeriesEvaluator(deal, n + 1)
        self.steps = 0
        self.list_bits = 0
        self._lists: dict[int, tuple[object, list[int], list[int]]] = {}
        self._suffix: dict[int, tuple[Chain, list[fmpz_poly]]] = {}
        self._powers: dict[tuple[int, int], fmpz_poly] = {}
        self._stars: dict[int, fmpz_poly] = {}
        # stable key objects for derived series, so the int-list cache (keyed by id) hits
        self._keys: dict[tuple[int, int], tuple[object, ...]] = {}

    def _ints(self, key: object, series: fmpz_poly) -> tuple[list[int], list[int]]:
        """``series`` as ints padded to n + 1, and its non-zero indices (cached on ``key``)."""
        hit = self._lists.get(id(key))
        if hit is None or hit[0] is not key:
            # a list slot per term, and a Python int object per non-zero term
            self.list_bits += budget.series_bits(series) + 320 * (self.n + 1)
            if self.list_bits > MAX_HELD_BITS:
                detail = budget.over(self.list_bits, MAX_HELD_BITS)
                raise ResultTooLarge(
                    f"drawing a way to deal {self.n} cards with {quote(self.deal.text)} would need "
                    f"too much memory ({detail})", detail)
            values = [int(c) for c in series.coeffs()[: self.n + 1]]
            values += [0] * (self.n + 1 - len(values))
            hit = (key, values, [i for i, v in enumerate(values) if v])
            self._lists[id(key)] = hit
        return hit[1], hit[2]

    def _metered(self, node: Node, make: Callable[[], fmpz_poly]) -> fmpz_poly:
        """``make()``, refused over the budgets with the blame on ``node``."""
        try:
            return make()
        except ResultTooLarge as err:
            raise self.ev.too_large(node, err.detail) from None

    def _checked(self, node: Node, make: Callable[[], fmpz_poly]) -> fmpz_poly:
        """``make()``, a series kept for the draw (counted in what the evaluator holds)."""
        value = self._metered(node, make)
        self.ev.hold(node, value)
        return value

    def _node(self, node: Node) -> tuple[list[int], list[int]]:
        return self._ints(node, self.ev.of(node))

    def _choose(self, total: int, candidates: Iterable[int], weight: Callable[[int], int]) -> int:
        """A candidate drawn with probability weight/total (the weights sum to ``total``)."""
        r = self.rng.randrange(total)
        for c in candidates:
            w = weight(c)
            if r < w:
                return c
            r -= w
        raise AssertionError("weights do not add up to the total")  # pragma: no cover

    def _count(self, k: int) -> None:
        self.steps += k
        if self.steps > self.max_steps:
            raise InputError(
                f"this way to deal has more than {self.max_steps} steps, too many to draw"
            )

    def draw(self, node: Node, m: int) -> Way:
        if isinstance(node, Number):
            self._count(1)
            return Leaf(node.pos, node.value)
        if isinstance(node, Dots):
            self._count(m)
            return RoundsWay(node.pos, (Leaf(node.pos, 1),) * m)
        if isinstance(node, Group):
            return self.draw(node.body, m)
        if isinstance(node, Options):
            alts = node.alternatives
            if len(alts) == 1:
                return self.draw(alts[0], m)
            i = self._choose(self._node(node)[0][m], range(len(alts)),
                             lambda i: self._node(alts[i])[0][m])
            return OptionWay(node.pos, i + 1, len(alts), self.draw(alts[i], m))
        if isinstance(node, Alternative):
            if node.times is None:
                return self.draw(node.chain, m)
            who = self.rng.randrange(node.times)
            return PersonWay(node.pos, who + 1, node.times, self.draw(node.chain, m))
        if isinstance(node, Chain):
            return self._chain(node, m)
        return self._repeat(node, m)

    def _split(self, total: int, left: tuple[list[int], list[int]], right: list[int],
               m: int) -> int:
        """How many of ``m`` cards go left, weighted by ways(left) * ways(right)."""
        values, support = left
        return self._choose(total, (c for c in support if c <= m),
                            lambda c: values[c] * right[m - c])

    def _chain(self, node: Chain, m: int) -> Way:
        items = node.items
        if len(items) == 1:
            return self.draw(items[0], m)
        hit = self._suffix.get(id(node))
        if hit is None or hit[0] is not node:
            suffix = [ONE] * (len(items) + 1)
            suffix[0] = self.ev.of(node)
            for j in range(len(items) - 1, 0, -1):
                suffix[j] = self._checked(
                    node, partial(self.ev.meter.mul_low, self.ev.of(items[j]), suffix[j + 1],
                                  self.n + 1))
            hit = (node, suffix)
            self._suffix[id(node)] = hit
        suffix = hit[1]
        parts = []
        for j, item in enumerate(items):
            if j == len(items) - 1:
                c = m
            else:
                total = self._suffix_ints(node, suffix, j)[m]
                rest = self._suffix_ints(node, suffix, j + 1)
                c = self._split(total, self._node(item), rest, m)
            parts.append(self.draw(item, c))
            m -= c
        return ChainWay(tuple(parts))

    def _suffix_ints(self, node: Chain, suffix: list[fmpz_poly], j: int) -> list[int]:
        """Ways for items j, j+1, ... of the chain together, as ints."""
        key = self._keys.setdefault((id(node), j), ("suffix", j, node))
        return self._ints(key, suffix[j])[0]

    def _power(self, item: Item, k: int) -> fmpz_poly:
        key = (id(item), k)
        got = self._powers.get(key)
        if got is None:
            got = self.ev.power(item, self.ev.of(item), k)
            self.ev.hold(item, got)
            self._powers[key] = got
        return got

    def _power_ints(self, item: Item, k: int) -> tuple[list[int], list[int]]:
        key = self._keys.setdefault((id(item), -1 - k), ("power", k, item))
        return self._ints(key, self._power(item, k))

    def _power_rounds(self, item: Item, k: int, m: int) -> list[Way]:
        """``k`` rounds of ``item`` dealing ``m`` cards in all, uniformly (halving k)."""
        if k == 0:
            return []
        if k == 1:
            return [self.draw(item, m)]
        k1 = k // 2
        total = self._power_ints(item, k)[0][m]
        c = self._split(total, self._power_ints(item, k1), self._power_ints(item, k - k1)[0], m)
        return self._power_rounds(item, k1, c) + self._power_rounds(item, k - k1, m - c)

    def _star(self, item: Item) -> tuple[list[int], list[int]]:
        """``1 / (1 - item)`` truncated, as ints."""
        star = self._stars.get(id(item))
        if star is None:
            x = self.ev.of(item)
            star = self._checked(
                item, partial(polys.divide_series, ONE, ONE - x, self.n + 1, self.ev.meter))
            self._stars[id(item)] = star
        key = self._keys.setdefault((id(item), 0), ("star", item))
        return self._ints(key, star)

    def _star_rounds(self, item: Item, m: int) -> list[Way]:
        """Any number of rounds of ``item`` (which deals no 0-card way) dealing ``m`` cards."""
        (x, support), (star, _) = self._node(item), self._star(item)
        rounds: list[Way] = []
        while m > 0:
            j = self._choose(star[m], (j for j in support if j <= m), partial(_times, x, star, m))
            self._count(1)
            rounds.append(self.draw(item, j))
            m -= j
        return rounds

    def _repeat(self, node: Repeat, m: int) -> Way:
        item, lo, hi = node.item, node.low, node.high
        if lo > self.max_steps:
            raise InputError(
                f"this way to deal has more than {self.max_steps} steps, too many to draw"
            )
        if hi is None:
            c = 0
            if lo:  # lo fixed rounds dealing c cards, then free rounds dealing the rest
                c = self._split(self._node(node)[0][m], self._power_ints(item, lo),
                                self._star(item)[0], m)
            self._count(lo)
            rounds = self._power_rounds(item, lo, c) + self._star_rounds(item, m - c)
            return RoundsWay(node.caret, tuple(rounds))
        r = self.rng.randrange(self._node(node)[0][m])
        x = self.ev.of(item)
        xk = self._power(item, lo)
        k = lo
        while True:
            w = int(xk[m])
            if r < w:
                break
            r -= w
            k += 1
            if k > self.max_steps:
                raise InputError(
                    f"this way to deal has more than {self.max_steps} steps, too many to draw"
                )
            xk = self._metered(item, partial(self.ev.meter.mul_low, xk, x, self.n + 1))
        self._powers[(id(item), k)] = xk
        self._count(k)
        return RoundsWay(node.caret, tuple(self._power_rounds(item, k, m)))


def _times(x: list[int], star: list[int], m: int, j: int) -> int:
    return x[j] * star[m - j]


def sample(
    expr: str | Deal,
    n: int,
    *,
    seed: int | None = None,
    rng: RandomSource | None = None,
    cards: Sequence[str] | None = None,
    max_steps: int = MAX_STEPS,
) -> Sample:
    """Draw one of the a(n) ways to deal ``n`` cards, uniformly at random.

    ``rng`` (anything with ``randrange``) wins over ``seed``; with neither, the draw is not
    reproducible. ``cards``, when given, are dealt from the top: the first ``n`` of them.
    """
    if n < 0:
        raise InputError(f"the number of cards must be 0 or more, not {decimal(n)}")
    if n >= budget.MAX_LENGTH:
        raise InputError(
            f"at most {budget.MAX_LENGTH - 1} cards can be dealt in a sample, not {short(n)}")
    deal = parse(expr)
    if cards is not None and len(cards) < n:
        raise InputError(f"cannot deal {n} cards from a list of {len(cards)}")
    source: RandomSource = rng if rng is not None else random.Random(seed)
    sampler = _Sampler(deal, n, source, max_steps)
    total = sampler.ev.coefficient(deal.root, n)
    if total == 0:
        raise NoWayToDeal(f"there is no way to deal {n} cards with {quote(deal.text)}")
    way = sampler.draw(deal.root, n)
    steps = steps_of(deal, way)
    if cards is not None:
        dealt, top = [], 0
        for st in steps:
            dealt.append(
                Step(st.cards, st.atom, st.column, st.choices,
                     tuple(cards[top : top + st.cards]))
            )
            top += st.cards
        steps = dealt
    return Sample(deal.text, n, total, way, tuple(steps), seed if rng is None else None)
