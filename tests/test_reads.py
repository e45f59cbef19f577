"""The one read path, :class:`~nomic_cards.core.store.reads.Reads` (SQL in ``store/sql.py``): it
reads alike in each kind of transaction it is given -- a command's read, a server's (pooled on
PostgreSQL), a writing transaction's own -- on both backends, runs every statement, and names
only tables and columns the models define."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from freezegun import freeze_time

from nomic_cards.core import api
from nomic_cards.core.ledger.state import State
from nomic_cards.core.nomic import Nomic, Tx
from nomic_cards.core.store import sql as sql_text
from nomic_cards.core.store.base import Base
from nomic_cards.core.store.reads import Reads
from nomic_cards.errors import DatabaseError, RuleViolation
from tests.helpers import new_game, scripted, sql


def _rich_game(url: str) -> Nomic:
    """A game with something in every table: deals (committed, system and manual dice),
    transfers, a retirement, a Dealer election, a new pack, the Clock stopped and started,
    votes, ticks with published reports, notices and a revealed dice period."""
    with freeze_time("2026-01-01 10:00:00"):
        g = new_game(url, players=("ann", "ben", "cat", "dan"))
        with g.write() as tx:
            api.record_vote(tx, "ann", "1")
            api.record_vote(tx, "ben", "2")
    with freeze_time("2026-01-11 00:05:00"), g.write() as tx:
        api.tick(tx)
    with freeze_time("2026-01-12 10:00:00"), g.write() as tx:
        api.deal(tx, "ben", source="system")
        api.deal(tx, "ann", **scripted(range(5, 35)))
        api.deal(tx, "cat")
        card = api.hand(tx, "ann").cards[0]
        api.transfer(tx, str(card.card), "cat", "Proposal 5")
        api.add_pack(tx, "Green", "a green back")
        api.elect_dealer(tx, "dan")
        api.retire_player(tx, "cat")
        api.record_vote(tx, "ben", "3")
        api.record_vote(tx, "dan", "3")
    with freeze_time("2026-01-13 10:00:00"), g.write() as tx:
        api.clock_stop(tx)
    with freeze_time("2026-01-15 10:00:00"), g.write() as tx:
        api.clock_start(tx)
    with freeze_time("2026-01-23 00:05:00"), g.write() as tx:
        api.tick(tx)
        api.dice_reveal(tx, force=True)
        api.deal(tx, "ann")
        api.issue_token(tx, "ann")
        api.issue_token(tx, "ben")
    return g


@pytest.fixture
def rich(db_url: str) -> Iterator[Nomic]:
    with _rich_game(db_url) as g:
        yield g


def _fields(state: State) -> dict[str, object]:
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}


def _compare(a: Reads, b: Reads) -> None:
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
        assert b.event_time(seq) == a.event_time(seq)
    assert b.event_heads(seqs) == a.event_heads(seqs)
    assert b.event_heads([2, 3, 99999]) == a.event_heads([2, 3, 99999])
    for seq in [*full_a.notices, 1]:
        assert b.notice_sent(seq) == a.notice_sent(seq)
    assert b.card_rows() == a.card_rows()
    for start, end in ((datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)),
                       (datetime(2026, 1, 12, tzinfo=UTC), datetime(2026, 1, 13, tzinfo=UTC)),
                       (datetime(2026, 1, 1, 10, tzinfo=UTC),
                        datetime(2026, 1, 1, 10, tzinfo=UTC))):
        assert b.voters_between(start, end) == a.voters_between(start, end)
        everyone = [p.id for p in full_a.players.values()]
        assert b.existing_votes(start, end, everyone) == a.existing_votes(start, end, everyone)
        for pid in everyone[:2]:  # one player's: theirs alone
            assert b.existing_votes(start, end, [pid]) == a.existing_votes(start, end, [pid])
            names = {n for n, p in full_a.players.items() if p.id == pid}
            assert {v[0] for v in a.existing_votes(start, end, [pid])} <= names
        assert b.events_from(start, end, ("vote.recorded",)) == \
            a.events_from(start, end, ("vote.recorded",))
    assert a.voters_between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC))
    for nweek in range(0, 5):
        assert b.deals_in_nweek(nweek) == a.deals_in_nweek(nweek)
        assert b.report(nweek) == a.report(nweek)
    assert b.latest_report() == a.latest_report() is not None
    for period in [*full_a.periods, 99]:
        assert b.secret(period) == a.secret(period)
    # the narrow reads, against what the state says
    state = full_a
    assert a.head() == b.head() == (state.seq, state.head_hash)
    assert a.first_hash() == b.first_hash() == events[0].hash
    for event in (events[0], events[len(events) // 2], events[-1]):
        assert a.last_event_at(event.at) == b.last_event_at(event.at) >= event.seq
    assert a.last_event_at(datetime(2000, 1, 1, tzinfo=UTC)) == 0
    names = list(state.players)
    assert a.players_by(state.seq) == b.players_by(state.seq) == names
    assert a.dealer_at(state.seq) == b.dealer_at(state.seq) == state.dealer == "dan"
    for name in names:
        assert a.joined_seq(name) == b.joined_seq(name) == state.players[name].joined_seq
        held = sorted(state.hand(name))
        assert [c.number for c in a.hand_as_of(name, state.seq)] == held
        assert b.hand_as_of(name, state.seq) == a.hand_as_of(name, state.seq)
        assert b.notices_of(name) == a.notices_of(name)
        assert [n.seq for n in a.notices_of(name)] == sorted(
            n.seq for n in state.notices.values() if n.player == name)
    assert a.joined_seq("nobody") is None
    counts = a.counts_by_back()
    assert sorted(counts, key=repr) == sorted(b.counts_by_back(), key=repr)
    assert sum(r.cards for r in counts) == 52 * len(state.packs)
    assert sum(r.cards for r in counts if r.holder is None) == len(state.deck)
    assert a.reports_index() == b.reports_index()
    assert [n for n, _seq, _at in a.reports_index()] == sorted(state.reports, reverse=True)
    assert a.tokens() == b.tokens() and len(a.tokens()) == 2
    assert [t[0] for t in a.tokens("ann")] == ["ann"]
    token = a.tokens("ann")[0][1]
    row = a.token(token)
    assert row == b.token(token) and row is not None
    assert row.player == "ann" and not row.revoked and row.player_id == state.players["ann"].id
    assert a.token("-" * 16) is None
    # the token and its player's hand in one statement: the hand only for the right hash
    for name in ("ann", "ben"):
        selector = a.tokens(name)[0][1]
        stored = a.token(selector)
        assert stored is not None
        found, cards, head, dealer = a.token_and_hand(selector, stored.verifier_sha256)
        assert found == stored and head == (state.seq, state.head_hash)
        assert [c.number for c in cards] == sorted(state.hand(name)) != []
        assert dealer == (name == state.dealer)
        assert b.token_and_hand(selector, stored.verifier_sha256) == (found, cards, head,
                                                                      dealer)
        assert a.token_and_hand(selector, "0" * 64) == (stored, [], head, dealer)
    assert a.token_and_hand("-" * 16, "0" * 64) == b.token_and_hand("-" * 16, "0" * 64) \
        == (None, [], (state.seq, state.head_hash), False)


@pytest.mark.slow
def test_reads_alike_on_every_connection(rich: Nomic) -> None:
    """A command's read, a server's and a writing transaction's own read alike."""
    with rich.read() as plain, Nomic(rich.url, server=True, actor="x") as server, \
            server.read() as pooled:
        _compare(plain, pooled)
    with rich.write(catch_up=False) as tx, Nomic(rich.url) as other, other.read() as plain:
        _compare(tx, plain)


