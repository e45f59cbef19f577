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
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from nomic_cards.inputs import escape

#: The forms a report is published in.
FORMATS = ("text", "markdown", "json")

#: how a text goes into a form: unchanged (text), or escaped (Markdown)
Escape = Callable[[str], str]


def _plain(text: str) -> str:
    return text


#: the characters Markdown may read as markup, a link or a table cell: every ASCII punctuation
#: character (CommonMark lets each be escaped with a backslash, and then reads it as itself)
_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


def markdown_text(text: str) -> str:
    """``text`` (a name, a Back, a rule or proposal cited: anything a player or an officer
    wrote) as Markdown that reads as that text and nothing else: a control character stored
    long ago written as an escape (``\\n``), every ASCII punctuation character after a
    backslash (so no ``*``, ``_``, backtick, ``[link](...)``, ``<tag>``, ``&entity;``, ``|``
    cell, ``#`` heading, ``www.``/``http:`` autolink starts anything), and a zero-width space
    after each ``@`` (GitHub links ``name@example.org`` in text whatever is escaped)."""
    return _PUNCTUATION.sub(r"\\\1", escape(text)).replace("@", "@\u200b")


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
    #: a Cards for Votes deal earned by a ballot: the decision voted on, and the ballot's event
    ballot: tuple[str, int] | None = None

    @property
    def transferred(self) -> bool:
        return self.source == TRANSFER

    def how_in(self, esc: Escape) -> str:
        """How the card came, each name and text written through ``esc``."""
        if self.transferred:
            return (f"transferred from {esc(self.giver) if self.giver else 'the Deck'} "
                    f"under {esc(repr(self.rule))}")
        earned = "" if self.ballot is None else \
            f", for the ballot on decision {esc(self.ballot[0])} (event {self.ballot[1]})"
        if self.source == "committed":
            return f"dealt, committed die, period {self.period}{earned}"
        return f"dealt, {esc(self.source)} dice, not checkable{earned}"

    def as_json(self) -> dict[str, object]:
        if self.transferred:
            return {"back": self.back, "how": "transferred", "from": self.giver or "Deck",
                    "rule": self.rule}
        out: dict[str, object] = {"back": self.back, "how": "dealt", "source": self.source,
                                  "period": self.period}
        if self.ballot is not None:
            out["ballot"] = {"decision": self.ballot[0], "event": self.ballot[1]}
        return out


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
    #: the ``packs`` parameter's packs by name ("Red, Blue"), said in the line for its numbers
    pack_names: str | None = None

    @property
    def line(self) -> str:
        return self.line_in(_plain)

    def line_in(self, esc: Escape) -> str:
        """The line, each name and text written through ``esc``."""
        params = ", ".join(f"packs {esc(self.pack_names)}" if k == "packs" and self.pack_names
                           else f"{esc(k)}={esc(str(v))}" for k, v in self.params)
        effect = f", from nweek {self.from_nweek}" if self.from_nweek is not None else ""
        return (f"{self.at} {esc(self.rule)} {esc(self.action)} by {esc(repr(self.proposal))}"
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
        return self.line_in(_plain)

    def line_in(self, esc: Escape) -> str:
        """The line, each name and text written through ``esc``."""
        hands = "".join(f", {n} from {esc(p)}'s Hand" for p, n in self.hands)
        return (f"{self.at} pack {self.number} ({esc(self.name)}) retired by "
                f"{esc(repr(self.proposal))}: "
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


def _dealers(d: ReportData, esc: Escape = _plain) -> str:
    """``Dealer: PurpleBob.`` or ``Dealers: PurpleBob, then Wonko from 2026-01-14T08:00:00Z.``"""
    names = [(esc(s.player) if s.player else "(none)") + (f" from {s.since}" if s.since else "")
             for s in d.dealers]
    return f"Dealer{'s' if len(names) > 1 else ''}: {', then '.join(names) or '(none)'}."


def _intro(d: ReportData, esc: Escape = _plain) -> list[str]:
    return [f"From {d.start} to {d.end}. {_dealers(d, esc)}", ""]


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


#: the width of the text form: a report posted to the list reads on any screen
WIDTH = 72


def wrap_line(line: str, indent: str, width: int = WIDTH) -> list[str]:
    """``line`` wrapped at ``width`` (a word longer stays whole), its continuation lines
    indented by ``indent``."""
    return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [line]


def by_back(r: Receipt) -> list[tuple[str, list[Received]]]:
    """A player's cards received, grouped by Back: the most first (then by name)."""
    groups: dict[str, list[Received]] = {}
    for c in r.cards:
        groups.setdefault(c.back, []).append(c)
    return sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))


