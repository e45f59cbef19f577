"""The compiled fast path of ``bridge run``: the same deals and output, without numpy.

A run of a short script is mostly start-up: numpy alone takes longer to import than Debian's
dealer takes to produce ten thousand deals. When the optional extension ``_fast`` (compiled
from ``_fast.c`` at installation when a C compiler is at hand) is present and the script keeps
to what it handles, ``bridge run`` deals in it and never imports numpy:

- dealing by rejection (``-j`` worker processes or not) or smart stacking, with output format
  ``text`` (no ``--dealer-compatible``, ``--dd`` or ``--exact``), cards predealt or not (no
  ``predeal`` of suit lengths);
- expressions of integers, C operators, ``?:``, suit lengths, point counts (``hcp``,
  ``control``, ``pt0``-``pt9`` and their names, after ``pointcount``/``altcount``), ``loser``,
  ``shape`` and ``hascard``;
- the actions ``printall``, ``printcompact``, ``printoneline`` (with or without a value),
  ``average`` and ``frequency`` (one and two dimensions).

A smart stacker's tables (:mod:`nomic_cards.bridge.exact.stack`) are built with numpy the first time
a condition is stacked and kept in the user's private cache directory
(:func:`~nomic_cards.bridge.run.cache.private_cache_dir`), keyed by the condition and its point
tables; later runs of the same condition load them without numpy.

Anything else goes to the numpy path (:mod:`nomic_cards.bridge.run.loop`). Both deal by the one
stream docs/bridge.md specifies (:mod:`nomic_cards.bridge.deal.stream`: PCG64's raw words seeded by
``SeedSequence(seed, spawn_key=(chunk, 0))``, Lemire's bounded integers, the seats in
:func:`~nomic_cards.bridge.deal.stream.seat_order`), deal the same chunks and keep the same rows,
so a seed gives the same deals and the same output either way (the golden vectors of
``tests/data/bridge/golden`` pin both). Set ``NOMIC_CARDS_PURE_PYTHON=1`` to leave it out.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from nomic_cards.bridge.deal.points import PointTables, losers, suit_sums
from nomic_cards.bridge.deal.stream import seat_order, seed_words
from nomic_cards.bridge.errors import division_by_zero
from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.run.limits import (
    chunk_cut,
    chunk_size,
    chunks_in_order,
    fresh_seed,
    limits,
    predeal_masks,
)

Write = Callable[[str], object]

# node kinds and operators of _fast.c
_NUM, _NEG, _NOT, _ARITH, _DIV, _AND, _OR, _COND, _SUITSUM, _SHAPE, _HASCARD = range(11)
_ARITH_OPS = {op: i for i, op in enumerate(("+", "-", "*", "<", "<=", ">", ">=", "==", "!="))}
_PRINTERS = (n.PrintAll, n.PrintCompact, n.PrintOneLine)
_INT64 = (-(1 << 63), (1 << 63) - 1)


def extension() -> ModuleType | None:
    """The compiled module, or ``None`` when it is absent or switched off."""
    if os.environ.get("NOMIC_CARDS_PURE_PYTHON") or sys.byteorder != "little":
        return None
    try:
        from nomic_cards.bridge.run import _fast
    except ImportError:
        return None
    return _fast


class _Unsupported(Exception):
    """The script uses something the compiled loop does not do."""


@dataclass
class Program:
    """A script's condition and action expressions as ``_fast`` records."""

    nodes: list[int] = field(default_factory=list)
    tables: list[bytes] = field(default_factory=list)
    shapes: list[bytes] = field(default_factory=list)
    divisions: dict[int, n.Binary] = field(default_factory=dict)
    condition: int = 0
    exprs: tuple[int, ...] = ()
    _table_ids: dict[object, int] = field(default_factory=dict)

    def _node(self, kind: int, a: int = 0, b: int = 0, c: int = 0) -> int:
        self.nodes.extend((kind, a, b, c, 0, 0))
        return len(self.nodes) // 6 - 1

    def _table(self, key: object, make: Callable[[], bytes]) -> int:
        if key not in self._table_ids:
            self._table_ids[key] = len(self.tables)
            self.tables.append(make())
        return self._table_ids[key]

    def add(self, e: n.Expr, fast: Any, points: PointTables) -> int:
        """The record of ``e`` (and its parts); raises :class:`_Unsupported`."""
        if isinstance(e, n.Num):
            if not _INT64[0] <= e.value <= _INT64[1]:
                raise _Unsupported
            return self._node(_NUM, e.value)
        if isinstance(e, n.Unary):
            inner = self.add(e.operand, fast, points)
            return self._node(_NOT if e.op == "!" else _NEG, inner)
        if isinstance(e, n.Binary):
            left, right = self.add(e.left, fast, points), self.add(e.right, fast, points)
            if e.op in ("&&", "||"):
                return self._node(_AND if e.op == "&&" else _OR, 0, left, right)
            if e.op in ("/", "%"):
                at = self._node(_DIV, 0 if e.op == "/" else 1, left, right)
                self.divisions[at] = e
                return at
            return self._node(_ARITH, _ARITH_OPS[e.op], left, right)
        if isinstance(e, n.Conditional):
            parts = [self.add(x, fast, points) for x in (e.test, e.then, e.otherwise)]
            return self._node(_COND, *parts)
        if isinstance(e, n.Length):
            t = self._table("length", lambda: _raw(suit_sums((1,) * 13)))
            return self._node(_SUITSUM, t, e.seat, e.suit)
        if isinstance(e, n.Points):
            weights = points.table(e.count)
            t = self._table(("points", weights), lambda: _raw(suit_sums(weights)))
            return self._node(_SUITSUM, t, e.seat, -1 if e.suit is None else e.suit)
        if isinstance(e, n.Losers):
            t = self._table("losers", lambda: _raw(losers(points.loser_short,
                                                          points.loser_long)))
            return self._node(_SUITSUM, t, e.seat, -1 if e.suit is None else e.suit)
        if isinstance(e, n.Shape):
            allowed = bytearray(1 << 16)
            for s, h, d, c in e.shapes:
                allowed[s << 12 | h << 8 | d << 4 | c] = 1
            self.shapes.append(bytes(allowed))
            return self._node(_SHAPE, len(self.shapes) - 1, e.seat)
        if isinstance(e, n.HasCard):
            return self._node(_HASCARD, e.seat, e.suit, e.rank)
        raise _Unsupported