@pytest.mark.slow
def test_the_use_cases_answer_alike_for_a_command_and_a_server(rich: Nomic) -> None:
    """Nomic.read gives Reads on the driver's own cursor, in a command-line process and in a
    server, and the use cases answer the same through both; a write gives a Tx, a Reads too."""
    with rich.read() as unit:
        assert type(unit) is Reads
        assert "sqlalchemy" not in type(unit.db.cur).__module__
    with Nomic(rich.url, server=True) as server:
        with server.read() as unit:
            assert type(unit) is Reads
        with server.write() as tx:
            assert isinstance(tx, Tx) and isinstance(tx, Reads)
        for use_case in (lambda r: api.hand(r, "ann"), api.deck, api.log,
                         lambda r: api.report(r, 2), api.list_players,
                         api.show_dealer, api.clock_status, api.dice_periods,
                         api.dice_verify, api.ledger_verify):
            with rich.read() as a, server.read() as b:
                assert use_case(a) == use_case(b)


def test_a_servers_read_of_the_game_sees_one_snapshot(db_url: str) -> None:
    """A server's read of the game (its state, then more) sees one snapshot on both backends,
    though another process commits between its statements; the next read sees the commit."""
    with new_game(db_url, players=("ann", "ben")) as g, \
            Nomic(g.url, server=True, actor="x") as server:
        with server.read() as r:
            before = r.head()
            hand = r.state.hand("ann")
            with g.write() as tx:
                api.deal(tx, "ann", source="system")  # committed on another connection meanwhile
            assert r.head() == before
            assert r.state.hand("ann") == hand
            assert [row.seq for row in r.events_after(before[0], 10)] == []
        with server.read() as r:
            assert r.head()[0] > before[0]
            assert len(r.events_after(before[0], 10)) >= 1


