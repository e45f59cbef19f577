"""Hand shapes as suit-length tuples, dealer's shape patterns, and the shape-spec error class.

A *shape* is a tuple ``(spades, hearts, diamonds, clubs)`` of suit lengths adding up to 13;
there are 560 of them (:data:`ALL_SHAPES`). A dealer *pattern* is what Hans van Staveren's
``dealer`` accepts inside ``shape(seat, ...)``: four characters, each a digit or ``x`` (any
length), optionally preceded by ``any `` (any order of the suits); :func:`pattern_shapes` gives
the shapes a pattern matches.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

from nomic_cards.errors import LanguageError

Shape = tuple[int, int, int, int]
"""Suit lengths in the order spades, hearts, diamonds, clubs."""

SUITS = "shdc"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")

ALL_SHAPES: tuple[Shape, ...] = tuple(
    (s, h, d, 13 - s - h - d)
    for s in range(14)
    for h in range(14 - s)
    for d in range(14 - s - h)
)
"""The 560 shapes in lexicographic order."""


class ShapeError(LanguageError):
    """A dealer.dpp shape spec that cannot be parsed or evaluated (with line and column)."""


def shape_name(shape: Shape) -> str:
    """``5431``, or ``10-3-0-0`` when a suit has ten cards or more."""
    if max(shape) >= 10:
        return "-".join(str(n) for n in shape)
    return "".join(str(n) for n in shape)


@lru_cache(maxsize=4096)
def pattern_shapes(pattern: str) -> frozenset[Shape]:
    """The shapes matched by one dealer pattern such as ``5xx5``, ``4333`` or ``any 4432``.

    Raises :class:`ValueError` for text that is not a pattern.
    """
    text = pattern.strip()
    anyorder = text.startswith("any")
    if anyorder:
        text = text[3:].strip()
    if len(text) != 4 or any(ch not in "0123456789x" for ch in text):
        raise ValueError(f"not a dealer shape pattern: {pattern!r}")
    orders = set(permutations(text)) if anyorder else {tuple(text)}
    found: set[Shape] = set()
    for order in orders:
        found.update(_fill(order))
    return frozenset(found)


def _fill(order: tuple[str, ...]) -> list[Shape]:
    """The shapes of one ordered pattern: the ``x`` suits share what the digits leave."""
    left = 13 - sum(int(ch) for ch in order if ch != "x")
    free = [k for k, ch in enumerate(order) if ch == "x"]
    if left < 0 or (not free and left != 0):
        return []
    base = [0 if ch == "x" else int(ch) for ch in order]
    shapes = []
    for split in _splits(left, len(free)):
        lengths = list(base)
        for k, n in zip(free, split, strict=True):
            lengths[k] = n
        shapes.append((lengths[0], lengths[1], lengths[2], lengths[3]))
    return shapes


def _splits(total: int, parts: int) -> list[tuple[int, ...]]:
    """All ways to write ``total`` as ``parts`` ordered non-negative lengths."""
    if parts == 0:
        return [()] if total == 0 else []
    return [(first, *rest) for first in range(total + 1)
            for rest in _splits(total - first, parts - 1)]
