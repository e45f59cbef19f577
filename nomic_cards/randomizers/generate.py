"""Generation: :class:`Randomizer` deals pieces one at a time or in batches, reproducibly.

The one-at-a-time path (:meth:`Randomizer._next_entry`) *is* the definition; the batch path
(:meth:`Randomizer.batch`) is an optimisation that produces the same entries from the same words
and leaves the randomizer in the same state, so the two can be mixed freely. How each deal uses
the stream of :mod:`~nomic_cards.randomizers.rng` (``below(b)`` is one exact uniform draw):

* ``first F`` (only the first deal): ``F[below(len(F))]``, ignoring the spec's own rule.
* list of ``n`` entries: entry ``below(n)``.
* ``N bag of L``: the bag starts as the entries ``0..n-1`` in list order; the ``k``-th deal of a
  bag (``k = 0..N-1``) takes ``j = below(n-k)``, deals ``pool[j]`` and moves the last live entry
  ``pool[n-1-k]`` into slot ``j``; after ``N`` deals the bag is refilled.
* ``sequence of L``: entries in order, cyclically; no draws.
* ``L with N history``: the list entries the history does not hold, in list order, and
  ``below`` of their count picks one.
* ``L with N history M rolls``: up to ``M`` times, ``e = below(n)``; stop at the first ``e`` the
  history does not hold; deal the last ``e`` drawn.

Batch mode vectorises the words with numpy and then: lists and bags are computed as array
operations (whole bags at a time); histories run a precomputed automaton (one row per steady
state, one column per draw value) through :func:`itertools.accumulate` with
:func:`operator.getitem`, which walks the table in C. A word that ``below`` might reject is
handed to the scalar path, so rejection is handled identically.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from operator import getitem, itemgetter
from typing import Any

import numpy as np

from nomic_cards.errors import InputError
from nomic_cards.randomizers.model import History, Layout
from nomic_cards.randomizers.parser import parse
from nomic_cards.randomizers.rng import Stream, max_accept, words
from nomic_cards.randomizers.spec import Spec

_CHUNK = 1 << 20
_MAX_TABLE = 3_000_000  # automaton cells (rows x columns) before batch falls back to scalar


def as_spec(spec: Any) -> Spec:
    """A :class:`Spec` from a spec, Blackjack text, or a preset (anything with ``.spec``)."""
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, str):
        return parse(spec)
    inner = getattr(spec, "spec", None)
    if isinstance(inner, str | Spec):
        return as_spec(inner)
    raise InputError(f"not a randomizer spec: {spec!r}")


def check_seed(seed: Any) -> int:
    """``seed`` if it is an integer in ``[0, 2**64)``, else an :class:`InputError`."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 64:
        raise InputError(f"seed must be an integer from 0 to 2**64-1, not {seed!r}")
    return seed


@dataclass
class _Automaton:
    """Steady-state table of a history randomizer: ``rows[s][u]`` is the row of the state after
    draw value ``u``; ``rows[s][bound]`` is ``s`` itself; ``emit[s]`` is the entry dealt on
    entering ``s`` (``-1`` for a roll that failed without dealing)."""

    bound: int
    rows: list[list[Any]]
    index: dict[Any, int]
    states: list[Any]
    emit: np.ndarray


@lru_cache(maxsize=16)
def _automaton(spec: Spec) -> _Automaton | None:
    lay = Layout(spec)
    n, hist, rolls = lay.n, spec.history, spec.rolls
    if rolls:
        bound = n
        count = n**hist * rolls
    else:
        bound = n - hist
        count = 1
        for i in range(hist):
            count *= n - i
    if not hist or count * (bound + 1) > _MAX_TABLE:
        return None
    states: list[Any]
    if rolls:
        states = [(h, k) for h in itertools.product(range(n), repeat=hist)
                  for k in range(rolls)]
    else:
        states = list(itertools.permutations(range(n), hist))
    index = {s: i for i, s in enumerate(states)}
    rows: list[list[Any]] = [[None] * bound + [i] for i in range(len(states))]
    emit = np.full(len(states), -1, dtype=np.int32)
    for i, s in enumerate(states):
        row = rows[i]
        if rolls:
            h, k = s
            held = set(h)
            if k == 0:
                emit[i] = h[-1]
            for u in range(bound):
                if u not in held or k == rolls - 1:
                    row[u] = rows[index[(lay.push(h, u), 0)]]
                else:
                    row[u] = rows[index[(h, k + 1)]]
        else:
            emit[i] = s[-1]
            cands = lay.candidates(s)
            for u in range(bound):
                row[u] = rows[index[lay.push(s, cands[u])]]
    return _Automaton(bound, rows, index, states, emit)