def test_a_read_refuses_a_database_without_a_game(db_url: str) -> None:
    with Nomic(db_url, create=True) as g:
        g.migrate()
        with pytest.raises(RuleViolation, match="holds no game yet"), g.read():
            pass


def test_a_read_checks_the_schema_revision(db_url: str) -> None:
    with new_game(db_url) as g:
        pass
    sql(db_url, "UPDATE alembic_version SET version_num = '0004'")
    with Nomic(db_url) as g, pytest.raises(DatabaseError) as plain, g.read() as tx:
        api.list_players(tx)
    with Nomic(db_url, server=True) as g, pytest.raises(DatabaseError) as pooled, g.read() as tx:
        api.list_players(tx)
    assert "schema revision '0004'" in str(plain.value)
    assert str(plain.value) == str(pooled.value)


def _statements() -> dict[str, str]:
    return {k: v for k, v in vars(sql_text).items()
            if k.isupper() and not k.startswith("_") and isinstance(v, str)}


def test_every_name_the_sql_uses_is_in_the_models() -> None:
    tables = Base.metadata.tables
    statements = list(_statements().values())
    assert len(statements) > 40
    named = set()
    for text in statements:
        aliases = dict((alias, table) for table, alias in
                       re.findall(r"\b([a-z_]+) AS ([a-z_]+)\b", text))
        for table, column in re.findall(r"\b([a-z_]+)\.([a-z_]+)\b", text):
            if table in ("sqlite_master", "alembic_version"):
                continue
            named.add((aliases.get(table, table), column))
    assert ("events", "prev_hash") in named and ("votes", "at") in named
    assert ("card_moves", "seq") in named and ("player_tokens", "selector") in named
    missing = sorted(f"{t}.{c}" for t, c in named if t not in tables or c not in tables[t].c)
    assert missing == []
    # every table a FROM or JOIN names is qualified the same way
    for text in statements:
        for table in re.findall(r"\b(?:FROM|JOIN)\s+([a-z_]+)", text):
            assert table in tables or table in ("sqlite_master", "alembic_version"), table


#: the fragments completed by another statement (``{where}``, ``{until}``, ``{marks}``)
_FRAGMENTS = {"RECENT_BY_SUBJECT", "RECENT_BY_KIND", "EVENTS_UNTIL", "TOKENS_OF"}


def _value(db: Any, column: str, text: str) -> object:
    """A value of the type of ``table.column`` (or ``alias.column``) of ``text`` (a number
    after LIMIT)."""
    table, _, name = column.partition(".")
    if not name:
        return 1
    aliases = {alias: real for real, alias in re.findall(r"\b([a-z_]+) AS ([a-z_]+)\b", text)}
    python = Base.metadata.tables[aliases.get(table, table)].c[name].type.python_type
    if python is datetime:
        return db.param(datetime(2026, 1, 1, tzinfo=UTC))
    return "x" if python is str else 1


def test_every_statement_runs(db_url: str) -> None:
    """Each statement as written (its slots filled, every placeholder given a value) runs on a
    migrated database of the backend."""
    with new_game(db_url, players=("ann",)) as g, g.read() as unit:
        db = unit.db
        ran = 0
        for name, text in _statements().items():
            if name in _FRAGMENTS:
                continue
            full = text.format(where="", until="", marks="?")
            if name.endswith("_SQLITE" if db.postgres else "_POSTGRESQL"):
                continue
            params = [_value(db, column, full) for column in re.findall(
                r"([a-z0-9_.]*)\s*(?:<>|<=|>=|<|>|=|IN \(|LIMIT|LIKE)\s*\?", full)]
            assert len(params) == full.count("?"), name
            db.all(full, params)
            ran += 1
        assert ran > 40
