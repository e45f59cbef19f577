"""Pooker's notifications waiting are bounded and kept by Player (issue 39, point 8;
docs/pooker.md, "Trades"): at most ``pending-per-player`` each (rules version 3,
the act and the replay), a write rewrites only the parts of the two Players concerned, and the
windows a write walks are found by the due index; on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from freezegun.api import FrozenDateTimeFactory

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.cardgames.pooker import view as pooker_view
from nomic_cards.core import api
from nomic_cards.core.ledger.replay import ReplayError, apply_event, replay
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.store.migrate import alembic_config, migration_engine, upgrade
from nomic_cards.errors import InputError, RuleViolation
from tests.game_time import day
from tests.helpers import sql
from tests.pooker.support import head

PLAYERS = ("ann", "ben", "cat", "dan", "eve")
CARDS = {"ann": "Red As", "ben": "Blue Kd", "cat": "Red 2c", "dan": "Blue 3h", "eve": "Red 4s"}


@pytest.fixture
def players() -> tuple[str, ...]:
    return PLAYERS


@pytest.fixture
def pg(pg: Nomic) -> Nomic:
    """The trade fee 0; each of five players holds one PCard."""
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["trade-fee=0"], proposal="P457")
        for player, card in CARDS.items():
            api.transfer(tx, card, player, "test setup", source="deck")
    return pg


def notify(game: Nomic, player: str, other: str, times: int = 1) -> list[int]:
    """``times`` notifications of the same trade: ``player``'s card for ``other``'s."""
    with game.write() as tx:
        return [pooker.trade(tx, player, [CARDS[player]], [CARDS[other]], other).notified
                for _ in range(times)]


def verified(game: Nomic) -> bool:
    with game.read() as tx:
        return api.ledger_verify(tx).ok


def test_a_notification_past_the_bound_is_refused_in_one_sentence_and_nothing_written(
        pg: Nomic) -> None:
    with pg.read() as tx:
        assert ge.version(tx.state) == 3
        assert pooker.params(tx.state)["pending-per-player"] == 10
    notify(pg, "ann", "ben", 10)
    before = head(pg)
    with pytest.raises(RuleViolation) as refused, pg.write() as tx:
        pooker.trade(tx, "ann", [CARDS["ann"]], [CARDS["cat"]], "cat")
    assert str(refused.value) == (
        "ann has 10 trade notifications waiting, the most a Player may (pending-per-player "
        "10): withdraw one or let one lapse first")
    assert head(pg) == before
    notify(pg, "ben", "cat")  # the bound is each Player's: ben may still notify
    with pg.write() as tx:  # one withdrawn, one more may wait
        first = pooker_view.pending_seen(tx.state, "ann")[0].event
        pooker.withdraw(tx, "ann", first)
    notify(pg, "ann", "cat")
    assert verified(pg)


def test_the_bound_is_a_parameter_the_nomic_amends(pg: Nomic) -> None:
    notify(pg, "ann", "ben", 3)
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["pending-per-player=3"], proposal="P500")
    with pytest.raises(RuleViolation, match=r"pending-per-player 3\)"), pg.write() as tx:
        pooker.trade(tx, "ann", [CARDS["ann"]], [CARDS["ben"]], "ben")
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["pending-per-player=4"], proposal="P501")
    notify(pg, "ann", "ben")
    for bad in ("0", "1001"):
        with pytest.raises((InputError, RuleViolation), match="pending-per-player"), \
                pg.write() as tx:
            api.game_amend(tx, "pooker", sets=[f"pending-per-player={bad}"], proposal="P502")
    assert verified(pg)


def test_the_replay_refuses_a_forged_notification_past_the_bound(pg: Nomic) -> None:
    notify(pg, "ann", "ben", 10)
    with pg.read() as tx:
        events = list(tx.events())
    state = replay(events)
    forged = ge.TradeNotified("ann", "cat", (1,), (2,), "2026-01-30T00:00:00Z")
    with pytest.raises(ReplayError, match=r"ann, who has 10 waiting already "
                                          r"\(pending-per-player 10\)"):
        apply_event(state, state.seq + 1, forged, events[-1].at)
    state = replay(events)  # the same notification by another is in the rules
    apply_event(state, state.seq + 1, ge.TradeNotified("cat", "ann", (1,), (2,),
                                                       "2026-01-30T00:00:00Z"), events[-1].at)


def test_a_game_at_version_2_keeps_no_bound_until_the_nomic_amends_the_version(
        pg: Nomic) -> None:
    """Version 2 plays by the rules it was enacted with: the bound is version 3's."""
    with pg.write() as tx:
        api.game_amend(tx, "pooker", version=2, proposal="P1")
    notify(pg, "ann", "ben", 12)
    assert verified(pg)  # the replay takes the twelve under version 2
    with pg.write() as tx:
        api.game_amend(tx, "pooker", version=3, proposal="P2")
    with pytest.raises(RuleViolation, match="ann has 10 trade notifications waiting"):
        notify(pg, "ann", "ben")
    assert verified(pg)


