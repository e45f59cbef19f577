"""Brute-force oracle for exact statistics, written from docs/randomizers.md alone.

No lumping and no code shared with the package beyond the parser: states are the concrete
process states (a bag is the set of entries already dealt), moves are enumerated from the rules
(every sequence of rolls is walked), and the figures come from dense Gaussian elimination and
plain iteration. Only for small specs whose chain has a single closed class.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

from nomic_cards.randomizers import parse

State = Hashable


class MultipleClasses(Exception):
    """The chain has several closed classes; the oracle only handles one."""


@dataclass
class OracleStats:
    frequency: dict[str, Fraction]
    gap: dict[str, list[Fraction]]
    gap_max: dict[str, int | None]
    first: dict[str, list[Fraction]]
    repeat: Fraction
    all_rolls_fail: Fraction | None


def _solve_stationary(states: list[State], P: dict[State, dict[State, Fraction]]
                      ) -> dict[State, Fraction]:
    """pi P = pi, sum pi = 1, by Gauss-Jordan on the dense transposed system."""
    n = len(states)
    idx = {s: i for i, s in enumerate(states)}
    a = [[Fraction(0)] * (n + 1) for _ in range(n)]
    for s in states:
        for t, p in P[s].items():
            a[idx[t]][idx[s]] += p
    for i in range(n):
        a[i][i] -= 1
    a[n - 1] = [Fraction(1)] * n + [Fraction(1)]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        a[col] = [v * inv for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return {s: a[idx[s]][n] for s in states}


def oracle(text: str, table: int) -> OracleStats:
    spec = parse(text)
    L = spec.pieces
    n = len(L)
    N, M = spec.history, spec.rolls

    def entry_for(name: str, hist: tuple) -> object:  # type: ignore[type-arg]
        ids: list[object] = [i for i in range(n) if L[i] == name] or [("foreign", name)]
        for e in ids:
            if e not in hist:
                return e
        return ids[0]

    def name_of(e: object) -> str:
        return L[e] if isinstance(e, int) else e[1]  # type: ignore[index]

    def push(h: tuple, e: object) -> tuple:  # type: ignore[type-arg]
        h2 = (*h, e)
        return h2[-N:] if N else ()

    fails: dict[State, Fraction] = {}

    def moves(s: State) -> dict[tuple[str, State], Fraction]:
        out: dict[tuple[str, State], Fraction] = {}

        def add(name: str, t: State, p: Fraction) -> None:
            out[(name, t)] = out.get((name, t), Fraction(0)) + p

        if spec.kind == "list":
            for e in range(n):
                add(L[e], (), Fraction(1, n))
        elif spec.kind == "sequence":
            add(L[s], (s + 1) % n, Fraction(1))  # type: ignore[index,operator]
        elif spec.kind == "bag":
            dealt: frozenset[int] = s  # type: ignore[assignment]
            rest = [e for e in range(n) if e not in dealt]
            for e in rest:
                t = dealt | {e}
                add(L[e], frozenset() if len(t) == spec.deal else t, Fraction(1, len(rest)))
        elif not M:
            h: tuple = s  # type: ignore[type-arg,assignment]
            cands = [e for e in range(n) if e not in h]
            for e in cands:
                add(L[e], push(h, e), Fraction(1, len(cands)))
        else:
            h = s  # type: ignore[assignment]
            fail = Fraction(0)

            def roll(k: int, p: Fraction) -> None:
                nonlocal fail
                for e in range(n):
                    q = p / n
                    if e not in h:
                        add(L[e], push(h, e), q)
                    elif k == M:
                        add(L[e], push(h, e), q)
                        fail += q
                    else:
                        roll(k + 1, q)

            roll(1, Fraction(1))
            fails[s] = fail
        return out

    if spec.kind == "list":
        s0: State = ()
    elif spec.kind == "sequence":
        s0 = 0
    elif spec.kind == "bag":
        s0 = frozenset()
    else:
        h0: tuple = ()  # type: ignore[type-arg]
        for name in spec.initial:
            h0 = (*h0, entry_for(name, h0))
        s0 = h0
    start: list[tuple[Fraction, str | None, State]] = []
    if spec.first:
        for f in spec.first:
            s = push(s0, entry_for(f, s0)) if spec.kind == "history" else s0  # type: ignore
            start.append((Fraction(1, len(spec.first)), f, s))
    else:
        start.append((Fraction(1), None, s0))

    # explore
    P: dict[State, dict[tuple[str, State], Fraction]] = {}
    todo = [s for _, _, s in start]
    while todo:
        s = todo.pop()
        if s in P:
            continue
        P[s] = moves(s)
        todo.extend(t for (_, t) in P[s] if t not in P)
    states = list(P)
    succ = {s: {t for (_, t) in P[s]} for s in states}

    def reach(s: State) -> set[State]:
        seen = {s}
        stack = [s]
        while stack:
            for t in succ[stack.pop()]:
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return seen

    reach_of = {s: reach(s) for s in states}
    closed = [s for s in states if all(s in reach_of[t] for t in reach_of[s])]
    if not all(reach_of[s] == reach_of[closed[0]] for s in closed):
        raise MultipleClasses(text)
    plain = {s: {} for s in closed}  # type: ignore[var-annotated]
    for s in closed:
        for (_, t), p in P[s].items():
            plain[s][t] = plain[s].get(t, Fraction(0)) + p
    pi = _solve_stationary(closed, plain)

    names = spec.names

    def emit(s: State, x: str) -> Fraction:
        return sum((p for (y, _), p in P[s].items() if y == x), Fraction(0))

    freq = {x: sum((pi[s] * emit(s, x) for s in closed), Fraction(0)) for x in names}
    repeat = sum((pi[s] * p * emit(t, y) for s in closed for (y, t), p in P[s].items()),
                 Fraction(0))
    gap: dict[str, list[Fraction]] = {}
    gap_max: dict[str, int | None] = {}
    first: dict[str, list[Fraction]] = {}
    for x in names:
        # gaps: distribution after an x, then first x again
        if freq[x]:
            v: dict[State, Fraction] = {}
            for s in closed:
                for (y, t), p in P[s].items():
                    if y == x:
                        v[t] = v.get(t, Fraction(0)) + pi[s] * p
            gap[x] = []
            support = {t for t, p in v.items() if p}
            last = 0
            for k in range(1, max(table, len(states) + 1) + 1):
                got = sum((w * emit(s, x) for s, w in v.items()), Fraction(0))
                if k <= table:
                    gap[x].append(got / freq[x])
                if any(emit(s, x) for s in support):
                    last = k
                nv: dict[State, Fraction] = {}
                for s, w in v.items():
                    for (y, t), p in P[s].items():
                        if y != x:
                            nv[t] = nv.get(t, Fraction(0)) + w * p
                v = nv
                support = {t for s in support for (y, t) in P[s] if y != x}
                if not support:
                    break
            while len(gap[x]) < table:
                gap[x].append(Fraction(0))
            gap_max[x] = None if support else last
        # first appearance from the start
        row: list[Fraction] = []
        v = {}
        for p, f, s in start:
            v[s] = v.get(s, Fraction(0)) + (p if f != x else 0)
        if spec.first:
            row.append(sum((p for p, f, _ in start if f == x), Fraction(0)))
        while len(row) < table:
            row.append(sum((w * emit(s, x) for s, w in v.items()), Fraction(0)))
            nv = {}
            for s, w in v.items():
                for (y, t), p in P[s].items():
                    if y != x:
                        nv[t] = nv.get(t, Fraction(0)) + w * p
            v = nv
        first[x] = row
    fail = sum((pi[s] * fails[s] for s in closed), Fraction(0)) if M else None
    return OracleStats(freq, gap, gap_max, first, repeat, fail)
