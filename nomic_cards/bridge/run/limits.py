"""What a run of a dealer script deals: its limits, its chunks and its seed.

Shared by the numpy run loop (:mod:`nomic_cards.bridge.run.loop`) and the compiled fast path
(:mod:`nomic_cards.bridge.run.fast`), which must deal the same chunks to give the same deals;
numpy-free.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable, Generator
from typing import Any, Protocol, TypeVar

from nomic_cards.bridge.language import nodes as n

T = TypeVar("T")


class Rows(Protocol):
    """Ascending row numbers: a list, an ``array`` or a numpy array."""

    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> Any: ...

CHUNK = 1 << 15
SOLVER_CHUNK = 32  # scripts calling tricks(): one solver batch at a time
DEFAULT_GENERATE = 10_000_000  # dealer.c's value (its manual says 1,000,000)
DEFAULT_PRODUCE_PRINTING = 40


def chunk_size(index: int, *, solver: bool = False) -> int:
    """Deals in chunk ``index``: 1024, 2048, ... up to :data:`CHUNK` (small scripts start
    fast), or 32 for scripts that call the double-dummy solver. The schedule depends only on
    the script, so it does not make the deals depend on anything else."""
    return SOLVER_CHUNK if solver else min(CHUNK, 1024 << min(index, 5))


def limits(script: n.Script, generate: int | None, produce: int | None) -> tuple[int, int]:
    """(generate, produce): the command line's (``None``: not given) first, then the script's,
    then dealer's defaults."""
    generate = generate or script.generate or DEFAULT_GENERATE
    produce = produce or script.produce
    if not produce:
        printing = script.actions is None or script.will_print
        produce = DEFAULT_PRODUCE_PRINTING if printing else generate
    return generate, produce


def chunk_cut(accepted: Rows, size: int, generated: int, produced: int, generate: int,
              produce: int) -> tuple[int, int, bool]:
    """Where a run stops within a chunk of ``size`` deals whose accepted rows are ``accepted``
    (ascending), ``generated`` deals having been looked at and ``produced`` kept before it: how
    many of its accepted deals to keep, the deals looked at after it, and whether ``produce`` is
    reached (the run then ends at the last deal kept, as dealer's does)."""
    left_gen, left_prod = generate - generated, produce - produced
    take = min(bisect_left(accepted, left_gen), left_prod)
    if take == left_prod:
        return take, generated + int(accepted[take - 1]) + 1, True
    return take, generated + min(size, left_gen), False


def predeal_masks(script: n.Script) -> list[int]:
    """The predealt cards as 16 suit masks, seat by seat (North first), spades first."""
    masks = [0] * 16
    for seat, cards in enumerate(script.predeal):
        for suit, rank in cards:
            masks[4 * seat + suit] |= 1 << rank
    return masks


def fresh_seed() -> int:
    """A new seed from the operating system (printed so the run can be repeated)."""
    return int.from_bytes(os.urandom(8), "little") >> 1


def chunks_in_order(work: Callable[[int], T], jobs: int,
                    initializer: Callable[..., object] | None = None,
                    initargs: tuple[Any, ...] = ()) -> Generator[T, None, None]:
    """``work(0)``, ``work(1)``, ... in order, endlessly: in this process when ``jobs`` is 1,
    else computed ahead (two per worker) by ``jobs`` worker processes, started with
    ``initializer(*initargs)``. Closing the iterator shuts the workers down."""
    if jobs <= 1:
        index = 0
        while True:
            yield work(index)
            index += 1
    from concurrent.futures import Future, ProcessPoolExecutor

    with ProcessPoolExecutor(jobs, initializer=initializer, initargs=initargs) as pool:
        pending: list[Future[T]] = []
        index = 0
        try:
            while True:
                while len(pending) < 2 * jobs:
                    pending.append(pool.submit(work, index))
                    index += 1
                yield pending.pop(0).result()
        finally:
            for f in pending:
                f.cancel()
