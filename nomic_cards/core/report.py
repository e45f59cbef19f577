"""The Dealer's Report (rule 8): who received Cards in an nweek and the Back of each. Rendered
as plain text for a mailing list, Markdown, and JSON; pure functions of :class:`ReportData`, so
that the published bytes can be stored and printed again unchanged.

A card received is any card that came into a player's Hand during the nweek: dealt, or
transferred (from the Deck or from another player) under a cited rule. Besides who and which
Backs, the report says who held the office of Dealer during the nweek (and when it changed
hands), how each card came -- for a dealt card the dice that dealt it (the committed-seed die of
a period, which anyone can check once its seed is revealed, or system or manual dice, which
nobody can check), for a transferred one its giver and the rule cited -- the commitments of
those periods, and the ledger's head -- the
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
    """One card received in the nweek: its Back and how it came -- dealt by dice (``source``
    committed, system or manual; ``period`` of committed-seed dice), or transferred
    (``source`` "transfer") from ``giver`` (a player, or None for the Deck) under ``rule``."""

    back: str
    source: str
    period: int | None
    giver: str | None = None
    rule: str | None = None

    @property
    def transferred(self) -> bool:
        return self.source == TRANSFER

    @property
    def how(self) -> str:
        if self.transferred:
            return f"transferred from {self.giver or 'the Deck'} under {self.rule!r}"
        if self.source == "committed":
            return f"dealt, committed die, period {self.period}"
        return f"dealt, {self.source} dice, not checkable"

    def as_json(self) -> dict[str, object]:
        if self.transferred:
            return {"back": self.back, "how": "transferred", "from": self.giver or "Deck",
                    "rule": self.rule}
        return {"back": self.back, "how": "dealt", "source": self.source,
                "period": self.period}


#: ``Received.source`` of a card that was transferred, not dealt
TRANSFER = "transfer"


@dataclass(frozen=True)
class Receipt:
    player: str
    cards: tuple[Received, ...]

    @property
    def backs(self) -> tuple[str, ...]:
        return tuple(c.back for c in self.cards)


@dataclass(frozen=True)
class DealerSpan:
    """A Dealer during the nweek: who, and when e took office (None: e held it when the
    nweek began)."""

    player: str | None
    since: str | None


@dataclass(frozen=True)
class RuleNote:
    """A change to the rules made during the nweek(s) a report covers (public: the rules are)."""

    at: str
    rule: str  # ``rule 9 (cards-for-votes)``
    action: str  # enacted, amended, repealed
    proposal: str
    params: tuple[tuple[str, object], ...]  # the parameters after the change (none: repealed)
    from_nweek: int | None = None  # a new nweek length: the first nweek it applies to

    @property
    def line(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.params)
        effect = f", from nweek {self.from_nweek}" if self.from_nweek is not None else ""
        return (f"{self.at} {self.rule} {self.action} by {self.proposal!r}"
                + (f": {params}" if params else "") + effect)

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"at": self.at, "rule": self.rule, "action": self.action,
                                  "proposal": self.proposal, "params": dict(self.params)}
        if self.from_nweek is not None:
            out["from_nweek"] = self.from_nweek
        return out


@dataclass(frozen=True)
class PackNote:
    """A pack retired during the nweek(s) a report covers: how many of its cards left the Deck
    and whose Hands (counts only: never which cards)."""

    at: str
    number: int
    name: str
    proposal: str
    deck: int
    hands: tuple[tuple[str, int], ...]

    @property
    def line(self) -> str:
        hands = "".join(f", {n} from {p}'s Hand" for p, n in self.hands)
        return (f"{self.at} pack {self.number} ({self.name}) retired by {self.proposal!r}: "
                f"{_count(self.deck + sum(n for _, n in self.hands), 'card')} left play, "
                f"{self.deck} from the Deck{hands}")

    def as_json(self) -> dict[str, object]:
        return {"at": self.at, "pack": self.number, "name": self.name,
                "proposal": self.proposal, "deck": self.deck,
                "hands": [{"player": p, "cards": n} for p, n in self.hands]}


@dataclass(frozen=True)
class ReportData:
    nweek: int
    start: str  # ISO date-time the nweek began
    end: str  # ISO date-time the next began
    dealers: tuple[DealerSpan, ...]  # who held the office during the nweek, in order
    receipts: tuple[Receipt, ...]
    commitments: tuple[tuple[int, str], ...]  # (period, commitment)
    head: tuple[int, str]  # the ledger head (event, hash) when the report was made
    #: the first nweek covered, when the report covers several (rule 8 amended: every N)
    first: int | None = None
    #: the rule changes made in the nweek(s) covered
    rule_changes: tuple[RuleNote, ...] = ()
    #: the packs retired in the nweek(s) covered
    packs_retired: tuple[PackNote, ...] = ()
    #: the version of rule 8 in force: 2 gives the Backs alone (docs/rules.md, "Rule versions")
    version: int = 1

    @property
    def backs_only(self) -> bool:
        return self.version >= 2

    @property
    def title(self) -> str:
        if self.first is not None and self.first != self.nweek:
            return f"Dealer's Report for nweeks {self.first} to {self.nweek}"
        return f"Dealer's Report for nweek {self.nweek}"

    @property
    def period(self) -> str:
        return "these nweeks" if self.first is not None and self.first != self.nweek \
            else "this nweek"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _head_line(d: ReportData) -> str:
    return f"Ledger head: event {d.head[0]}, hash {d.head[1]}"


def _dealers(d: ReportData) -> str:
    """``Dealer: PurpleBob.`` or ``Dealers: PurpleBob, then Wonko from 2026-01-14T08:00:00Z.``"""
    names = [f"{s.player or '(none)'}" + (f" from {s.since}" if s.since else "")
             for s in d.dealers]
    return f"Dealer{'s' if len(names) > 1 else ''}: {', then '.join(names) or '(none)'}."


def _intro(d: ReportData) -> list[str]:
    return [f"From {d.start} to {d.end}. {_dealers(d)}", ""]


def _rule_lines(d: ReportData, bullet: str) -> list[str]:
    out = []
    if d.rule_changes:
        out += ["", f"Rule changes made in {d.period}:", *(f"{bullet}{n.line}" for n in
                                                           d.rule_changes)]
    if d.packs_retired:
        out += ["", f"Packs retired in {d.period}:", *(f"{bullet}{n.line}" for n in
                                                      d.packs_retired)]
    return out


#: the line saying a report was made under rule 8 version 2
BACKS_ONLY = "Under rule 8 version 2: the Backs alone, nothing else about the Cards."


def render_text(d: ReportData) -> str:
    lines = [d.title, "", *_intro(d)]
    if d.backs_only:
        lines += [BACKS_ONLY, ""]
    if d.receipts:
        lines.append("Cards received:")
        width = max(len(r.player) for r in d.receipts)
        for r in d.receipts:
            lines.append(f"  {r.player:<{width}}  {_count(len(r.cards), 'card')}: "
                         + ", ".join(f"{c.back} back" + ("" if d.backs_only else f" ({c.how})")
                                     for c in r.cards))
    else:
        lines.append(f"No player received a Card {d.period}.")
    if d.commitments and not d.backs_only:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:"]
        lines += [f"  period {p}: {c}" for p, c in d.commitments]
    lines += _rule_lines(d, "  ")
    lines += ["", _head_line(d)]
    return "\n".join(lines) + "\n"


def render_markdown(d: ReportData) -> str:
    lines = [f"# {d.title}", "", *_intro(d)]
    if d.backs_only:
        lines += [BACKS_ONLY, ""]
    if d.receipts and d.backs_only:
        lines += ["| Player | Cards | Backs |", "|---|---|---|"]
        lines += [f"| {r.player} | {len(r.cards)} | {', '.join(r.backs)} |"
                  for r in d.receipts]
    elif d.receipts:
        lines += ["| Player | Cards | Backs | How |", "|---|---|---|---|"]
        lines += [f"| {r.player} | {len(r.cards)} | {', '.join(r.backs)} | "
                  f"{'; '.join(c.how for c in r.cards)} |" for r in d.receipts]
    else:
        lines.append(f"No player received a Card {d.period}.")
    if d.commitments and not d.backs_only:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:", ""]
        lines += [f"- period {p}: `{c}`" for p, c in d.commitments]
    if d.rule_changes:
        lines += ["", f"Rule changes made in {d.period}:", ""]
        lines += [f"- {n.line}" for n in d.rule_changes]
    if d.packs_retired:
        lines += ["", f"Packs retired in {d.period}:", ""]
        lines += [f"- {n.line}" for n in d.packs_retired]
    lines += ["", _head_line(d)]
    return "\n".join(lines) + "\n"


def render_json(d: ReportData) -> str:
    doc: dict[str, object] = {"nweek": d.nweek}
    if d.first is not None and d.first != d.nweek:
        doc["first_nweek"] = d.first
    doc |= {
        "from": d.start, "until": d.end,
        "dealers": [{"player": s.player, "since": s.since} for s in d.dealers],
        "received": [{"player": r.player, "backs": list(r.backs)}
                     | ({} if d.backs_only else {"cards": [c.as_json() for c in r.cards]})
                     for r in d.receipts],
    }
    if d.backs_only:
        doc["rule_version"] = d.version
    else:
        doc["commitments"] = [{"period": p, "commitment": c} for p, c in d.commitments]
    if d.rule_changes:
        doc["rule_changes"] = [n.as_json() for n in d.rule_changes]
    if d.packs_retired:
        doc["packs_retired"] = [n.as_json() for n in d.packs_retired]
    doc["ledger_head"] = {"event": d.head[0], "hash": d.head[1]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_all(d: ReportData) -> dict[str, str]:
    return {"text": render_text(d), "markdown": render_markdown(d), "json": render_json(d)}


# event numbers of at most 19 ASCII digits (a database integer): a longer run is no head
_HEAD = re.compile(r"Ledger head: event ([0-9]{1,19}), hash ([0-9a-f]{64})")
_JSON_HEAD = re.compile(
    r'"ledger_head":\s*\{\s*"event":\s*([0-9]{1,19}),\s*"hash":\s*"([0-9a-f]{64})"')


def published_heads(text: str) -> list[tuple[int, str]]:
    """Every ledger head (event, hash) stated in a report, in any of its forms (several when
    a file holds several reports, e.g. a mailing-list archive)."""
    found = [(int(n), h) for n, h in _HEAD.findall(text)]
    found += [(int(n), h) for n, h in _JSON_HEAD.findall(text)]
    return sorted(set(found))