def _raw(table: list[int]) -> bytes:
    from array import array

    return array("q", table).tobytes()


_ACTIONS = (n.PrintAll, n.PrintCompact, n.PrintOneLine, n.Average, n.Frequency,
            n.Frequency2D)


def compile_script(script: n.Script, fast: Any) -> Program | None:
    """The script as a program for ``fast``, or ``None`` when it uses anything the compiled
    loop does not handle."""
    if script.suit_lengths:
        return None
    actions = script.actions if script.actions is not None else (n.PrintAll(),)
    if not all(isinstance(a, _ACTIONS) for a in actions):
        return None
    points = PointTables.for_script(script)
    prog = Program()
    try:
        prog.condition = prog.add(script.condition, fast, points)
        prog.exprs = tuple(prog.add(e, fast, points)
                           for a in actions for e in n.action_expressions(a))
    except _Unsupported:
        return None
    return prog


_STACK_FORMAT = 2  # the layout of the kept stacker tables


@dataclass(frozen=True)
class Stack:
    """A smart stacker for the compiled loop: ``capsule`` for ``_fast.chunk``."""

    seat: int
    probability: tuple[int, int]  # numerator, denominator
    capsule: Any


def stacker(script: n.Script, fast: Any) -> Stack | None:
    """The stacker :func:`nomic_cards.bridge.exact.stack.stacker_for` would choose for ``script``,
    from the cache when its tables were kept, else built (with numpy) and kept; ``None`` when
    no seat's constraint is worth stacking."""
    if any(script.predeal) or script.suit_lengths:
        return None
    import marshal
    import zlib

    from nomic_cards.bridge.run.cache import private_cache_dir

    points = PointTables.for_script(script)
    key = repr((_STACK_FORMAT, script.condition, points))
    folder = private_cache_dir()
    name = f"stack-{zlib.crc32(key.encode()):08x}-{len(key)}.marshal"
    path = None if folder is None else os.path.join(folder, name)
    spec: dict[str, Any] | None = None
    found = False
    if path is not None:
        try:
            with open(path, "rb") as f:
                kept = marshal.load(f)
            if kept["key"] == key:  # the file name is only a checksum of it
                spec, found = kept["spec"], True
        except (OSError, EOFError, ValueError, TypeError, KeyError):
            pass
    if not found:
        from nomic_cards.bridge.exact.stack import stacker_for

        chosen = stacker_for(script, tables=points)
        spec = None if chosen is None else chosen[1].export()
        if path is not None:
            _keep(path, marshal.dumps({"key": key, "spec": spec}))
    if spec is None:
        return None
    try:
        capsule = fast.stacker(spec["seat"], spec["cumulative"], spec["cells"],
                               spec["row_cells"], spec["cell_add"], spec["sizes"], spec["part"],
                               spec["suits"])
        num, den = spec["probability"]
        return Stack(spec["seat"], (int(num), int(den)), capsule)
    except (KeyError, TypeError, ValueError):
        if not found or path is None:
            raise
        os.replace(path, path + ".bad")  # kept tables that do not fit: build them again
        return stacker(script, fast)


