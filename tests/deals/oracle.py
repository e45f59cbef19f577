"""Brute-force oracle for the deal language: list every way to deal n cards.

Independent of the library's counting (no generating functions, no series): it walks the
syntax tree and enumerates derivation trees directly, in the same tree shape the sampler
returns, so counts, samples and the sampler's support can all be checked against it.
"""

from __future__ import annotations

from itertools import product

from nomic_cards.deals.sample import ChainWay, Leaf, OptionWay, PersonWay, RoundsWay, Way
from nomic_cards.deals.syntax import (
    Alternative,
    Chain,
    Deal,
    Dots,
    Group,
    Node,
    Number,
    Options,
)


def _compositions(n: int, parts: int):
    """All tuples of ``parts`` non-negative ints summing to ``n``."""
    if parts == 0:
        if n == 0:
            yield ()
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, parts - 1):
            yield (first, *rest)


class Oracle:
    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self.memo: dict[tuple[int, int], list[Way]] = {}

    def ways(self, node: Node, n: int) -> list[Way]:
        key = (id(node), n)
        if key not in self.memo:
            self.memo[key] = self._ways(node, n)
        return self.memo[key]

    def _rounds(self, node: Node, k: int, n: int) -> list[tuple[Way, ...]]:
        out: list[tuple[Way, ...]] = []
        for sizes in _compositions(n, k):
            out.extend(product(*(self.ways(node, s) for s in sizes)))
        return out

    def _ways(self, node: Node, n: int) -> list[Way]:
        if isinstance(node, Number):
            return [Leaf(node.pos, node.value)] if node.value == n else []
        if isinstance(node, Dots):
            return [RoundsWay(node.pos, tuple(Leaf(node.pos, 1) for _ in range(n)))]
        if isinstance(node, Group):
            return self.ways(node.body, n)
        if isinstance(node, Options):
            alts = node.alternatives
            if len(alts) == 1:
                return self.ways(alts[0], n)
            return [
                OptionWay(node.pos, i + 1, len(alts), w)
                for i, alt in enumerate(alts)
                for w in self.ways(alt, n)
            ]
        if isinstance(node, Alternative):
            inner = self.ways(node.chain, n)
            if node.times is None:
                return inner
            return [PersonWay(node.pos, p + 1, node.times, w)
                    for p in range(node.times) for w in inner]
        if isinstance(node, Chain):
            if len(node.items) == 1:
                return self.ways(node.items[0], n)
            out: list[Way] = []
            for sizes in _compositions(n, len(node.items)):
                options = [self.ways(it, s) for it, s in zip(node.items, sizes, strict=True)]
                out.extend(ChainWay(tuple(parts)) for parts in product(*options))
            return out
        # Repeat: an unbounded one repeats a sub-deal that never deals 0 cards, so at most n
        # rounds can deal anything; a bounded one runs low..high rounds.
        top = n if node.high is None else node.high
        out = []
        for k in range(node.low, top + 1):
            out.extend(RoundsWay(node.caret, r) for r in self._rounds(node.item, k, n))
        return out


def all_ways(deal: Deal, n: int) -> list[Way]:
    return Oracle(deal).ways(deal.root, n)
