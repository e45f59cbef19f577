"""Each event's sentence is said once, in Python: the line ``nomic-cards log`` prints is the text
every public channel carries (the streams' frames, an action's answer, ``GET /api/v1/log``),
read there from the public payload alone. A season with an event of nearly every kind, of the
core, of Pooker and of the card duel: for each event the public channels' text is the log's line
without ``--reveal``, and names no private field."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services.common import card_label
from nomic_cards.core.services.live import events_after
from nomic_cards.core.services.summaries import HIDDEN_NOTE, HIDDEN_PUBLIC, summary

#: (time, command): players, packs, both card games, deals, transfers, votes, the Clock, a
#: Motion and a Showdown, Points, retirements, an election, the nweek boundary with its Cards
#: for Votes and the Dealer's Report, a pack retired, a dice period revealed
SEASON = [
    ("2026-01-01T10:00:00Z", "init --epoch 2026-01-01 --nweek-days 10"),
    ("2026-01-01T10:01:00Z", "player add ann --email ann@example.org"),
    ("2026-01-01T10:02:00Z", "player add ben"),
    ("2026-01-01T10:03:00Z", "player add cat"),
    ("2026-01-01T10:04:00Z", "player email ann ann2@example.org"),
    ("2026-01-01T10:05:00Z", "pack add Green --back 'A green back'"),
    ("2026-01-01T11:00:00Z", "game enact pooker --packs Red,Blue --proposal P456"),
    ("2026-01-01T11:01:00Z", "game enact duel --packs Fish --proposal P457"),
    ("2026-01-01T11:11:00Z", "transfer 'Red As' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:12:00Z", "transfer 'Red Ks' --to ben --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:13:00Z", "transfer 'Red 2c' --to cat --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:14:00Z", "transfer 'Fish As' --to ann --from deck --rule P1"),
    ("2026-01-01T11:15:00Z", "transfer 'Fish Kd' --to ben --from deck --rule P1"),
    # dealt after the named cards are moved, so the die cannot give away one of them first
    ("2026-01-01T11:16:00Z", "deal ann"),
    ("2026-01-01T12:00:00Z", "vote cast ben --proposal 301"),
    ("2026-01-01T12:01:00Z", "clock stop"),
    ("2026-01-01T12:02:00Z", "clock start"),
    ("2026-01-02T09:00:00Z", "points grant ann 5 --rule 'Scorekeeper report'"),
    ("2026-01-02T09:01:00Z", "points grant ben 5 --rule 'Scorekeeper report'"),
    ("2026-01-02T12:00:00Z", "pooker trade ann --give 'Red As' --get 'Red Ks' --with ben"),
    ("2026-01-02T15:00:00Z", "pooker trade ben --give 'Red Ks' --get 'Red As' --with ann"),
    ("2026-01-02T16:00:00Z", "act duel.challenge --as ann opponent=ben"),
    ("2026-01-02T16:01:00Z", "act duel.commit --as ann duel=1 card='Fish As'"),
    ("2026-01-02T16:02:00Z", "act duel.commit --as ben duel=1 card='Fish Kd'"),
    ("2026-01-03T08:00:00Z", "pooker motion cat"),
    ("2026-01-03T09:00:00Z", "pooker vote ann yes"),
    ("2026-01-03T09:30:00Z", "pooker vote ben yes"),
    ("2026-01-03T10:00:00Z", "pooker vote cat yes"),
    ("2026-01-04T10:00:00Z", "pooker show ann --hand 'Red Ks'"),
    ("2026-01-07T00:00:00Z", "tick"),
    ("2026-01-07T01:00:00Z", "player retire cat"),
    ("2026-01-07T02:00:00Z", "player add cat"),
    ("2026-01-11T00:10:00Z", "tick"),
    ("2026-01-11T01:00:00Z", "dealer elect ann"),
    ("2026-01-11T02:00:00Z", "pack retire Green --proposal P500"),
    ("2026-01-11T03:00:00Z", "dice reveal --force"),
]


@pytest.fixture
def season(db_url: str) -> Iterator[Nomic]:
    runner = CliRunner()
    for at, command in SEASON:
        result = runner.invoke(app, ["--db", db_url, "--at", at, *shlex.split(command)])
        assert result.exit_code == 0, f"{command}: {result.output}"
    with Nomic(db_url) as nomic:
        yield nomic


def _private_words(value: Any, state: Any) -> list[str]:
    """What a private field would say if a sentence named it: its text, or a card's label."""
    if isinstance(value, str) and len(value) > 3:
        return [value]
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 52 * 5:
        return [card_label(state, value)]
    if isinstance(value, list | tuple):
        return [w for v in value for w in _private_words(v, state)]
    return []


@pytest.mark.db
def test_every_channel_says_each_event_as_the_log_does(season: Nomic) -> None:
    with season.read() as tx:
        records = list(tx.events())
        state = tx.state
        live = events_after(tx, 0, limit=len(records) + 1)
        logged = api.public_log(tx, limit=len(records))
    kinds = {r.kind for r in records}
    assert {"game.created", "player.email_set", "pack.added", "pack.retired", "card.dealt",
            "card.transferred", "votes.recorded", "clock.stopped", "nweek.started",
            "report.published", "dealer.elected", "player.retired", "player.rejoined",
            "dice.revealed", "points.moved", "pooker.traded", "pooker.motion", "pooker.opened",
            "pooker.shown", "pooker.closed", "duel.decided", "notice.given",
            "notice.sealed"} <= kinds
    assert [e.event for e in live] == [r.seq for r in records]
    assert [e.event for e in logged] == [r.seq for r in reversed(records)]  # newest first
    by_seq = {e.event: e.text for e in logged}
    for rec, frame in zip(records, live, strict=True):
        said = summary(rec, state, reveal=False).replace(HIDDEN_NOTE, HIDDEN_PUBLIC)
        assert frame.text == said == by_seq[rec.seq], rec.kind
        assert said and not re.match(r"^\w+=", said), (rec.kind, said)  # a sentence, not fields
        for word in (w for v in rec.private.values() for w in _private_words(v, state)):
            assert word not in frame.text, (rec.kind, word)
    dealt = next(e for e in live if e.kind == "card.dealt")
    # five cards are out of the Deck by then, so the die may have had to roll again
    assert re.match(r"dealt ann a card \(hidden\) with \d+ rolls? of a 260-sided die", dealt.text)
