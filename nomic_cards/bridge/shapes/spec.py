"""dealer.dpp shape specs: parse, expand to the 560 hand shapes, print for dealer.

The language is Francois Dellacherie's (the ``shape{north, ...}`` of ``dealer.dpp``)::

    5+xx5+            at least five spades and five clubs
    2-xxx  [0-2]xxx   at most two spades (ranges: [3-5], [013-68])
    (4432)            any 4-4-3-2;  (3+3+3+2+) any balanced hand
    5s(431)           five spades, the other suits 4-3-1 in any order
    5+M3+c(31)        M: a major (m: a minor), only left of the brackets
    x5+xx:h>s,h>=d    a condition in C over s, h, d, c; ',' and 'and' are and, 'or' is or
    (4432) + (4333) - 4xx2    sums and differences, applied left to right

API (stable):

- :func:`parse_shape` ``(text, start=0, end=None) -> ShapeSet``; errors are
  :class:`ShapeError` (a :class:`~nomic_cards.errors.LanguageError`) with line and column into
  ``text``, so a caller can parse a spec embedded in a larger script.
- :class:`ShapeSet`: ``.shapes`` (frozenset of ``(spades, hearts, diamonds, clubs)``),
  ``.terms`` (the expansion of each term), ``len``, ``in``, iteration in sorted order.
- :func:`format_dealer` ``(shape_set, seat=None)``: the expansion as dealer.dpp prints it,
  ``5008 + 5xx5 + ...`` or, with a seat, ``shape(north,5008 + 5xx5 + ...)``.
- :func:`pattern_shapes`, :data:`ALL_SHAPES`, :func:`shape_name`.

The meaning of a spec is the set of shapes matched by the printed patterns under dealer's
rules (``+`` adds, ``-`` removes, left to right); the tests check it against a brute-force
oracle over all 560 shapes. Differences from the dealer.dpp program (10+ card suits, three or
more conditions, ``/`` in conditions, specs without spaces) are listed in docs/bridge.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from nomic_cards.bridge.shapes.base import (
    ALL_SHAPES,
    SUIT_NAMES,
    SUITS,
    Shape,
    ShapeError,
    pattern_shapes,
    shape_name,
)
from nomic_cards.bridge.shapes.expand import check_nonempty, expand_atom
from nomic_cards.bridge.shapes.syntax import SpecParser

__all__ = [
    "ALL_SHAPES",
    "SEATS",
    "SUITS",
    "SUIT_NAMES",
    "Shape",
    "ShapeError",
    "ShapeSet",
    "ShapeTerm",
    "format_dealer",
    "parse_shape",
    "pattern_shapes",
    "shape_name",
]

SEATS = ("north", "east", "south", "west")


@dataclass(frozen=True)
class ShapeTerm:
    """One term of a spec: its sign, its text and its dealer patterns (sorted)."""

    sign: str
    text: str
    patterns: tuple[str, ...]


@dataclass(frozen=True)
class ShapeSet:
    """A parsed spec: the source text, its terms, and the set of shapes it means."""

    text: str
    terms: tuple[ShapeTerm, ...]
    shapes: frozenset[Shape]

    def __contains__(self, shape: object) -> bool:
        return shape in self.shapes

    def __len__(self) -> int:
        return len(self.shapes)

    def __iter__(self) -> Iterator[Shape]:
        return iter(sorted(self.shapes))

    def dealer(self, seat: str | None = None) -> str:
        """Same as :func:`format_dealer`."""
        return format_dealer(self, seat)


def parse_shape(text: str, start: int = 0, end: int | None = None) -> ShapeSet:
    """Parse the spec ``text[start:end]`` and expand it."""
    atoms = SpecParser(text, start, end).parse()
    terms = []
    shapes: set[Shape] = set()
    for atom in atoms:
        patterns = expand_atom(atom)
        check_nonempty(atom, patterns, text)
        terms.append(ShapeTerm(atom.sign, atom.source, patterns))
        for pattern in patterns:
            if atom.sign == "+":
                shapes |= pattern_shapes(pattern)
            else:
                shapes -= pattern_shapes(pattern)
    stop = len(text) if end is None else end
    return ShapeSet(text[start:stop].strip(), tuple(terms), frozenset(shapes))


def format_dealer(shape_set: ShapeSet, seat: str | None = None) -> str:
    """The expansion as dealer.dpp prints it: each term's patterns joined by its sign."""
    parts: list[str] = []
    for term in shape_set.terms:
        joint = f" {term.sign} "
        if parts:
            parts.append(joint)
        parts.append(joint.join(term.patterns))
    body = "".join(parts)
    return body if seat is None else f"shape({seat},{body})"

