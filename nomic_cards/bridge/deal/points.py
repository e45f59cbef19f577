"""The point-count tables a script configures (``pointcount``, ``altcount``), per rank.

Kept apart from :mod:`nomic_cards.bridge.deal.tables` (the numpy tables over suit masks) so that the
compiled fast path of ``bridge run`` (:mod:`nomic_cards.bridge.run.fast`) reads them without
importing numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.bridge.language.nodes import Script

# Dealer's default tables, deuce first (pointcount.c).
_DEFAULTS: dict[str, tuple[int, ...]] = {
    "hcp": (0,) * 9 + (1, 2, 3, 4),
    "control": (0,) * 11 + (1, 2),
    "pt0": (0,) * 8 + (1, 0, 0, 0, 0),
    "pt1": (0,) * 9 + (1, 0, 0, 0),
    "pt2": (0,) * 10 + (1, 0, 0),
    "pt3": (0,) * 11 + (1, 0),
    "pt4": (0,) * 12 + (1,),
    "pt5": (0,) * 11 + (1, 1),
    "pt6": (0,) * 10 + (1, 1, 1),
    "pt7": (0,) * 9 + (1, 1, 1, 1),
    "pt8": (0,) * 8 + (1, 1, 1, 1, 1),
    "pt9": (0,) * 9 + (1, 2, 4, 6),
}
# Dealer's internal order of its twelve tables (idxHcp, idxControls, idxTens, ...).
DEALER_ORDER = ("hcp", "control") + tuple(f"pt{i}" for i in range(10))


@dataclass(frozen=True)
class PointTables:
    """The per-rank tables (deuce first) of every point count, and the two tables dealer's
    loser count reads: ``loser_short`` (singletons and doubletons, normally the controls)
    and ``loser_long`` (three cards or more, normally top3 = A, K, Q)."""

    counts: tuple[tuple[str, tuple[int, ...]], ...]
    loser_short: tuple[int, ...]
    loser_long: tuple[int, ...]

    def table(self, name: str) -> tuple[int, ...]:
        return dict(self.counts)[name]

    @classmethod
    def for_script(cls, script: Script, *, dealer_compatible: bool = False) -> PointTables:
        """The tables a script sets up. ``altcount N`` changes count ``ptN``; Debian's dealer
        writes its table N instead — hcp for 0, controls for 1, pt(N-2) above — and with
        ``dealer_compatible`` that off-by-two is reproduced."""
        tables = [_DEFAULTS[name] for name in DEALER_ORDER]
        if script.pointcount is not None:
            tables[0] = script.pointcount
        for number, values in script.altcounts:
            tables[number if dealer_compatible else number + 2] = values
        named = dict(zip(DEALER_ORDER, tables, strict=True))
        if dealer_compatible:
            return cls(tuple(named.items()), named["control"], named["pt6"])
        return cls(tuple(named.items()), _DEFAULTS["control"], _DEFAULTS["pt6"])


DEFAULT_TABLES = PointTables(tuple(_DEFAULTS.items()), _DEFAULTS["control"], _DEFAULTS["pt6"])


def suit_sums(per_rank: tuple[int, ...]) -> list[int]:
    """For every suit mask (8192), the sum of ``per_rank`` (deuce first) over its cards."""
    out = [0] * (1 << 13)
    for m in range(1, 1 << 13):
        low = m & -m
        out[m] = out[m ^ low] + per_rank[low.bit_length() - 1]
    return out


def losers(short: tuple[int, ...], long_: tuple[int, ...]) -> list[int]:
    """Losers per suit mask, as dealer counts them: void 0; singleton 0 with the ace (by the
    ``short`` table, the controls), else 1; doubleton AK 0, Ax or Kx 1, else 2; longer: 3 minus
    the number of A, K, Q (by the ``long_`` table, top3)."""
    single, double = (1, 1, 0, 0), (2, 1, 1, 0)
    s_sums, l_sums = suit_sums(short), suit_sums(long_)
    out = []
    for m in range(1 << 13):
        s, count = min(3, max(0, s_sums[m])), m.bit_count()
        out.append(0 if count == 0 else single[s] if count == 1 else double[s] if count == 2
                   else 3 - l_sums[m])
    return out
