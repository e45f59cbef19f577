"""Shape lists of dealer's ``shape(seat, ...)`` function, resolved to sets of distributions.

A shape is four characters, spades first: digits, or ``x`` for any length; ``any`` allows the
four lengths in any order. A list adds (``+``, ``,`` or nothing) and removes (``-``) shapes in
the order written, as dealer's bitmaps do. Distributions are ``(spades, hearts, diamonds,
clubs)`` tuples; with an ``x`` a suit may hold 10 to 13 cards, which dealer allows too.

``shape{seat, spec}`` (dealer.dpp's notation) is expanded by :mod:`nomic_cards.bridge.shapes.spec`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import permutations
from typing import Any

from nomic_cards.bridge.deck import SEATS
from nomic_cards.bridge.errors import ScriptError
from nomic_cards.bridge.language.dealer_lalr import Token

Distribution = tuple[int, int, int, int]

ErrorAt = Callable[[str, Any], ScriptError]


def shape_distributions(pattern: str, *, any_order: bool) -> set[Distribution]:
    """The distributions one four-character shape stands for (no validation)."""
    fixed = sum(int(c) for c in pattern if c != "x")
    free = [i for i, c in enumerate(pattern) if c == "x"]
    out: set[Distribution] = set()

    def fill(lengths: list[int], k: int, left: int) -> None:
        if k == len(free):
            if left == 0:
                d = (lengths[0], lengths[1], lengths[2], lengths[3])
                perms = permutations(d) if any_order else [d]
                out.update((p[0], p[1], p[2], p[3]) for p in perms)
            return
        for v in range(left + 1):
            lengths[free[k]] = v
            fill(lengths, k + 1, left - v)

    base = [0 if c == "x" else int(c) for c in pattern]
    fill(base, 0, 13 - fixed)
    return out


def expand_shape(elements: list[tuple[str, bool, Token]],
                 error: ErrorAt) -> frozenset[Distribution]:
    """Apply ``(sign, any, DISTR token)`` elements in order, refusing dealer's bad shapes."""
    result: set[Distribution] = set()
    for sign, any_order, tok in elements:
        pattern = str(tok)
        cards = sum(int(c) for c in pattern if c != "x")
        if "x" not in pattern and cards != 13:
            raise error(f"shape {pattern} has {cards} cards: expected 13", tok)
        if cards > 13:
            raise error(f"shape {pattern} has more than 13 cards", tok)
        dists = shape_distributions(pattern, any_order=any_order)
        if sign == "-":
            result -= dists
        else:
            result |= dists
    return frozenset(result)


_DPP_HEAD = re.compile(r"shape\s*\{\s*([A-Za-z_]\w*)?\s*(,)?")


def expand_dpp(token: str, pos: int, text: str) -> tuple[int, frozenset[Distribution], str]:
    """``shape{seat, spec}`` at offset ``pos`` of ``text`` → (seat, distributions, spec),
    the spec expanded by :mod:`nomic_cards.bridge.shapes.spec` (errors keep their position)."""
    from nomic_cards.bridge.shapes.spec import ShapeError, parse_shape

    head = _DPP_HEAD.match(token)
    assert head is not None  # the scanner only makes tokens starting so
    word = head.group(1) or ""
    if word not in SEATS:
        brace = token.index("{") + 1
        where = pos + (head.start(1) if head.group(1) else
                       brace + len(token[brace:]) - len(token[brace:].lstrip()))
        got = f"{word!r}" if word else "nothing"
        raise ScriptError(f"unexpected {got} in shape{{...}}: expected a seat (north, east, "
                          "south, west)", text, where)
    if not head.group(2):
        raise ScriptError(f"expected ',' after shape{{{word}", text, pos + head.end())
    start, end = pos + head.end(), pos + len(token) - 1
    try:
        spec = parse_shape(text, start, end)
    except ShapeError as err:
        raise ScriptError(err.reason, text, err.pos) from None
    return SEATS.index(word), spec.shapes, f"{{{word}, {spec.text}}}"
