"""Pooker's Poker Hands (rule 397): hands of 1 to 5 cards scored by a category table, the best
arrangement of any number of cards into such hands, and advice on the next card.

Cards are Ness codes 0...51 (``D + 13*S``, see :mod:`nomic_cards.poker`); duplicates are
allowed, since Pooker plays with two packs. A Poker Hand's category is the first of
:data:`CATEGORIES` whose statement applies (docs/poker.md states each one):

* ``five-of-a-kind`` -- five cards of one rank (possible with two packs);
* ``royal-flush`` -- T J Q K A of one suit; ``straight-flush`` -- five consecutive ranks of one
  suit (the ace is high or low: A 2 3 4 5 counts, Q K A 2 3 does not);
* ``four-of-a-kind`` -- four cards of one rank (a hand of 4 or 5 cards);
* ``full-house`` -- three of one rank and two of another (5 cards);
* ``flush`` -- five cards of one suit (a duplicated card does not matter);
* ``straight`` -- five consecutive ranks;
* ``three-of-a-kind`` -- three of one rank; ``two-pair`` -- two of one rank and two of another;
  ``one-pair`` -- two of one rank; ``high-card`` -- anything else.

A Score table gives each category an integer. :func:`best_arrangement` splits cards into
Poker Hands with the highest total Score -- exactly -- showing as few cards as such an optimum
allows (a hand that scores nothing is left out: its cards stay unshown). :func:`advice` gives
the exact distribution of that best Score after one more card.

The library imports nothing of the core; the optimiser's large instances import ``highspy``
lazily (the ``arrange`` extra).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType

from nomic_cards.errors import InputError, LanguageError
from nomic_cards.poker._pookercore import CATEGORIES, STRAIGHTS, Arrangement, category_of

__all__ = [
    "CATEGORIES", "DEFAULT_SCORES", "STRAIGHTS", "Arrangement", "ScoreTableError", "advice",
    "best_arrangement", "best_score", "category", "check_scores", "hand_score", "parse_scores",
]

#: rule 397's known entries (five of a kind 80 ... four of a kind 60), then the continuation
#: chosen for the entries the record lost: 50, 40, 30, 20, 10, 5, 0 (docs/poker.md)
DEFAULT_SCORES: Mapping[str, int] = MappingProxyType(dict(zip(
    CATEGORIES, (80, 80, 70, 60, 50, 40, 30, 20, 10, 5, 0), strict=True)))

#: largest absolute value a Score table entry may have
MAX_SCORE = 10**9

class ScoreTableError(LanguageError):
    """A Score table that cannot be read, with the column of the problem."""


def parse_scores(text: str) -> dict[str, int]:
    """A Score table from ``"five-of-a-kind=80,royal-flush=80,..."``: the entries given replace
    those of :data:`DEFAULT_SCORES`; every category is in the result. Entries are separated by
    commas (spaces around them are ignored); a value is an integer (it may be negative)."""
    if not text.strip():
        raise ScoreTableError("empty Score table: expected entries like 'flush=40'", text, 0)
    table = dict(DEFAULT_SCORES)
    seen: set[str] = set()
    for m in re.finditer(r"[^,]+|(?<=,)(?=,|$)|^(?=,)", text):
        item, start = m.group(), m.start()
        stripped = item.strip()
        pos = start + (len(item) - len(item.lstrip()))
        if not stripped:
            raise ScoreTableError("empty entry: expected 'CATEGORY=N'", text, pos)
        if "=" not in stripped:
            raise ScoreTableError(f"expected '=' in {stripped!r} (entries are 'CATEGORY=N')",
                                  text, pos + len(stripped))
        name, _, value = stripped.partition("=")
        name = name.strip().lower()
        if name not in table:
            raise ScoreTableError(f"unknown category {name!r}; the categories are: "
                                  + ", ".join(CATEGORIES), text, pos)
        if name in seen:
            raise ScoreTableError(f"category {name!r} given twice", text, pos)
        seen.add(name)
        vpos = pos + stripped.index("=") + 1
        vtext = value.strip()
        vpos += len(value) - len(value.lstrip())
        if not re.fullmatch(r"[+-]?[0-9]{1,10}", vtext, re.ASCII):
            raise ScoreTableError(f"the score of {name} must be an integer, not {vtext!r}",
                                  text, vpos)
        number = int(vtext)
        if abs(number) > MAX_SCORE:
            raise ScoreTableError(f"the score of {name} must be between -{MAX_SCORE} and "
                                  f"{MAX_SCORE}", text, vpos)
        table[name] = number
    return table


def check_scores(scores: Mapping[str, int]) -> dict[str, int]:
    """The table as a plain dict after checking it names every category with an integer."""
    out: dict[str, int] = {}
    for name in CATEGORIES:
        if name not in scores:
            raise InputError(f"the Score table has no entry for {name}")
        value = scores[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"the score of {name} must be an integer, not {value!r}")
        if abs(value) > MAX_SCORE:
            raise InputError(f"the score of {name} must be between -{MAX_SCORE} and "
                             f"{MAX_SCORE}")
        out[name] = value
    extra = set(scores) - set(CATEGORIES)
    if extra:
        raise InputError(f"unknown category {sorted(extra)[0]!r} in the Score table")
    return out


def _codes(codes: Iterable[int]) -> list[int]:
    out = []
    for c in codes:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 52:
            raise InputError(f"a PCard is a code 0...51 (no jokers), not {c!r}")
        out.append(c)
    return out


def category(codes: Sequence[int]) -> str:
    """The category of a Poker Hand of 1 to 5 cards (codes 0...51, duplicates allowed)."""
    cards = _codes(codes)
    if not 1 <= len(cards) <= 5:
        raise InputError(f"a Poker Hand has 1 to 5 cards, not {len(cards)}")
    return category_of(cards)


def hand_score(codes: Sequence[int], scores: Mapping[str, int] = DEFAULT_SCORES) -> int:
    """The Score of one Poker Hand under a Score table."""
    return check_scores(scores)[category(codes)]


def best_arrangement(codes: Sequence[int],
                     scores: Mapping[str, int] = DEFAULT_SCORES) -> Arrangement:
    """An arrangement of the cards into Poker Hands with the highest total Score (exact), and
    among those one that shows the fewest cards. Hands are sorted by their first index."""
    from nomic_cards.poker import _arrange

    cards = _codes(codes)
    table = check_scores(scores)
    return _arrange.solve(cards, table)


def best_score(codes: Sequence[int], scores: Mapping[str, int] = DEFAULT_SCORES) -> int:
    """The highest total Score of the cards (the score of :func:`best_arrangement`)."""
    from nomic_cards.poker import _arrange

    return _arrange.best_value(_codes(codes), check_scores(scores))[0]


def advice(codes: Sequence[int], unseen: Sequence[int],
           scores: Mapping[str, int] = DEFAULT_SCORES) -> dict[int, Fraction]:
    """The exact distribution of the best total Score after the next card: each card of
    ``unseen`` (a multiset: a card listed twice is twice as likely) equally likely. Maps each
    possible best Score to its probability."""
    from nomic_cards.poker import _arrange

    cards = _codes(codes)
    pool = _codes(unseen)
    if not pool:
        raise InputError("no unseen card: the next card cannot be dealt")
    table = check_scores(scores)
    weights: dict[int, int] = {}
    for c in pool:
        weights[c] = weights.get(c, 0) + 1
    faces = list(weights)
    dist: dict[int, Fraction] = {}
    for c, s in zip(faces, _arrange.best_scores([[*cards, c] for c in faces], table),
                    strict=True):
        dist[s] = dist.get(s, Fraction(0)) + Fraction(weights[c], len(pool))
    return dict(sorted(dist.items()))
