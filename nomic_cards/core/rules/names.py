"""Player names: what a name may contain, when two names are the same player, and when a new
name is refused because it looks like an existing one (docs/rules.md, "Names").

- A name is stored in Unicode NFC, without surrounding spaces.
- Refused: an empty or all-space name; a name starting with ``-`` (it would read as a command
  option); control, format (zero-width, bidirectional embeddings, overrides and isolates, soft
  hyphen...), surrogate, private-use and unassigned characters; any space other than U+0020.
- Two names are the same name when their case folds (:func:`key`) are equal: ``Ann``, ``ANN``
  and ``ann`` are one player, and a look-up by any of them finds that player.
- A new name is refused when it looks like an existing player's name (:func:`skeletons`):
  compatibility forms are folded first (NFKC: fullwidth ``Ｉｅｎｎｅ`` and ``ᴵenne`` are
  ``Ienne``), then the confusable skeleton (Unicode Technical Standard #39, section 4, computed
  by ICU's spoof checker) is taken of the name as written and case folded, and each skeleton is
  case folded in turn. Latin ``Ann`` and ``Аnn`` written with a Cyrillic ``А`` are confusable,
  and so are ``Wonko`` and ``W0nko``: the skeleton maps the digit ``0`` to the capital ``O``,
  which the folded skeleton compares equal to ``o``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Iterable
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from nomic_cards.errors import InputError, NotFound
from nomic_cards.inputs import shorten

MAX_LENGTH = 200
#: general categories refused anywhere in a name
_REFUSED = MappingProxyType({
    "Cc": "a control character",
    "Cf": "an invisible formatting character (zero-width or bidirectional)",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
})


def clean(name: str, what: str = "player name") -> str:
    """``name`` in NFC without surrounding spaces, or :class:`InputError` saying what is wrong."""
    nfc = unicodedata.normalize("NFC", name).strip(" ")
    if not nfc.strip():
        raise InputError(f"{what} must not be empty or only spaces, not {name!r}")
    for i, ch in enumerate(nfc, 1):
        cat = unicodedata.category(ch)
        what_ch = _REFUSED.get(cat)
        if what_ch is None and ch.isspace() and ch != " ":
            what_ch = "a space other than the ordinary space"
        if what_ch is not None:
            raise InputError(f"{what} {name!r} contains {what_ch} "
                             f"(U+{ord(ch):04X} at character {i})")
    if nfc.startswith("-"):
        raise InputError(f"{what} must not start with '-' (it would read as an option): "
                         f"{name!r}")
    if len(nfc) > MAX_LENGTH:
        raise InputError(f"{what} is too long ({len(nfc)} characters; at most {MAX_LENGTH})")
    return nfc


def key(name: str) -> str:
    """The form two names are compared in: NFC, case folded (``Ann`` and ``ANN`` are one)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name.strip()).casefold())


@lru_cache(maxsize=1)
def _checker() -> Any:
    import icu  # ICU's UTS #39 implementation (package icukit-pyicu); imported when needed

    return icu.SpoofChecker()


def skeletons(name: str) -> frozenset[str]:
    """What a look-alike of ``name`` shares with it: the case-folded UTS #39 skeletons of the
    NFKC form of ``name``, as written and case folded. Two names are look-alikes when these
    sets meet (the relation is symmetric)."""
    checker = _checker()
    compat = unicodedata.normalize("NFKC", name)
    forms = (compat, unicodedata.normalize("NFKC", compat.casefold()))
    return frozenset(checker.getSkeleton(0, form).casefold() for form in forms)


def find(names: Collection[str], name: str) -> str | None:
    """The one of ``names`` that ``name`` designates: itself, else the one equal to it without
    regard to case and normalisation. (A name as registered is found by one look-up in a
    dict or set of names; only another spelling compares every name.)"""
    if name in names:
        return name
    k = key(name)
    return next((n for n in names if key(n) == k), None)


def resolve(names: Collection[str], name: str, *, when: str = "") -> str:
    """Like :func:`find`, but :class:`NotFound` when no name matches."""
    found = find(names, name)
    if found is None:
        raise NotFound(f"no player named {shorten(name, 60)}{when}")
    return found


def clash(names: Iterable[str], name: str) -> tuple[str, str] | None:
    """An existing name that a new ``name`` (already :func:`clean`) may not sit beside, and why:
    the same name without regard to case, or a look-alike by the UTS #39 skeleton."""
    pool = list(names)
    k = key(name)
    for other in pool:
        if key(other) == k:
            return other, "same"
    mine = skeletons(name)
    for other in pool:
        if mine & skeletons(other):
            return other, "confusable"
    return None
