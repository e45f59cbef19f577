"""Exact linear algebra on sparse Markov chains with :class:`fractions.Fraction` entries.

* :func:`components` — strongly connected components (iterative Tarjan), sinks first.
* :func:`stationary` — the stationary distribution of an irreducible closed class by state
  reduction (the Grassmann–Taksar–Heyman algorithm: eliminating a state only adds and divides
  by a row sum, never subtracts).
* :func:`solve` — values ``v(s) = c(s) + sum_t q(s,t) v(t)`` on a set of states from which the
  chain leaks (``I - Q`` a nonsingular M-matrix), by Gaussian elimination with diagonal pivots.

Both eliminations work on dict-of-dict rows and pick the next state to eliminate by least
fill (fewest predecessors times successors), which keeps bag and history chains cheap.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from nomic_cards.randomizers.spec import StatsError

WORK_LIMIT = 1_500_000  # entry updates per elimination before giving up (about 10 s)

Rows = dict[int, dict[int, Fraction]]


def components(n: int, succ: Sequence[Iterable[int]]) -> list[list[int]]:
    """Strongly connected components of the graph ``0..n-1 -> succ[i]``, sinks first."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work: list[tuple[int, Iterable[int]]] = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, iter(succ[w])))
                    advanced = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


class _Eliminator:
    """Shared bookkeeping: rows, predecessor sets and a lazy least-fill heap."""

    def __init__(self, rows: Rows, limit: int = WORK_LIMIT) -> None:
        self.rows = rows
        self.work = 0
        self.limit = limit
        self.preds: dict[int, set[int]] = {s: set() for s in rows}
        for s, row in rows.items():
            for t in row:
                if t != s:
                    self.preds[t].add(s)
        self.alive = set(rows)
        self.heap = [(self.cost(s), s) for s in rows]
        heapq.heapify(self.heap)

    def cost(self, s: int) -> int:
        return len(self.preds[s]) * len(self.rows[s])

    def pick(self) -> int:
        while True:
            c, s = heapq.heappop(self.heap)
            if s in self.alive and c == self.cost(s):
                return s
            if s in self.alive:
                heapq.heappush(self.heap, (self.cost(s), s))

    def fold(self, k: int, scale: Mapping[int, Fraction]) -> None:
        """Add ``scale[i] * row[k]`` to every predecessor row ``i`` and drop state ``k``."""
        row_k = self.rows[k]
        self.work += len(scale) * len(row_k)
        if self.work > self.limit:
            raise StatsError(
                f"exact statistics need too much work for this spec (a chain of "
                f"{len(self.rows)} states that fills in); estimate by simulation instead")
        for i, f in scale.items():
            row_i = self.rows[i]
            for t, v in row_k.items():
                row_i[t] = row_i.get(t, 0) + f * v
                if t != i:
                    self.preds[t].add(i)
            heapq.heappush(self.heap, (self.cost(i), i))
        for t in row_k:
            self.preds[t].discard(k)
            if t in self.alive:
                heapq.heappush(self.heap, (self.cost(t), t))
        self.alive.discard(k)


def stationary(states: Sequence[int], probs: Mapping[int, Mapping[int, Fraction]]
               ) -> dict[int, Fraction]:
    """Stationary distribution of a closed irreducible class (``probs[s][t]`` inside it)."""
    if len(states) == 1:
        return {states[0]: Fraction(1)}
    rows: Rows = {s: dict(probs[s]) for s in states}
    el = _Eliminator(rows)
    steps: list[tuple[int, Fraction, dict[int, Fraction]]] = []
    while len(el.alive) > 1:
        k = el.pick()
        row_k = rows[k]
        row_k.pop(k, None)
        total = sum(row_k.values(), Fraction(0))
        inflow = {i: rows[i].pop(k) for i in el.preds[k] if i in el.alive and i != k}
        steps.append((k, total, inflow))
        el.fold(k, {i: p / total for i, p in inflow.items()})
    (root,) = el.alive
    pi: dict[int, Fraction] = {root: Fraction(1)}
    for k, total, inflow in reversed(steps):
        pi[k] = sum((pi[i] * p for i, p in inflow.items()), Fraction(0)) / total
    norm = sum(pi.values(), Fraction(0))
    return {s: v / norm for s, v in pi.items()}


def solve(unknown: Iterable[int], q: Mapping[int, Mapping[int, Fraction]],
          c: Mapping[int, Fraction]) -> dict[int, Fraction]:
    """Solve ``v(s) = c(s) + sum_t q[s][t] v(t)`` for ``s`` in ``unknown``.

    ``q[s]`` may only name states in ``unknown``; fold known values into ``c``. The chain must
    leak from every unknown state (otherwise a pivot is zero and ``ZeroDivisionError`` says the
    caller broke that promise).
    """
    rows: Rows = {s: dict(q.get(s, {})) for s in unknown}
    const: dict[int, Fraction] = {s: Fraction(c.get(s, 0)) for s in rows}
    el = _Eliminator(rows)
    order: list[int] = []
    while el.alive:
        k = el.pick()
        row_k = rows[k]
        pivot = 1 - row_k.pop(k, 0)
        for t in row_k:
            row_k[t] /= pivot
        const[k] /= pivot
        scale = {i: rows[i].pop(k) for i in el.preds[k] if i in el.alive and i != k}
        for i, f in scale.items():
            const[i] += f * const[k]
        el.fold(k, scale)
        order.append(k)
    v: dict[int, Fraction] = {}
    for k in reversed(order):
        v[k] = const[k] + sum((p * v[t] for t, p in rows[k].items()), Fraction(0))
    return v
