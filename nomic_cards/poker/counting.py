"""Tables by enumeration: every 5-card hand of a pack, counted by category.

:func:`table` deals every hand of a pack (52 cards plus any jokers), evaluates all of them with
the batch evaluator and reports, per category, the number of hands and of distinct values --
the paper's "Counting out the hands" and "Recounting the hands in Deuces Wild" tables, for any
wild set. :func:`all_hands` lists the hands column by column in the paper's NE order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb

from nomic_cards.errors import InputError
from nomic_cards.poker.classes import GAMES, Type
from nomic_cards.poker.codes import FACES, WildSet, wild_set
from nomic_cards.poker.shipped import game_tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import numpy as np
    from numpy.typing import NDArray


@cache
def all_hands(n: int = FACES, k: int = 5) -> tuple[NDArray[np.uint8], ...]:
    """Every ``k``-subset of ``0...n-1`` in lexicographic (NE) order, as ``k`` column arrays."""
    import numpy as np

    if not 0 < k <= n <= 255:
        raise InputError(f"cannot list {k}-card hands of a {n}-card pack")
    cols = [np.arange(n - k + 1, dtype=np.uint8)]
    for level in range(1, k):
        last = cols[-1].astype(np.int32)
        # the next card runs from last+1 up to n-k+level, leaving room for the rest
        cnt = (n - k + level) - last
        total = int(cnt.sum())
        rep = np.repeat(np.arange(len(last), dtype=np.int32), cnt)
        start = (np.cumsum(cnt) - cnt).astype(np.int32)
        nxt = (last + 1 - start)[rep] + np.arange(total, dtype=np.int32)
        cols = [c[rep] for c in cols] + [nxt.astype(np.uint8)]
    out = tuple(cols)
    assert len(out[0]) == comb(n, k)
    return out


@dataclass(frozen=True)
class TableRow:
    """One category: how many hands fall in it and how many different values they take."""

    category: str
    t: int
    hands: int
    distinct: int


@dataclass(frozen=True)
class Table:
    """Counts for every category (best first) and the totals."""

    game: str
    wild: str
    jokers: int
    rows: tuple[TableRow, ...]
    hands: int
    distinct: int


def table(*, wild: WildSet | str | Any = None, jokers: int = 0, game: str = "high") -> Table:
    """Count every 5-card hand of a 52-card pack plus ``jokers`` by category."""
    import numpy as np

    from nomic_cards.poker.evaluate import evaluate_columns

    if not 0 <= jokers <= 8:
        raise InputError(f"jokers must be 0...8, not {jokers}")
    if game not in GAMES:
        raise InputError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    ws = wild_set(wild)
    gt = game_tables(game)
    cols = all_hands(FACES + jokers)
    v = evaluate_columns(list(cols), wild=ws, game=game)
    qualified = v >= 0
    counts = np.bincount(v[qualified], minlength=gt.n_values)
    per_t_hands = np.zeros(10, dtype=np.int64)
    per_t_dist = np.zeros(10, dtype=np.int64)
    ts = np.frombuffer(gt.types(), dtype=np.uint8).astype(np.intp)
    np.add.at(per_t_hands, ts, counts)
    np.add.at(per_t_dist, ts, counts > 0)
    present = sorted(set(ts.tolist()), reverse=True)
    if game == "high":
        present = list(range(9, -1, -1))
    rows = [TableRow(Type(t).title, t, int(per_t_hands[t]), int(per_t_dist[t]))
            for t in present]
    if game != "high":  # low games: best category first
        rows.reverse()
    missing = int((~qualified).sum())
    if missing:
        rows.append(TableRow("No qualifying low", -1, missing, 0))
    return Table(game, str(ws), jokers, tuple(rows), int(len(v)), int((counts > 0).sum()))
