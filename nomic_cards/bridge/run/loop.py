"""Running a dealer script: deal in batches, keep the deals the condition accepts, act.

Deals come in chunks of :data:`CHUNK`. Chunk ``k`` draws from its own stream, PCG64 seeded
by ``numpy.random.SeedSequence(seed, spawn_key=(k, 0))`` (a child stream of the seed, as
``SeedSequence.spawn`` makes), as docs/bridge.md specifies (:mod:`nomic_cards.bridge.deal.stream`),
so what a chunk deals depends only on the seed, the script and ``k``: with ``jobs > 1`` worker
processes deal chunks in parallel and the results, taken in chunk order, are the same as with
one process. Generating stops, as in dealer, once
``produce`` deals were accepted or ``generate`` deals were looked at.

``dealer_compatible=True`` replaces the dealing by Debian dealer's own shuffle and random
generator (:mod:`nomic_cards.bridge.deal.compat`), so the same seed gives dealer's deals.

A *stacker* can supply one seat's hands instead of dealing them: a callable
``stacker(bits, n) -> (seat, masks)`` (``bits`` the chunk's PCG64) returning ``n`` hands for
``seat`` as ``(n, 4)`` suit masks; the other seats are then dealt uniformly from the cards left.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deal.batch import HandBatch, LazyDeals
from nomic_cards.bridge.deal.evaluate import DEALER_IMPS, WBF_IMPS, Context, Evaluator
from nomic_cards.bridge.deal.stream import seat_order
from nomic_cards.bridge.deal.tables import PointTables
from nomic_cards.bridge.errors import ScriptRuntimeError
from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.run.actions import ActionRunner, RunInfo, action_exprs
from nomic_cards.bridge.run.limits import CHUNK as CHUNK
from nomic_cards.bridge.run.limits import chunk_cut, chunk_size, chunks_in_order, fresh_seed
from nomic_cards.bridge.run.limits import limits as run_limits
from nomic_cards.bridge.run.limits import predeal_masks as limits_predeal

if TYPE_CHECKING:
    from nomic_cards.bridge.deal.compat import DealerShuffle, ScalarDealer

U16 = NDArray[np.uint16]
I64 = NDArray[np.int64]
Stacker = Callable[[np.random.BitGenerator, int], tuple[int, U16]]


@dataclass(frozen=True)
class RunOptions:
    """Command-line settings; ``None`` leaves the script's value (or dealer's default)."""

    generate: int | None = None
    produce: int | None = None
    seed: int | None = None
    jobs: int = 1
    fmt: str = "text"
    dealer_compatible: bool = False
    swapping: int = 0
    strict: bool = False
    verbose: bool = True
    event_file: str = "-"
    stacker: Stacker | None = None
    dd: bool = False


@dataclass
class Chunk:
    """What one chunk of deals produced: accepted row numbers, their full deals (``(k, 0,
    0)`` when no action prints them), and the values of the actions' expressions for them."""

    index: int
    size: int
    accepted: I64
    deals: U16
    values: list[I64]


def limits(script: n.Script, opts: RunOptions) -> tuple[int, int]:
    """(generate, produce): command line first, then the script, then dealer's defaults."""
    return run_limits(script, opts.generate, opts.produce)


def predeal_masks(script: n.Script) -> U16:
    """The predealt cards as ``(4 seats, 4 suits)`` masks."""
    return np.array(limits_predeal(script), dtype=np.uint16).reshape(4, 4)


class ChunkDealer:
    """Deals and judges chunks of one script (one per process)."""

    def __init__(self, script: n.Script, opts: RunOptions, seed: int) -> None:
        self.script = script
        self.opts = opts
        self.seed = seed
        tables = PointTables.for_script(script, dealer_compatible=opts.dealer_compatible)
        imps = DEALER_IMPS if opts.dealer_compatible else WBF_IMPS
        self.evaluator = Evaluator(script.text, tables, imp_table=imps)
        self.exprs = action_exprs(script.actions or ())
        actions = script.actions if script.actions is not None else (n.PrintAll(),)
        # the produced deals themselves are needed only to print them (or solve them)
        self.keep_deals = opts.fmt != "text" or opts.dd or any(
            isinstance(a, n.PrintAll | n.PrintEW | n.PrintCompact | n.PrintOneLine
                       | n.PrintPBN | n.Print) for a in actions)
        self.predeal = predeal_masks(script)
        self.uses_tricks = n.script_uses(script, n.Tricks)
        if self.uses_tricks:
            from nomic_cards.bridge.run.dd import require

            require()
        self.compat: DealerShuffle | None = None
        self.scalar: ScalarDealer | None = None
        predeal = [list(c) for c in script.predeal]
        if opts.dealer_compatible:
            from nomic_cards.bridge.deal.compat import DealerShuffle, ScalarDealer
        if opts.dealer_compatible and n.script_uses(script, n.Rnd):
            self.scalar = ScalarDealer(seed, predeal, opts.swapping)
        elif opts.dealer_compatible:
            self.compat = DealerShuffle(seed, predeal, opts.swapping)

    def rng(self, index: int, stream: int = 0) -> np.random.BitGenerator:
        return np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(index, stream)))

    def _scalar_chunk(self, index: int, size: int) -> Chunk:
        """Deal by deal, so that rnd() draws from dealer's stream when dealer does."""
        assert self.scalar is not None
        from nomic_cards.bridge.deal.compat import to_masks

        accepted: list[int] = []
        deals: list[U16] = []
        values: list[list[int]] = [[] for _ in self.exprs]
        for row in range(size):
            batch = HandBatch(to_masks(self.scalar.next()[None]))
            ctx = Context(batch, rnd=self.scalar.rnd)
            if self.evaluator.truth(self.script.condition, ctx)[0]:
                accepted.append(row)
                deals.append(batch.masks[0].copy())
                for column, e in zip(values, self.exprs, strict=True):
                    column.append(int(self.evaluator.values(e, ctx)[0]))
        return Chunk(index, size, np.array(accepted, dtype=np.int64),
                     np.array(deals, dtype=np.uint16).reshape(len(deals), 4, 4),
                     [np.array(v, dtype=np.int64) for v in values])

    def chunk(self, index: int) -> Chunk:
        if self.scalar is not None:
            return self._scalar_chunk(index, chunk_size(index, solver=True))
        rng = self.rng(index)
        size = chunk_size(index, solver=self.uses_tricks)
        batch: HandBatch
        if self.compat is not None:
            from nomic_cards.bridge.deal.compat import to_masks

            batch = HandBatch(to_masks(self.compat.next_deals(size)))
        else:
            first, placed = (None, None) if self.opts.stacker is None else (
                self.opts.stacker(rng, size))
            batch = LazyDeals(size, rng, self.predeal,
                              seat_order(self.script.condition, first), placed)
        tricks = None
        if self.uses_tricks:
            from nomic_cards.bridge.run.dd import TricksCache

            tricks = TricksCache()
        ctx = Context(batch, rng=self.rng(index, 1), tricks=tricks)
        ok = self.evaluator.truth(self.script.condition, ctx)
        if not self.opts.dealer_compatible:
            for want in self.script.suit_lengths:
                rows = np.flatnonzero(ok)
                length = n.Length(want.seat, want.suit)
                ok[rows] = self.evaluator.values(length, ctx, rows) == want.count
        accepted = np.flatnonzero(ok)
        # every deal accepted (no condition): evaluate on the whole batch, which reuses what
        # the condition computed and spares the gathers of an index array
        every: I64 | None = None if len(accepted) == size else accepted
        values = [self.evaluator.values(e, ctx, every) for e in self.exprs]
        if not self.keep_deals:  # the seats no one looked at need not be dealt
            return Chunk(index, size, accepted,
                         np.empty((len(accepted), 0, 0), dtype=np.uint16), values)
        if isinstance(batch, LazyDeals):
            batch.complete(every)
        return Chunk(index, size, accepted, batch.masks[accepted].copy(), values)


