"""Points: an account per Player and the Bank, kept in the ledger (docs/games.md, "Points"):
the use cases of ``points grant``, ``show``, ``history`` and ``export``. The kind ``points.moved``
and the accounts themselves are the ledger's (:mod:`nomic_cards.core.ledger.points`).

The nomic's Scorekeeper is the source of truth for Points: ``points grant`` records what it
reported (a grant from the Bank, or a negative one back to it). The card games move Points too
(a fee, a prize), each movement citing a rule; every kind of event that moves Points says so
(``MOVES_POINTS``), and ``history`` lists them all. A payment that would take a Player's balance
below zero is refused unless a card game in force allows it; the Bank may go below zero (its
balance is minus what it has paid out, net). A grant, and every balance it leaves, is within
2^53 - 1 Points either way (:data:`~nomic_cards.inputs.MAX_SAFE_INT`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime

from nomic_cards.core import engine
from nomic_cards.core.ledger.events import BANK, EVENT_TYPES, PointsMoved
from nomic_cards.core.ledger.points import points_data, verify_pay
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.common import iso, parse_when, require_player
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError
from nomic_cards.inputs import MAX_SAFE_INT, check_text, show_number

__all__ = ["Balance", "Movement", "account_movements", "balances", "grant_points",
           "point_movements", "points_csv", "standings"]

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


def _kinds() -> tuple[str, ...]:
    """Every kind of event that moves Points, of the core and of every installed game."""
    engine.games()  # every installed game's kinds registered
    return tuple(sorted(k for k, cls in EVENT_TYPES.items() if cls.MOVES_POINTS))


def grant_points(tx: Tx, player: str, points: int, *, rule: str, note: str = "") -> Movement:
    """Record Points the Scorekeeper reported: ``points`` from the Bank to ``player``
    (negative: from ``player`` back to the Bank)."""
    if points == 0:
        raise InputError("a grant moves a whole number of Points other than 0")
    if abs(points) > MAX_SAFE_INT:
        raise InputError(f"a grant moves at most {MAX_SAFE_INT} Points either way (2^53 - 1, "
                         f"what every JSON reader holds exactly), not {show_number(points)}")
    cited = rules.check_rule(rule)
    if not cited.strip():
        raise InputError("--rule: cite the rule under which the Points move")
    text = check_text(note, "--note", _MAX_NOTE) if note else ""
    state = tx.state
    name = require_player(state, player)
    if points < 0:
        verify_pay(state, name, -points, "back to the Bank")
    data = points_data(state)
    after = {name: int(data["players"].get(name, 0)) + points, BANK: -int(data["bank"]) - points}
    for account, left in after.items():
        if abs(left) > MAX_SAFE_INT:
            raise InputError(f"the grant would take {account}'s balance to {show_number(left)} "
                             f"Points: a balance stays within {MAX_SAFE_INT} either way (2^53 "
                             "- 1, what every JSON reader holds exactly)")
    source, target = (None, name) if points > 0 else (name, None)
    event = PointsMoved(source, target, abs(points), cited.strip(), text)
    rec = tx.record(event)[0]
    return Movement(rec.seq, iso(rec.at) or "", source or BANK, target or BANK,
                    abs(points), event.rule, text)


def balances(tx: Reads) -> list[Balance]:
    """Every Player's balance (active players and anyone who ever held Points), then the
    Bank's."""
    state = tx.state
    data = points_data(state)
    names = sorted({n for n, p in state.players.items() if p.active} | set(data["players"]))
    out = [Balance(n, int(data["players"].get(n, 0))) for n in names]
    out.append(Balance(BANK, -int(data["bank"])))
    return out


def standings(tx: Reads) -> list[Balance]:
    """The standings: every Player's balance, the most Points first (then by name, whatever
    its case), then the Bank's."""
    *players, bank = balances(tx)
    return [*sorted(players, key=lambda b: (-b.points, b.player.casefold(), b.player)), bank]


def account_movements(tx: Reads, player: str | None) -> tuple[Balance, list[Movement]]:
    """One account's balance and every movement in or out of it, newest first: ``player``'s,
    or the Bank's (None; told apart from a Player who might be named ``Bank``)."""
    name = require_player(tx.state, player) if player is not None else None
    out: list[Movement] = []
    for rec in tx.events_from(datetime(1970, 1, 1, tzinfo=UTC), None, _kinds()):
        at = iso(rec.at) or ""
        out += [Movement(rec.seq, at, m.source or BANK, m.target or BANK, m.points, m.rule,
                         m.note) for m in rec.event.points_moves() if name in (m.source, m.target)]
    data = points_data(tx.state)
    points = int(data["players"].get(name, 0)) if name is not None else -int(data["bank"])
    return Balance(name or BANK, points), out[::-1]


def point_movements(tx: Reads, *, since: datetime | None = None,
              player: str | None = None) -> list[Movement]:
    """Every movement of Points in ledger order (since ``since``; only ``player``'s)."""
    name = require_player(tx.state, player) if player is not None else None
    start = since if since is not None else datetime(1970, 1, 1, tzinfo=UTC)
    out: list[Movement] = []
    for rec in tx.events_from(start, None, _kinds()):
        at = iso(rec.at) or ""
        out += [Movement(rec.seq, at, m.source or BANK, m.target or BANK, m.points, m.rule,
                         m.note) for m in rec.event.points_moves()]
    if name is not None:
        out = [m for m in out if name in (m.source, m.target)]
    return out


def points_csv(tx: Reads, since: str) -> str:
    """The movements since a date (ISO date or time) as CSV for the Scorekeeper:
    ``event,at,from,to,points,rule,note``."""
    when = parse_when(since, "--since")
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["event", "at", "from", "to", "points", "rule", "note"])
    for m in point_movements(tx, since=when):
        out.writerow([m.event, m.at, m.source, m.target, m.points, m.rule, m.note])
    return buf.getvalue()