def test_a_notification_rewrites_only_the_parts_of_the_two_players_it_concerns(
        pg: Nomic) -> None:
    """Nothing of what others have waiting is rewritten: not one document of every
    notification (as before), the parts of the author and the side named, and the due index
    only when the author's earliest window moves."""
    notify(pg, "cat", "dan", 5)
    notify(pg, "eve", "dan", 5)
    first = notify(pg, "ann", "ben")[0]
    before = dict(sql(pg, "select name, seq from game_data"))
    seq = notify(pg, "ann", "ben")[0]
    after = dict(sql(pg, "select name, seq from game_data"))
    changed = {name for name, s in after.items() if before.get(name) != s}
    with pg.read() as tx:
        ids = {p: tx.state.players[p].id for p in PLAYERS}
    assert changed == {f"pooker/{ids['ann']}", f"pooker/{ids['ben']}"}
    assert after[f"pooker/{ids['ann']}"] == seq
    with pg.read() as tx:
        view = pooker_view.player_view(tx, "ben")
    assert [o.event for o in view.offers] == [first, seq] and view.waiting == ()


def test_a_write_finds_the_windows_due_by_the_index_not_by_walking_every_notification(
        pg: Nomic, clock: FrozenDateTimeFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    notify(pg, "cat", "dan", 10)
    notify(pg, "dan", "eve", 10)
    notify(pg, "eve", "cat", 10)
    looked: list[Any] = []
    real = ge.remind_at

    def counted(note: Any) -> Any:
        looked.append(note)
        return real(note)

    monkeypatch.setattr(ge, "remind_at", counted)
    notify(pg, "ann", "ben")  # none due: the index's first entry is later than now
    assert len(looked) <= 2, len(looked)  # ann's own (the index's entry for em), not thirty
    looked.clear()
    with pg.write() as tx:
        api.tick(tx)
    assert looked == []


def test_windows_across_players_close_time_true_in_time_order(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """Reminders and lapses of several Players' notifications, found by the index, close in
    the order of their ends, each dated at its end, whatever the order they were made in."""
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["trade-expiry-days=5"], proposal="P9")
    late = notify(pg, "cat", "dan")[0]  # lapses day 5.5, reminded day 4.5
    with pg.write() as tx:
        api.game_amend(tx, "pooker", sets=["trade-expiry-days=2"], proposal="P10")
    early = notify(pg, "ann", "ben")[0]  # lapses day 2.5, reminded day 1.5
    mid = notify(pg, "eve", "ann")[0]  # the same
    clock.move_to(day(9))
    with pg.write() as tx:
        api.tick(tx)
    with pg.read() as tx:
        closed = [(r.kind, r.event.notified, r.at) for r in tx.events()
                  if r.kind in ("pooker.reminded", "pooker.lapsed")]
        assert ge.pending(tx.state) == {} and tx.state.game_data(ge.DUE) is None
    assert closed == [("pooker.reminded", early, _at(1.5)), ("pooker.reminded", mid, _at(1.5)),
                      ("pooker.lapsed", early, _at(2.5)), ("pooker.lapsed", mid, _at(2.5)),
                      ("pooker.reminded", late, _at(4.5)), ("pooker.lapsed", late, _at(5.5))]
    assert verified(pg)


def _at(n: float) -> Any:
    from tests.game_time import moment

    return moment(n)


def test_a_database_written_before_keeps_its_notifications_through_the_upgrade(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """Migration 0011 moves the one document of every notification (revision 0010) into the
    parts by Player, as the replay builds them: ``ledger verify`` passes and every view is
    the same."""
    notify(pg, "ann", "ben", 2)
    notify(pg, "cat", "ann")
    clock.move_to(day(7))  # ann's are reminded (a day before they lapse), cat's too
    with pg.write() as tx:
        api.tick(tx)
    notify(pg, "eve", "dan")
    with pg.read() as tx:
        seen = {p: pooker_view.player_view(tx, p) for p in PLAYERS}
        parts = dict(tx.state.games_data)
    engine = migration_engine(pg.url)
    try:
        with engine.begin() as conn:
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0010")
    finally:
        engine.dispose()
    rows = dict(sql(pg, "select name, data from game_data where name like 'pooker%'"))
    assert set(rows) == {"pooker"} and '"pending":' in str(rows["pooker"])
    upgrade(pg.url)
    assert verified(pg)
    with pg.read() as tx:
        assert dict(tx.state.games_data) == parts
        assert {p: pooker_view.player_view(tx, p) for p in PLAYERS} == seen
