"""Privacy over random Pooker games (hypothesis): no channel a player X can read -- the command
line without ``--reveal``, the API with eir token (eir view of the games, ``/api/v1/me/games``,
included), eir event stream, the public pages, the Atom feed, the reports, eir notices, the
public record and the exports -- shows the face of a card X has not held, been shown, named
emself in eir own trade notifications, or been offered in a notification still waiting that
names em as the other side.

A face is looked for in every form the program writes one: the short label (``Red Qh``), the
long one (``the Red Queen of Hearts (card 90)``), a JSON value under ``card`` or ``number``,
and the card numbers of the public record's events (shown hands, returned cards, the fields
kept private)."""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from typer.testing import CliRunner

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.cardgames.pooker import view as pooker_view
from nomic_cards.cli import app as cli
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.rules.cards_proposal import describe_card
from nomic_cards.core.services import live, points
from nomic_cards.core.services.common import card_label
from nomic_cards.errors import NomicCardsError
from nomic_cards.plain import plain
from nomic_cards.server import create_app
from tests.helpers import new_game

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

PLAYERS = ("ann", "ben", "cat")
runner = CliRunner()

OPS = st.lists(st.one_of(
    st.tuples(st.just("deal"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("trade"), st.sampled_from(PLAYERS), st.sampled_from(PLAYERS),
              st.booleans()),
    st.tuples(st.just("open"),),
    st.tuples(st.just("show"), st.sampled_from(PLAYERS), st.integers(1, 4)),
    st.tuples(st.just("wait"), st.integers(1, 5)),
), min_size=4, max_size=14)


@dataclass
class Knows:
    """What each player may know: cards held, shown in public, named in own notifications."""

    held: dict[str, set[int]] = field(default_factory=lambda: {p: set() for p in PLAYERS})
    shown: set[int] = field(default_factory=set)
    named: dict[str, set[int]] = field(default_factory=lambda: {p: set() for p in PLAYERS})

    def of(self, player: str) -> set[int]:
        return self.held[player] | self.shown | self.named[player]


def _hand(game: Nomic, player: str) -> list[int]:
    with game.read() as tx:
        return [c.number for c in api.hand(tx, player).cards]


def _pcards(game: Nomic, player: str) -> list[int]:
    with game.read() as tx:
        return pooker.pcards_held(tx.state, player)


def _label(game: Nomic, card: int) -> str:
    with game.read() as tx:
        return card_label(tx.state, card)


def _play(game: Nomic, ops: list[tuple[Any, ...]], knows: Knows, clock: Any, t: list[float],
          start: datetime) -> None:
    def step() -> None:
        t[0] += 0.05
        clock.move_to(start + timedelta(days=t[0]))

    for op in ops:
        step()
        try:
            if op[0] == "deal":
                with game.write() as tx:
                    api.deal(tx, op[1])
            elif op[0] == "trade":
                _, a, b, matched = op
                mine, theirs = _pcards(game, a), _pcards(game, b)
                if a == b or not mine or not theirs:
                    continue
                give, get = _label(game, mine[0]), _label(game, theirs[-1])
                knows.named[a] |= {mine[0], theirs[-1]}
                with game.write() as tx:
                    pooker.trade(tx, a, [give], [get], b)
                # the offer's private notice names its cards to the other side (b may know
                # them from then on, whether the trade is made, declined or lapses)
                knows.named[b] |= {mine[0], theirs[-1]}
                step()
                if matched:
                    with game.write() as tx:
                        pooker.trade(tx, b, [get], [give], a)
            elif op[0] == "open":
                with game.write() as tx:
                    pooker.showdown_open(tx, motion_passed="a Motion to Show Cards")
            elif op[0] == "show":
                _, p, k = op
                cards = _pcards(game, p)[:k]
                if cards:
                    with game.write() as tx:
                        pooker.show(tx, p, [",".join(_label(game, c) for c in cards)])
                    knows.shown |= set(cards)
            else:
                t[0] += op[1]
                clock.move_to(start + timedelta(days=t[0]))
                with game.write() as tx:
                    api.tick(tx)
        except NomicCardsError:
            pass  # a refused act writes nothing
        for p in PLAYERS:
            knows.held[p] |= set(_hand(game, p))


def _faces(game: Nomic) -> dict[int, list[re.Pattern[str]]]:
    """Every PCard's written forms."""
    with game.read() as tx:
        state = tx.state
        out = {}
        for c in state.pcards("pooker"):
            out[c] = [re.compile(rf"(?<![\w]){re.escape(card_label(state, c))}(?![\w])"),
                      re.compile(re.escape(describe_card(state, c)))]
        return out


def _numbers(value: Any, keys: frozenset[str]) -> set[int]:
    """Card numbers in JSON ``value``: ints under ``keys`` (or in lists under them)."""
    found: set[int] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            # "number" names a card only beside its pack (a card of a hand); elsewhere it
            # numbers a pack, a Showdown, a Motion
            if k in keys and (k != "number" or "pack" in value and "card" in value):
                found |= _ints(v)
            found |= _numbers(v, keys)
    elif isinstance(value, list):
        for v in value:
            found |= _numbers(v, keys)
    return found


def _ints(value: Any) -> set[int]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, list):
        return set().union(*(_ints(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return {value["card"]} if isinstance(value.get("card"), int) else set()
    return set()


CARD_KEYS = frozenset({"card", "number", "hands", "returned", "give", "get", "a_gives",
                       "b_gives", "values", "merged", "openings"})


def _channels(game: Nomic, player: str, token: str, db: str) -> tuple[list[str], set[int]]:
    """Everything ``player`` can read: texts, and card numbers found in JSON."""
    texts: list[str] = []
    numbers: set[int] = set()

    def take(value: Any) -> None:
        data = plain(value)
        texts.append(json.dumps(data, ensure_ascii=False))
        numbers.update(_numbers(data, frozenset({"card", "number"})))

    with game.read() as tx:
        take(api.log(tx, limit=10_000, reveal=False))
        take(api.notices(tx, player))
        take(pooker_view.status(tx, player=player))
        take(points.point_movements(tx))
        texts.append(points.points_csv(tx, "2026-01-01"))
        record = api.public_record(tx)
    for e in record:
        row = plain(e)
        texts.append(json.dumps(row, ensure_ascii=False))
        numbers.update(_numbers(json.loads(row["payload"]), CARD_KEYS))
    for args in (["log", "-n", "10000"], ["pooker", "status", "--json"], ["points", "history"],
                 ["notices", "list", player], ["report"]):
        result = runner.invoke(cli, ["--db", db, *args])
        texts.append(result.output)
    with game.read() as tx:
        viewer = live.viewer_for_token(tx, token)
        assert viewer is not None
        stream = live.events_after(tx, 0, viewer, limit=100_000)  # eir stream, from the start
    for e in stream:
        texts.append(json.dumps(plain(e), ensure_ascii=False))
        numbers.update(_numbers(e.payload, CARD_KEYS))
    with TestClient(create_app(game)) as client:
        auth = {"Authorization": f"Bearer {token}"}
        for path in ("/api/v1/me", "/api/v1/me/notices", "/api/v1/me/games",
                     "/api/v1/players", "/api/v1/deck", "/api/v1/game", "/api/v1/reports",
                     "/api/v1/dice", "/api/v1/rules"):
            r = client.get(path, headers=auth)
            texts.append(r.text)
            if r.headers.get("content-type", "").startswith("application/json"):
                numbers.update(_numbers(r.json(), frozenset({"card", "number"})))
        texts.append(client.get("/reports.atom").text)
        texts.append(client.get("/", headers=auth).text)
    return texts, numbers


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=OPS)
def test_no_channel_shows_a_player_a_card_face_e_has_not_held_or_been_shown(
        ops: list[tuple[Any, ...]]) -> None:
    start = datetime(2026, 1, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp, freeze_time(start) as clock:
        db = str(Path(tmp) / "g.db")
        with new_game(db, epoch=date(2026, 1, 1), nweek_days=3, players=PLAYERS,
                      packs=(("Red", "red"), ("Blue", "blue"))) as game:
            with game.write() as tx:
                api.game_enact(tx, "pooker", "Red,Blue", proposal="P456")
            for p in PLAYERS:
                with game.write() as tx:
                    points.grant_points(tx, p, 100, rule="Scorekeeper")
                    api.deal(tx, p)
                    api.deal(tx, p)
            knows = Knows()
            for p in PLAYERS:
                knows.held[p] |= set(_hand(game, p))
            _play(game, ops, knows, clock, [0.0], start)
            with game.write() as tx:
                tokens = {p: api.issue_token(tx, p).token for p in PLAYERS}
            faces = _faces(game)
            with game.read() as tx:
                closed = [r.event for r in tx.recent_events(kinds=("pooker.shown",),
                                                             limit=1000)]
            for e in closed:
                assert isinstance(e, ge.Shown)
                assert {c for h in e.hands for c in h} <= knows.shown
            with game.read() as tx:
                revealed = json.dumps(plain(api.log(tx, limit=10_000, reveal=True)))
            for p in PLAYERS:
                allowed = knows.of(p)
                # the control: the Dealer's view (--reveal) shows the faces of the others'
                # cards that p may not see, and the search finds them
                others = set().union(*(knows.held[q] for q in PLAYERS if q != p)) - allowed
                assert all(any(form.search(revealed) for form in faces[c]) for c in others)
                texts, numbers = _channels(game, p, tokens[p], db)
                assert numbers <= allowed | set(), (p, sorted(numbers - allowed))
                text = "\n".join(texts)
                for card, forms in faces.items():
                    if card in allowed:
                        continue
                    for form in forms:
                        assert not form.search(text), (p, card, form.pattern)
