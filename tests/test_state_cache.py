"""The live state a Game keeps between its writes (``core/store/cached.py``) is always exactly
what loading it from the tables gives: after every write, by either of two Games on one
database (each with its own cache, as two server workers, or a worker and the command line),
with a server's Game (no e-mail addresses), and after a write that failed half-way."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import date

import pytest
from freezegun import freeze_time

from nomic_cards.core import api
from nomic_cards.core.game import Game
from nomic_cards.core.games import points
from nomic_cards.core.ledger.events import NoticeGiven
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.dealing import deal_in
from nomic_cards.core.services.live import LiveEvent, Viewer, events_at, recorded_events
from nomic_cards.core.store import uow as uow_module
from nomic_cards.core.store.reads import load_state
from tests.helpers import new_game, sql


def _fields(state: State) -> dict[str, object]:
    out = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
    out.pop("changes")
    return out


class Boom(Exception):
    pass


def check(game: Game, *, cached: bool = True) -> None:
    """In a write of ``game`` that records nothing: its live state equals the one loaded from
    the tables in the same transaction, and (with ``cached``) is the state its cache kept,
    brought up to the ledger head -- not a state loaded afresh."""
    kept = game._states.peek()
    with game.write(catch_up=False) as uow:
        state = uow.state
        if cached:
            assert kept is not None and state is kept.state
        loaded = load_state(uow._db, emails=uow.emails)
        loaded.track = True
        assert _fields(state) == _fields(loaded)
        assert uow._last_time() == uow.event_time(state.seq)
    after = game._states.peek()
    assert after is not None and after.state is state


@pytest.fixture
def games(db_url: str) -> Iterator[tuple[Game, Game, Game]]:
    with freeze_time("2026-01-01 10:00:00"), new_game(
            db_url, epoch=date(2026, 1, 1), players=("ann", "ben", "cat")) as a, \
            Game(db_url) as b, Game(db_url, server=True) as s:
        yield a, b, s


def test_a_kept_state_is_the_loaded_one_after_every_write(
        games: tuple[Game, Game, Game]) -> None:
    a, b, s = games
    officer = s.acting("PurpleBob (the Dealer, through the server)")
    with freeze_time("2026-01-01 10:00:00"):
        check(a)
        check(b, cached=False)  # b has written nothing yet: it loads once
        check(s, cached=False)
        api.add_player(b, "dan", email="dan@example.org")
        check(a)  # a folds in b's event; its addresses are there
        check(s)  # the server's has none
        api.deal(a, "ann")
        api.deal(officer, "ben", source="system")  # an acting view shares s's cache
        check(s)
        check(a)
        check(b)
        api.set_email(s, "ann", "ann@example.org")
        check(b)
        check(s)
        api.record_vote(a, "ann", "P1")
        api.record_vote(b, "ben", "P1")
        api.game_enact(a, "pooker", "Red,Blue", proposal="P456")
        check(b)
        api.transfer(b, "Red As", "ann", "P601: a gift", source="deck")
        points.grant(a, "ann", 1, rule="Scorekeeper")
        check(b)
        check(s)
    with freeze_time("2026-01-03 10:00:00"):
        api.amend_rule(b, "9", ["absent=owe"], proposal="P7")
        api.retire_player(a, "cat")
        api.record_vote(s, "cat", "P2")
        api.clock_stop(b)
        check(a)
    with freeze_time("2026-01-05 10:00:00"):
        api.clock_start(a)
        api.add_pack(s, "Green", "a green back")
        api.elect_dealer(b, "dan")
        check(a)
        check(s)
    with freeze_time("2026-01-12 00:05:00"):
        api.tick(a)  # an nweek boundary: report, dice, Cards for Votes, owed cards
        check(b)
        check(s)
        api.dice_reveal(b, force=True)
        api.deal(a, "ben")
        check(s)
        check(a)
        check(b)
    with a.read() as r:
        state = r.state
        assert state.games_data and state.clock_stops and state.nweeks
        assert any(c.params.get("absent") == "owe" for c in state.rule_changes)
    assert api.ledger_verify(a).ok


def test_a_failed_write_keeps_nothing(games: tuple[Game, Game, Game]) -> None:
    a, b, _s = games
    with freeze_time("2026-01-01 10:00:00"):
        api.deal(a, "ann")
        head = api.ledger_head(a).event
        kept = a._states.peek()
        assert kept is not None and kept.state.seq == head
        with pytest.raises(Boom), a.write() as uow:
            uow.record(NoticeGiven("ann", "a notice never recorded"))
            assert uow.state.seq == head + 1  # the kept state, changed in place
            raise Boom
        assert api.ledger_head(a).event == head
        assert a._states.peek() is None  # half-applied: dropped, not kept
        check(a, cached=False)
        api.deal(b, "ben")
        check(a)


def test_a_write_that_fails_to_commit_keeps_nothing_usable(
        games: tuple[Game, Game, Game], monkeypatch: pytest.MonkeyPatch) -> None:
    """The state is kept just before the commit; a commit that fails forgets it."""
    a, b, _s = games
    with freeze_time("2026-01-01 10:00:00"):
        api.deal(a, "ann")
        real = uow_module.StateCache.keep

        def keep_then_fail(self: uow_module.StateCache, kept: uow_module.Kept) -> None:
            real(self, kept)
            raise Boom

        monkeypatch.setattr(uow_module.StateCache, "keep", keep_then_fail)
        with pytest.raises(Boom):
            api.deal(a, "ben")
        monkeypatch.undo()
        assert a._states.peek() is None
        check(a, cached=False)


def test_a_kept_state_too_far_behind_is_loaded_afresh(
        games: tuple[Game, Game, Game], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, _s = games
    monkeypatch.setattr(uow_module, "MAX_FOLD", 2)
    with freeze_time("2026-01-01 10:00:00"):
        check(a)
        for player in ("ann", "ben", "cat"):
            api.deal(b, player)
        check(a, cached=False)
        api.deal(b, "ann")
        check(a)


def test_a_state_that_does_not_follow_on_is_loaded_afresh(
        games: tuple[Game, Game, Game]) -> None:
    """A kept state whose chain the ledger's does not continue (here: the ledger's events
    rewritten behind its back) is never folded into."""
    a, b, _s = games
    with freeze_time("2026-01-01 10:00:00"):
        check(a)
        kept = a._states.peek()
        assert kept is not None
        kept.state.head_hash = "0" * 64  # as if its write had never committed
        api.deal(b, "ann")
        check(a, cached=False)


def test_the_command_line_writes_as_before(games: tuple[Game, Game, Game]) -> None:
    """A Game that writes once loads the state once, as it did without a cache; a projection
    edited by hand is seen by the next Game opened (the cache lives as long as its Game)."""
    a, _b, _s = games
    with freeze_time("2026-01-01 10:00:00"):
        sql(a, "UPDATE players SET email = 'x@example.org' WHERE name = 'ann'")
        with Game(a.url) as cli:
            assert cli._states.peek() is None
            api.deal(cli, "ann")
            with cli.write() as uow:
                assert uow.state.players["ann"].email == "x@example.org"


def test_the_events_a_write_recorded_are_those_the_streams_read(
        games: tuple[Game, Game, Game]) -> None:
    """An action's answer is made from what its transaction wrote (no query under the lock):
    the same events, public parts and the viewer's own notice, as read back once committed."""
    a, _b, s = games
    with freeze_time("2026-01-01 10:00:00"):
        api.transfer(a, "Red As", "ann", "P1: a gift", source="deck")
        with s.read() as r:
            ids = {name: p.id for name, p in r.state.players.items()}
        viewers = [Viewer(name, ids[name], None) for name in ("ann", "ben")] + [None]
        made: dict[Viewer | None, list[LiveEvent]] = {}
        with s.write() as uow:
            deal_in(uow, "ben", reason="a test")
            uow.record(NoticeGiven("ann", "a notice for ann"))
            card = uow.state.hand("ann")[0]
            uow.record(rules.transfer(uow.state, card, "ben", "P2: back"))
            for v in viewers:
                made[v] = recorded_events(uow, v)
        seqs = tuple(e.event for e in made[None])
        assert len(seqs) >= 3
        for v in viewers:
            assert made[v] == events_at(s, seqs, v)
        assert any(e.notice for e in made[viewers[0]]) and any(e.notice for e in made[viewers[1]])
        assert not any(e.notice for e in made[None])
