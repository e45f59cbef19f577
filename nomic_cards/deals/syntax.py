"""The deal language's syntax tree: frozen dataclasses, one per construct.

A deal is ``Options`` (alternatives joined by ``or``); each ``Alternative`` is a ``Chain``
optionally preceded by a number of people (``m * chain``); a chain is a run of items; an item is
a ``Number``, a run of ``Dots`` (meaning ``(1^?)``), a bracketed ``Group``, or one of those
followed by a repetition (``Repeat``: ``^k``, ``^a-b``, ``^?``, ``^a-?``).

Every node records ``pos`` and ``end``, 0-based offsets into the source text, so that errors and
sampled steps can point at the text the user wrote. :class:`Deal` wraps a parsed root together
with its source text; ``str(deal)`` is the expression re-printed in a normalised spacing.

Numbers in a deal may have any number of digits: :func:`read_int` and :func:`decimal` convert
them through GMP past CPython's 4300-digit limit; :func:`short` and :func:`quote` abbreviate
numbers and texts in messages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

#: CPython converts ints to and from decimal text only up to 4300 digits (quadratic beyond);
#: longer numbers go through GMP (python-flint's ``fmpz``), which is fast and has no limit.
_SHORT_DIGITS = 4000


def decimal(value: int) -> str:
    """``str(value)`` for an int of any size."""
    if value.bit_length() < _SHORT_DIGITS * 3:
        return str(value)
    from flint import fmpz

    return str(fmpz(value))


def read_int(digits: str) -> int:
    """``int(digits)`` for a run of ASCII digits of any length."""
    if len(digits) <= _SHORT_DIGITS:
        return int(digits)
    from flint import fmpz

    return int(fmpz(digits))


def quote(text: str) -> str:
    """``repr(text)`` for a message, shortened in the middle when it is long."""
    if len(text) <= 60:
        return repr(text)
    return f"{text[:24] + ' ... ' + text[-24:]!r} ({len(text)} characters)"


def short(value: int) -> str:
    """A non-negative number for a message: exact up to 15 digits, else ``about 10^k``."""
    if value < 10**15:
        return str(value)
    return f"about 10^{math.floor(math.log10(value))}"


@dataclass(frozen=True)
class Number:
    """``5``: deal that many cards (``0`` deals none: one way to deal 0 cards)."""

    value: int
    pos: int
    end: int


@dataclass(frozen=True)
class Dots:
    """``...`` (any run of one or more dots): short for ``(1^?)``."""

    pos: int
    end: int


@dataclass(frozen=True)
class Group:
    """``( deal )``."""

    body: Options
    pos: int
    end: int


@dataclass(frozen=True)
class Repeat:
    """``item^low-high``; ``high`` is None for ``?`` (no upper bound). ``caret`` is the '^'."""

    item: Atom
    low: int
    high: int | None
    caret: int
    pos: int
    end: int


@dataclass(frozen=True)
class Chain:
    """Items dealt one after the other."""

    items: tuple[Item, ...]
    pos: int
    end: int


@dataclass(frozen=True)
class Alternative:
    """``chain`` or ``m * chain`` (``times`` is m, None when no ``*`` was written)."""

    times: int | None
    chain: Chain
    pos: int
    end: int


@dataclass(frozen=True)
class Options:
    """Alternatives joined by ``or``: a disjoint choice between them."""

    alternatives: tuple[Alternative, ...]
    pos: int
    end: int


Atom: TypeAlias = Number | Dots | Group
Item: TypeAlias = Number | Dots | Group | Repeat
Node: TypeAlias = Number | Dots | Group | Repeat | Chain | Alternative | Options


@dataclass(frozen=True)
class Deal:
    """A parsed deal: the source ``text`` and the syntax tree ``root``."""

    text: str
    root: Options

    def __str__(self) -> str:
        return to_text(self.root)

    def source(self, node: Node) -> str:
        """The text the user wrote for ``node``."""
        return self.text[node.pos : node.end]


def to_text(node: Node) -> str:
    """Re-print a node with normalised spacing (one space between chain items)."""
    if isinstance(node, Number):
        return decimal(node.value)
    if isinstance(node, Dots):
        return "..."
    if isinstance(node, Group):
        return f"({to_text(node.body)})"
    if isinstance(node, Repeat):
        if node.high is None:
            rep = "?" if node.low == 0 else f"{decimal(node.low)}-?"
        elif node.low == node.high:
            rep = decimal(node.low)
        else:
            rep = f"{decimal(node.low)}-{decimal(node.high)}"
        return f"{to_text(node.item)}^{rep}"
    if isinstance(node, Chain):
        return " ".join(to_text(i) for i in node.items)
    if isinstance(node, Alternative):
        body = to_text(node.chain)
        return body if node.times is None else f"{decimal(node.times)} * {body}"
    return " or ".join(to_text(a) for a in node.alternatives)
