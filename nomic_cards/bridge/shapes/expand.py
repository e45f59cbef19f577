"""Expand one parsed shape term into dealer patterns, the way dealer.dpp writes them.

The steps follow dealer.dpp's so that the printed expansion is the same text wherever
dealer.dpp is right: develop every combination of the allowed lengths (an ``x`` stays ``x``;
without an ``x`` the lengths must add up to 13), permute the lengths in brackets, write an
``x`` as the remaining count when it is the only one or nothing remains, spell out the ``x``
of every suit a condition reads, keep the patterns the condition accepts, and sort the texts.
A whole-hand permutation without a condition is printed as ``any`` patterns.

Where dealer.dpp is wrong this differs on purpose: suit lengths run to 13, not 9, and a
pattern holding a suit of ten or more cards (which dealer's one-digit patterns cannot spell)
is written with that suit as ``x`` and every other suit as a digit (10-3-0-0 is ``x300``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import permutations

from nomic_cards.bridge.shapes.base import ShapeError
from nomic_cards.bridge.shapes.cond import Condition, shape_label
from nomic_cards.bridge.shapes.syntax import Atom, Item

Pattern = tuple[int | None, ...]
"""Lengths (``None`` for ``x``) in the order written, or spades..clubs once placed."""

_ALL = tuple(range(14))


def expand_atom(atom: Atom) -> tuple[str, ...]:
    """The sorted dealer patterns of one term (without its sign); may be empty."""
    if atom.kind == "full" and atom.condition is None:
        found = {
            _xsub_text("any " + "".join(sorted(_text(w), reverse=True)))
            for p in _develop(atom.floating, 13)
            for w in _writable(p)
        }
        return tuple(sorted(found))
    terms = {_xsub(t) for t in _terms(atom)}
    if atom.condition is not None:
        terms = _accepted(terms, atom.condition)
    return tuple(sorted({_xsub_text(_text(w)) for t in terms for w in _writable(t)}))


def _terms(atom: Atom) -> Iterator[Pattern]:
    if atom.kind == "regular":
        yield from _develop(atom.fixed, 13)
        return
    if atom.kind == "full":
        for p in _develop(atom.floating, 13):
            yield from set(permutations(p))
        return
    for suits in atom.suit_choices():
        rest = [s for s in range(4) if s not in suits]
        for fixed in _develop(atom.fixed, 0):
            left = 13 - _known(fixed)
            for floating in _develop(atom.floating, 0 if None in fixed else left, left):
                for order in set(permutations(floating)):
                    lengths: list[int | None] = [None] * 4
                    for suit, n in zip(suits, fixed, strict=True):
                        lengths[suit] = n
                    for suit, n in zip(rest, order, strict=True):
                        lengths[suit] = n
                    yield tuple(lengths)


def _develop(items: Sequence[Item], low: int, high: int = 13) -> list[Pattern]:
    """Every combination of the items' lengths whose known total is at most ``high`` and, when
    no item is ``x``, at least ``low``."""
    joker = any(item.allowed is None for item in items)
    choices = [None if item.allowed is None else tuple(sorted(item.allowed)) for item in items]
    return list(_combine(choices, high, None if joker else low))


def _combine(choices: Sequence[tuple[int, ...] | None], high: int,
             low: int | None) -> Iterator[Pattern]:
    """Pick one length from each choice (``None``: keep ``x``) with total at most ``high`` and,
    unless ``low`` is None, at least ``low``; prunes as it goes."""
    def walk(k: int, budget: int) -> Iterator[Pattern]:
        if k == len(choices):
            if low is None or high - budget >= low:
                yield ()
            return
        options = choices[k]
        if options is None:
            for rest in walk(k + 1, budget):
                yield (None, *rest)
            return
        for n in options:
            if n > budget:
                break
            for rest in walk(k + 1, budget - n):
                yield (n, *rest)
    return walk(0, high)


def _known(p: Pattern) -> int:
    return sum(n for n in p if n is not None)


def _xsub(p: Pattern) -> Pattern:
    """Write the ``x`` as the remaining count when it is the only ``x`` or nothing remains."""
    nx = p.count(None)
    left = 13 - _known(p)
    if nx and (nx == 1 or left == 0) and left < 10:
        return tuple(left if n is None else n for n in p)
    return p


def _xsub_text(text: str) -> str:
    """:func:`_xsub` on a pattern's text (dealer.dpp does it once more on the final texts)."""
    nx = text.count("x")
    left = 13 - sum(int(ch) for ch in text if ch.isdigit())
    if nx and (nx == 1 or left == 0) and left < 10:
        return text.replace("x", str(left))
    return text


def _accepted(terms: Iterable[Pattern], condition: Condition) -> set[Pattern]:
    """Spell out the ``x`` of every suit the condition reads, then keep what it accepts."""
    used = condition.suits
    kept: set[Pattern] = set()
    value = condition.evaluate
    for term in sorted(terms, key=shape_label):
        if not any(term[s] is None for s in used):
            candidates = [term]
        else:
            choices = [_ALL if n is None and s in used else None if n is None else (n,)
                       for s, n in enumerate(term)]
            joker = any(n is None and s not in used for s, n in enumerate(term))
            candidates = [_xsub(c) for c in _combine(choices, 13, None if joker else 13)]
        for candidate in candidates:
            if value(candidate):
                kept.add(candidate)
    return kept


def _writable(p: Pattern) -> list[Pattern]:
    """Patterns dealer can read for ``p``: a suit of ten or more becomes ``x`` and the other
    ``x`` suits are spelled out."""
    big = [s for s, n in enumerate(p) if n is not None and n >= 10]
    if not big:
        return [p]
    xs = [s for s, n in enumerate(p) if n is None]
    found = []
    for split in _compositions(13 - _known(p), len(xs)):
        q = list(p)
        for s, n in zip(xs, split, strict=True):
            q[s] = n
        q[big[0]] = None
        found.append(tuple(q))
    return found


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _text(p: Pattern) -> str:
    return "".join("x" if n is None else str(n) for n in p)


def check_nonempty(atom: Atom, patterns: tuple[str, ...], text: str) -> None:
    """A term that matches no shape is almost always a mistake: say so."""
    if not patterns:
        raise ShapeError(f"'{atom.source}' matches no hand shape", text, atom.start)
