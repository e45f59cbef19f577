"""Errors of the dealer scripting language.

:class:`ScriptError` is the language's one error class: every syntax error and every script
that dealer's grammar accepts but that cannot be run (a card predealt twice, a shape with the
wrong number of cards, an unknown variable) raises it with the position of the offending spot
and, where it helps, what was expected there. :class:`ScriptRuntimeError` is raised while a
valid script runs: a division or remainder by zero names the expression and its line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nomic_cards.errors import InputError, LanguageError

if TYPE_CHECKING:
    from nomic_cards.bridge.language.nodes import Binary


class ScriptError(LanguageError):
    """A dealer script that is malformed or refused, with its position in the text."""


class ScriptRuntimeError(InputError):
    """A valid script whose evaluation failed (division by zero), naming the expression."""

    def __init__(self, message: str, *, line: int = 0, expression: str = "") -> None:
        self.line = line
        self.expression = expression
        super().__init__(message)


def division_by_zero(source: str, node: Binary, *, unnamed: str = "") -> ScriptRuntimeError:
    """The error for a division or remainder by zero at ``node`` of the script ``source``:
    the expression as written (on one line; ``unnamed`` when the node has no position) and its
    line."""
    span = node.span
    text = " ".join(source[span.start:span.end].split()) if span else unnamed
    line = span.line if span else 0
    what = "division" if node.op == "/" else "remainder"
    return ScriptRuntimeError(f"{what} by zero in '{text}' (line {line})", line=line,
                              expression=text)
