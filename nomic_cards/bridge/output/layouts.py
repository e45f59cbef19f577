"""Dealer's text layouts, character for character: printall, printew, print, printcompact,
printoneline, dealer's printpbn, and the average/frequency reports.

A deal is a ``(4 seats, 4 suits)`` array of 13-bit masks (North first, spades first). These
functions reproduce Debian dealer's ``printf`` calls, quirks included (two characters per
card padded to ten cards, so a suit of eleven or more pushes the next column right).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from nomic_cards.bridge.deck import RANKS, SEATS, holding_text
from nomic_cards.bridge.language.nodes import (
    Action,
    Average,
    Frequency,
    Frequency2D,
    PrintAll,
    PrintOneLine,
)

Deal = Any  # an indexable (4, 4) array of masks
PBN_VULNERABLE = ("None", "NS", "EW", "All")
BOARD_VULNERABLE = (0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2)


@cache
def holdings() -> tuple[str, ...]:
    """``AKT2`` for every suit mask (uppercase ranks, highest first)."""
    high = [holding_text(m << 6) for m in range(1 << 7)]  # ace down to eight
    low = [holding_text(m) for m in range(1 << 6)]  # seven down to deuce
    return tuple(h + lo for h in high for lo in low)


@cache
def _spaced() -> tuple[tuple[str, int], ...]:
    """Per suit mask: dealer's column text (``"A K T "`` or ``"- "``) and its card count."""
    return tuple((text, max(1, len(text) // 2)) for text in _columns()[1])


@cache
def _columns() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Per suit mask, dealer's column text (``"A K T "``, ``"- "`` for a void): padded to ten
    cards (twenty characters) as a column followed by another, and as the last column."""
    def spaced(ranks: range) -> list[str]:  # the masks of these ranks, highest first
        return ["".join(RANKS[r] + " " for r in reversed(ranks) if m >> (r - ranks[0]) & 1)
                for m in range(1 << len(ranks))]
    high, low = spaced(range(6, 13)), spaced(range(6))
    last = tuple(h + lo or "- " for h in high for lo in low)
    return tuple(t.ljust(20) for t in last), last


def _column_line(hands: Sequence[int]) -> str:
    """One suit of several hands side by side, dealer style (padded to ten cards)."""
    spaced = _spaced()
    out: list[str] = []
    cards = 10
    for mask in hands:
        if cards < 10:
            out.append("  " * (10 - cards))
        text, cards = spaced[mask]
        out.append(text)
    return "".join(out) + "\n"


def printall(deal: Deal, board: int) -> str:
    """``printall``: board number, then the four hands side by side (N, E, S, W)."""
    lines = [f"{board:4d}.\n"]
    for suit in range(4):
        lines.append(_column_line([int(deal[seat][suit]) for seat in range(4)]))
    return "".join(lines) + "\n"


def printew(deal: Deal) -> str:
    """``printew``: West and East side by side."""
    lines = [_column_line([int(deal[3][suit]), int(deal[1][suit])]) for suit in range(4)]
    return "".join(lines) + "\n"


def print_pages(deals: Sequence[Deal], seats: Sequence[int]) -> str:
    """``print(seats)``: for each seat, its hands four to a row, then a form feed."""
    out: list[str] = []
    for seat in range(4):
        if seat not in seats:
            continue
        out.append(f"\n\n{SEATS[seat].capitalize()} hands:\n\n\n\n")
        for i in range(0, len(deals), 4):
            group = deals[i:i + 4]
            out.append("".join(f"{i + k + 1:4d}.{' ':>15}" for k in range(len(group))) + "\n")
            for suit in range(4):
                out.append(_column_line([int(d[seat][suit]) for d in group]))
            out.append("\n")
        out.append("\f")
    return "".join(out)


def compact(deal: Deal, *, oneline: bool) -> str:
    """``printcompact`` (one line per seat) or ``printoneline`` (all on one line)."""
    h = holdings()
    rows = deal.tolist() if hasattr(deal, "tolist") else deal
    return _compact_format(oneline) % tuple(h[m] for r in rows for m in r)


@cache
def _compact_format(oneline: bool) -> str:
    sep = " " if oneline else "\n"
    return "".join(f"{seat} %s.%s.%s.%s{sep}" for seat in "nesw")


def print_flat(masks: Sequence[int], count: int, printers: Sequence[tuple[type[Action], int]],
               values: Sequence[Sequence[int]], first_board: int) -> str:
    """The print actions' text for ``count`` deals given as 16 masks each (seat-major), for
    both dealing paths: for each deal, each printer in turn --
    ``(PrintAll, -1)``, ``(PrintCompact | PrintOneLine, k)`` with ``k`` the index in ``values``
    of its value, or -1."""
    h = holdings()
    if len(printers) == 1 and printers[0][0] is not PrintAll:  # one compact layout, in bulk
        oneline, at = printers[0][0] is PrintOneLine, printers[0][1]
        texts = list(map(h.__getitem__, masks[:16 * count]))
        if at < 0:
            return (_compact_format(oneline) + "\n" * oneline) * count % tuple(texts)
        args: list[Any] = [0] * (17 * count)
        for j in range(16):
            args[j::17] = texts[j::16]
        args[16::17] = values[at][:count]
        return (_compact_format(oneline) + "%d\n") * count % tuple(args)
    if len(printers) == 1:  # printall alone, in bulk: each suit's four columns on a line
        column, last = _columns()
        args = [0] * (17 * count)
        args[::17] = range(first_board, first_board + count)
        for suit in range(4):
            for seat in range(4):
                side = column if seat < 3 else last
                args[1 + 4 * suit + seat::17] = map(side.__getitem__,
                                                    masks[4 * seat + suit:16 * count:16])
        return ("%4d.\n" + "%s%s%s%s\n" * 4 + "\n") * count % tuple(args)
    out: list[str] = []
    for k in range(count):
        row = masks[16 * k:16 * k + 16]
        for kind, at in printers:
            if kind is PrintAll:
                out.append(printall([row[4 * s:4 * s + 4] for s in range(4)], first_board + k))
                continue
            oneline = kind is PrintOneLine
            out.append(_compact_format(oneline) % tuple(h[m] for m in row))
            if at >= 0:
                out.append(f"{values[at][k]}\n")
            elif oneline:
                out.append("\n")
    return "".join(out)


def pbn_deal(deal: Deal, first: int = 0) -> str:
    """The PBN ``Deal`` value, ``N:`` hands in seat order from ``first``."""
    h = holdings()
    rows = deal.tolist() if hasattr(deal, "tolist") else deal
    hands = (".".join(h[m] for m in rows[(first + k) % 4]) for k in range(4))
    return "NESW"[first] + ":" + " ".join(hands)


def dealer_printpbn(deal: Deal, board: int, *, event_file: str, seed: int, date: str,
                    dealer: int | None, vulnerable: int | None) -> str:
    """Dealer's ``printpbn`` block (board counted from 1), exactly as dealer writes it."""
    dealer_seat = (board - 1) % 4 if dealer is None else dealer
    vul = BOARD_VULNERABLE[(board - 1) % 16] if vulnerable is None else vulnerable
    return (f'[Event "Hand simulated by dealer with file {event_file}, seed {seed}"]\n'
            '[Site "-"]\n'
            f'[Date "{date}"]\n'
            f'[Board "{board}"]\n'
            '[West "-"]\n[North "-"]\n[East "-"]\n[South "-"]\n'
            f'[Dealer "{"NESW"[dealer_seat]}"]\n'
            f'[Vulnerable "{PBN_VULNERABLE[vul]}"]\n'
            f'[Deal "{pbn_deal(deal)}"]\n'
            '[Declarer "?"]\n[Contract "?"]\n[Result "?"]\n\n')


def c_g(value: float, *, dealer_nan: bool = False) -> str:
    """C's ``%g``; dealer prints 0/0 as ``-nan``."""
    if value != value:  # NaN
        return "-nan" if dealer_nan else "nan"
    return format(value, "g")


def average_report(label: str | None, total: int, produced: int, *,
                   dealer_nan: bool = False) -> str:
    mean = total / produced if produced else float("nan")
    return (f"{label}: " if label is not None else "") + c_g(mean, dealer_nan=dealer_nan) + "\n"


def frequency_report(label: str | None, low: int, high: int, counts: Sequence[int],
                     under: int, over: int) -> str:
    """``counts`` has ``high - low + 1`` entries."""
    out = [f"Frequency {label or ''}:\n"]
    if under:
        out.append(f"Low\t{under:8d}\n")
    out.extend(f"{low + i:5d}\t{c:8d}\n" for i, c in enumerate(counts))
    if over:
        out.append(f"High\t{over:8d}\n")
    return "".join(out)


def frequency2d_report(label: str | None, low1: int, high1: int, low2: int, high2: int,
                       table: Sequence[Sequence[int]]) -> str:
    """``table`` is ``(high1 - low1 + 3) x (high2 - low2 + 3)``, Low and High included."""
    width = high2 - low2 + 3
    out = [f"Frequency {label or ''}:\n", "        Low"]
    out.extend(f" {j + low2 - 1:6d}" for j in range(1, width - 1))
    out.append("   High    Sum\n")
    total = 0
    for i, row in enumerate(table):
        name = "Low " if i == 0 else "High" if i == len(table) - 1 else f"{i + low1 - 1:4d}"
        out.append(name + "".join(f" {v:6d}" for v in row) + f" {sum(row):6d}\n")
        total += sum(row)
    out.append("Sum " + "".join(f" {sum(r[j] for r in table):6d}" for j in range(width)))
    out.append(f" {total:6d}\n\n")
    return "".join(out)


def tally_report(action: Action, total: int, under: int, over: int, counts: Sequence[Any],
                 produced: int, *, dealer_nan: bool = False) -> str:
    """What an ``average`` or ``frequency`` action writes at the end of a run, from its tally:
    the sum of its values (``average``), or the values below and above its range and the
    counts in it (``frequency``; rows of counts, Low and High included, in two dimensions)."""
    if isinstance(action, Average):
        return average_report(action.label, total, produced, dealer_nan=dealer_nan)
    if isinstance(action, Frequency):
        return frequency_report(action.label, action.low, action.high, counts, under, over)
    if isinstance(action, Frequency2D):
        return frequency2d_report(action.label, action.low1, action.high1, action.low2,
                                  action.high2, counts)
    return ""


def verbose_report(generated: int, produced: int, seed: int, seconds: float) -> str:
    """Dealer's closing statistics."""
    return (f"Generated {generated} hands\nProduced {produced} hands\n"
            f"Initial random seed {seed}\nTime needed {seconds:8.3f} sec\n")
