"""Carrying out a script's actions on the produced deals, in dealer's order.

The run loop hands :class:`ActionRunner` the produced deals a batch at a time, with the
values of every expression the actions use (:func:`action_exprs`, evaluated vectorised for
the batch). Print actions write as each deal is produced; ``print(...)``, ``average`` and
``frequency`` report at the end, in the order the actions were written, as dealer does.
With ``format`` ``pbn``, ``lin`` or ``json`` the deals are written in that format instead of
the script's print actions, and the reports go to the error stream (text) or into the JSON.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.output import layouts
from nomic_cards.bridge.run.tallies import Tally

if TYPE_CHECKING:
    from nomic_cards.bridge.output.formats import Board, DDResult

I64 = NDArray[np.int64]
Write = Callable[[str], object]


_BULK = (n.PrintAll, n.PrintCompact, n.PrintOneLine)


def action_exprs(actions: Sequence[n.Action]) -> list[n.Expr]:
    """Every expression the actions evaluate per produced deal, in a fixed order."""
    return [e for a in actions for e in n.action_expressions(a)]


@dataclass
class RunInfo:
    """What the closing report needs to know."""

    event_file: str
    seed: int
    date: str
    dealer: int | None
    vulnerable: int | None
    dealer_compatible: bool = False


class ActionRunner:
    """Feeds produced deals through the actions; :meth:`finish` writes the reports."""

    def __init__(self, actions: Sequence[n.Action], info: RunInfo, write: Write, *,
                 fmt: str = "text", report: Write | None = None) -> None:
        self.actions = list(actions)
        self.info = info
        self.write = write
        self.report = report or write
        self.fmt = fmt
        self.produced = 0
        self.toggles = 0  # dealer's printpbn flips its verbose flag every time
        self.pages: list[Any] = []
        self.boards: list[Board] = []
        self.tallies = [Tally(a) for a in self.actions]
        self.printers: list[tuple[n.Action, int]] = []
        pos = 0
        for a in self.actions:
            if isinstance(a, n.PrintAll | n.PrintEW | n.PrintCompact | n.PrintOneLine |
                          n.PrintES | n.PrintPBN):
                self.printers.append((a, pos))
            pos += len(action_exprs([a]))

    def feed(self, deals: NDArray[np.uint16], values: list[I64],
             dd: Sequence[DDResult | None] | None = None) -> None:
        """``deals`` is ``(m, 4, 4)``; ``values[i]`` the i-th of :func:`action_exprs`."""
        m = len(deals)
        if m == 0:
            return
        self._tally(values)
        printing = self.fmt == "text"
        if printing and any(isinstance(a, n.Print) for a in self.actions):
            self.pages.extend(deals.copy())
        if printing and not self.printers:
            self.produced += m
            return
        out: list[str] = []
        if printing and all(isinstance(a, _BULK) for a, _ in self.printers):
            # printall and the compact layouts, all deals at once (as the compiled loop's)
            spec = [(type(a), pos if getattr(a, "expr", None) is not None else -1)
                    for a, pos in self.printers]
            out = [layouts.print_flat(deals.reshape(-1).tolist(), m, spec,
                                      [v.tolist() for v in values], self.produced + 1)]
        elif printing:  # deal by deal, each print action in turn
            out = [self._print(a, deals[k], self.produced + k + 1, values, pos, k, dd)
                   for k in range(m) for a, pos in self.printers]
        else:
            from nomic_cards.bridge.output.formats import board, write_lin, write_pbn

            for k in range(m):
                b = board(self.produced + k + 1, deals[k], dealer=self.info.dealer,
                          vulnerable=self.info.vulnerable, dd=dd[k] if dd else None)
                if self.fmt == "json":
                    self.boards.append(b)
                elif self.fmt == "pbn":
                    out.append(write_pbn(b, event=self._event(), date=self.info.date))
                else:
                    out.append(write_lin(b))
        self.write("".join(out))
        self.produced += m

    def _event(self) -> str:
        return f"nomic-cards bridge run {self.info.event_file}, seed {self.info.seed}"

    def _print(self, a: n.Action, deal: Any, number: int, values: list[I64], pos: int, k: int,
               dd: Sequence[DDResult | None] | None) -> str:
        """Text one print action writes for deal ``k``; its values start at column ``pos``."""
        if isinstance(a, n.PrintAll):
            return layouts.printall(deal, number)
        if isinstance(a, n.PrintEW):
            return layouts.printew(deal)
        if isinstance(a, n.PrintCompact | n.PrintOneLine):
            oneline = isinstance(a, n.PrintOneLine)
            text = layouts.compact(deal, oneline=oneline)
            if a.expr is None:
                return text + ("\n" if oneline else "")
            return text + f"{int(values[pos][k])}\n"
        if isinstance(a, n.PrintES):
            parts, used = [], 0
            for item in a.items:
                if isinstance(item, str):
                    parts.append(item)
                else:
                    parts.append(str(int(values[pos + used][k])))
                    used += 1
            return "".join(parts)
        if isinstance(a, n.PrintPBN):
            if self.info.dealer_compatible:
                self.toggles += 1
                return layouts.dealer_printpbn(
                    deal, number, event_file=self.info.event_file, seed=self.info.seed,
                    date=self.info.date, dealer=self.info.dealer,
                    vulnerable=self.info.vulnerable)
            from nomic_cards.bridge.output.formats import board, write_pbn

            b = board(number, deal, dealer=self.info.dealer, vulnerable=self.info.vulnerable,
                      dd=dd[k] if dd else None)
            return write_pbn(b, event=self._event(), date=self.info.date)
        return ""  # pragma: no cover - only print actions are laid out

    def _tally(self, values: list[I64]) -> None:
        columns = [array("q", np.ascontiguousarray(v, dtype=np.int64).tobytes())
                   for v in values]
        pos = 0
        for a, t in zip(self.actions, self.tallies, strict=True):
            width = len(n.action_expressions(a))
            if isinstance(a, n.Average | n.Frequency | n.Frequency2D):
                t.add(columns[pos:pos + width])
            pos += width

    def finish(self, generated: int, started: float) -> dict[str, Any]:
        """Write the end-of-run reports; return them as data (for JSON)."""
        reports: list[dict[str, Any]] = []
        text: list[str] = []
        nan = self.info.dealer_compatible
        for a, t in zip(self.actions, self.tallies, strict=True):
            if isinstance(a, n.Print) and self.fmt == "text":
                text.append(layouts.print_pages(self.pages, a.seats))
            elif isinstance(a, n.Average | n.Frequency | n.Frequency2D):
                counts = t.counts
                text.append(layouts.tally_report(a, t.total, t.under, t.over, counts,
                                                 self.produced, dealer_nan=nan))
                if isinstance(a, n.Average):
                    mean = t.total / self.produced if self.produced else None
                    reports.append({"action": "average", "label": a.label, "value": mean})
                elif isinstance(a, n.Frequency):
                    reports.append({"action": "frequency", "label": a.label, "low": a.low,
                                    "high": a.high, "counts": counts, "below": t.under,
                                    "above": t.over})
                else:
                    reports.append({"action": "frequency2d", "label": a.label,
                                    "counts": counts})
        if self.fmt == "text":
            self.write("".join(text))
        elif self.fmt != "json":
            self.report("".join(text))
        seconds = time.perf_counter() - started
        return {"generated": generated, "produced": self.produced, "seed": self.info.seed,
                "seconds": seconds, "reports": reports, "boards": self.boards}

    @property
    def verbose_flipped(self) -> bool:
        """Whether dealer's printpbn left its verbose flag flipped (an odd count)."""
        return self.toggles % 2 == 1
