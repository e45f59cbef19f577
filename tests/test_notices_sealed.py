"""What the public record says of a sending of the notices gives away no sealed notice's
addressee: a curious player reading ``nomic-cards ledger export`` after ``notices send`` (real
mail, a real SMTP server) finds nothing -- content, order or time -- that pairs a sealed notice
(Pooker's to the side a trade notification names) with the public notices mailed to the same
player in the same mail."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from typer.testing import CliRunner

from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from nomic_cards.core.settings import GameSettings
from tests.conftest import drop_pg_schema, new_pg_schema_url
from tests.mailbox import free_port

PLAYERS = ("ann", "ben", "cat", "dan", "eve")
#: the cards each player is given (a public notice each: a transfer into eir Hand)
CARDS = {"ann": "Red As", "ben": "Red Kd", "cat": "Red Qh", "dan": "Red Jc", "eve": "Blue 9s"}
BASE = "https://cards.example.org"
#: ben's server answers "try later": his notices, public and sealed, stay due
LATER = "ben@example.org"


class Clock:
    """A clock that moves on by a millisecond each time it is read: every write gets its own
    time, and the same steps give the same times."""

    def __init__(self, start: datetime) -> None:
        self.at = start

    def now(self) -> datetime:
        self.at += timedelta(milliseconds=1)
        return self.at


class Mailbox:
    """An aiosmtpd handler keeping each message with the real time it came; ``LATER`` is
    refused for now (451) at RCPT."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.messages: list[tuple[datetime, list[str], Any]] = []
        self.lock = threading.Lock()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if address == LATER:
            return "451 4.2.1 mailbox busy, try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        came = datetime.now(UTC)
        await asyncio.sleep(self.delay)
        with self.lock:
            self.messages.append((came, list(envelope.rcpt_tos),
                                  message_from_bytes(envelope.content, policy=policy.default)))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[Any]:
    """``smtp(delay)`` starts an SMTP server on 127.0.0.1; all are stopped afterwards."""
    started: list[tuple[Controller, Mailbox]] = []

    def start(delay: float = 0.0) -> tuple[str, Mailbox]:
        box = Mailbox(delay)
        port = free_port()
        controller = Controller(box, hostname="127.0.0.1", port=port)
        controller.start()
        started.append((controller, box))
        return f"127.0.0.1:{port}", box

    yield start
    for controller, _ in started:
        controller.stop()


def _table(url: str, clock: Any, offers: dict[str, str]) -> Nomic:
    """A game with Pooker in force, every player with an address and a card (a public notice
    each), and one trade notification for each ``offers`` item (author -> the side it names:
    a sealed notice to that side)."""
    epoch = (datetime.now(UTC) - timedelta(days=3)).date()
    game = Nomic(url, create=True, clock=clock,
                 settings=GameSettings(epoch=epoch, nweek_days=10))
    api.init_game(game)
    with game.write() as tx:
        for p in PLAYERS:
            api.add_player(tx, p, email=f"{p}@example.org")
        api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
    with game.write() as tx:
        for p, card in CARDS.items():
            api.transfer(tx, card, p, "test setup", source="deck")
            points.grant_points(tx, p, 10, rule="Scorekeeper's report")  # the trade fees
    for author, side in offers.items():
        with game.write() as tx:
            pooker.trade(tx, author, [CARDS[author]], [CARDS[side]], side)
    return game


def _notices(game: Nomic) -> dict[int, str]:
    """Every notice's addressee, by notice (the Dealer's knowledge, not the public's)."""
    with game.read() as tx:
        return {n.event: n.player for n in api.notices(tx)}


def _export(url: str) -> list[dict[str, Any]]:
    """The public record, as ``nomic-cards ledger export`` prints it."""
    result = CliRunner().invoke(app, ["--db", url, "ledger", "export"])
    assert result.exit_code == 0, result.stderr
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


_HEX = re.compile(r"\b[0-9a-f]{64}\b")


def _what_anyone_reads(rows: list[dict[str, Any]]) -> str:
    """The public record with what differs in every game alike taken out: the hashes, and the
    commitments (random nonces and salts, which say nothing without their openings)."""
    kept = [{k: v for k, v in row.items() if k not in ("hash", "prev_hash", "private")}
            for row in rows]
    return _HEX.sub("<hex>", json.dumps(kept, sort_keys=True, indent=1))


