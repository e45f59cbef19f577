"""Use cases for the Dealer's Report (rule 8): build, publish once, print as published."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nomic_cards.cards import spoon_card
from nomic_cards.core.game import Game
from nomic_cards.core.ledger.events import RenderedReport, ReportPublished
from nomic_cards.core.ledger.state import State
from nomic_cards.core.report import FORMATS, Receipt, Received, ReportData, render_all
from nomic_cards.core.services.common import calendar, card_label, iso
from nomic_cards.errors import InputError, NotFound

if TYPE_CHECKING:
    from nomic_cards.core.store.protocol import ReadUnit
    from nomic_cards.core.store.uow import UnitOfWork


def report_data(uow: ReadUnit, state: State, nweek: int) -> ReportData:
    """What the report for ``nweek`` says: who received cards and their Backs."""
    cal = calendar(state)
    receipts: dict[str, list[Received]] = {}
    periods: set[int] = set()
    for deal in uow.deals_in_nweek(nweek):
        pack = state.packs[spoon_card(deal.card)[0]].name
        receipts.setdefault(deal.player, []).append(Received(pack, deal.source, deal.period))
        if deal.period is not None:
            periods.add(deal.period)
    commitments = tuple((p, state.periods[p].commitment) for p in sorted(periods))
    return ReportData(
        nweek, iso(cal.start_of(nweek)) or "?", iso(cal.start_of(nweek + 1)) or "(open)",
        state.dealer, tuple(Receipt(p, tuple(c)) for p, c in receipts.items()), commitments,
        (state.seq, state.head_hash),
    )


def publish_report(uow: UnitOfWork, state: State, nweek: int) -> int | None:
    """Publish the report for ``nweek`` unless it already is; the event number if published."""
    if uow.report(nweek) is not None:
        return None
    rendered = render_all(report_data(uow, state, nweek))
    structured = json.loads(rendered["json"])
    rec = uow.record(ReportPublished(nweek, structured, RenderedReport(
        rendered["text"], rendered["markdown"], rendered["json"])))
    return rec[0].seq


@dataclass(frozen=True)
class ReportView:
    nweek: int
    published: bool
    body: str


def report(game: Game, nweek: int | None = None, *, fmt: str = "text") -> ReportView:
    """A published report exactly as published; an nweek not yet reported, as a preview."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    with game.read() as uow:
        state = uow.state
        if nweek is None:
            nweek = uow.latest_report()
            if nweek is None:
                raise NotFound("no Dealer's Report has been published yet (run `nomic-cards "
                               "tick` at the start of an nweek)")
        stored = uow.report(nweek)
        if stored is not None:
            return ReportView(nweek, True, stored.body(fmt))
        current = calendar(state).nweek_of(game.clock.now())
        if not 1 <= nweek <= current:
            raise NotFound(f"nweek {nweek} has not begun (the current nweek is {current})")
        body = render_all(report_data(uow, state, nweek))[fmt]
        return ReportView(nweek, False, body)


def labels_dealt_in(game: Game, nweek: int) -> list[str]:
    """Labels of the cards dealt in an nweek (the Dealer's own view, never in a report)."""
    with game.read() as uow:
        return [card_label(uow.state, d.card) for d in uow.deals_in_nweek(nweek)]
