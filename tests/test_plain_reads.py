"""The plain DB-API reads (``store/plain.py``, SQL in ``store/sql.py``) return exactly what the
SQLAlchemy unit of work returns, on both backends, and name only tables and columns the models
define."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from freezegun import freeze_time

from nomic_cards.core import Game, services
from nomic_cards.core.ledger.state import State
from nomic_cards.core.store import sql as sql_text
from nomic_cards.core.store.base import Base
from nomic_cards.core.store.plain import PlainReadUnit, plain_read
from nomic_cards.core.store.uow import UnitOfWork
from nomic_cards.errors import DatabaseError, RuleViolation
from tests.helpers import new_game, scripted, sql


def _rich_game(url: str) -> Game:
    """A game with something in every table: deals (committed, system and manual dice),
    transfers, a retirement, a Dealer election, a new pack, the Clock stopped and started,
    votes, ticks with published reports, notices and a revealed dice period."""
    with freeze_time("2026-01-01 10:00:00"):
        g = new_game(url, players=("ann", "ben", "cat", "dan"))
        services.record_vote(g, "ann", "1")
        services.record_vote(g, "ben", "2")
    with freeze_time("2026-01-11 00:05:00"):
        services.tick(g)
    with freeze_time("2026-01-12 10:00:00"):
        services.deal(g, "ben", source="system")
        services.deal(g, "ann", **scripted(range(5, 35)))
        services.deal(g, "cat")
        card = services.hand(g, "ann").cards[0]
        services.transfer(g, str(card.card), "cat", "Proposal 5")
        services.add_pack(g, "Green", "a green back")
        services.elect_dealer(g, "dan")
        services.retire_player(g, "cat")
        services.record_vote(g, "ben", "3")
        services.record_vote(g, "dan", "3")
    with freeze_time("2026-01-13 10:00:00"):
        services.clock_stop(g)
    with freeze_time("2026-01-15 10:00:00"):
        services.clock_start(g)
    with freeze_time("2026-01-23 00:05:00"):
        services.tick(g)
        services.dice_reveal(g, force=True)
        services.deal(g, "ann")
    return g


@pytest.fixture
def rich(db_url: str) -> Iterator[Game]:
    with _rich_game(db_url) as g:
        yield g


def _fields(state: State) -> dict[str, object]:
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}


def _compare(a: UnitOfWork, b: PlainReadUnit, game: Game) -> None:
    # the live state, field by field (the write path's state tracks changes: not a read field)
    live_a, live_b = _fields(a.state), _fields(b.state)
    live_a.pop("track")
    live_b.pop("track")
    assert live_b == live_a
    full_a, full_b = a.full_state(), b.full_state()
    assert _fields(full_b) == _fields(full_a)
    assert full_a.deals and full_a.votes and full_a.reports and full_a.notices
    assert full_a.clock_stops and len(full_a.packs) == 5 and len(full_a.dealer_terms) == 2
    assert any(not p.active for p in full_a.players.values())
    assert any(p.revealed_seed for p in full_a.periods.values())
    assert list(b.stored_events()) == list(a.stored_events())
    assert list(b.stored_events(private=False)) == list(a.stored_events(private=False))
    events = list(a.events())
    assert list(b.events()) == events
    seqs = [e.seq for e in events]
    for kw in ({}, {"subject": "ann"}, {"subject": "nobody"}, {"limit": 3},
               {"kinds": ("card.dealt", "card.transferred")},
               {"subject": "ben", "kinds": ("card.dealt",), "limit": 1}):
        assert b.recent_events(**kw) == a.recent_events(**kw), kw  # type: ignore[arg-type]
    for seq in [*seqs, len(seqs) + 1, 0]:
        assert b.event_at(seq) == a.event_at(seq)
    assert b.event_hashes(seqs) == a.event_hashes(seqs)
    assert b.event_hashes([2, 3, 99999]) == a.event_hashes([2, 3, 99999])
    for seq in [*full_a.notices, 1]:
        assert b.notice_sent(seq) == a.notice_sent(seq)
    assert b.card_rows() == a.card_rows()
    for start, end in ((datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)),
                       (datetime(2026, 1, 12, tzinfo=UTC), datetime(2026, 1, 13, tzinfo=UTC)),
                       (datetime(2026, 1, 1, 10, tzinfo=UTC),
                        datetime(2026, 1, 1, 10, tzinfo=UTC))):
        assert b.voters_between(start, end) == a.voters_between(start, end)
        assert b.existing_votes(start, end) == a.existing_votes(start, end)
    assert a.voters_between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC))
    for nweek in range(0, 5):
        assert b.deals_in_nweek(nweek) == a.deals_in_nweek(nweek)
        assert b.report(nweek) == a.report(nweek)
    assert b.latest_report() == a.latest_report() is not None
    for period in [*full_a.periods, 99]:
        assert b.secret(period) == a.secret(period)


def test_plain_reads_equal_the_sqlalchemy_unit_of_work(rich: Game) -> None:
    with rich.unit_of_work(write=False) as a, \
            plain_read(rich.url, check_schema=True) as b:
        _compare(a, b, rich)


def test_read_commands_use_the_plain_reads_outside_a_server(rich: Game) -> None:
    """Game.read gives the plain unit in a command-line process and the SQLAlchemy one in a
    server, and the use cases answer the same through both."""
    with rich.read() as unit:
        assert isinstance(unit, PlainReadUnit)
    with Game(rich.url, server=True) as server:
        with server.read() as unit:
            assert isinstance(unit, UnitOfWork)
        for use_case in (lambda g: services.hand(g, "ann"), services.deck, services.log,
                         lambda g: services.report(g, 2), services.list_players,
                         services.show_dealer, services.clock_status, services.dice_periods,
                         services.dice_verify, services.ledger_verify):
            assert use_case(rich) == use_case(server)


def test_a_read_refuses_a_database_without_a_game(db_url: str) -> None:
    with Game(db_url, create=True) as g:
        g.migrate()
        with pytest.raises(RuleViolation, match="holds no game yet"), g.read():
            pass


def test_a_read_checks_the_schema_revision(db_url: str) -> None:
    with new_game(db_url) as g:
        pass
    sql(db_url, "UPDATE alembic_version SET version_num = '0004'")
    with Game(db_url) as g, pytest.raises(DatabaseError) as plain:
        services.list_players(g)
    with Game(db_url, server=True) as g, pytest.raises(DatabaseError) as pooled:
        services.list_players(g)
    assert "schema revision '0004'" in str(plain.value)
    assert str(plain.value) == str(pooled.value)


def test_every_name_the_sql_uses_is_in_the_models() -> None:
    tables = Base.metadata.tables
    statements = [v for k, v in vars(sql_text).items() if k.isupper() and isinstance(v, str)]
    assert len(statements) > 20
    named = set()
    for text in statements:
        for table, column in re.findall(r"\b([a-z_]+)\.([a-z_]+)\b", text):
            if table in ("sqlite_master", "alembic_version"):
                continue
            named.add((table, column))
    assert ("events", "prev_hash") in named and ("votes", "at") in named
    missing = sorted(f"{t}.{c}" for t, c in named if t not in tables or c not in tables[t].c)
    assert missing == []
    # every table a FROM or JOIN names is qualified the same way
    for text in statements:
        for table in re.findall(r"\b(?:FROM|JOIN)\s+([a-z_]+)", text):
            assert table in tables or table in ("sqlite_master", "alembic_version"), table
