"""Typed events: the registry, the codec (byte-compatible with release 0.1.0), decoding errors
that name the event and the field, and adding a kind with no more than the registry, a rule and
a replay step."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from nomic_cards.core import api
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger import replay
from nomic_cards.core.ledger.chain import canonical_json
from nomic_cards.core.ledger.codec import EventDecodeError, decode, encode, split, to_record
from nomic_cards.core.ledger.state import State
from nomic_cards.core.nomic import Nomic
from nomic_cards.errors import DatabaseError

LEGACY = Path(__file__).resolve().parent / "data" / "legacy"
RELEASES = ["release-0.1.0.db", "release-0.1.0-empty-deck.db"]


def _rows(name: str) -> list[tuple[int, str, str]]:
    with sqlite3.connect(LEGACY / name) as con:
        return list(con.execute("select seq, kind, payload from events order by seq"))


def test_every_kind_has_a_class_and_a_replay_step() -> None:
    from nomic_cards.core import engine

    games = engine.games()  # every installed game's kinds registered
    core = [k for k in ev.EVENT_TYPES if k.split(".")[0] not in games]
    # the Cards proposal's 25, points.moved, notice.sealed, notices.mailed, the decisions' 5,
    # a player's own mail business (5), list.posted, claims of error (5)
    assert len(core) == 44
    assert {"player.mail_chosen", "player.address_asked", "player.address_linked",
            "player.token_asked", "player.token_mailed"} <= set(core)
    assert {"decision.opened", "ballot.cast", "decision.resolved", "decision.reminded",
            "strength.set"} <= set(core)
    assert {k for k in ev.EVENT_TYPES if k.startswith("pooker.")} == {
        "pooker.notified", "pooker.traded", "pooker.lapsed", "pooker.motion", "pooker.voted",
        "pooker.opened", "pooker.shown", "pooker.closed", "pooker.failed", "pooker.withdrawn",
        "pooker.declined", "pooker.reminded"}
    for name, cls in ev.EVENT_TYPES.items():
        assert name == cls.KIND
        assert set(cls.PRIVATE) <= {f.name for f in cls.__dataclass_fields__.values()}
        assert cls in replay._STEPS, f"{name} has no replay step"


#: kinds added since release 0.1.0 (its databases cannot hold them)
SINCE_0_1_0 = {"player.rejoined", "notice.failed", "reports.posted", "notice.given",
               "rule.enacted", "rule.amended", "rule.repealed", "pack.retired",
               "points.moved", "pooker.notified", "pooker.traded", "pooker.lapsed",
               "pooker.motion", "pooker.voted", "pooker.opened", "pooker.shown", "pooker.closed",
               "pooker.failed", "pooker.withdrawn", "pooker.declined",
               "notice.sealed", "pooker.reminded", "notices.mailed", "decision.opened",
               "ballot.cast", "decision.resolved", "decision.reminded", "strength.set",
               "player.mail_chosen", "player.address_asked", "player.address_linked",
               "player.token_asked", "player.token_mailed", "list.posted",
               "report.doubted", "report.denied", "report.revised", "report.withdrawn",
               "report.ratified"}


def test_release_0_1_0_covers_every_kind() -> None:
    from nomic_cards.core import engine

    engine.games()
    kinds = {kind for name in RELEASES for _, kind, _ in _rows(name)}
    ours = {k for k, cls in ev.EVENT_TYPES.items() if cls.__module__.startswith("nomic_cards.")}
    assert kinds == ours - SINCE_0_1_0


def test_stored_payloads_decode_and_encode_to_the_same_bytes(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        api.deal(tx, "bob")
        api.transfer(tx, api.hand(tx, "bob").cards[0].card, "alice", "Proposal 1")
        api.retire_player(tx, "alice")
    with game.read() as tx:
        rows = list(tx.stored_events())
    assert {r.kind for r in rows} >= {"game.created", "card.dealt", "player.retired"}
    for row in rows:
        rec = to_record(row)
        public, private = split(rec.event)
        assert canonical_json(public) == row.payload, f"event {row.seq} ({row.kind})"
        if private:
            assert row.opening is not None and canonical_json(private) == row.opening.data
        else:
            assert row.opening is None and row.private is None


DEAL = {"player": "a", "reason": "r", "nweek": None, "card": 3, "values": [3], "notice": "n",
        "dice": {"source": "system", "sides": 208, "period": None, "first": None, "count": 1}}


@pytest.mark.parametrize(("payload", "message"), [
    ({**DEAL, "card": "x"},
     "event 7: field 'card' of the card.dealt event should be a whole number, not 'x'"),
    ({**DEAL, "card": True},
     "event 7: field 'card' of the card.dealt event should be a whole number, not True"),
    ({k: v for k, v in DEAL.items() if k != "values"},
     "event 7: field 'values' of the card.dealt event is missing"),
    ({**DEAL, "dice": {"source": "system", "sides": 208, "period": None, "count": 1}},
     "event 7: field 'dice.first' of the card.dealt event is missing"),
    ({**DEAL, "values": [3, "4"]},
     "event 7: field 'values[1]' of the card.dealt event should be a whole number, not '4'"),
    ({**DEAL, "player": None},
     "event 7: field 'player' of the card.dealt event should be text, not null"),
    ([1, 2], "event 7: the payload of the card.dealt event should be an object, not [1, 2]"),
])
def test_a_decoding_error_names_the_event_and_the_field(payload: object, message: str) -> None:
    with pytest.raises(EventDecodeError) as err:
        decode("card.dealt", payload, 7)
    assert str(err.value) == message


def test_an_unknown_kind_is_named() -> None:
    with pytest.raises(EventDecodeError, match=r"^event 3: the card\.eaten event is of an "
                                              r"unknown kind$"):
        decode("card.eaten", {}, 3)


def test_times_round_trip_as_utc_iso() -> None:
    event = decode("clock.stopped", {"at": "2026-01-06T10:00:00+00:00"}, 1)
    assert isinstance(event, ev.ClockStopped)
    assert event.at == datetime.fromisoformat("2026-01-06T10:00:00+00:00")
    assert encode(event) == {"at": "2026-01-06T10:00:00+00:00"}


@pytest.fixture
def legacy_game(tmp_path: Path) -> Iterator[tuple[Nomic, dict[str, object]]]:
    """A copy of a database written by release 0.1.0, upgraded by ``init``."""
    shutil.copy(LEGACY / "release-0.1.0.db", tmp_path / "old.db")
    facts = json.loads((LEGACY / "release-0.1.0.json").read_text())
    with Nomic(str(tmp_path / "old.db")) as game:
        assert api.init_game(game).created is False
        yield game, facts


def test_a_database_written_by_release_0_1_0_upgrades_and_verifies(
        legacy_game: tuple[Nomic, dict[str, object]]) -> None:
    game, facts = legacy_game
    with game.read() as tx:
        report = api.ledger_verify(tx)
    assert report.ok, [str(p) for p in report.problems]
    assert report.events == facts["events"]
    hands = facts["hands"]
    assert isinstance(hands, dict)
    for player, cards in hands.items():
        with game.read() as tx:
            assert [c.number for c in api.hand(tx, player).cards] == cards
    with game.write() as tx:
        assert api.deck(tx).total == facts["deck"]
        assert api.show_dealer(tx).dealer == facts["dealer"]
        assert api.dice_verify(tx).ok
        api.deal(tx, "Murphy")  # and play goes on
        assert api.ledger_verify(tx).ok


def test_a_tampered_database_from_release_0_1_0_is_not_upgraded(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(LEGACY / "release-0.1.0.db", db)
    with sqlite3.connect(db) as con:
        con.execute("update events set payload = replace(payload, '\"card\":10', "
                    "'\"card\":11') where seq = 11")
        before = list(con.execute("select * from events order by seq"))
    with Nomic(str(db)) as game, pytest.raises(DatabaseError, match=r"event 11: its hash does "
                                                                   r"not match .* not upgraded"):
        api.init_game(game)
    with sqlite3.connect(db) as con:
        assert list(con.execute("select * from events order by seq")) == before
        assert con.execute("select version_num from alembic_version").fetchone() == ("0002",)


# --- a worked example: a new kind of event (docs/ledger.md) ---------------------------------


@dataclass(frozen=True)
class HandReturned(ev.Event):
    """A hand returned whole to the Deck under a cited rule (a made-up rule change)."""

    player: str
    cards: tuple[int, ...]
    rule: str

    def subject(self) -> str | None:
        return self.player


def return_hand(state: State, player: str, rule: str) -> HandReturned:
    """The rule that emits it."""
    return HandReturned(player, tuple(state.hand(player)), rule)


def _hand_returned(state: State, e: HandReturned, seq: int, at: datetime) -> None:
    """Its replay step."""
    state.move(e.cards, None, seq)


@pytest.fixture
def new_kind() -> Iterator[None]:
    HandReturned.__module__ = ev.__name__  # a kind of the Cards rules is declared there
    ev.kind("hand.returned", private=("cards",))(HandReturned)
    replay.step(HandReturned)(_hand_returned)
    try:
        yield
    finally:
        ev._REGISTRY.pop("hand.returned")
        replay._STEPS.pop(HandReturned)


def test_a_new_kind_needs_a_class_a_rule_and_a_step(new_kind: None, game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        api.deal(tx, "alice")
    with game.write() as tx:
        rec = tx.record(return_hand(tx.state, "alice", "Proposal 404"))[0]
    assert rec.subject == "alice" and rec.payload["rule"] == "Proposal 404"
    with game.read() as tx:
        assert api.hand(tx, "alice").cards == ()
        assert api.deck(tx).total == 208  # the projection followed without new code
        assert api.ledger_verify(tx).ok  # and the replay agrees with it
        log = api.log(tx, limit=1)
    assert log[0].kind == "hand.returned" and log[0].payload["cards"] == "(hidden: use --reveal)"
