"""Exact statistics of a randomizer from its Markov chain (rationals, no simulation).

Definitions (``X_1, X_2, ...`` are the pieces dealt from the real start):

* **frequency** of ``x``: ``lim (1/T) sum_{t<=T} P(X_t = x)`` (the Cesaro limit, which exists for
  every finite chain, periodic or not). A chain with several closed classes (e.g. a strict
  history of ``len(L)-1``) gets the average over the class it falls into from the start.
* **gap**: the distance from an occurrence of ``x`` to the next one (1 = immediately
  repeated), over the long-run occurrences of ``x``; ``gap[k-1] = P(gap = k)``. Its mean is
  computed by Kac's formula (the sum, over closed classes where ``x`` occurs, of the chance of
  falling into the class, divided by the frequency). ``gap_max`` is the longest possible gap, or
  ``None`` when gaps are unbounded.
* **repeat**: the long-run probability that a piece equals the one before it,
  ``sum_x frequency(x) * P(gap_x = 1)``.
* **all_rolls_fail** (specs with rolls): the long-run probability that all ``M`` rolls hit the
  history, so the piece dealt is one already held. With one roll the history never changes what
  is dealt (the chain is the memoryless one) and this is ``1 - (1 - 1/n)^N``.
* **first**: ``first[k-1] = P(x first appears at position k)`` from the real start (position 1
  is the first piece dealt, by ``first`` if there is such a clause); ``first_never`` is the
  probability it never appears, ``first_mean`` its expected position (``None`` when
  ``first_never > 0``), ``first_max`` the latest possible position (``None`` when unbounded or
  when ``x`` cannot appear).

Each piece is analysed on the chain lumped around it (:mod:`~nomic_cards.randomizers.chain`);
pieces that are interchangeable in the list, in the ``first`` list and absent from the initial
history share one analysis. Stationary distributions and hitting values are solved exactly
(:mod:`~nomic_cards.randomizers.exact`); the gap and first-appearance tables are iterated in
integers over a common denominator.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from nomic_cards.randomizers import chain as chainmod
from nomic_cards.randomizers import exact
from nomic_cards.randomizers.generate import as_spec
from nomic_cards.randomizers.model import Layout
from nomic_cards.randomizers.spec import StatsError

MAX_TABLE = 1000


@dataclass(frozen=True)
class PieceStats:
    """Exact statistics of one piece (see the module docstring for definitions)."""

    piece: str
    frequency: Fraction
    gap: tuple[Fraction, ...]
    gap_mean: Fraction | None
    gap_max: int | None
    first: tuple[Fraction, ...]
    first_never: Fraction
    first_mean: Fraction | None
    first_max: int | None

    @property
    def recurs(self) -> bool:
        """Whether the piece keeps appearing in the long run (frequency above 0)."""
        return self.frequency > 0

    @property
    def repeat(self) -> Fraction | None:
        """P(gap = 1): the chance the next piece is this one again, given this one was dealt."""
        return self.gap[0] if self.gap else None


@dataclass(frozen=True)
class Stats:
    """Exact statistics of a spec: one :class:`PieceStats` per piece, and global figures."""

    spec: str
    pieces: tuple[str, ...]
    gaps: int
    per_piece: tuple[PieceStats, ...]
    repeat: Fraction
    all_rolls_fail: Fraction | None
    states: int

    def piece(self, name: str) -> PieceStats:
        """The statistics of piece ``name`` (a :class:`StatsError` if the spec has none)."""
        for ps in self.per_piece:
            if ps.piece == name:
                return ps
        raise StatsError(f"unknown piece '{name}' (pieces: {', '.join(self.pieces)})")

    @property
    def frequencies(self) -> dict[str, Fraction]:
        return {ps.piece: ps.frequency for ps in self.per_piece}


# -- helpers on one chain ---------------------------------------------------------------------
class _Analysis:
    def __init__(self, ch: chainmod.Chain) -> None:
        self.ch = ch
        m = len(ch.reps)
        self.m = m
        self.px = [sum((p for _, isx, p in ch.edges[s] if isx), Fraction(0)) for s in range(m)]
        self.nonx: list[dict[int, Fraction]] = []
        for s in range(m):
            row: dict[int, Fraction] = {}
            for t, isx, p in ch.edges[s]:
                if not isx:
                    row[t] = row.get(t, Fraction(0)) + p
            self.nonx.append(row)
        succ = [sorted({t for t, _, _ in ch.edges[s]}) for s in range(m)]
        comps = exact.components(m, succ)
        self.comp_of = [0] * m
        for ci, comp in enumerate(comps):
            for s in comp:
                self.comp_of[s] = ci
        self.closed = [comp for ci, comp in enumerate(comps)
                       if all(self.comp_of[t] == ci for s in comp for t in succ[s])]
        self._absorb()

    def full_row(self, s: int) -> dict[int, Fraction]:
        row: dict[int, Fraction] = {}
        for t, _, p in self.ch.edges[s]:
            row[t] = row.get(t, Fraction(0)) + p
        return row

    def _absorb(self) -> None:
        ch = self.ch
        in_class = {s: ci for ci, comp in enumerate(self.closed) for s in comp}
        transient = [s for s in range(self.m) if s not in in_class]
        rows = {s: self.full_row(s) for s in transient}
        self.weight: list[Fraction] = []  # chance of ending in each closed class
        for ci in range(len(self.closed)):
            q = {s: {t: p for t, p in row.items() if t not in in_class}
                 for s, row in rows.items()}
            c = {s: sum((p for t, p in row.items() if in_class.get(t) == ci), Fraction(0))
                 for s, row in rows.items()}
            v = exact.solve(transient, q, c) if transient else {}
            total = Fraction(0)
            for p, _, s in ch.start:
                total += p * (Fraction(int(in_class[s] == ci)) if s in in_class else v[s])
            self.weight.append(total)
        self.pi: dict[int, Fraction] = {}  # Cesaro-limit distribution from the real start
        self.class_freq: list[Fraction] = []
        for ci, comp in enumerate(self.closed):
            if self.weight[ci] == 0:
                self.class_freq.append(Fraction(0))
                continue
            dist = exact.stationary(comp, {s: self.full_row(s) for s in comp})
            self.class_freq.append(sum((dist[s] * self.px[s] for s in comp), Fraction(0)))
            for s, mass in dist.items():
                self.pi[s] = self.weight[ci] * mass

    def frequency(self) -> Fraction:
        return sum((v * self.px[s] for s, v in self.pi.items()), Fraction(0))

    def coreach(self) -> set[int]:
        """States from which a path of non-x edges reaches an x edge."""
        preds: list[list[int]] = [[] for _ in range(self.m)]
        for s, row in enumerate(self.nonx):
            for t in row:
                preds[t].append(s)
        found = {s for s in range(self.m) if self.px[s]}
        todo = list(found)
        while todo:
            t = todo.pop()
            for s in preds[t]:
                if s not in found:
                    found.add(s)
                    todo.append(s)
        return found

    def longest(self, sources: Iterable[int], allowed: set[int]) -> int | None:
        """Most deals from a source state up to and including an x deal; None if unbounded."""
        best: dict[int, int] = {}
        grey: set[int] = set()
        for src in sources:
            if src in best or src not in allowed:
                continue
            stack: list[tuple[int, list[int]]] = [
                (src, [t for t in self.nonx[src] if t in allowed])]
            grey.add(src)
            while stack:
                s, todo = stack[-1]
                if todo:
                    t = todo.pop()
                    if t in grey:
                        return None
                    if t not in best:
                        grey.add(t)
                        stack.append((t, [u for u in self.nonx[t] if u in allowed]))
                    continue
                stack.pop()
                grey.discard(s)
                value = 1 if self.px[s] else 0
                for t in self.nonx[s]:
                    if t in allowed:
                        value = max(value, 1 + best[t])
                best[s] = value
        return max((best[s] for s in sources if s in best), default=0)

    def table(self, vec: dict[int, Fraction], length: int) -> list[Fraction]:
        """``[sum_s vec Q^(k-1) px for k = 1..length]`` with Q the non-x moves, in integers."""
        if not vec or length <= 0:
            return [Fraction(0)] * max(length, 0)
        den_d = 1
        for s in range(self.m):
            den_d = math.lcm(den_d, self.px[s].denominator,
                             *(p.denominator for p in self.nonx[s].values()))
        px_n = [int(v * den_d) for v in self.px]
        q_n = [[(t, int(p * den_d)) for t, p in row.items()] for row in self.nonx]
        den_w = math.lcm(*(v.denominator for v in vec.values()))
        cur = {s: int(v * den_w) for s, v in vec.items() if v}
        den = den_w
        out: list[Fraction] = []
        for _ in range(length):
            den *= den_d
            out.append(Fraction(sum(v * px_n[s] for s, v in cur.items()), den))
            nxt: dict[int, int] = {}
            for s, v in cur.items():
                for t, p in q_n[s]:
                    nxt[t] = nxt.get(t, 0) + v * p
            cur = {s: v for s, v in nxt.items() if v}
            if not cur:
                out.extend([Fraction(0)] * (length - len(out)))
                break
            g = math.gcd(den, *cur.values())
            if g > 1:
                den //= g
                cur = {s: v // g for s, v in cur.items()}
        return out


def _piece_stats(lay: Layout, x: int, gaps: int, max_states: int
                 ) -> tuple[PieceStats, _Analysis]:
    ch = chainmod.build(lay, x, max_states)
    an = _Analysis(ch)
    name = lay.names[x]
    freq = an.frequency()
    # -- gaps (Palm distribution of the state right after an x) ------------------------------
    gap: tuple[Fraction, ...] = ()
    gap_mean: Fraction | None = None
    gap_max: int | None = None
    if freq:
        after: dict[int, Fraction] = {}
        for s, v in an.pi.items():
            for t, isx, p in ch.edges[s]:
                if isx:
                    after[t] = after.get(t, Fraction(0)) + v * p
        gap = tuple(v / freq for v in an.table(after, max(gaps, 1)))[:gaps]
        live = sum((an.weight[ci] for ci in range(len(an.closed)) if an.class_freq[ci]),
                   Fraction(0))
        gap_mean = live / freq
        gap_max = an.longest(sorted(after), an.coreach())
    # -- first appearance -----------------------------------------------------------------
    off = ch.offset
    head = Fraction(0)
    vec: dict[int, Fraction] = {}
    for p, first_x, s in ch.start:
        if first_x:
            head += p
        else:
            vec[s] = vec.get(s, Fraction(0)) + p
    first = ([head] if off else []) + an.table(vec, gaps - off)
    first = first[:gaps]
    reach = an.coreach()
    in_class = {s: ci for ci, comp in enumerate(an.closed) for s in comp}
    unknown = [s for s in reach if s not in in_class]
    hits = [Fraction(int(any(an.px[t] for t in comp))) for comp in an.closed]
    known = {s: hits[ci] for s, ci in in_class.items()}
    q = {s: {t: p for t, p in an.nonx[s].items() if t in reach and t not in in_class}
         for s in unknown}
    c = {s: an.px[s] + sum((p * known.get(t, Fraction(0)) for t, p in an.nonx[s].items()
                            if t in in_class), Fraction(0)) for s in unknown}
    ever_v = exact.solve(unknown, q, c) if unknown else {}
    ever = head + sum((p * (known[s] if s in in_class else ever_v.get(s, Fraction(0)))
                       for s, p in vec.items()), Fraction(0))
    never = 1 - ever
    first_mean: Fraction | None = None
    first_max: int | None = None
    if never == 0:
        qm = {s: {t: p for t, p in an.nonx[s].items() if t in reach} for s in reach}
        mean_v = exact.solve(list(reach), qm, {s: Fraction(1) for s in reach})
        first_mean = head + sum((p * (off + mean_v[s]) for s, p in vec.items()), Fraction(0))
    if ever:
        longest = an.longest(sorted(vec), reach)
        if longest is not None:
            first_max = max(off + longest if any(s in reach for s in vec) else 0,
                            1 if head else 0)
    stats = PieceStats(piece=name, frequency=freq, gap=gap, gap_mean=gap_mean,
                       gap_max=gap_max, first=tuple(first), first_never=never,
                       first_mean=first_mean, first_max=first_max)
    return stats, an


def _twins(lay: Layout) -> list[int]:
    """For each piece code, the code of an interchangeable piece analysed instead (or itself).

    Two pieces are interchangeable when they appear equally often in the list and in the
    ``first`` list and neither is in the initial history: swapping their names then maps the
    whole process, start included, onto itself.
    """
    spec = lay.spec
    if spec.kind == "sequence":  # the written order tells the pieces apart
        return list(range(len(lay.names)))
    initial = set(spec.initial)
    seen: dict[tuple[int, int], int] = {}
    out: list[int] = []
    for code, name in enumerate(lay.names):
        if name in initial:
            out.append(code)
            continue
        key = (lay.multiplicity[code], spec.first.count(name))
        out.append(seen.setdefault(key, code))
    return out


def stats(spec: Any, *, gaps: int = 20, max_states: int = chainmod.MAX_STATES) -> Stats:
    """Exact statistics of ``spec`` (text, :class:`Spec` or preset) with tables to ``gaps``."""
    sp = as_spec(spec)
    if isinstance(gaps, bool) or not isinstance(gaps, int) or not 1 <= gaps <= MAX_TABLE:
        raise StatsError(f"the table length must be from 1 to {MAX_TABLE}, not {gaps!r}")
    lay = Layout(sp)
    twins = _twins(lay)
    done: dict[int, PieceStats] = {}
    per: list[PieceStats] = []
    fail: Fraction | None = None
    states = 0
    for code, name in enumerate(lay.names):
        twin = twins[code]
        if twin in done:
            per.append(replace(done[twin], piece=name))
            continue
        ps, an = _piece_stats(lay, code, gaps, max_states)
        states = max(states, an.m)
        done[code] = ps
        per.append(ps)
        if fail is None and sp.rolls > 1:
            fail = sum((v * lay.fail_probability(an.ch.reps[s])  # type: ignore[arg-type]
                        for s, v in an.pi.items()), Fraction(0))
    if sp.rolls == 1:
        # the chain is memoryless; the history holds the last N of i.i.d. uniform entries
        fail = 1 - Fraction(lay.n - 1, lay.n) ** sp.history
    repeat = sum((ps.frequency * ps.gap[0] for ps in per if ps.gap), Fraction(0))
    return Stats(spec=str(sp), pieces=lay.names, gaps=gaps, per_piece=tuple(per),
                 repeat=repeat, all_rolls_fail=fail, states=states)


def as_dict(st: Stats, pieces: Sequence[str] | None = None) -> dict[str, Any]:
    """A JSON-ready form: every fraction as ``{"exact": "p/q", "decimal": float}``."""

    def num(v: Fraction | None) -> dict[str, Any] | None:
        return None if v is None else {"exact": str(v), "decimal": float(v)}

    chosen = [st.piece(p) for p in pieces] if pieces else list(st.per_piece)
    return {
        "spec": st.spec,
        "pieces": list(st.pieces),
        "repeat": num(st.repeat),
        "all_rolls_fail": num(st.all_rolls_fail),
        "states": st.states,
        "table_length": st.gaps,
        "per_piece": [
            {
                "piece": ps.piece,
                "frequency": num(ps.frequency),
                "repeat": num(ps.repeat),
                "gap": [num(v) for v in ps.gap],
                "gap_mean": num(ps.gap_mean),
                "gap_max": ps.gap_max,
                "gap_bounded": ps.recurs and ps.gap_max is not None,
                "first": [num(v) for v in ps.first],
                "first_never": num(ps.first_never),
                "first_mean": num(ps.first_mean),
                "first_max": ps.first_max,
            }
            for ps in chosen
        ],
    }
