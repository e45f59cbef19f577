"""Points: an account per Player and the Bank, kept in the ledger (docs/games.md, "Points").

The nomic's Scorekeeper is the source of truth for Points: ``points grant`` records what it
reported (a grant from the Bank, or a negative one back to it). The games move Points too (a
Pooker trade's fee to the Dealer, a Showdown's prize from the Bank). Every movement cites a
rule; a payment that would take a Player's balance below zero is refused unless a rule
parameter allows it (Pooker's ``points-below-zero``); the Bank may go below zero (it is
unbounded: its balance is minus what it has paid out, net).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime

from nomic_cards.core.ledger import game_events as ge
from nomic_cards.core.ledger.game_replay import overdraft_allowed, points_data
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.common import iso, parse_when, require_player
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, RuleViolation
from nomic_cards.inputs import check_text

#: the kinds of event that move Points
KINDS = ("points.moved", "pooker.traded", "pooker.closed")
_MAX_NOTE = 500


@dataclass(frozen=True)
class Balance:
    player: str
    points: int


@dataclass(frozen=True)
class Movement:
    event: int
    at: str
    source: str  # a player or "Bank"
    target: str
    points: int
    rule: str
    note: str = ""


def balance(state: State, player: str) -> int:
    return int(points_data(state)["players"].get(player, 0))


def can_pay(state: State, player: str, points: int) -> bool:
    """Whether ``player`` may pay ``points`` now."""
    return balance(state, player) >= points or overdraft_allowed(state)


def verify_pay(state: State, player: str, points: int, why: str) -> None:
    if not can_pay(state, player, points):
        raise RuleViolation(f"{player} holds {balance(state, player)} Point(s) and cannot pay "
                            f"{points} {why}: no balance goes below zero unless a rule "
                            "allows it (pooker points-below-zero=yes)")


def grant(tx: Tx, player: str, points: int, *, rule: str, note: str = "") -> Movement:
    """Record Points the Scorekeeper reported: ``points`` from the Bank to ``player``
    (negative: from ``player`` back to the Bank)."""
    if points == 0:
        raise InputError("a grant moves a whole number of Points other than 0")
    cited = rules.check_rule(rule)
    if not cited.strip():
        raise InputError("--rule: cite the rule under which the Points move")
    text = check_text(note, "--note", _MAX_NOTE) if note else ""
    state = tx.state
    name = require_player(state, player)
    if points < 0:
        verify_pay(state, name, -points, "back to the Bank")
    source, target = (None, name) if points > 0 else (name, None)
    event = ge.PointsMoved(source, target, abs(points), cited.strip(), text)
    rec = tx.record(event)[0]
    return Movement(rec.seq, iso(rec.at) or "", source or ge.BANK, target or ge.BANK,
                    abs(points), event.rule, text)


def show(tx: Reads) -> list[Balance]:
    """Every Player's balance (active players and anyone who ever held Points), then the
    Bank's."""
    state = tx.state
    data = points_data(state)
    names = sorted({n for n, p in state.players.items() if p.active} | set(data["players"]))
    out = [Balance(n, int(data["players"].get(n, 0))) for n in names]
    out.append(Balance(ge.BANK, -int(data["bank"])))
    return out


def movements(tx: Reads, *, since: datetime | None = None,
              player: str | None = None) -> list[Movement]:
    """Every movement of Points in ledger order (since ``since``; only ``player``'s)."""
    name = require_player(tx.state, player) if player is not None else None
    start = since if since is not None else datetime(1970, 1, 1, tzinfo=UTC)
    out: list[Movement] = []
    for rec in tx.events_from(start, None, KINDS):
        e, at = rec.event, iso(rec.at) or ""
        if isinstance(e, ge.PointsMoved):
            out.append(Movement(rec.seq, at, e.from_ or ge.BANK, e.to or ge.BANK,
                                e.points, e.rule, e.note))
        elif isinstance(e, ge.Traded) and e.fee:
            dealer = e.dealer or ge.BANK
            why = "card game pooker: trade fee"
            out += [Movement(rec.seq, at, e.a, dealer, e.fee, why),
                    Movement(rec.seq, at, e.b, dealer, e.fee, why)]
        elif isinstance(e, ge.ShowdownClosed):
            out += [Movement(rec.seq, at, ge.BANK, p.player, p.points,
                             f"card game pooker: prize of Showdown {e.number}")
                    for p in e.paid if p.points]
    if name is not None:
        out = [m for m in out if name in (m.source, m.target)]
    return out


def export_csv(tx: Reads, since: str) -> str:
    """The movements since a date (ISO date or time) as CSV for the Scorekeeper:
    ``event,at,from,to,points,rule,note``."""
    when = parse_when(since, "--since")
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["event", "at", "from", "to", "points", "rule", "note"])
    for m in movements(tx, since=when):
        out.writerow([m.event, m.at, m.source, m.target, m.points, m.rule, m.note])
    return buf.getvalue()
