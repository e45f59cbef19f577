"""Double-dummy analysis through an existing solver (Bo Haglund's DDS, bundled by ``endplay``).

An optional extra: ``pip install 'nomic-cards[dd]'``. Without it, :func:`available` is false
and :func:`require` raises a one-line :class:`DoubleDummyUnavailable` telling how to install
it; nothing else in the package needs the solver. This module writes no solver of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.output.formats import DDResult
from nomic_cards.bridge.output.layouts import pbn_deal
from nomic_cards.errors import InputError

BATCH = 32  # DDS solves up to 32 deals per call
_STRAINS = ("spades", "hearts", "diamonds", "clubs", "nt")
_SEATS = ("north", "east", "south", "west")


class DoubleDummyUnavailable(InputError):
    """The double-dummy extra is not installed."""


def available() -> bool:
    """Whether the solver can be imported."""
    try:
        import endplay.dds  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    if not available():
        raise DoubleDummyUnavailable(
            "double dummy needs the optional solver: pip install 'nomic-cards[dd]'")


def _contract(c: Any) -> str:
    denom = "NT" if c.denom.name == "nt" else c.denom.name[0].upper()
    pen = {"undoubled": "", "doubled": "X", "redoubled": "XX"}.get(c.penalty.name, "")
    side = "NS" if c.declarer.name in ("north", "south") else "EW"
    return f"{side} {c.level}{denom}{pen}"


def solve(deals: Sequence[Any], *, vulnerable: Sequence[int] | None = None,
          dealers: Sequence[int] | None = None) -> list[DDResult]:
    """Trick tables (declarer x strain S, H, D, C, NT) and, when vulnerability and dealer
    are given, par scores and contracts (from North-South's side), for ``(4, 4)`` mask
    deals."""
    require()
    from endplay.dds import calc_all_tables, par
    from endplay.types import Deal, Denom, Player, Vul

    vuls = (Vul.none, Vul.ns, Vul.ew, Vul.both)
    out: list[DDResult] = []
    for start in range(0, len(deals), BATCH):
        chunk = [Deal(pbn_deal(d)) for d in deals[start:start + BATCH]]
        for k, table in enumerate(calc_all_tables(chunk)):
            i = start + k
            tricks = tuple(tuple(int(table[getattr(Denom, s), getattr(Player, p)])
                                 for s in _STRAINS) for p in _SEATS)
            if vulnerable is None or dealers is None:
                out.append(DDResult(tricks))
                continue
            result = par(table, vuls[vulnerable[i]], getattr(Player, _SEATS[dealers[i]]))
            contracts = tuple(dict.fromkeys(_contract(c) for c in result))
            out.append(DDResult(tricks, int(result.score), contracts))
    return out


class TricksCache:
    """The ``tricks()`` hook of one batch: solves each deal once, when first asked."""

    def __init__(self) -> None:
        self.tables: dict[int, tuple[tuple[int, ...], ...]] = {}

    def __call__(self, batch: Any, seat: int, strain: int,
                 rows: NDArray[np.int64] | None) -> NDArray[np.int64]:
        require()
        idx = np.arange(batch.n) if rows is None else rows
        missing = [int(r) for r in idx if int(r) not in self.tables]
        if missing:
            arr = np.array(missing, dtype=np.int64)
            for s in range(4):
                batch.ensure(s, arr)
            masks = batch.masks[arr]
            for r, res in zip(missing, solve(list(masks)), strict=True):
                self.tables[r] = res.tricks
        return np.array([self.tables[int(r)][seat][strain] for r in idx], dtype=np.int64)