def _keep(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a cache: failures are ignored)."""
    import contextlib
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".stack-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def run(script: n.Script, prog: Program, fast: Any, write: Write, *, generate: int | None,
        produce: int | None, seed: int | None, verbose: bool = True,
        stack: Stack | None = None, jobs: int = 1,
        progress: Callable[[float, float], None] | None = None) -> dict[str, Any]:
    """Run ``script`` (compiled as ``prog``) as :func:`nomic_cards.bridge.run.loop.run` does with
    text output: the same deals, text and summary. With ``jobs`` above 1 (and no stacker, as
    there) worker processes deal the chunks, which come back in order: the same deals."""
    from array import array

    from nomic_cards.bridge.output import layouts
    from nomic_cards.bridge.run.tallies import Tally

    started = time.perf_counter()
    seed = fresh_seed() if seed is None else seed
    gen_limit, prod_limit = limits(script, generate, produce)
    actions = script.actions if script.actions is not None else (n.PrintAll(),)
    printers: list[tuple[type[n.Action], int]] = []
    tallies: list[tuple[Tally, int]] = []
    pos = 0
    for a in actions:
        if isinstance(a, _PRINTERS):
            expr = getattr(a, "expr", None)
            printers.append((type(a), pos if expr is not None else -1))
        elif isinstance(a, n.Frequency | n.Frequency2D | n.Average):
            tallies.append((Tally(a), pos))
        pos += len(n.action_expressions(a))
    predeal = array("H", predeal_masks(script)).tobytes()
    nodes = array("q", prog.nodes).tobytes()
    tables, shapes = b"".join(prog.tables), b"".join(prog.shapes)
    generated = produced = 0
    order = seat_order(script.condition, None if stack is None else stack.seat)
    deal = _ChunkDealer(seed, order, predeal, nodes, tables, shapes, prog.condition, prog.exprs,
                        bool(printers), None if stack is None else stack.capsule)
    chunks = chunks_in_order(deal, 1 if stack is not None else jobs)
    while prod_limit > 0:
        try:
            size, (acc, deals, values) = next(chunks)
        except ZeroDivisionError as exc:
            raise division_by_zero(script.text, prog.divisions[exc.args[0]]) from None
        take, generated, done = chunk_cut(array("i", acc), size, generated, produced,
                                          gen_limit, prod_limit)
        if take:
            columns = [array("q", v)[:take] for v in values]
            for t, at in tallies:
                t.add(columns[at:at + 2])
            if len(printers) == 1 and printers[0][0] is not n.PrintAll:  # in one pass
                kind, at = printers[0]
                write(fast.compact(deals, take, kind is n.PrintOneLine,
                                   None if at < 0 else columns[at].tobytes()))
            elif printers:
                write(layouts.print_flat(array("H", deals), take, printers, columns,
                                         produced + 1))
            produced += take
        if done:
            break
        if progress is not None:  # the nearer of the two limits
            progress(max(generated / gen_limit, produced / prod_limit), 1.0)
        if generated >= gen_limit:
            break
    chunks.close()
    text = [layouts.tally_report(t.action, t.total, t.under, t.over, t.counts, produced)
            for t, _ in tallies]
    write("".join(text))
    seconds = time.perf_counter() - started
    if verbose:
        write(layouts.verbose_report(generated, produced, seed, seconds))
    return {"generated": generated, "produced": produced, "seed": seed, "seconds": seconds}


Dealt = tuple[bytes, bytes, tuple[bytes, ...]]


@dataclass(frozen=True)
class _ChunkDealer:
    """Deals chunk ``index`` of a run (picklable without a stacker, for worker processes)."""

    seed: int
    order: tuple[int, int, int, int]
    predeal: bytes
    nodes: bytes
    tables: bytes
    shapes: bytes
    condition: int
    exprs: tuple[int, ...]
    keep: bool
    stack: Any = None

    def __call__(self, index: int) -> tuple[int, Dealt]:
        size = chunk_size(index)
        fast = extension()
        assert fast is not None
        dealt: Dealt = fast.chunk(seed_words(self.seed, index, 0), size, self.order,
                                  self.predeal,
                                  self.nodes, self.tables, self.shapes, self.condition,
                                  self.exprs, self.keep, self.stack)
        return size, dealt