def counted(r: Receipt, esc: Escape = _plain) -> str:
    """``10 cards: 6 Corporate, 4 Fish``."""
    return (f"{_count(len(r.cards), 'card')}: "
            + ", ".join(f"{len(cards)} {esc(back)}" for back, cards in by_back(r)))


def _hows(cards: list[Received], esc: Escape) -> str:
    """How a Back's cards came, alike ones counted: ``dealt, committed die, period 2 (4)``."""
    seen: dict[str, int] = {}
    for c in cards:
        how = c.how_in(esc)
        seen[how] = seen.get(how, 0) + 1
    return "; ".join(how + (f" ({n})" if n > 1 else "") for how, n in seen.items())


def render_text(d: ReportData) -> str:
    """The report as plain text of at most :data:`WIDTH` columns (a word longer than that
    aside): each player's cards counted by Back, then (but under rule 8 version 2) how the
    cards of each Back came."""
    lines = [d.title, "", *_intro(d)]
    lines = [wrapped for line in lines for wrapped in wrap_line(line, "")]
    if d.backs_only:
        lines += [*wrap_line(BACKS_ONLY, ""), ""]
    if d.receipts:
        lines.append("Cards received:")
        for r in d.receipts:
            lines += wrap_line(f"  {r.player}: {counted(r)}", "      ")
            if not d.backs_only:
                for back, cards in by_back(r):
                    lines += wrap_line(f"    {back}: {_hows(cards, _plain)}", "        ")
    else:
        lines.append(f"No player received a Card {d.period}.")
    if d.commitments and not d.backs_only:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:"]
        for p, c in d.commitments:
            lines += [f"  period {p}:", f"    {c}"]
    lines += [wrapped for line in _rule_lines(d, "  ") for wrapped in wrap_line(line, "    ")]
    # the head's hash on a line of its own: the two lines read back as one head
    lines += ["", f"Ledger head: event {d.head[0]}, hash", f"  {d.head[1]}"]
    return "\n".join(lines) + "\n"


def render_markdown(d: ReportData) -> str:
    """The report in Markdown: every name and text a player or an officer wrote goes through
    :func:`markdown_text`, so that none becomes markup, a link or a table cell (reports
    published before escaping keep their stored form, byte for byte)."""
    md = markdown_text
    lines = [f"# {d.title}", "", *_intro(d, md)]
    if d.backs_only:
        lines += [BACKS_ONLY, ""]
    if d.receipts and d.backs_only:
        lines += ["| Player | Cards | By Back |", "|---|---|---|"]
        lines += [f"| {md(r.player)} | {len(r.cards)} | "
                  f"{', '.join(f'{len(c)} {md(b)}' for b, c in by_back(r))} |"
                  for r in d.receipts]
    elif d.receipts:
        lines += ["| Player | Cards | By Back | How |", "|---|---|---|---|"]
        for r in d.receipts:
            backs = by_back(r)
            lines.append(f"| {md(r.player)} | {len(r.cards)} | "
                         f"{', '.join(f'{len(c)} {md(b)}' for b, c in backs)} | "
                         f"{'; '.join(f'{md(b)}: {_hows(c, md)}' for b, c in backs)} |")
    else:
        lines.append(f"No player received a Card {d.period}.")
    if d.commitments and not d.backs_only:
        lines += ["", "Dice commitments (SHA-256) of the rolls that dealt them:", ""]
        lines += [f"- period {p}: `{c}`" for p, c in d.commitments]
    if d.rule_changes:
        lines += ["", f"Rule changes made in {d.period}:", ""]
        lines += [f"- {n.line_in(md)}" for n in d.rule_changes]
    if d.packs_retired:
        lines += ["", f"Packs retired in {d.period}:", ""]
        lines += [f"- {n.line_in(md)}" for n in d.packs_retired]
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


# event numbers of at most 19 ASCII digits (a database integer): a longer run is no head;
# the hash on the same line (reports before the 72-column text) or the next
_HEAD = re.compile(r"Ledger head: event ([0-9]{1,19}), hash[ \t]*\r?\n?[ \t>]*([0-9a-f]{64})\b")
_JSON_HEAD = re.compile(
    r'"ledger_head":\s*\{\s*"event":\s*([0-9]{1,19}),\s*"hash":\s*"([0-9a-f]{64})"')


def published_heads(text: str) -> list[tuple[int, str]]:
    """Every ledger head (event, hash) stated in a report, in any of its forms (several when
    a file holds several reports, e.g. a mailing-list archive)."""
    found = [(int(n), h) for n, h in _HEAD.findall(text)]
    found += [(int(n), h) for n, h in _JSON_HEAD.findall(text)]
    return sorted(set(found))
