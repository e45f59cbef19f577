"""Use cases for the Dealer's Report (rule 8): build, publish once, print as published."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from nomic_cards.cards import spoon_card
from nomic_cards.core import installed, ruleset
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.events import RenderedReport, ReportPublished
from nomic_cards.core.ledger.state import ReportRecord, State
from nomic_cards.core.report import (
    FORMATS,
    TRANSFER,
    DealerSpan,
    PackNote,
    Receipt,
    Received,
    ReportData,
    RuleNote,
    render_all,
)
from nomic_cards.core.services.common import calendar, card_label, iso
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound

__all__ = [
    "ReportView",
    "labels_dealt_in",
    "new_reports",
    "report",
]


#: rule 8's short name in the ruleset
REPORT_RULE = "report"

if TYPE_CHECKING:
    from nomic_cards.core.store.reads import Reads


def report_data(tx: Reads, state: State, nweek: int, first: int | None = None
                ) -> ReportData:
    """What the report for ``nweek`` (or for the nweeks ``first`` to ``nweek``, when rule 8
    as amended reports every few nweeks) says (rule 8, as docs/rules.md reads it): every card
    that came into a player's Hand in the nweek(s) -- dealt, or transferred from the Deck or
    from another player -- with its Back and how it came, who was Dealer, and the rule changes
    made in them."""
    cal = calendar(state)
    first = nweek if first is None else first
    start, end = cal.start_of(first), cal.start_of(nweek + 1)
    assert start is not None
    got: list[tuple[int, str, Received]] = []
    periods: set[int] = set()
    for k in range(first, nweek + 1):
        for deal in tx.deals_in_nweek(k):
            got.append((deal.seq, deal.player,
                        Received(_back(state, deal.card), deal.source, deal.period,
                                 ballot=_ballot(deal.reason))))
            if deal.period is not None:
                periods.add(deal.period)
    for rec in tx.events_from(start, end, (ev.CardTransferred.KIND,)):
        moved = rec.event
        assert isinstance(moved, ev.CardTransferred)
        if moved.to is not None:
            got.append((rec.seq, moved.to, Received(_back(state, moved.card), TRANSFER, None,
                                                    moved.from_, moved.rule)))
    # a card game's movements into a Hand (a trade, say): every card received, as rule 8 reads
    for seq, number, player, kind, giver in tx.received_by_games(
            start, end, (ev.CardDealt.KIND, ev.CardTransferred.KIND)):
        got.append((seq, player, Received(_back(state, number), TRANSFER, None, giver,
                                          f"card game {ev.game_of(kind)}")))
    retired = tuple(
        PackNote(iso(rec.at) or "", e.number, e.name, e.proposal, e.deck,
                 tuple((h.player, h.cards) for h in e.hands))
        for rec in tx.events_from(start, end, (ev.PackRetired.KIND,))
        if isinstance(e := rec.event, ev.PackRetired))
    receipts: dict[str, list[Received]] = {}
    for _seq, player, card in sorted(got, key=lambda g: g[0]):
        receipts.setdefault(player, []).append(card)
    commitments = tuple((p, state.periods[p].commitment) for p in sorted(periods))
    return ReportData(
        nweek, iso(start) or "?", iso(end) or "(open)", _dealers(tx, state, start, end),
        tuple(Receipt(p, tuple(c)) for p, c in receipts.items()), commitments,
        (state.seq, state.head_hash), first if first != nweek else None,
        _rule_notes(state, start, end), retired, _version(state),
    )


#: how a Cards for Votes deal's reason names the ballot that earned it (services/time.py)
_EARNED = re.compile(r"ballot on decision (\S+) \(event (\d+)\)")


def _ballot(reason: str) -> tuple[str, int] | None:
    found = _EARNED.search(reason)
    return None if found is None else (found.group(1), int(found.group(2)))


def _version(state: State) -> int:
    """The version of rule 8 in force (1 in a game from before rules were recorded)."""
    change = state.rule(REPORT_RULE)
    return 1 if change is None else change.version


def _rule_notes(state: State, start: datetime, end: datetime | None) -> tuple[RuleNote, ...]:
    """The rule changes made in [start, end), the rules the game was created with aside."""
    if not state.rule_changes:
        return ()
    created = state.rule_changes[0].seq
    out: list[RuleNote] = []
    for c in state.rule_changes:
        if c.seq == created or c.at < start or (end is not None and c.at >= end):
            continue
        spec = installed.spec(c.rule)
        label = spec.label if spec is not None else f"rule {c.rule}"
        params = () if not c.in_force else tuple(sorted(c.params.items()))
        first = c.from_nweek if c.from_nweek is not None and c.action != ruleset.ENACTED \
            else None
        packs = dict(params).get("packs")
        given = packs if isinstance(packs, list | tuple) else str(packs or "").split(",")
        named = [state.packs[int(n)].name if int(n) < len(state.packs) else str(n)
                 for n in (str(x).strip() for x in given) if n.isdigit()]
        names = (", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1
                 else named[0] if named else None)
        out.append(RuleNote(iso(c.at) or "", label, c.action, c.proposal, params, first,
                            names))
    return tuple(out)


def report_due(tx: Reads, state: State, nweek: int) -> int | None:
    """The first nweek the report due at the end of ``nweek`` covers, or None when rule 8 in
    force asks for none then: it is repealed, or fewer than ``every`` nweeks have ended since
    the last report (or since the rule was last enacted)."""
    change = state.rule(REPORT_RULE)
    if change is None:
        return nweek
    if not change.in_force:
        return None
    first = (tx.latest_report() or 0) + 1
    enacted = next((c for c in reversed(state.rule_changes)
                    if c.rule == REPORT_RULE and c.action == ruleset.ENACTED), None)
    if enacted is not None and enacted.seq != state.rule_changes[0].seq:
        first = max(first, calendar(state).nweek_of(enacted.at))
    every = int(change.params.get("every", 1))
    return first if first <= nweek and nweek - first + 1 >= every else None


def _back(state: State, card: int) -> str:
    return state.packs[spoon_card(card)[0]].name


def _dealers(tx: Reads, state: State, start: datetime,
             end: datetime | None) -> tuple[DealerSpan, ...]:
    """Who held the office of Dealer in [start, end), and when it changed hands: walked back
    from the Dealer now through the elections since ``start``."""
    elections = [(r.at, r.event) for r in tx.events_from(start, None, (ev.DealerElected.KIND,))
                 if isinstance(r.event, ev.DealerElected)]
    inside = [(at, e) for at, e in elections if end is None or at < end]
    after = [e for at, e in elections if end is not None and at >= end]
    at_end = after[0].previous if after else state.dealer
    first = inside[0][1].previous if inside else at_end
    return (DealerSpan(first, None), *(DealerSpan(e.name, iso(at)) for at, e in inside))


def publish_report(tx: Tx, state: State, nweek: int) -> int | None:
    """Publish the report due at the end of ``nweek`` (:func:`report_due`) unless it already
    is; the event number if published."""
    if tx.report(nweek) is not None:
        return None
    first = report_due(tx, state, nweek)
    if first is None:
        return None
    rendered = render_all(report_data(tx, state, nweek, first))
    structured = json.loads(rendered["json"])
    rec = tx.record(ReportPublished(nweek, structured, RenderedReport(
        rendered["text"], rendered["markdown"], rendered["json"])))
    return rec[0].seq


@dataclass(frozen=True)
class ReportView:
    nweek: int
    published: bool
    body: str


def report(tx: Reads, nweek: int | None = None, *, fmt: str = "text",
           published_only: bool = False) -> ReportView:
    """A published report exactly as published; an nweek not yet reported, as a preview (with
    ``published_only``, :class:`NotFound` instead: a preview reads where cards were dealt,
    which the server may not). As of a time (the game's clock set by ``--at``), a report
    published after it is not yet published: the default is the latest published by then, and
    a report asked for by number is a preview."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    state = tx.state
    now = tx.clock.now()

    def published(k: int) -> ReportRecord | None:
        stored = tx.report(k)
        if stored is None:
            return None
        at = tx.event_time(stored.seq)
        return stored if at is not None and at <= now else None

    if nweek is None:
        latest = tx.latest_report()
        nweek = next((k for k in range(latest or 0, 0, -1) if published(k)), None)
        if nweek is None:
            raise NotFound("no Dealer's Report has been published yet (run `nomic-cards "
                           "tick` at the start of an nweek)" if latest is None else
                           f"no Dealer's Report had been published by {iso(now)}")
    stored = published(nweek)
    if stored is not None:
        return ReportView(nweek, True, stored.body(fmt))
    if published_only:
        raise NotFound(f"the Dealer's Report for nweek {nweek} is not published yet")
    current = calendar(state).nweek_of(now)
    if not 1 <= nweek <= current:
        raise NotFound(f"nweek {nweek} has not begun (the current nweek is {current})")
    body = render_all(report_data(tx, state, nweek))[fmt]
    return ReportView(nweek, False, body)


#: events before any game (a bound for reading every event of a kind)
_EVER = datetime(1970, 1, 1, tzinfo=UTC)


def new_reports(tx: Tx, *, fmt: str = "text") -> list[ReportView]:
    """The published reports not yet posted to the game's list, oldest first, recorded as
    posted now (``report --new``, which cron runs after ``tick``): a report published by any
    command -- ``tick``, or one that did a boundary's work first -- is posted exactly once.

    Reports in the form published before reports named their nweek's Dealers (no
    ``dealers`` in their JSON) count as posted: only ``tick`` published those, and cron posted
    each with the tick that published it (docs/nweeks.md, "Cron")."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    latest = tx.latest_report()
    if latest is None:
        return []
    posted = {k for m in tx.events_from(_EVER, None, (ev.ReportsPosted.KIND,))
              if isinstance(m.event, ev.ReportsPosted) for k in m.event.nweeks}
    posted |= {int(k) for m in tx.events_from(_EVER, None, (ev.ListPosted.KIND,))
               if isinstance(m.event, ev.ListPosted) and m.event.what == "report"
               and m.event.to_list for k in m.event.ids}
    new: list[ReportRecord] = []
    for k in range(1, latest + 1):
        stored = tx.report(k)
        if k not in posted and stored is not None and "dealers" in json.loads(stored.json):
            new.append(stored)
    if new:
        tx.record(ev.ReportsPosted(tuple(r.nweek for r in new)))
    return [ReportView(r.nweek, True, r.body(fmt)) for r in new]


def labels_dealt_in(tx: Reads, nweek: int) -> list[str]:
    """Labels of the cards dealt in an nweek (the Dealer's own view, never in a report)."""
    return [card_label(tx.state, d.card) for d in tx.deals_in_nweek(nweek)]