_WORKER: ChunkDealer | None = None


def _init_worker(text: str, opts: RunOptions, seed: int) -> None:
    global _WORKER
    _WORKER = ChunkDealer(parse_script(text, strict=opts.strict), opts, seed)


def _work(index: int) -> Chunk:
    assert _WORKER is not None
    return _WORKER.chunk(index)


def _chunks(script: n.Script, opts: RunOptions, seed: int) -> Iterator[Chunk]:
    jobs = 1 if opts.dealer_compatible or opts.stacker is not None else max(1, opts.jobs)
    if jobs == 1:
        return chunks_in_order(ChunkDealer(script, opts, seed).chunk, 1)
    return chunks_in_order(_work, jobs, _init_worker, (script.text, opts, seed))


def run(script: n.Script, opts: RunOptions, write: Callable[[str], object], *,
        report: Callable[[str], object] | None = None,
        progress: Callable[[float, float], None] | None = None) -> dict[str, Any]:
    """Run ``script``; text goes to ``write`` (reports of non-text formats to ``report``).
    Returns a summary: generated, produced, seed, seconds and the action reports."""
    started = time.perf_counter()
    seed = fresh_seed() if opts.seed is None else opts.seed
    if opts.dealer_compatible:
        seed &= (1 << 64) - 1
    generate, produce = limits(script, opts)
    actions = script.actions if script.actions is not None else (n.PrintAll(),)
    if any(isinstance(a, n.EvalContract) for a in actions):
        raise ScriptRuntimeError("evalcontract is not supported: use tricks() and score()")
    if opts.dd:
        from nomic_cards.bridge.run.dd import require

        require()
    info = RunInfo(opts.event_file, seed, time.strftime("%Y.%m.%d"), script.dealer,
                   None if script.vulnerable is None else
                   ("none", "NS", "EW", "all").index(script.vulnerable),
                   dealer_compatible=opts.dealer_compatible)
    runner = ActionRunner(actions, info, write, fmt=opts.fmt, report=report)
    generated = 0
    if produce > 0:
        for chunk in _chunks(script, opts, seed):
            take, generated, done = chunk_cut(chunk.accepted, chunk.size, generated,
                                              runner.produced, generate, produce)
            runner.feed(chunk.deals[:take], [v[:take] for v in chunk.values],
                        _dd(chunk.deals[:take], runner.produced, info) if opts.dd else None)
            if done:
                break
            if progress is not None:  # the nearer of the two limits
                progress(max(generated / generate, runner.produced / produce), 1.0)
            if generated >= generate:
                break
    summary = runner.finish(generated, started)
    verbose = opts.verbose != runner.verbose_flipped
    if opts.fmt == "text" and verbose:
        write(_verbose(generated, runner.produced, seed, summary["seconds"]))
    return summary


def _dd(deals: U16, produced: int, info: RunInfo) -> list[Any]:
    """Double-dummy results for boards ``produced + 1 ...`` (dealer/vulnerability rotating)."""
    from nomic_cards.bridge.output.formats import board
    from nomic_cards.bridge.run.dd import solve

    boards = [board(produced + k + 1, d, dealer=info.dealer, vulnerable=info.vulnerable)
              for k, d in enumerate(deals)]
    return list(solve(list(deals), vulnerable=[b.vulnerable for b in boards],
                      dealers=[b.dealer for b in boards]))


def _verbose(generated: int, produced: int, seed: int, seconds: float) -> str:
    from nomic_cards.bridge.output.layouts import verbose_report

    return verbose_report(generated, produced, seed, seconds)