@pytest.fixture
def other_url(db_url: str, tmp_path: Path) -> Iterator[str]:
    """A second empty database on the same backend as ``db_url``."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'other.db'}"
        return
    url, schema = new_pg_schema_url()
    try:
        yield url
    finally:
        drop_pg_schema(schema)


def test_the_public_record_of_a_sending_pairs_no_sealed_notice_with_its_addressee(
        db_url: str, other_url: str, smtp: Any) -> None:
    """Two games alike in everything public, where the two sealed notices name the other
    players: ann's offer names ben in one and dan in the other, cat's the other way round.
    ben's mail is refused for now (his notices stay due), dan's goes with his public notice
    and a sealed one. After ``notices send`` the public records of the two games are the same
    but for hashes and commitments: nothing in them (which notices went, in what order, when,
    with what subject) can tell whom a sealed notice names."""
    start = datetime.now(UTC) - timedelta(days=2)
    worlds = [(db_url, {"ann": "ben", "cat": "dan"}), (other_url, {"ann": "dan", "cat": "ben"})]
    seen = []
    for url, offers in worlds:
        with _table(url, Clock(start), offers) as game:
            who = _notices(game)
            sealed = [r["seq"] for r in _export(url) if r["kind"] == "notice.sealed"]
            assert [who[s] for s in sealed] == [offers["ann"], offers["cat"]]
            server, box = smtp()
            report = api.send_notices(game, smtp=server, base_url=BASE)
            # the mails went as they should: dan's with his sealed notice, ben's not at all
            assert sorted(r for _, rcpts, _ in box.messages for r in rcpts) == \
                sorted(f"{p}@example.org" for p in PLAYERS if p != "ben")
            assert {who[n.notice] for n in report.retry} == {"ben"}
            dan = next(m for _, rcpts, m in box.messages if rcpts == ["dan@example.org"])
            assert len(dan["X-Nomic-Cards-Events"].split(", ")) == 2
            with game.read() as tx:
                assert api.ledger_verify(tx).ok
        rows = _export(url)
        seen.append(_what_anyone_reads(rows))
    assert seen[0] == seen[1]
    # what it says: one sending, naming no one, listing only notices whose own events name
    # their players, in notice order -- never a sealed notice's number
    sending = [r for r in rows if r["kind"] in ("notices.mailed", "notice.sent",
                                                "notice.failed")]
    assert [(r["kind"], r["subject"]) for r in sending] == [("notices.mailed", None)]
    listed = json.loads(sending[0]["payload"])["notices"]
    assert listed == sorted(listed) and len(listed) == 4  # ann, cat, dan and eve's
    sealed_seqs = {r["seq"] for r in rows if r["kind"] == "notice.sealed"}
    assert len(sealed_seqs) == 2 and not sealed_seqs & set(listed)
    after = [r for r in rows if r["seq"] > max(sealed_seqs)]
    assert not any(re.search(rf"\b{s}\b", r["payload"]) for r in after for s in sealed_seqs)


def test_a_sending_is_one_record_dated_before_its_first_mail(
        db_url: str, smtp: Any) -> None:
    """On the real clock, with a slow mail server: the whole sending is one record, dated when
    its notices were listed -- before the first mail was handed over -- so its time says
    nothing of how many mails went, or to whom, or in what order."""
    server, box = smtp(0.05)
    with _table(db_url, None, {"ann": "ben", "cat": "dan"}) as game:
        before = len(_export(db_url))
        report = api.send_notices(game, smtp=server, base_url=BASE)
        rows = _export(db_url)[before:]
        assert report.mails == 4 and len(box.messages) == 4
        assert [(r["kind"], r["subject"]) for r in rows] == [("notices.mailed", None)]
        (sending,) = rows
        at = datetime.fromisoformat(sending["at"].replace("Z", "+00:00"))
        assert at <= min(came for came, _, _ in box.messages)
        assert report.event == sending["seq"]
        assert {n.event for n in report.sent} == {sending["seq"]}
