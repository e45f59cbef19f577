"""Errors of the dealer scripting language.

:class:`ScriptError` is the language's one error class: every syntax error and every script
that dealer's grammar accepts but that cannot be run (a card predealt twice, a shape with the
wrong number of cards, an unknown variable) raises it with the position of the offending spot
and, where it helps, what was expected there. :class:`ScriptRuntimeError` is raised while a
valid script runs: a division or remainder by zero names the expression and its line.
"""

from __future__ import annotations

from nomic_cards.errors import InputError, LanguageError


class ScriptError(LanguageError):
    """A dealer script that is malformed or refused, with its position in the text."""


class ScriptRuntimeError(InputError):
    """A valid script whose evaluation failed (division by zero), naming the expression."""

    def __init__(self, message: str, *, line: int = 0, expression: str = "") -> None:
        self.line = line
        self.expression = expression
        super().__init__(message)
