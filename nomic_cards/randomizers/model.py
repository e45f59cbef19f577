"""The meaning of a spec as states and moves, shared by generation and exact statistics.

A :class:`Layout` numbers what a spec talks about:

* **piece codes** ``0 .. len(names)-1`` index :attr:`Spec.names` (the list's names, then names
  only mentioned by ``first`` or the initial history);
* **entries** ``0 .. n-1`` are the positions of the list ``L`` (duplicates are separate entries);
  names that are not in ``L`` but are pushed into a history (from ``first`` or the initial
  history) get one extra *foreign* entry each, numbered from ``n``. A foreign entry can sit in a
  history but is never a candidate.

The history holds entries, not names (the seed: "repeated pieces in list are separate pieces for
purpose of the history"). A name pushed from outside the list's own draw (the ``first`` piece, or
a name of the initial history) occupies the first of its entries the history does not already
hold, or its first entry if it holds them all (:meth:`Layout.entry_for`).

The moves of a history (which entry is dealt with which probability) live here, shared by the
exact analysis; the generator in :mod:`~nomic_cards.randomizers.generate` draws the same moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from nomic_cards.randomizers.spec import Spec

History = tuple[int, ...]


@dataclass(frozen=True)
class Layout:
    """Numbering of pieces and entries for one spec (see the module docstring)."""

    spec: Spec

    @cached_property
    def names(self) -> tuple[str, ...]:
        return self.spec.names

    @cached_property
    def code(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.names)}

    @property
    def n(self) -> int:
        """Number of list entries."""
        return len(self.spec.pieces)

    @cached_property
    def entry_piece(self) -> tuple[int, ...]:
        """Piece code of every entry, list entries first, then foreign entries."""
        listed = [self.code[p] for p in self.spec.pieces]
        return (*listed, *self.foreign)

    @cached_property
    def foreign(self) -> tuple[int, ...]:
        """Piece codes of names outside the list (each has one foreign entry, in this order)."""
        inside = set(self.spec.pieces)
        return tuple(self.code[name] for name in self.names if name not in inside)

    @cached_property
    def piece_entries(self) -> tuple[tuple[int, ...], ...]:
        """For each piece code, its entries in increasing order."""
        out: list[list[int]] = [[] for _ in self.names]
        for e, c in enumerate(self.entry_piece):
            out[c].append(e)
        return tuple(tuple(x) for x in out)

    @cached_property
    def multiplicity(self) -> tuple[int, ...]:
        """How many times each piece code appears in the list (0 for names outside it)."""
        counts = [0] * len(self.names)
        for p in self.spec.pieces:
            counts[self.code[p]] += 1
        return tuple(counts)

    def entry_for(self, piece: int, history: Sequence[int]) -> int:
        """The entry a piece dealt from outside the list's draw occupies in ``history``."""
        entries = self.piece_entries[piece]
        held = set(history)
        for e in entries:
            if e not in held:
                return e
        return entries[0]

    def push(self, history: History, entry: int) -> History:
        """``history`` after dealing ``entry``: appended, oldest dropped beyond the length."""
        h = (*history, entry)
        keep = self.spec.history
        return h[len(h) - keep:] if len(h) > keep else h

    @cached_property
    def initial_history(self) -> History:
        """The history before the first deal, as entries (oldest first)."""
        h: list[int] = []
        for name in self.spec.initial:
            h.append(self.entry_for(self.code[name], h))
        return tuple(h)

    @cached_property
    def first_codes(self) -> tuple[int, ...]:
        """Piece codes of the ``first`` list, duplicates kept (empty without a first clause)."""
        return tuple(self.code[name] for name in self.spec.first)

    # -- moves of a history ----------------------------------------------------------------
    def candidates(self, history: History) -> list[int]:
        """Entries a strict history may deal: list entries it does not hold, in list order."""
        held = set(history)
        return [e for e in range(self.n) if e not in held]

    def history_moves(self, history: History) -> list[tuple[Fraction, int]]:
        """Probability of dealing each entry from ``history`` (entries with probability 0 left
        out). Strict: uniform over :meth:`candidates`. With ``M`` rolls and ``b`` of the ``n``
        list entries held: an entry not held is dealt with probability ``(1-(b/n)^M)/(n-b)``, a
        held one with ``(b/n)^(M-1)/n`` (all ``M`` rolls failed and the last roll was it)."""
        n, rolls = self.n, self.spec.rolls
        cands = self.candidates(history)
        if not rolls:
            p = Fraction(1, len(cands))
            return [(p, e) for e in cands]
        b = n - len(cands)
        moves: list[tuple[Fraction, int]] = []
        if cands:
            fail = Fraction(b, n) ** rolls
            p_new = (1 - fail) / len(cands)
            moves.extend((p_new, e) for e in cands)
        if b:
            p_old = Fraction(b, n) ** (rolls - 1) / n
            held = set(history)
            moves.extend((p_old, e) for e in range(n) if e in held)
        return moves

    def fail_probability(self, history: History) -> Fraction:
        """Probability that every one of the ``M`` rolls hits a held entry."""
        b = self.n - len(self.candidates(history))
        return Fraction(b, self.n) ** self.spec.rolls
