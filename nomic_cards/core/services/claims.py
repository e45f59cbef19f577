"""Claims of error (docs/nweeks.md, "Claims of error"): with rule 8's ``doubt_days`` on, a
player doubts a Dealer's Report posted to the list (``claim doubt``, the action
``cards.doubt``, or a line of a message); the Dealer denies the claim or revises the report;
the doubter may withdraw it; and once the report has stood undoubted for ``doubt_days`` days,
every write (``tick`` first) records it ratified, dated at that moment. Each step is an event
(:mod:`nomic_cards.core.ledger.claims` keeps the live part its replay steps check)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core.engine import Window
from nomic_cards.core.ledger import claims
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.state import State
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation

RULE = "rule 8 (Dealer's Report)"
TEXT_LIMIT = 2000


@dataclass(frozen=True)
class ClaimView:
    """An event of a claim of error: its number, the doubt it concerns and the report."""

    event: int
    doubt: int
    nweek: int
    player: str
    text: str


def _text(text: str, what: str) -> str:
    t = " ".join(text.split())
    if not t:
        raise InputError(f"{what} says nothing")
    if len(t) > TEXT_LIMIT:
        raise InputError(f"{what} is at most {TEXT_LIMIT} characters, not {len(t)}")
    return t


def _on(state: State) -> int:
    n = claims.days(state)
    if n <= 0:
        raise RuleViolation("claims of error are off: rule 8's doubt_days is 0 (a rule change "
                            "sets it: rules amend report --set doubt_days=14)")
    return n


def doubt_report(tx: Tx, player: str, nweek: int, *, claim: str,
                 source: str = "") -> ClaimView:
    """``player`` doubts the Dealer's Report for ``nweek``, posted to the list and not yet
    ratified, saying why."""
    state = tx.state
    _on(state)
    who = state.players.get(player)
    if who is None:
        raise NotFound(f"no player named {player!r}")
    if not who.active:
        raise RuleViolation(f"{player} has retired: only a player doubts a report")
    if str(nweek) not in claims.claims_part(state)["quiet"]:
        raise RuleViolation(f"the Dealer's Report for nweek {nweek} is not a report posted to "
                            "the list and not yet ratified: it cannot be doubted")
    text = _text(claim, "the claim")
    rec = tx.record(ev.ReportDoubted(nweek, player, text, source.strip()))
    return ClaimView(rec[0].seq, rec[0].seq, nweek, player, text)


def _doubt(state: State, doubt: int) -> dict[str, object]:
    found = claims.claims_part(state)["doubts"].get(str(doubt))
    if found is None:
        raise NotFound(f"event {doubt} is no open claim of error")
    return dict(found)


def deny_claim(tx: Tx, doubt: int, *, reason: str) -> ClaimView:
    """The Dealer denies claim of error ``doubt``, saying why."""
    _on(tx.state)
    found = _doubt(tx.state, doubt)
    text = _text(reason, "the reason")
    rec = tx.record(ev.ReportDenied(doubt, text))
    return ClaimView(rec[0].seq, doubt, int(str(found["nweek"])), str(found["player"]), text)


def revise_report(tx: Tx, doubt: int, *, correction: str) -> ClaimView:
    """The Dealer grants claim of error ``doubt``: the report is revised as ``correction``
    says, and stands undoubted from now."""
    _on(tx.state)
    found = _doubt(tx.state, doubt)
    text = _text(correction, "the correction")
    rec = tx.record(ev.ReportRevised(doubt, text))
    return ClaimView(rec[0].seq, doubt, int(str(found["nweek"])), str(found["player"]), text)


def withdraw_claim(tx: Tx, doubt: int, player: str) -> ClaimView:
    """``player`` withdraws eir own claim of error ``doubt``."""
    _on(tx.state)
    found = _doubt(tx.state, doubt)
    if found["player"] != player:
        raise RuleViolation(f"the claim of error of event {doubt} is {found['player']}'s: only "
                            "its doubter withdraws it")
    rec = tx.record(ev.ReportDoubtWithdrawn(doubt, player))
    return ClaimView(rec[0].seq, doubt, int(str(found["nweek"])), player, "")


@dataclass(frozen=True)
class ReportStanding:
    """A posted report not yet ratified: its open doubts, or when it is ratified."""

    nweek: int
    doubts: tuple[tuple[int, str], ...]  # (event, player)
    ratified_at: str | None  # undoubted: when it is ratified


def claims_list(tx: Reads) -> list[ReportStanding]:
    """Each posted report not yet ratified (rule 8's doubt_days on), oldest first."""
    state = tx.state
    part = claims.claims_part(state)
    due = claims.due(state)
    out = []
    for k in sorted(int(n) for n in part["quiet"]):
        doubts = tuple(sorted((int(s), str(d["player"])) for s, d in part["doubts"].items()
                              if int(d["nweek"]) == k))
        at = due.get(k)
        out.append(ReportStanding(k, doubts, None if at is None
                                  else at.strftime("%Y-%m-%dT%H:%M:%SZ")))
    return out


def claim_windows(state: State, upto: datetime) -> list[Window]:
    """The moments at or before ``upto`` at which a posted report has stood undoubted for
    ``doubt_days`` days: each write records it ratified, dated then."""
    n = claims.days(state)
    return [Window(RULE, at, f"the Dealer's Report for nweek {k} is ratified", _ratify(k, n))
            for k, at in sorted(claims.due(state).items(), key=lambda kv: kv[1])
            if at <= upto]


def _ratify(nweek: int, days: int) -> Callable[[Tx], None]:
    def ratify(tx: Tx) -> None:
        tx.record(ev.ReportRatified(nweek, days))
    return ratify
