"""The Blackjack spec as a value: what a parsed randomizer spec holds, and its canonical text.

A :class:`Spec` is a frozen dataclass; ``str(spec)`` is its canonical Blackjack text and
``parse(str(spec)) == spec`` for every spec the parser accepts. The errors of this library live
here too: :class:`BlackjackError` (the language's one syntax/semantic error class, a
:class:`~nomic_cards.errors.LanguageError`) and :class:`StatsError` (a spec whose exact analysis
is refused, e.g. an unknown piece or a state space too large to solve exactly).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nomic_cards.errors import InputError, LanguageError

Kind = Literal["list", "bag", "sequence", "history"]


class BlackjackError(LanguageError):
    """A Blackjack spec that does not parse or makes no sense, with its position."""


class StatsError(InputError):
    """Exact statistics cannot be given for this request (unknown piece, too many states)."""


@dataclass(frozen=True)
class Spec:
    """A parsed Blackjack randomizer spec.

    ``kind`` is one of ``"list"`` (memoryless), ``"bag"``, ``"sequence"``, ``"history"``.
    ``pieces`` is the list ``L`` exactly as written (duplicates kept, in order). ``deal`` is the
    number of pieces dealt from each bag (``N bag of L``; ``len(L)`` for ``bag of L``, 0 for the
    other kinds). ``history`` is the history length and ``rolls`` the number of rolls (0 means the
    strict form without rolls). ``first`` is the ``first`` clause's list (empty when absent) and
    ``initial`` the initial history, oldest piece first (empty when absent).
    """

    kind: Kind
    pieces: tuple[str, ...]
    deal: int = 0
    history: int = 0
    rolls: int = 0
    first: tuple[str, ...] = ()
    initial: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every distinct piece name the spec can deal or mention, in order of first appearance
        (the list, then the ``first`` list, then the initial history)."""
        seen: dict[str, None] = {}
        for name in (*self.pieces, *self.first, *self.initial):
            seen.setdefault(name, None)
        return tuple(seen)

    def __str__(self) -> str:
        body = ",".join(self.pieces)
        if self.kind == "bag":
            text = f"bag of {body}" if self.deal == len(self.pieces) else (
                f"{self.deal} bag of {body}")
        elif self.kind == "sequence":
            text = f"sequence of {body}"
        elif self.kind == "history":
            text = f"{body} with {self.history} history"
            if self.rolls:
                text += f" {self.rolls} rolls"
        else:
            text = body
        if self.first:
            text += " first " + ",".join(self.first)
        if self.initial:
            text += " history " + ",".join(self.initial)
        return text
