"""The shipped tables (``data/<game>.bin``), read without numpy and turned into values lazily.

:mod:`nomic_cards.poker.generate` writes one file per game; this module reads it in well under a
millisecond and hands out

* :meth:`GameTables.value` -- the shared :class:`~nomic_cards.poker.classes.HandValue` of a
  value ``v``, built on first use from the shipped CV (its label computed from the CV);
* :meth:`GameTables.table` -- for ``N`` = 5, 6, 7 cards, a dict from the key of a hand's
  naturals (:mod:`nomic_cards.poker.layout`, plus the number of wild cards times ``2**42``) to
  the best non-flush value. The dicts start empty and are filled one piece (one ``C`` and ``B``
  part) at a time (:meth:`GameTables.load`), so a process that evaluates one hand builds a few
  dozen entries, not 77,520;
* :meth:`GameTables.array` -- the raw arrays (``G5`` ... ``FL5``) as :class:`array.array`;
  :meth:`GameTables.raw` with :meth:`GameTables.span` lets numpy map them without a copy.
"""

from __future__ import annotations

import os
import sys
from array import array

from nomic_cards.errors import InputError, NomicCardsError
from nomic_cards.poker import layout
from nomic_cards.poker.classes import GAMES, HandValue, a5_label, d27_label, high_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
MAGIC = 0x4B50434E
VERSION = 1
ARRAYS = ("g5", "g6", "g7", "flk", "fl5")

_LABELS: dict[str, Callable[[Sequence[int]], str]] = {
    "high": high_label, "a5": a5_label, "low8": a5_label, "27": d27_label,
}


class GameTables:
    """One game's shipped tables (see the module docstring)."""

    def __init__(self, game: str) -> None:
        path = os.path.join(DATA, f"{game}.bin")
        with open(path, "rb") as f:
            raw = f.read()
        head = array("I")
        head.frombytes(raw[:32])
        if sys.byteorder == "big":  # pragma: no cover - the files are little-endian
            head.byteswap()
        magic, n_values, *lengths, version = head
        if magic != MAGIC or version != VERSION:
            raise NomicCardsError(f"{path} is not a poker table file of version {VERSION}")
        self.game = game
        self.label = _LABELS[game]
        self.n_values = n_values
        self._raw = raw
        self._cv_at = 32
        at = 32 + n_values * 6 + (n_values * 6) % 2
        self._spans: dict[str, tuple[int, int]] = {}
        for name, n in zip(ARRAYS, lengths, strict=True):
            self._spans[name] = (at, n)
            at += 2 * n
        if at != len(raw):
            raise NomicCardsError(f"{path} has {len(raw)} bytes, expected {at}")
        self._arrays: dict[str, array[int]] = {}
        self._values: list[HandValue | None] = [None] * n_values
        self._tables: dict[tuple[int, bool], dict[int, HandValue | None]] = {
            (n, fast): {} for n in layout.SIZES for fast in (False, True)}
        self._loaded: dict[tuple[int, bool, bool], set[int]] = {
            (n, fast, wild): set() for n, fast in self._tables for wild in (False, True)}

    # -- values --------------------------------------------------------------------------------

    def cv(self, v: int) -> tuple[int, ...]:
        at = self._cv_at + 6 * v
        return tuple(self._raw[at:at + 6])

    def value(self, v: int) -> HandValue | None:
        """The shared value object of ``v`` (``None`` for -1: no qualifying low)."""
        if v < 0:
            return None
        hv = self._values[v]
        if hv is None:
            cv = self.cv(v)
            hv = self._values[v] = HandValue(self.game, v, cv[0], cv, self.label(cv))
        return hv

    def value_list(self) -> list[HandValue | None]:
        """The cache behind :meth:`value`: value -> its object, ``None`` until first made."""
        return self._values

    def values(self) -> tuple[HandValue, ...]:
        """Every value of the game, best last."""
        out = []
        for v in range(self.n_values):
            hv = self.value(v)
            assert hv is not None
            out.append(hv)
        return tuple(out)

    def types(self) -> bytes:
        """The type ``T`` of every value."""
        return self._raw[self._cv_at:self._cv_at + 6 * self.n_values:6]

    def _value_list(self, vs: Iterable[int]) -> list[HandValue | None]:
        cache, make = self._values, self.value
        return [cache[v] or make(v) if v >= 0 else None for v in vs]

    # -- raw arrays ----------------------------------------------------------------------------

    def raw(self) -> bytes:
        return self._raw

    def span(self, name: str) -> tuple[int, int]:
        """Byte offset and length (in int16 entries) of an array in :meth:`raw`."""
        return self._spans[name]

    def array(self, name: str) -> array[int]:
        a = self._arrays.get(name)
        if a is None:
            at, n = self._spans[name]
            a = array("h")
            a.frombytes(self._raw[at:at + 2 * n])
            if sys.byteorder == "big":  # pragma: no cover
                a.byteswap()
            self._arrays[name] = a
        return a

    # -- the lazily filled tables of the single-hand evaluator --------------------------------

    def table(self, n: int, *, fast: bool = False) -> dict[int, HandValue | None]:
        """Key (naturals, plus wild cards << 42) -> best non-flush value of ``n`` cards; filled
        lazily: look up with :meth:`get`, or call :meth:`load` after a ``KeyError``. The
        ``fast`` dict (the same values) takes the hands without wild cards, and the others only
        for the pieces that such hands have asked for: hands of natural cards, the common case,
        then look up a smaller dict."""
        return self._tables[n, fast]

    def load(self, n: int, key: int, *, fast: bool = False) -> bool:
        """Load the piece holding ``key`` into :meth:`table`; False if it was loaded already
        (or no piece holds it)."""
        part = (key >> layout.B_SHIFT) & ((layout.C_MASK << 15) | layout.B_MASK)
        wild = not fast or key >> layout.WILD_SHIFT != 0
        done = self._loaded[n, fast, wild]
        if part in done:
            return False
        try:
            start, keys = layout.piece(part >> 15, part & layout.B_MASK, n, wild=True,
                                       natural=not wild)
        except KeyError:
            return False
        g = self.array(f"g{n}")[start:start + len(keys)]
        self._tables[n, fast].update(zip(keys, self._value_list(g), strict=True))
        done.add(part)
        return True

    def get(self, n: int, key: int) -> HandValue | None:
        """Best non-flush value of ``n`` cards whose naturals have this key (with the wild count
        from bit 42); ``KeyError`` if no hand has it."""
        table = self._tables[n, False]
        try:
            return table[key]
        except KeyError:
            if not self.load(n, key):
                raise
        return table[key]


_GAMES: dict[str, GameTables] = {}


def game_tables(game: str) -> GameTables:
    """The shipped tables of a game (read once per process)."""
    gt = _GAMES.get(game)
    if gt is None:
        gt = _GAMES[game] = GameTables(game)
    return gt


def value_of(v: int, game: str = "high") -> HandValue:
    """The :class:`HandValue` of value ``v`` in a game: the object :func:`evaluate` returns for
    hands of that value (read from the shipped tables, which equal :func:`scale`'s values)."""
    if game not in GAMES:
        raise InputError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    gt = game_tables(game)
    if not 0 <= v < gt.n_values:
        raise InputError(f"{game} values run 0...{gt.n_values - 1}, not {v}")
    hv = gt.value(v)
    assert hv is not None
    return hv