class Randomizer:
    """Deals the pieces of a Blackjack spec from a seed, reproducibly on every platform.

    ``Randomizer(spec, seed=...)``: ``spec`` is Blackjack text, a :class:`Spec` or a preset;
    ``seed`` an integer in ``[0, 2**64)`` (``None`` draws one from the OS, readable afterwards as
    :attr:`seed`). Iterating yields piece names; :meth:`take` returns a list of names and
    :meth:`batch` a numpy array of piece codes (indices into :attr:`pieces`) for long runs.
    """

    def __init__(self, spec: Any, seed: int | None = None) -> None:
        self.spec: Spec = as_spec(spec)
        self.seed: int = secrets.randbits(64) if seed is None else check_seed(seed)
        self._lay = Layout(self.spec)
        self.pieces: tuple[str, ...] = self._lay.names
        self.dealt = 0
        self._stream = Stream(self.seed)
        self._entry_piece = np.array(self._lay.entry_piece, dtype=np.int32)
        n = self._lay.n
        self._pool = list(range(n))
        self._k = 0
        self._i = 0
        self._hist: History = self._lay.initial_history

    def __repr__(self) -> str:
        return f"Randomizer({str(self.spec)!r}, seed={self.seed})"

    # -- the definition ----------------------------------------------------------------------
    def _next_entry(self) -> int:
        lay, spec, stream = self._lay, self.spec, self._stream
        n = lay.n
        if self.dealt == 0 and spec.first:
            code = lay.first_codes[stream.below(len(spec.first))]
            if spec.kind == "history":
                e = lay.entry_for(code, self._hist)
                self._hist = lay.push(self._hist, e)
            else:
                e = lay.piece_entries[code][0]
        elif spec.kind == "list":
            e = stream.below(n)
        elif spec.kind == "bag":
            k = self._k
            j = stream.below(n - k)
            pool = self._pool
            e = pool[j]
            pool[j] = pool[n - 1 - k]
            pool[n - 1 - k] = e
            self._k = k + 1
            if self._k == spec.deal:
                self._pool = list(range(n))
                self._k = 0
        elif spec.kind == "sequence":
            e = self._i
            self._i = (e + 1) % n
        else:
            h = self._hist
            if spec.rolls:
                held = set(h)
                for _ in range(spec.rolls):
                    e = stream.below(n)
                    if e not in held:
                        break
            else:
                cands = lay.candidates(h)
                e = cands[stream.below(len(cands))]
            self._hist = lay.push(h, e)
        self.dealt += 1
        return e

    # -- public API ----------------------------------------------------------------------------
    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return self.pieces[self._lay.entry_piece[self._next_entry()]]

    def take(self, count: int) -> list[str]:
        """The next ``count`` pieces, as names."""
        names = np.array(self.pieces, dtype=object)
        return list(names[self.batch(count)])

    def batch(self, count: int) -> np.ndarray:
        """The next ``count`` pieces as an ``int32`` array of codes into :attr:`pieces`;
        the same pieces, and the same state afterwards, as ``count`` calls of ``next``."""
        pieces: np.ndarray = self._entry_piece[self.batch_entries(count)]
        return pieces

    def batch_entries(self, count: int) -> np.ndarray:
        """Like :meth:`batch` but returns entries (list positions; foreign entries after)."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(f"count must be a non-negative integer, not {count!r}")
        out = np.empty(count, dtype=np.int32)
        filled = 0
        if count and self.dealt == 0 and self.spec.first:
            out[0] = self._next_entry()
            filled = 1
        kind = self.spec.kind
        if kind == "list" or (kind == "history" and not self.spec.history):
            # with no history every candidate list is the whole list: the same draw as a list
            filled = self._batch_list(out, filled)
        elif kind == "bag":
            filled = self._batch_bag(out, filled)
        elif kind == "sequence":
            m = count - filled
            out[filled:] = (self._i + np.arange(m)) % self._lay.n
            self._i = (self._i + m) % self._lay.n
            self.dealt += m
            filled = count
        else:
            filled = self._batch_history(out, filled)
        while filled < count:
            out[filled] = self._next_entry()
            filled += 1
        return out

    # -- batch paths -------------------------------------------------------------------------
    def _batch_list(self, out: np.ndarray, filled: int) -> int:
        n, stream = self._lay.n, self._stream
        limit = np.uint64(max_accept(n))
        count = len(out)
        while filled < count:
            m = min(count - filled, _CHUNK)
            w = words(self.seed, stream.pos, m)
            bad = np.flatnonzero(w > limit)
            good = int(bad[0]) if len(bad) else m
            out[filled:filled + good] = w[:good] % np.uint64(n)
            stream.pos += good
            self.dealt += good
            filled += good
            if good < m:
                out[filled] = self._next_entry()
                filled += 1
        return filled

    def _batch_bag(self, out: np.ndarray, filled: int) -> int:
        count, n, size = len(out), self._lay.n, self.spec.deal
        while filled < count and self._k:
            out[filled] = self._next_entry()
            filled += 1
        bounds = np.arange(n, n - size, -1, dtype=np.uint64)
        limits = np.array([max_accept(int(b)) for b in bounds], dtype=np.uint64)
        stream = self._stream
        while count - filled >= size:
            bags = min((count - filled) // size, max(1, _CHUNK // size))
            w = words(self.seed, stream.pos, bags * size).reshape(bags, size)
            bad = np.flatnonzero((w > limits).any(axis=1))
            good = int(bad[0]) if len(bad) else bags
            if good:
                syms = (w[:good] % bounds).astype(np.intp)
                pool = np.tile(np.arange(n, dtype=np.int32), (good, 1))
                rows = np.arange(good)
                res = np.empty((good, size), dtype=np.int32)
                for k in range(size):
                    j = syms[:, k]
                    res[:, k] = pool[rows, j]
                    pool[rows, j] = pool[:, n - 1 - k]
                out[filled:filled + good * size] = res.ravel()
                filled += good * size
                stream.pos += good * size
                self.dealt += good * size
            if good < bags:  # a word the scalar path may reject: deal that bag one by one
                for _ in range(size):
                    out[filled] = self._next_entry()
                    filled += 1
        return filled

    def _steady(self) -> bool:
        h, n = self._hist, self._lay.n
        if len(h) != self.spec.history or any(e >= n for e in h):
            return False
        return bool(self.spec.rolls) or len(set(h)) == len(h)

    def _batch_history(self, out: np.ndarray, filled: int) -> int:
        count = len(out)
        while filled < count and not self._steady():
            out[filled] = self._next_entry()
            filled += 1
        if filled >= count:
            return filled
        auto = _automaton(self.spec)
        if auto is None:
            return filled
        rolls = self.spec.rolls
        bound, rows, emit = auto.bound, auto.rows, auto.emit
        limit = np.uint64(max_accept(bound))
        ubound = np.uint64(bound)
        state = auto.index[(self._hist, 0) if rolls else self._hist]
        stream = self._stream
        per_piece = 2.5 if rolls else 1.0
        get_id = itemgetter(bound)
        while filled < count:
            need = count - filled
            m = min(int(need * per_piece * 1.05) + 64, _CHUNK)
            w = words(self.seed, stream.pos, m)
            bad = np.flatnonzero(w > limit)
            good = int(bad[0]) if len(bad) else m
            syms = (w[:good] % ubound).tolist()
            ids = np.fromiter(map(get_id, itertools.accumulate(syms, getitem,
                                                               initial=rows[state])),
                              dtype=np.int32, count=good + 1)
            em = emit[ids[1:]]
            dealt_mask = em >= 0
            total = np.cumsum(dealt_mask)
            enough = good and total[-1] >= need
            used = int(np.searchsorted(total, need)) + 1 if enough else good
            got = em[:used][dealt_mask[:used]]
            out[filled:filled + len(got)] = got
            filled += len(got)
            if used and len(got):
                per_piece = max(1.0, used / len(got))
            stream.pos += used
            self.dealt += len(got)
            state = int(ids[used])
            if used == good and good < m and filled < count:
                nxt = rows[state][stream.below(bound)][bound]
                if emit[nxt] >= 0:
                    out[filled] = emit[nxt]
                    filled += 1
                    self.dealt += 1
                state = nxt
        final = auto.states[state]
        self._hist = final[0] if rolls else final
        return filled
