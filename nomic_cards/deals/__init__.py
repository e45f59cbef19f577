"""Deal expressions of Clear the Deck: count, solve and sample the ways to deal.

A deal denotes a sequence: a(n) is the number of different ways to carry out the deal and leave
a deck of n cards empty. ``5`` deals 5 cards; ``5^2-4`` deals 5 cards two to four times; ``5^?``
any number of times (including none); ``...`` is ``(1^?)``; chains multiply; ``or`` adds;
``m * chain`` is m times the chain. See docs/deals.md.

Stable names: :func:`parse`, :func:`terms`, :func:`term`, :func:`generating_function`,
:func:`same`, :func:`sample`; also :func:`canonical`, :class:`RationalGF`, :class:`DealError`.
The library imports nothing from the project's core; it needs python-flint.
"""

from __future__ import annotations

from nomic_cards.deals.canon import canonical, canonical_of, first_difference, same
from nomic_cards.deals.errors import DealError, DealTooLarge, NoWayToDeal, ResultTooLarge
from nomic_cards.deals.far import coefficient, term
from nomic_cards.deals.gf import RationalGF, Recurrence, generating_function
from nomic_cards.deals.parser import parse
from nomic_cards.deals.sample import Choice, Sample, Step, sample
from nomic_cards.deals.series import terms
from nomic_cards.deals.syntax import Deal

__all__ = [
    "Choice",
    "Deal",
    "DealError",
    "DealTooLarge",
    "NoWayToDeal",
    "RationalGF",
    "Recurrence",
    "ResultTooLarge",
    "Sample",
    "Step",
    "canonical",
    "canonical_of",
    "coefficient",
    "first_difference",
    "generating_function",
    "parse",
    "same",
    "sample",
    "term",
    "terms",
]
