"""The best arrangement of many cards as a small integer program (HiGHS, through ``highspy``).

The program counts hands instead of listing them, which keeps it a few hundred variables even
for both packs whole (``m`` below is how many copies of each face there are, at most 2):

* **groups of one rank** (five/four/three of a kind, one pair, high card) and the pairs of
  groups of two different ranks (full house ``3 + 2``, two pair ``2 + 2``) only need the count of
  cards of each rank, whatever their suits;
* **straight flushes** (royal for T...A): one variable per start and suit;
* **straights** of a start ``a``: their number ``k_a`` and, per rank and suit, how many of their
  cards are of that face (``u``): every rank of the straight gives ``k_a`` cards, and no suit gives
  more than ``4 k_a``. Any such table splits into ``k_a`` straights none of which is of a single
  suit (lay them out, and while one is of one suit swap one of its cards with a straight holding
  at most 3 of that suit: :func:`_split_straights`) -- so this counts straights exactly;
* **flushes** of a suit: their number ``F_s`` and how many of their cards are of each face
  (``w``), ``5 F_s`` in all. A single flush must not be five consecutive ranks (that is a
  straight flush). When the straight flush (or royal flush) scores at least as much as a flush,
  nothing needs saying: such a "flush" could be shown as that straight flush instead. Otherwise
  the program says, with ``d`` = "this face is in the flushes twice", for every run ``R`` of five
  ranks: ``sum(w outside R) + sum(d in R) >= F_s`` (true of any real set of flushes; for one
  flush it is exactly "not the run R").

Every arrangement gives a solution of the program with the same value, so the program's optimum
is an upper bound; the solution is then cut into actual hands (:func:`_realize`) and the hands'
total is checked against that bound. HiGHS is run with no relative gap and an absolute gap under
1 on an integer objective, so its optimum is proved. If a solution could not be cut into hands,
the caller falls back to the exhaustive search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nomic_cards.errors import NomicCardsError
from nomic_cards.poker._pookercore import STRAIGHTS, category_of

ROYAL_START = len(STRAIGHTS) - 1
_Pairs = tuple[int, int, dict[str, list[tuple[int, int, int]]]]


class Unrealizable(Exception):
    """A solution of the program that the hand builder could not cut into hands."""


@dataclass
class _Model:
    cost: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    cols: list[list[tuple[int, float]]] = field(default_factory=list)
    row_lo: list[float] = field(default_factory=list)
    row_hi: list[float] = field(default_factory=list)

    def var(self, cost: float, upper: float, integer: bool = True) -> int:
        self.cost.append(cost)
        self.upper.append(upper)
        self.integer.append(integer)
        self.cols.append([])
        return len(self.cost) - 1

    def row(self, terms: Sequence[tuple[int, float]], lo: float, hi: float) -> None:
        r = len(self.row_lo)
        self.row_lo.append(lo)
        self.row_hi.append(hi)
        for j, a in terms:
            self.cols[j].append((r, a))

    def solve(self) -> tuple[list[float], float]:
        import highspy

        solver: Any = highspy.Highs
        try:  # the bare solver prints no banner on stdout
            from highspy._core import _Highs

            solver = _Highs
        except ImportError:  # pragma: no cover - other highspy layouts
            pass
        h = solver()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 0.5)
        h.setOptionValue("mip_allow_restart", False)  # restarts cost more than they save here
        if not self.row_lo:  # HiGHS calls a model without rows "empty": give it one
            self.row([(0, 1.0)], -INF, self.upper[0])
        lp = highspy.HighsLp()
        n = len(self.cost)
        lp.num_col_, lp.num_row_ = n, len(self.row_lo)
        lp.col_cost_ = self.cost
        lp.col_lower_ = [0.0] * n
        lp.col_upper_ = self.upper
        lp.row_lower_ = self.row_lo
        lp.row_upper_ = self.row_hi
        start, index, value = [0], [], []
        for col in self.cols:
            for r, a in col:
                index.append(r)
                value.append(a)
            start.append(len(index))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = start
        lp.a_matrix_.index_ = index
        lp.a_matrix_.value_ = value
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in self.integer]
        lp.sense_ = highspy.ObjSense.kMaximize
        h.passModel(lp)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:  # pragma: no cover
            raise NomicCardsError(f"the integer program was not solved: HiGHS ended with "
                                  f"{h.getModelStatus()}")
        return list(h.getSolution().col_value), float(h.getInfo().objective_function_value)


INF = float("inf")


def solve(cards: Sequence[int], table: dict[str, int], weight: int
          ) -> tuple[int, list[tuple[int, ...]]]:
    """(best value, hands as tuples of faces) for cards with at most two copies of a face."""
    m = [0] * 52
    for c in cards:
        m[c] += 1
    if max(m, default=0) > 2 and not all(
            table[name] >= table["flush"]
            for name in ("five-of-a-kind", "four-of-a-kind", "full-house", "straight-flush",
                         "royal-flush")):
        # three packs or more: five cards of a suit may then be a full house, four or five
        # of a kind, which the program does not tell from a flush; it may leave that to the
        # hand builder only when those score at least as much as a flush
        raise Unrealizable("more than two copies of a face")
    rank_n = [sum(m[q + 13 * s] for s in range(4)) for q in range(13)]

    def val(name: str, size: int) -> int:
        return table[name] * weight - size

    mod = _Model()
    face_terms: list[list[tuple[int, float]]] = [[] for _ in range(52)]
    rank_terms: list[list[tuple[int, float]]] = [[] for _ in range(13)]
    groups: list[tuple[int, str, tuple[int, ...]]] = []  # (var, category, ranks)

    pairs = _rank_parts(mod, rank_n, val, rank_terms, groups)

    # straight flushes
    sfs: list[tuple[int, int, int]] = []  # (var, start, suit)
    for a, ranks in enumerate(STRAIGHTS):
        v = val("royal-flush" if a == ROYAL_START else "straight-flush", 5)
        if v <= 0:
            continue
        for s in range(4):
            if all(m[q + 13 * s] for q in ranks):
                j = mod.var(v, min(m[q + 13 * s] for q in ranks))
                sfs.append((j, a, s))
                for q in ranks:
                    face_terms[q + 13 * s].append((j, 1))

    # straights (not of one suit)
    straights: list[tuple[int, int, dict[int, int]]] = []  # (k var, start, face -> u var)
    v_st = val("straight", 5)
    # when a straight flush and a royal flush score at least as much as a straight, the
    # straights need no suits: one that ends up of a single suit is shown as the straight
    # (or royal) flush it is, for at least as much
    suitless = min(table["straight-flush"], table["royal-flush"]) >= table["straight"]
    if v_st > 0:
        for a, ranks in enumerate(STRAIGHTS):
            if not all(rank_n[q] for q in ranks):
                continue
            k = mod.var(v_st, min(rank_n[q] for q in ranks))
            u: dict[int, int] = {}
            if suitless:
                for q in ranks:
                    rank_terms[q].append((k, 1))
                straights.append((k, a, u))
                continue
            for q in ranks:
                row = []
                for s in range(4):
                    f = q + 13 * s
                    if m[f]:
                        u[f] = mod.var(0.0, m[f])
                        face_terms[f].append((u[f], 1))
                        row.append((u[f], 1.0))
                mod.row([*row, (k, -1.0)], 0.0, 0.0)
            for s in range(4):
                in_suit = [(u[q + 13 * s], 1.0) for q in ranks if q + 13 * s in u]
                if len(in_suit) == 5:
                    mod.row([*in_suit, (k, -4.0)], -INF, 0.0)
            straights.append((k, a, u))

    # flushes
    flushes: list[tuple[int, int, dict[int, int]]] = []  # (F var, suit, face -> w var)
    v_fl = val("flush", 5)
    if v_fl > 0:
        for s in range(4):
            faces = [q + 13 * s for q in range(13) if m[q + 13 * s]]
            total = sum(m[f] for f in faces)
            if total < 5:
                continue
            big_f = mod.var(v_fl, total // 5)
            w = {f: mod.var(0.0, m[f]) for f in faces}
            for f, j in w.items():
                face_terms[f].append((j, 1))
            mod.row([*((j, 1.0) for j in w.values()), (big_f, -5.0)], 0.0, 0.0)
            runs = [ranks for a, ranks in enumerate(STRAIGHTS)
                    if all(m[q + 13 * s] for q in ranks)
                    and table["royal-flush" if a == ROYAL_START else "straight-flush"]
                    < table["flush"]]
            if runs:
                d = {}
                for f, j in w.items():
                    if m[f] == 2:
                        d[f] = mod.var(0.0, 1.0)
                        # d = 1 exactly when the face is in the flushes twice
                        mod.row([(j, 1.0), (d[f], -2.0)], 0.0, INF)
                        mod.row([(j, 1.0), (d[f], -1.0)], -INF, 1.0)
                for ranks in runs:
                    terms = [(j, 1.0) for f, j in w.items() if f % 13 not in ranks]
                    terms += [(dj, 1.0) for f, dj in d.items() if f % 13 in ranks]
                    mod.row([*terms, (big_f, -1.0)], 0.0, INF)
            flushes.append((big_f, s, w))

    # capacities: each face, and each rank for the groups that take any suit
    for f in range(52):
        if face_terms[f]:
            mod.row(face_terms[f], -INF, m[f])
    for q in range(13):
        if rank_terms[q]:
            suit_use = [t for s in range(4) for t in face_terms[q + 13 * s]]
            mod.row([*rank_terms[q], *suit_use], -INF, rank_n[q])

    if not mod.cost:
        return 0, []
    x, obj = mod.solve()
    xi = [round(v) for v in x]
    return round(obj), _realize(table, m, xi, groups, pairs, sfs, straights, flushes)



def _rank_parts(mod: _Model, rank_n: list[int], val: Callable[[str, int], int],
                rank_terms: list[list[tuple[int, float]]],
                groups: list[tuple[int, str, tuple[int, ...]]]) -> _Pairs:
    """Groups of one rank counted one by one, and the parts of full houses (a 3-part and a
    2-part of different ranks) and two pairs (two 2-parts of different ranks) per rank. N parts
    on each side match up with no rank against itself exactly when no rank has more than N
    parts in all (Hall), and 2N 2-parts pair up so exactly when no rank has more than N."""
    for name, size in (("five-of-a-kind", 5), ("four-of-a-kind", 4), ("three-of-a-kind", 3),
                       ("one-pair", 2), ("high-card", 1)):
        v = val(name, size)
        if v <= 0:
            continue
        for q in range(13):
            if rank_n[q] >= size:
                j = mod.var(v, rank_n[q] // size)
                rank_terms[q].append((j, size))
                groups.append((j, name, (q,) * size))
    parts: dict[str, list[tuple[int, int, int]]] = {"fh3": [], "fh2": [], "tp2": []}
    v_fh, v_tp = val("full-house", 5), val("two-pair", 4)
    n_fh = mod.var(v_fh, sum(rank_n) // 5) if v_fh > 0 else -1
    n_tp = mod.var(v_tp, sum(rank_n) // 4) if v_tp > 0 else -1
    for name, total, size, coef in (("fh3", n_fh, 3, 1.0), ("fh2", n_fh, 2, 1.0),
                                    ("tp2", n_tp, 2, 2.0)):
        if total < 0:
            continue
        row = []
        for q in range(13):
            if rank_n[q] >= size:
                j = mod.var(0.0, rank_n[q] // size)
                parts[name].append((j, q, 1))
                rank_terms[q].append((j, size))
                row.append((j, 1.0))
        mod.row([*row, (total, -coef)], 0.0, 0.0)
    for q in range(13):
        if n_fh >= 0:
            mine = [(j, 1.0) for name in ("fh3", "fh2") for j, r, _ in parts[name] if r == q]
            if mine:
                mod.row([*mine, (n_fh, -1.0)], -INF, 0.0)
        if n_tp >= 0:
            mine = [(j, 1.0) for j, r, _ in parts["tp2"] if r == q]
            if mine:
                mod.row([*mine, (n_tp, -1.0)], -INF, 0.0)
    return n_fh, n_tp, parts


def _realize(table: dict[str, int], m: list[int], x: list[int],
             groups: list[tuple[int, str, tuple[int, ...]]],
             pairs: _Pairs,
             sfs: list[tuple[int, int, int]], straights: list[tuple[int, int, dict[int, int]]],
             flushes: list[tuple[int, int, dict[int, int]]]) -> list[tuple[int, ...]]:
    left = list(m)
    hands: list[tuple[int, ...]] = []

    def take(f: int) -> int:
        if left[f] <= 0:
            raise Unrealizable("a face used more often than it is held")
        left[f] -= 1
        return f

    for j, a, s in sfs:
        for _ in range(x[j]):
            hands.append(tuple(take(q + 13 * s) for q in STRAIGHTS[a]))
    for k, a, u in straights:
        if x[k] and u:
            for hand in _split_straights(x[k], STRAIGHTS[a], {f: x[j] for f, j in u.items()}):
                hands.append(tuple(take(f) for f in hand))
    for big_f, _, w in flushes:
        if x[big_f]:
            pool = sorted(f for f, j in w.items() for _ in range(x[j]))
            for flush in _split_flushes(pool, x[big_f], table):
                hands.append(tuple(take(f) for f in flush))
    for k, a, u in straights:
        if x[k] and not u:  # suitless straights: any cards left, spread over the suits
            use: dict[int, int] = {}
            for q in STRAIGHTS[a]:
                for _ in range(x[k]):
                    f = max((q + 13 * s for s in range(4)),
                            key=lambda f: (left[f] - use.get(f, 0), -f))
                    if left[f] - use.get(f, 0) <= 0:
                        raise Unrealizable("a straight rank used more often than it is held")
                    use[f] = use.get(f, 0) + 1
            for hand in _split_straights(x[k], STRAIGHTS[a], use, single_suit_ok=True):
                hands.append(tuple(take(f) for f in hand))
    shapes = [ranks for j, _, ranks in groups for _ in range(x[j])]
    n_fh, n_tp, parts = pairs

    def listed(name: str) -> list[int]:
        return sorted(q for j, q, n in parts[name] for _ in range(n * x[j]))

    if n_tp >= 0 and x[n_tp]:
        twos, k = listed("tp2"), x[n_tp]
        shapes += [(twos[i], twos[i], twos[i + k], twos[i + k]) for i in range(k)]
    if n_fh >= 0 and x[n_fh]:
        shapes += [(a, a, a, b, b) for a, b in _match_apart(listed("fh3"), listed("fh2"))]
    for ranks in shapes:
        hand = []
        for q in ranks:
            f = next((q + 13 * s for s in range(4) if left[q + 13 * s]), -1)
            if f < 0:
                raise Unrealizable("a rank used more often than it is held")
            hand.append(take(f))
        hands.append(tuple(hand))
    return hands


def _match_apart(left: list[int], right: list[int]) -> list[tuple[int, int]]:
    """Pair every rank of ``left`` with one of ``right`` (as many), never equal ranks: a
    bipartite matching by augmenting paths."""
    if len(left) != len(right):
        raise Unrealizable("full house parts do not match")
    match: list[int] = [-1] * len(right)  # right index -> left index

    def augment(i: int, seen: set[int]) -> bool:
        for k, b in enumerate(right):
            if b != left[i] and k not in seen:
                seen.add(k)
                if match[k] < 0 or augment(match[k], seen):
                    match[k] = i
                    return True
        return False

    for i in range(len(left)):
        if not augment(i, set()):
            raise Unrealizable("full house parts of one rank")
    return [(left[match[k]], right[k]) for k in range(len(right))]


def _split_straights(k: int, ranks: Sequence[int], use: dict[int, int],
                     single_suit_ok: bool = False) -> list[list[int]]:
    """``k`` straights on ``ranks`` using each face ``use[f]`` times, none of a single suit
    (or as few as can be, with ``single_suit_ok``)."""
    cols: list[list[int]] = [[] for _ in range(k)]
    for q in ranks:
        row = sorted(f for f, n in use.items() if f % 13 == q for _ in range(n))
        if len(row) != k:
            raise Unrealizable("a straight rank given the wrong number of cards")
        for i, f in enumerate(row):
            cols[i].append(f)
    for _ in range(5 * k + 5):
        mono = next((i for i, c in enumerate(cols) if len({f // 13 for f in c}) == 1), -1)
        if mono < 0:
            return cols
        s = cols[mono][0] // 13
        other = next((i for i, c in enumerate(cols)
                      if sum(f // 13 == s for f in c) <= 3), -1)
        if other < 0:
            if single_suit_ok:
                return cols
            raise Unrealizable("straights all of one suit")
        pos = next(p for p, f in enumerate(cols[other]) if f // 13 != s)
        cols[mono][pos], cols[other][pos] = cols[other][pos], cols[mono][pos]
    raise Unrealizable("straights could not be made of two suits")  # pragma: no cover


def _split_flushes(pool: list[int], n: int, table: dict[str, int]) -> list[tuple[int, ...]]:
    """``pool`` (5n faces of one suit, sorted) cut into ``n`` hands that score at least a flush
    (flushes, or what five cards of a suit are instead when that scores as much); a depth-first
    search that takes the first card of what is left each time."""
    from itertools import combinations

    budget = [20000]

    def go(rest: tuple[int, ...]) -> list[tuple[int, ...]] | None:
        if not rest:
            return []
        first, others = rest[0], rest[1:]
        tried: set[tuple[int, ...]] = set()
        for idx in combinations(range(len(others)), 4):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            hand = (first, *(others[i] for i in idx))
            if hand in tried or table[category_of(hand)] < table["flush"]:
                continue
            tried.add(hand)
            remaining = list(others)
            for i in reversed(idx):
                del remaining[i]
            tail = go(tuple(remaining))
            if tail is not None:
                return [hand, *tail]
        return None

    if len(pool) != 5 * n:
        raise Unrealizable("flush cards not a multiple of five")
    out = go(tuple(pool))
    if out is None:
        raise Unrealizable("flush cards that make no flushes")
    return out
