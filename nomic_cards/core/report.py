"""The Dealer's Report (rule 8): who received Cards in an nweek and the Back of each — nothing
else. Rendered as plain text for a mailing list, Markdown, and JSON; pure functions of
:class:`ReportData`, so that the published bytes can be stored and printed again unchanged.

The report carries, besides who and which Backs, the dice commitments of the periods whose
rolls dealt those cards, so that players can audit the rolls once the seeds are revealed. It
never carries a suit, a rank, a card number or anything about the Deck's contents.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

#: The forms a report is published in.
FORMATS = ("text", "markdown", "json")


@dataclass(frozen=True)
class Receipt:
    player: str
    backs: tuple[str, ...]


@dataclass(frozen=True)
class ReportData:
    nweek: int
    start: str  # ISO date-time the nweek began
    end: str  # ISO date-time the next began
    dealer: str | None
    receipts: tuple[Receipt, ...]
    commitments: tuple[tuple[int, str], ...]  # (period, commitment)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render_text(d: ReportData) -> str:
    lines = [f"Dealer's Report for nweek {d.nweek}", "",
             f"From {d.start} to {d.end}. Dealer: {d.dealer or '(none)'}.", ""]
    if d.receipts:
        lines.append("Cards received:")
        width = max(len(r.player) for r in d.receipts)
        for r in d.receipts:
            lines.append(f"  {r.player:<{width}}  {_count(len(r.backs), 'card')}: "
                         + ", ".join(f"{b} back" for b in r.backs))
    else:
        lines.append("No player received a Card this nweek.")
    if d.commitments:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:"]
        lines += [f"  period {p}: {c}" for p, c in d.commitments]
    return "\n".join(lines) + "\n"


def render_markdown(d: ReportData) -> str:
    lines = [f"# Dealer's Report for nweek {d.nweek}", "",
             f"From {d.start} to {d.end}. Dealer: {d.dealer or '(none)'}.", ""]
    if d.receipts:
        lines += ["| Player | Cards | Backs |", "|---|---|---|"]
        lines += [f"| {r.player} | {len(r.backs)} | {', '.join(r.backs)} |" for r in d.receipts]
    else:
        lines.append("No player received a Card this nweek.")
    if d.commitments:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:", ""]
        lines += [f"- period {p}: `{c}`" for p, c in d.commitments]
    return "\n".join(lines) + "\n"


def render_json(d: ReportData) -> str:
    doc = {
        "nweek": d.nweek, "from": d.start, "until": d.end, "dealer": d.dealer,
        "received": [{"player": r.player, "backs": list(r.backs)} for r in d.receipts],
        "commitments": [{"period": p, "commitment": c} for p, c in d.commitments],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_all(d: ReportData) -> dict[str, str]:
    return {"text": render_text(d), "markdown": render_markdown(d), "json": render_json(d)}
