"""Deal files: complete PBN (write and read), LIN for the online bridge site's hand viewer,
and JSON.

PBN games carry the whole mandatory tag set of PBN 2.1 in its order (Event, Site, Date,
Round, Board, West, North, East, South, Dealer, Vulnerable, Deal, Scoring, Declarer, Contract,
Result), with the dealer and vulnerability rotating with the board number unless the script
fixes them, and, when double dummy is available, ``DoubleDummyTricks``, ``OptimumScore``,
``ParContract`` and ``OptimumResultTable``. :func:`read_pbn` parses PBN back (tags, ``%``
and ``;`` comment lines, ``{...}`` comments, escaped quotes) so files round-trip.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nomic_cards.bridge.deck import RANKS, SUIT_LETTERS
from nomic_cards.bridge.output.layouts import BOARD_VULNERABLE, PBN_VULNERABLE, pbn_deal

LIN_VULNERABLE = ("o", "n", "e", "b")


@dataclass(frozen=True)
class DDResult:
    """Double-dummy tricks ``tricks[seat][strain]`` (strain S, H, D, C, N) and par."""

    tricks: tuple[tuple[int, ...], ...]
    par_score: int | None = None
    par_contracts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Board:
    """One produced deal with its board number, dealer and vulnerability (0-3)."""

    number: int
    deal: Any
    dealer: int
    vulnerable: int
    dd: DDResult | None = None
    extra: dict[str, str] = field(default_factory=dict)


def board(number: int, deal: Any, *, dealer: int | None, vulnerable: int | None,
          dd: DDResult | None = None) -> Board:
    """A board numbered from 1; dealer and vulnerability rotate unless given."""
    return Board(number, deal, (number - 1) % 4 if dealer is None else dealer,
                 BOARD_VULNERABLE[(number - 1) % 16] if vulnerable is None else vulnerable,
                 dd)


def _q(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pbn(b: Board, *, event: str, date: str = "????.??.??") -> str:
    """One complete PBN game (ends with a blank line)."""
    tags = [("Event", event), ("Site", "?"), ("Date", date), ("Round", "?"),
            ("Board", str(b.number)), ("West", "?"), ("North", "?"), ("East", "?"),
            ("South", "?"), ("Dealer", "NESW"[b.dealer]),
            ("Vulnerable", PBN_VULNERABLE[b.vulnerable]), ("Deal", pbn_deal(b.deal, b.dealer)),
            ("Scoring", "?"), ("Declarer", "?"), ("Contract", "?"), ("Result", "?")]
    lines = [f'[{k} "{_q(v)}"]' for k, v in tags]
    if b.dd is not None:
        lines.append(f'[DoubleDummyTricks "{dd_string(b.dd)}"]')
        if b.dd.par_score is not None:
            lines.append(f'[OptimumScore "NS {b.dd.par_score}"]')
            lines.append(f'[ParContract "{_q(" ".join(b.dd.par_contracts))}"]')
        lines.append('[OptimumResultTable "Declarer;2R\\2L Denomination\\2R Result\\2R"]')
        for seat in range(4):
            for strain, name in enumerate(("S", "H", "D", "C", "NT")):
                lines.append(f"{'NESW'[seat]} {name:>2} {b.dd.tricks[seat][strain]:2d}")
    return "\n".join(lines) + "\n\n"


def dd_string(dd: DDResult) -> str:
    """PBN ``DoubleDummyTricks``: 20 hex digits, declarer N, S, E, W; strains N, S, H, D, C."""
    order = (0, 2, 1, 3)
    return "".join(f"{dd.tricks[seat][strain]:x}" for seat in order
                   for strain in (4, 0, 1, 2, 3))


_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')


def read_pbn(text: str) -> list[dict[str, str]]:
    """The games of a PBN file, each as its tag pairs (values unescaped). Comment lines
    (``%``, ``;``) and ``{...}`` comments are skipped; a blank line ends a game."""
    text = re.sub(r"\{[^}]*\}", "\0", text)  # a comment is no blank line
    games: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("%", ";")) or stripped.strip("\0 \t") != stripped.strip("\0"):
            continue
        if "\0" in stripped:
            stripped = stripped.replace("\0", "").strip()
            if not stripped:
                continue
        if not stripped:
            if current:
                games.append(current)
                current = {}
            continue
        for m in _TAG.finditer(stripped):
            current[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
    if current:
        games.append(current)
    return games


def parse_pbn_deal(value: str) -> NDArray[np.uint16]:
    """A PBN ``Deal`` value to ``(4 seats, 4 suits)`` masks (North first)."""
    first, _, hands = value.partition(":")
    out = np.zeros((4, 4), dtype=np.uint16)
    start = "NESW".index(first.strip().upper())
    for k, hand in enumerate(hands.split()):
        if hand == "-":
            continue
        for suit, holding in enumerate(hand.split(".")):
            for ch in holding:
                out[(start + k) % 4, suit] |= 1 << RANKS.index(ch.upper())
    return out


def _lin_hand(deal: Any, seat: int) -> str:
    return "".join(SUIT_LETTERS[s] + "".join(RANKS[r] for r in range(12, -1, -1)
                                              if int(deal[seat][s]) >> r & 1)
                   for s in range(4))


def write_lin(b: Board) -> str:
    """One board as a LIN line for the hand viewer: player names (``pn``, South first), then
    ``md`` with the dealer digit (1 South, 2 West, 3 North, 4 East) and the hands South,
    West, North, East, the board number (``ah``) and vulnerability (``sv``: o, n, e, b)."""
    dealer_digit = {2: 1, 3: 2, 0: 3, 1: 4}[b.dealer]
    hands = ",".join(_lin_hand(b.deal, seat) for seat in (2, 3, 0, 1))
    return (f"pn|South,West,North,East|st||qx|o{b.number}|md|{dealer_digit}{hands}|rh||"
            f"ah|Board {b.number}|sv|{LIN_VULNERABLE[b.vulnerable]}|pg||\n")


def board_json(b: Board) -> dict[str, Any]:
    """A board as plain JSON data (hands as PBN-style ``S.H.D.C`` strings)."""
    hands = {name: ".".join("".join(RANKS[r] for r in range(12, -1, -1)
                                    if int(b.deal[seat][s]) >> r & 1) for s in range(4))
             for seat, name in enumerate(("north", "east", "south", "west"))}
    data: dict[str, Any] = {"board": b.number, "dealer": "NESW"[b.dealer],
                            "vulnerable": PBN_VULNERABLE[b.vulnerable], **hands}
    if b.dd is not None:
        data["tricks"] = {"NESW"[seat]: dict(zip(("S", "H", "D", "C", "NT"),
                                                 b.dd.tricks[seat], strict=True))
                          for seat in range(4)}
        data["par"] = {"score": b.dd.par_score, "contracts": list(b.dd.par_contracts)}
    return data


def json_document(boards: Sequence[Board], summary: dict[str, Any]) -> str:
    return json.dumps({**summary, "deals": [board_json(b) for b in boards]}, indent=2) + "\n"


