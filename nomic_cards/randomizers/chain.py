"""The Markov chain of a spec, lumped by symmetry around one chosen piece.

The exact chain of a randomizer can be large (a 20-card deal from 24 cards has millions of bag
states), but every question asked about one piece ``x`` is unchanged by renaming the *other*
pieces among themselves when they appear equally often in the list, and by permuting the
entries of one name. Those renamings form a group ``G_x``; its orbits are lumpable (each state of
an orbit moves to each other orbit with the same probability), so the chain on orbits answers
every question about ``x`` exactly. :func:`build` explores the orbits reachable from the real
start, each represented by a canonical state:

* list: one state;
* bag: per-piece counts dealt from the current bag; within each class of equally frequent pieces
  (``x`` alone in its class) the counts are sorted in decreasing order;
* sequence: the position (no symmetry is used);
* history: the entries, oldest first, relabelled in order of first appearance — each new piece
  becomes the next unused piece of its class, each new entry of it the next unused entry.

Edges carry their probability and whether they deal ``x``. For TGM1 this gives 52 orbits around
any piece instead of 2,401 histories.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction

from nomic_cards.randomizers.model import Layout
from nomic_cards.randomizers.spec import StatsError

MAX_STATES = 20_000

State = Hashable


@dataclass
class Chain:
    """A lumped chain around piece ``x`` (``None``: no piece distinguished).

    ``edges[s]`` lists ``(target, deals_x, probability)``; ``start`` lists
    ``(probability, first_is_x, state)`` where ``first_is_x`` is ``None`` without a ``first``
    clause and otherwise says whether the first piece (dealt by ``first``) is ``x``.
    ``reps[s]`` is the canonical representative state of orbit ``s``.
    """

    x: int | None
    reps: list[State] = field(default_factory=list)
    edges: list[list[tuple[int, bool, Fraction]]] = field(default_factory=list)
    start: list[tuple[Fraction, bool | None, int]] = field(default_factory=list)

    @property
    def offset(self) -> int:
        """1 when a ``first`` clause deals position 1 before the chain runs, else 0."""
        return 0 if self.start[0][1] is None else 1


class _Canon:
    """Canonical representatives of ``G_x`` orbits for one layout."""

    def __init__(self, lay: Layout, x: int | None) -> None:
        self.lay = lay
        classes: dict[object, list[int]] = {}
        self.class_of: list[object] = []
        for code, mult in enumerate(lay.multiplicity):
            key: object = "x" if code == x else mult
            self.class_of.append(key)
            classes.setdefault(key, []).append(code)
        self.members = classes

    def bag(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        out = list(counts)
        for key, codes in self.members.items():
            if key == "x" or len(codes) < 2:
                continue
            for code, value in zip(codes, sorted((counts[c] for c in codes), reverse=True),
                                   strict=True):
                out[code] = value
        return tuple(out)

    def history(self, h: tuple[int, ...]) -> tuple[int, ...]:
        lay = self.lay
        entry_piece, piece_entries = lay.entry_piece, lay.piece_entries
        pmap: dict[int, int] = {}
        emap: dict[int, int] = {}
        used_class: dict[object, int] = {}
        used_piece: dict[int, int] = {}
        out: list[int] = []
        for e in h:
            ce = emap.get(e)
            if ce is None:
                y = entry_piece[e]
                cy = pmap.get(y)
                if cy is None:
                    key = self.class_of[y]
                    k = used_class.get(key, 0)
                    used_class[key] = k + 1
                    cy = self.members[key][k]
                    pmap[y] = cy
                k2 = used_piece.get(cy, 0)
                used_piece[cy] = k2 + 1
                ce = piece_entries[cy][k2]
                emap[e] = ce
            out.append(ce)
        return tuple(out)


Moves = list[tuple[Fraction, int, State]]


def _kind_functions(lay: Layout, canon: _Canon
                    ) -> tuple[State, Callable[[State], Moves], Callable[[State], State],
                               Callable[[State, int], State]]:
    """(initial state, moves(state) -> [(p, piece, next)], canonicalise, after_first)."""
    spec, n = lay.spec, lay.n
    entry_piece = lay.entry_piece
    if spec.kind == "list" or spec.rolls == 1 or (spec.kind == "history" and not spec.history):
        # one roll, or no history: the history never changes a deal, so it is not state
        counts: dict[int, int] = {}
        for e in range(n):
            counts[entry_piece[e]] = counts.get(entry_piece[e], 0) + 1
        list_moves: Moves = [(Fraction(m, n), y, ()) for y, m in counts.items()]
        return (), lambda s: list_moves, lambda s: s, lambda s, f: s
    if spec.kind == "sequence":
        return (0, lambda s: [(Fraction(1), entry_piece[s], (s + 1) % n)],
                lambda s: s, lambda s, f: s)
    if spec.kind == "bag":
        mult = lay.multiplicity
        zero = (0,) * len(mult)

        def bag_moves(s: State) -> Moves:
            c: tuple[int, ...] = s  # type: ignore[assignment]
            dealt = sum(c)
            left = n - dealt
            out: Moves = []
            for y, m in enumerate(mult):
                if m > c[y]:
                    nxt = zero if dealt + 1 == spec.deal else c[:y] + (c[y] + 1,) + c[y + 1:]
                    out.append((Fraction(m - c[y], left), y, nxt))
            return out

        return zero, bag_moves, canon.bag, lambda s, f: s  # type: ignore[return-value]

    def hist_moves(s: State) -> Moves:
        h: tuple[int, ...] = s  # type: ignore[assignment]
        return [(p, entry_piece[e], lay.push(h, e)) for p, e in lay.history_moves(h)]

    def after_first(s: State, f: int) -> State:
        h: tuple[int, ...] = s  # type: ignore[assignment]
        return lay.push(h, lay.entry_for(f, h))

    return lay.initial_history, hist_moves, canon.history, after_first  # type: ignore


def build(lay: Layout, x: int | None, max_states: int = MAX_STATES) -> Chain:
    """The chain of orbits around piece code ``x`` reachable from the real start."""
    canon = _Canon(lay, x)
    s0, moves, canonical, after_first = _kind_functions(lay, canon)
    chain = Chain(x)
    index: dict[State, int] = {}
    queue: deque[int] = deque()

    def intern(state: State) -> int:
        rep = canonical(state)
        i = index.get(rep)
        if i is None:
            if len(chain.reps) >= max_states:
                raise StatsError(
                    f"too many states for exact statistics (more than {max_states})")
            i = index[rep] = len(chain.reps)
            chain.reps.append(rep)
            chain.edges.append([])
            queue.append(i)
        return i

    first = lay.first_codes
    if first:
        start: dict[tuple[bool, int], Fraction] = {}
        for f in first:
            key = (f == x, intern(after_first(s0, f)))
            start[key] = start.get(key, Fraction(0)) + Fraction(1, len(first))
        chain.start = [(p, isx, t) for (isx, t), p in start.items()]
    else:
        chain.start = [(Fraction(1), None, intern(s0))]
    while queue:
        i = queue.popleft()
        agg: dict[tuple[int, bool], Fraction] = {}
        for p, y, nxt in moves(chain.reps[i]):
            edge = (intern(nxt), y == x)
            agg[edge] = agg.get(edge, Fraction(0)) + p
        chain.edges[i] = [(t, isx, p) for (t, isx), p in agg.items()]
    return chain
