"""The project's error hierarchy.

Everything the project raises on purpose derives from :class:`NomicCardsError`; errors caused
by bad input also derive from :class:`ValueError`. The CLI turns any of them into one line on
stderr and exit code 1. Libraries may import this module (it imports nothing of the project's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class NomicCardsError(Exception):
    """Base of every error the project raises deliberately."""


class InputError(NomicCardsError, ValueError):
    """Bad input from a user: a name, a number, a card, a URL, a file."""


class LanguageError(InputError):
    """A syntax error in one of the small languages, with its position.

    Each language subclasses this. ``pos`` is the 0-based offset into ``text``; ``line`` and
    ``column`` are 1-based. ``str(err)`` reads ``unexpected ')' (at column 7)`` (the line is
    named too when the input has more than one); :meth:`context` renders the input line with a
    caret under the spot.
    """

    def __init__(self, message: str, text: str = "", pos: int = 0) -> None:
        self.reason = message
        self.text = text
        self.pos = max(0, min(pos, len(text)))
        before = text[: self.pos]
        self.line = before.count("\n") + 1
        self.column = self.pos - (before.rfind("\n") + 1) + 1
        where = f"column {self.column}"
        if "\n" in text:
            where = f"line {self.line}, column {self.column}"
        super().__init__(f"{message} (at {where})")

    def context(self) -> str:
        """The offending input line followed by a caret under the error position."""
        lines = self.text.split("\n")
        src = lines[self.line - 1] if lines else ""
        return f"{src}\n{' ' * (self.column - 1)}^"


class NotFound(InputError):
    """A named thing (player, card, pack, event) does not exist."""


class RuleViolation(NomicCardsError):
    """An action the rules forbid; the message names the rule, in words a player understands."""


class DatabaseError(NomicCardsError):
    """The database is unreachable, missing, or its schema is not at the current revision."""


class PermissionDenied(DatabaseError):
    """The database account may not read (or write) a table or column it needed."""


def with_input_context(fn: Callable[[], T], *, max_context: int = 100) -> T:
    """Call ``fn``; a :class:`LanguageError` from a short one-line input is re-raised as an
    :class:`InputError` with the input and a caret under the error on the lines after its
    one-line message (longer or multi-line inputs keep the line and column alone)."""
    try:
        return fn()
    except LanguageError as err:
        if "\n" in err.text or len(err.text) > max_context:
            raise
        context = "\n".join(f"  {line}" for line in err.context().split("\n"))
        raise InputError(f"{err}\n{context}") from None
