"""The Dealer's Report (rule 8): who received Cards in an nweek and the Back of each. Rendered
as plain text for a mailing list, Markdown, and JSON; pure functions of :class:`ReportData`, so
that the published bytes can be stored and printed again unchanged.

Besides who and which Backs, the report says which dice dealt each card (the committed-seed
die of a period, which anyone can check once its seed is revealed, or system or manual dice,
which nobody can check), the commitments of those periods, and the ledger's head -- the
sequence number and hash of its last event -- when the report was made: copies of the report
posted to the game's list anchor the chain, so a later rewrite of the ledger shows
(``nomic-cards ledger verify --against REPORT``). It never carries a suit, a rank, a card
number or anything about the Deck's contents; the head hash covers no private field in the
clear (docs/ledger.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: The forms a report is published in.
FORMATS = ("text", "markdown", "json")


@dataclass(frozen=True)
class Received:
    """One card received: its Back and the dice that dealt it."""

    back: str
    source: str  # committed, system or manual
    period: int | None  # the committed-seed period

    @property
    def dice(self) -> str:
        if self.source == "committed":
            return f"committed die, period {self.period}"
        return f"{self.source} dice, not checkable"


@dataclass(frozen=True)
class Receipt:
    player: str
    cards: tuple[Received, ...]

    @property
    def backs(self) -> tuple[str, ...]:
        return tuple(c.back for c in self.cards)


@dataclass(frozen=True)
class ReportData:
    nweek: int
    start: str  # ISO date-time the nweek began
    end: str  # ISO date-time the next began
    dealer: str | None
    receipts: tuple[Receipt, ...]
    commitments: tuple[tuple[int, str], ...]  # (period, commitment)
    head: tuple[int, str]  # the ledger head (event, hash) when the report was made


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _head_line(d: ReportData) -> str:
    return f"Ledger head: event {d.head[0]}, hash {d.head[1]}"


def render_text(d: ReportData) -> str:
    lines = [f"Dealer's Report for nweek {d.nweek}", "",
             f"From {d.start} to {d.end}. Dealer: {d.dealer or '(none)'}.", ""]
    if d.receipts:
        lines.append("Cards received:")
        width = max(len(r.player) for r in d.receipts)
        for r in d.receipts:
            lines.append(f"  {r.player:<{width}}  {_count(len(r.cards), 'card')}: "
                         + ", ".join(f"{c.back} back ({c.dice})" for c in r.cards))
    else:
        lines.append("No player received a Card this nweek.")
    if d.commitments:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:"]
        lines += [f"  period {p}: {c}" for p, c in d.commitments]
    lines += ["", _head_line(d)]
    return "\n".join(lines) + "\n"


def render_markdown(d: ReportData) -> str:
    lines = [f"# Dealer's Report for nweek {d.nweek}", "",
             f"From {d.start} to {d.end}. Dealer: {d.dealer or '(none)'}.", ""]
    if d.receipts:
        lines += ["| Player | Cards | Backs | Dice |", "|---|---|---|---|"]
        lines += [f"| {r.player} | {len(r.cards)} | {', '.join(r.backs)} | "
                  f"{'; '.join(c.dice for c in r.cards)} |" for r in d.receipts]
    else:
        lines.append("No player received a Card this nweek.")
    if d.commitments:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:", ""]
        lines += [f"- period {p}: `{c}`" for p, c in d.commitments]
    lines += ["", _head_line(d)]
    return "\n".join(lines) + "\n"


def render_json(d: ReportData) -> str:
    doc = {
        "nweek": d.nweek, "from": d.start, "until": d.end, "dealer": d.dealer,
        "received": [{"player": r.player, "backs": list(r.backs),
                      "dice": [{"source": c.source, "period": c.period} for c in r.cards]}
                     for r in d.receipts],
        "commitments": [{"period": p, "commitment": c} for p, c in d.commitments],
        "ledger_head": {"event": d.head[0], "hash": d.head[1]},
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_all(d: ReportData) -> dict[str, str]:
    return {"text": render_text(d), "markdown": render_markdown(d), "json": render_json(d)}


_HEAD = re.compile(r"Ledger head: event (\d+), hash ([0-9a-f]{64})")
_JSON_HEAD = re.compile(r'"ledger_head":\s*\{\s*"event":\s*(\d+),\s*"hash":\s*"([0-9a-f]{64})"')


def published_heads(text: str) -> list[tuple[int, str]]:
    """Every ledger head (event, hash) stated in a report, in any of its forms (several when
    a file holds several reports, e.g. a mailing-list archive)."""
    found = [(int(n), h) for n, h in _HEAD.findall(text)]
    found += [(int(n), h) for n, h in _JSON_HEAD.findall(text)]
    return sorted(set(found))
