"""Errors of the deal language.

:class:`DealError` is the language's one error class: every syntax error, and every deal the
language refuses (a starred sub-deal that can deal 0 cards, brackets nested too deeply), raises
it with the position of the offending spot. :class:`DealTooLarge` (a :class:`DealError`) names
the part of a deal whose exact generating function would be too big to hold in memory.
:class:`NoWayToDeal` and :class:`ResultTooLarge` are plain input errors about a request made of
a valid deal (sampling when a(n) = 0; an exact far term that would not fit).
"""

from __future__ import annotations

from nomic_cards.errors import InputError, LanguageError


class DealError(LanguageError):
    """A deal expression that is malformed or refused, with its position in the text."""


class DealTooLarge(DealError):
    """A sub-deal whose exact generating function exceeds the size budget."""


class NoWayToDeal(InputError):
    """A sample was asked for a number of cards the deal cannot deal (a(n) = 0)."""


class ResultTooLarge(InputError):
    """A result or working polynomial over the size budget (an exact far term asks for a
    modulus). ``detail`` is the size comparison alone, e.g. ``about 80 MiB > 64 MiB``."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail or message
