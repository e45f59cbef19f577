"""Ways to deal, as trees and as steps: what :func:`~nomic_cards.deals.sample.sample` returns.

A *way* to carry out a deal on n cards is a derivation tree: which alternative of each ``or``
was taken (:class:`OptionWay`), which of the m people of ``m * chain`` (:class:`PersonWay`), how
many rounds each repetition ran and what each round did (:class:`RoundsWay`), how a chain split
its cards between its parts (:class:`ChainWay`), down to the numbers actually dealt
(:class:`Leaf`). Chains of one item and brackets add no node. a(n) counts exactly these trees.
:func:`steps_of` flattens a tree into :class:`Step` values, and :class:`Sample` holds one drawn
way with its steps and describes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from nomic_cards.deals.syntax import Deal, decimal


@dataclass(frozen=True)
class Leaf:
    """A number actually dealt: ``cards`` cards, from the number (or dots) at ``pos``."""

    pos: int
    cards: int


@dataclass(frozen=True)
class OptionWay:
    """Alternative ``index`` (1-based) of the ``total`` joined by ``or`` at ``pos``."""

    pos: int
    index: int
    total: int
    way: Way


@dataclass(frozen=True)
class PersonWay:
    """Person ``index`` of the ``total`` in ``m * chain`` at ``pos``."""

    pos: int
    index: int
    total: int
    way: Way


@dataclass(frozen=True)
class ChainWay:
    """The ways of each item of a chain, in order."""

    parts: tuple[Way, ...]


@dataclass(frozen=True)
class RoundsWay:
    """The rounds a repetition (its '^', or the dots, at ``pos``) ran, in order."""

    pos: int
    rounds: tuple[Way, ...]


Way: TypeAlias = Leaf | OptionWay | PersonWay | ChainWay | RoundsWay


@dataclass(frozen=True)
class Choice:
    """One choice on the path to a step: ``kind`` is ``option``, ``person`` or ``round``."""

    kind: str
    index: int
    total: int
    column: int

    def __str__(self) -> str:
        return f"{self.kind} {decimal(self.index)} of {decimal(self.total)}"


@dataclass(frozen=True)
class Step:
    """Deal ``cards`` cards for the number ``atom`` at ``column``; ``dealt`` names them."""

    cards: int
    atom: str
    column: int
    choices: tuple[Choice, ...]
    dealt: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sample:
    """One way, drawn uniformly among ``ways`` = a(n), as a tree and as steps."""

    deal: str
    n: int
    ways: int
    way: Way
    steps: tuple[Step, ...]
    seed: int | None = None

    def describe(self) -> str:
        """Human-readable text: a header line, then one line per step."""
        head = (
            f"{self.deal!r} on {self.n} card{'s' if self.n != 1 else ''}: "
            f"one of {decimal(self.ways)} way{'s' if self.ways != 1 else ''}"
        )
        if self.seed is not None:
            head += f" (seed {self.seed})"
        lines = [head]
        if not self.steps:
            lines.append("  (no number is dealt: the way is only its choices)")
        for i, st in enumerate(self.steps, start=1):
            via = ", ".join(str(c) for c in st.choices) or "-"
            cards = " ".join(st.dealt)
            what = f"'{st.atom}' col {st.column}"
            line = f"  {i:>3}. {st.cards:>3} card{'s' if st.cards != 1 else ' '}  "
            line += f"{what:<14} [{via}]"
            lines.append(f"{line}  {cards}".rstrip())
        return "\n".join(lines)


def _atom_text(text: str, pos: int) -> str:
    end = pos
    kind = text[pos] if pos < len(text) else ""
    same = "." if kind == "." else "0123456789"
    while end < len(text) and text[end] in same:
        end += 1
    return text[pos:end]


def steps_of(deal: Deal, way: Way) -> list[Step]:
    """Flatten a way into the numbers it deals, in order, each with its path of choices."""
    out: list[Step] = []

    def walk(w: Way, path: tuple[Choice, ...]) -> None:
        if isinstance(w, Leaf):
            out.append(Step(w.cards, _atom_text(deal.text, w.pos), w.pos + 1, path))
        elif isinstance(w, OptionWay):
            walk(w.way, (*path, Choice("option", w.index, w.total, w.pos + 1)))
        elif isinstance(w, PersonWay):
            walk(w.way, (*path, Choice("person", w.index, w.total, w.pos + 1)))
        elif isinstance(w, ChainWay):
            for part in w.parts:
                walk(part, path)
        else:
            k = len(w.rounds)
            for i, r in enumerate(w.rounds, start=1):
                walk(r, (*path, Choice("round", i, k, w.pos + 1)))

    walk(way, ())
    return out
