"""Simulation: the statistics of :mod:`~nomic_cards.randomizers.stats`, estimated by dealing.

Used to cross-check the exact figures (``nomic-cards randomizer stats --simulate N``).

* One long run of ``count`` pieces from ``Randomizer(spec, seed)`` (batch mode) gives the
  frequencies, the repeat rate, the gap histogram of each piece (over the gaps observed) and,
  for specs with rolls, the rate at which the piece dealt was already in the history — which
  happens exactly when every roll failed.
* First appearance needs fresh starts: ``runs`` independent randomizers (default
  ``min(count // gaps, 20000)``, at least 1) deal ``gaps`` pieces each; their seeds are the words
  of the stream of ``seed XOR 0x5851F42D4C957F2D``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nomic_cards.errors import InputError
from nomic_cards.randomizers.generate import Randomizer, as_spec, check_seed
from nomic_cards.randomizers.model import Layout
from nomic_cards.randomizers.rng import words

RUN_SEED_XOR = 0x5851F42D4C957F2D


@dataclass(frozen=True)
class PieceSimulation:
    """Estimates for one piece; ``first_later`` is the share of runs where it did not appear
    within ``gaps`` pieces."""

    piece: str
    frequency: float
    gap: tuple[float, ...]
    gap_mean: float | None
    gap_max_seen: int | None
    first: tuple[float, ...]
    first_later: float


@dataclass(frozen=True)
class Simulation:
    """Estimates from ``count`` pieces of one run and ``runs`` short runs from the start."""

    spec: str
    seed: int
    count: int
    runs: int
    per_piece: tuple[PieceSimulation, ...]
    repeat: float
    all_rolls_fail: float | None

    def piece(self, name: str) -> PieceSimulation:
        for ps in self.per_piece:
            if ps.piece == name:
                return ps
        raise InputError(f"unknown piece '{name}'")


def _fail_rate(lay: Layout, entries: np.ndarray) -> float:
    spec = lay.spec
    init = np.array(lay.initial_history, dtype=np.int64)
    ext = np.concatenate([init, entries.astype(np.int64)])
    base = len(init)
    t = np.arange(1 if spec.first else 0, len(entries))
    if len(t) == 0:
        return 0.0
    fail = np.zeros(len(t), dtype=bool)
    for lag in range(1, spec.history + 1):
        idx = base + t - lag
        ok = idx >= 0
        fail[ok] |= ext[base + t[ok]] == ext[idx[ok]]
    return float(fail.mean())


def simulate(spec: Any, count: int, *, seed: int = 0, gaps: int = 20,
             runs: int | None = None) -> Simulation:
    """Estimate the statistics of ``spec`` by dealing (see the module docstring)."""
    sp = as_spec(spec)
    check_seed(seed)
    if isinstance(count, bool) or not isinstance(count, int) or count < 2:
        raise InputError(f"a simulation needs at least 2 pieces, not {count!r}")
    if not isinstance(gaps, int) or gaps < 1:
        raise InputError(f"the table length must be at least 1, not {gaps!r}")
    if runs is None:
        runs = max(1, min(count // gaps, 20_000))
    lay = Layout(sp)
    r = Randomizer(sp, seed=seed)
    entries = r.batch_entries(count)
    codes = np.asarray(lay.entry_piece, dtype=np.int32)[entries]
    npieces = len(lay.names)
    freq = np.bincount(codes, minlength=npieces) / count
    repeat = float(np.mean(codes[1:] == codes[:-1]))
    fail = _fail_rate(lay, entries) if sp.rolls else None

    firsts = np.full((runs, npieces), gaps + 1, dtype=np.int64)
    run_seeds = words(seed ^ RUN_SEED_XOR, 0, runs).tolist()
    for j, s in enumerate(run_seeds):
        dealt = Randomizer(sp, seed=int(s)).batch(gaps)
        for pos in range(gaps - 1, -1, -1):
            firsts[j, dealt[pos]] = pos + 1
    per: list[PieceSimulation] = []
    for x, name in enumerate(lay.names):
        where = np.flatnonzero(codes == x)
        d = np.diff(where)
        if len(d):
            hist = np.bincount(d, minlength=gaps + 1)[1:gaps + 1] / len(d)
            gap = tuple(float(v) for v in hist)
            gap_mean: float | None = float(d.mean())
            gap_max: int | None = int(d.max())
        else:
            gap, gap_mean, gap_max = (), None, None
        fh = np.bincount(firsts[:, x], minlength=gaps + 2) / runs
        per.append(PieceSimulation(
            piece=name, frequency=float(freq[x]), gap=gap, gap_mean=gap_mean,
            gap_max_seen=gap_max, first=tuple(float(v) for v in fh[1:gaps + 1]),
            first_later=float(fh[gaps + 1])))
    return Simulation(spec=str(sp), seed=seed, count=count, runs=runs, per_piece=tuple(per),
                      repeat=repeat, all_rolls_fail=fail)
