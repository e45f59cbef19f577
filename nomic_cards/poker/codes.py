"""Card codes for poker: Ness's ``C = D + 13*S``, jokers, parsing and wild sets.

A card is an ``int``: Ness's code ``D + 13*S`` (denominations 2...A -> 0...12, suits S, H, D,
C -> 0...3), converted through :func:`nomic_cards.cards.ness_code` so that the project has one
place that numbers cards. A joker is code :data:`JOKER` (52); every code from 52 up is a joker
(the table enumerator numbers the jokers of a 53/54-card pack 52, 53, ... so that they are
distinct cards, but all of them have the same face).

:func:`parse_cards` reads ``'As Ks'``, ``'AsKs'``, ``'As,10h'``, ``'Th'``, ``'Jk'``, lists of
such strings, :class:`~nomic_cards.cards.Card` objects or codes. The reader is a hand-written
scanner: the language is a flat list of tokens, with no nesting, so a grammar would add nothing.
Its one error class is :class:`CardSyntaxError`.

:func:`wild_set` resolves what a game declares wild: ``None``/``'none'``, a preset name
(``deuces``, ``one-eyed-jacks``, ``one-eyed-jacks-axe``, ``baseball``) or any cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nomic_cards.cards import Card, format_card, ness_card, ness_code, parse_card
from nomic_cards.errors import InputError, LanguageError

#: Code of a joker (any code >= 52 is a joker).
JOKER = 52
#: Number of faces in a pack without jokers.
FACES = 52

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"  # Ness order S, H, D, C -> 0..3


class CardSyntaxError(LanguageError):
    """A list of cards that cannot be read, with the column of the problem."""


def code_of(card: Card) -> int:
    """Ness code of a :class:`Card` (via :func:`nomic_cards.cards.ness_code`)."""
    return ness_code(card)


def card_of(code: int) -> Card:
    """:class:`Card` of a code 0...51 (via :func:`nomic_cards.cards.ness_card`)."""
    return ness_card(code)


def format_code(code: int) -> str:
    """``As``, ``Th``, ``Jk``."""
    if code >= JOKER:
        return "Jk"
    if code < 0:
        raise InputError(f"card code must be 0 or more, not {code}")
    return format_card(ness_card(code), ten="T")


def format_cards(codes: Iterable[int]) -> str:
    """``As Ks Qs Js Th``."""
    return " ".join(format_code(c) for c in codes)


_SEPARATORS = " \t\r\n,;"
_RANK_START = set("23456789tjqka1")


def _scan(text: str) -> list[int]:
    out: list[int] = []
    i, n = 0, len(text)
    low = text.lower()
    while i < n:
        ch = low[i]
        if ch in _SEPARATORS:
            i += 1
            continue
        start = i
        if low.startswith("joker", i):
            out.append(JOKER)
            i += 5
            continue
        if low.startswith("jk", i):
            out.append(JOKER)
            i += 2
            continue
        if low.startswith("10", i):
            rank_len = 2
        elif ch in _RANK_START:
            rank_len = 1
        else:
            raise CardSyntaxError(f"unexpected {text[i]!r}: expected a card like 'As' or '10h'",
                                  text, i)
        i += rank_len
        if i >= n or low[i] not in SUIT_CHARS:
            got = repr(text[i]) if i < n else "end of input"
            raise CardSyntaxError(f"expected a suit (s, h, d or c) after "
                                  f"{text[start:i]!r}, got {got}", text, i)
        out.append(ness_code(parse_card(text[start:i + 1])))
        i += 1
    return out


def parse_cards(cards: str | int | Card | Iterable[str | int | Card]) -> list[int]:
    """Cards as Ness codes, from text (``'AsKs'``, ``'As Ks'``, ``'10h,Jk'``), a :class:`Card`,
    a code, or a list of any of these. Duplicates are kept (hands may hold several packs)."""
    if isinstance(cards, str):
        return _scan(cards)
    if isinstance(cards, Card):
        return [ness_code(cards)]
    if isinstance(cards, int):
        return [_check_code(cards)]
    out: list[int] = []
    for item in cards:
        if isinstance(item, str):
            out.extend(_scan(item))
        elif isinstance(item, Card):
            out.append(ness_code(item))
        elif isinstance(item, int):
            out.append(_check_code(int(item)))
        else:
            raise InputError(f"not a card: {item!r}")
    return out


def _check_code(code: int) -> int:
    if code < 0:
        raise InputError(f"card code must be 0 or more, not {code}")
    return JOKER if code >= JOKER else code


@dataclass(frozen=True)
class WildSet:
    """The faces a game declares wild (jokers are always wild)."""

    cards: frozenset[int]
    name: str = ""

    def __str__(self) -> str:
        if self.name:
            return self.name
        return ",".join(format_code(c) for c in sorted(self.cards)) or "none"


def _ranks(*ranks: str) -> frozenset[int]:
    return frozenset(RANK_CHARS.index(r) + 13 * s for r in ranks for s in range(4))


PRESETS: dict[str, WildSet] = {
    "none": WildSet(frozenset(), "none"),
    "deuces": WildSet(_ranks("2"), "deuces"),
    "one-eyed-jacks": WildSet(frozenset(parse_cards("Js Jh")), "one-eyed-jacks"),
    "one-eyed-jacks-axe": WildSet(frozenset(parse_cards("Js Jh Kd")), "one-eyed-jacks-axe"),
    "baseball": WildSet(_ranks("3", "9"), "baseball"),
}

NO_WILD = PRESETS["none"]


def wild_set(wild: WildSet | str | Iterable[str | int | Card] | None) -> WildSet:
    """Resolve a wild declaration: ``None``, a preset name, text listing cards, or cards."""
    if wild is None:
        return NO_WILD
    if isinstance(wild, WildSet):
        return wild
    if isinstance(wild, str):
        key = wild.strip().lower()
        if key in PRESETS:
            return PRESETS[key]
        if not key:
            return NO_WILD
        try:
            codes = parse_cards(wild)
        except CardSyntaxError as exc:
            names = ", ".join(PRESETS)
            raise CardSyntaxError(f"{exc.reason} (a wild set is cards or one of: {names})",
                                  exc.text, exc.pos) from None
    else:
        codes = parse_cards(wild)
    faces = frozenset(c for c in codes if c < JOKER)
    for preset in PRESETS.values():
        if preset.cards == faces:
            return preset
    return WildSet(faces)
