"""Rerolled numbers must not tell anyone where another card is (docs/dice.md, "What each party
may learn"). Two attackers, written from the documentation alone:

- a player reading everything the server shows em (`/api/v1/me/notices` and the rest of the
  API, with eir token): a brute force over every card the reroll of eir deal could have hit
  finds the same answers in every case, so e learns nothing about where that card is;
- anyone reading the public record: once a dice period is revealed, the attacker recomputes
  every roll from the seed (the algorithm of docs/dice.md, re-implemented here) and learns every
  card dealt or rerolled in it; the reveal is refused while any of those cards is still in a
  hand, so what the attacker learns never says where a card is now.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient
from typer.testing import CliRunner

from nomic_cards.cli import app as cli
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.server import create_app
from tests.helpers import new_game, scripted

#: every test here takes seconds (a server, a browser, subprocesses): the full run only
pytestmark = pytest.mark.slow

ONE_PACK = {"packs": (("Red", "red backs"),)}
SIDES = 52
IENNE_CARDS = (30, 7)  # dealt to Ienne, with the card Wonko's first roll hits
WONKO_CARD = 10  # where Wonko's deal lands after its reroll
PRIVATE = ("/api/v1/me", "/api/v1/me/hand", "/api/v1/me/notices")
PUBLIC = ("/api/v1/game", "/api/v1/players", "/api/v1/deck", "/api/v1/dice",
          "/api/v1/reports", "/api/v1/ledger/head")


def _world(path: Path, hit: int) -> dict[str, Any]:
    """A one-pack game where Wonko's deal first rolls ``hit`` (a card in Ienne's hand), then
    WONKO_CARD; what Wonko can read, as JSON (hashes and ETags left out: they cover private
    fields through commitments salted with fresh random nonces in every game, whatever the
    cards)."""
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(f"sqlite:///{path}", players=("Ienne", "Wonko"), **ONE_PACK)
    with game:
        with freeze_time("2026-01-01 10:00:00"):
            for card in (*IENNE_CARDS, hit):
                with game.write() as tx:
                    api.deal(tx, "Ienne", **scripted([card]))
            with game.write() as tx:
                api.deal(tx, "Wonko", **scripted([hit, WONKO_CARD]))
                token = api.issue_token(tx, "Wonko").token
        with freeze_time("2026-01-01 11:00:00"), TestClient(create_app(game)) as client:
            seen = {p: client.get(p, headers={"Authorization": f"Bearer {token}"}).json()
                    for p in PRIVATE}
            seen.update({p: client.get(p).json() for p in PUBLIC})
    seen["/api/v1/ledger/head"].pop("hash")
    seen["/api/v1/game"].pop("head")
    for period in seen["/api/v1/dice"]:
        period.pop("commitment")
    return seen


def test_a_player_cannot_tell_which_card_the_reroll_of_eir_deal_hit(tmp_path: Path) -> None:
    """The brute force: for every card Ienne could hold that Wonko's first roll hit, Wonko's
    whole view of the server is the same, so no answer narrows it down."""
    candidates = [c for c in range(1, SIDES + 1) if c not in (*IENNE_CARDS, WONKO_CARD)]
    views: dict[str, list[int]] = {}
    for hit in candidates:
        seen = _world(tmp_path / f"hit-{hit}.db", hit)
        views.setdefault(json.dumps(seen, sort_keys=True), []).append(hit)
    # every candidate gives one and the same view: the attacker is left with all of them
    assert list(views.values()) == [candidates]
    # what Wonko is told: eir card, and that it took two rolls
    notices = json.loads(next(iter(views)))["/api/v1/me/notices"]
    assert [(n["text"].splitlines()[:2], n["rolls"], n["dice"]) for n in notices] == [
        (["Nweek 1: you were dealt the Red 10 of Diamonds (card 10)",
          "Why: dealt by the Dealer (it took 2 rolls)"], 2, "manual")]


# --- the public record after a reveal -----------------------------------------------------


def _face(seed: bytes, i: int, sides: int) -> int:
    """Roll ``i`` of a die with ``sides`` sides, as docs/dice.md gives it."""
    j = 0
    while True:
        msg = i.to_bytes(8, "big") + j.to_bytes(4, "big")
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest(), "big")
        if x < 2**256 - 2**256 % sides:
            return x % sides + 1
        j += 1


def _attack(game: Nomic, client: TestClient) -> set[int]:
    """Every card number a revealed seed shows, from the public record and /api/v1/dice alone:
    the attacker recomputes each committed roll of each revealed period."""
    seeds = {d["period"]: bytes.fromhex(d["seed"]) for d in client.get("/api/v1/dice").json()
             if d["seed"]}
    learned: set[int] = set()
    with game.read() as tx:
        record = api.public_record(tx)
    for e in record:
        if e.kind != "card.dealt":
            continue
        dice = json.loads(e.payload)["dice"]
        if dice["source"] == "committed" and dice["period"] in seeds:
            learned |= {_face(seeds[dice["period"]], dice["first"] + k, dice["sides"])
                        for k in range(dice["count"])}
    return learned


def _cli(db: str, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


def _where(game: Nomic) -> dict[int, str]:
    """Where every card held by a player is now (the truth, read the Dealer's way)."""
    with game.read() as tx:
        return {c.number: p for p in ("Ienne", "Wonko", "Zaphod")
                for c in api.hand(tx, p).cards}


def test_a_reveal_never_shows_where_a_card_is_now(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(db, players=("Ienne", "Wonko", "Zaphod"), **ONE_PACK)
    with game, freeze_time("2026-01-01 10:00:00"), TestClient(create_app(game)) as client:
        for _ in range(13):  # the system die: these cards must never become learnable
            with game.write() as tx:
                api.deal(tx, "Ienne", source="system")
        rolled: set[int] = set()
        rerolls = 0
        while rerolls < 3:  # committed deals until some rerolls have hit held cards
            with game.write() as tx:
                r = api.deal(tx, "Wonko")
            rolled |= {x.value for x in r.rolls}
            rerolls += len(r.rolls) - 1
        with game.write() as tx:
            rolled |= {x.value for x in api.deal(tx, "Zaphod").rolls}  # the same period
        held = _where(game)
        assert rolled & held.keys()  # the period's rolls name cards that are in hands

        # refused, in one line, and nothing is recorded
        with game.read() as tx:
            head = api.ledger_head(tx)
        code, out, err = _cli(db, "dice", "reveal")
        assert (code, out) == (1, "")
        assert err.startswith("error: dice period 1 cannot be revealed yet: its rolls name ")
        assert "--force" in err and len(err.splitlines()) == 1
        with game.read() as tx:
            assert api.ledger_head(tx) == head
        assert _attack(game, client) == set()

        # the Dealer's private check still covers every roll
        code, out, _ = _cli(db, "dice", "verify", "--secret")
        assert code == 0 and "period 1: all" in out and "checked privately" in out
        with game.read() as tx:
            assert api.ledger_head(tx) == head

        # once every card the period's rolls name is back in the Deck, it can be revealed
        the_rolls = sorted(rolled)
        for card in the_rolls:
            if card in held:
                with game.write() as tx:
                    api.transfer(tx, str(card), "deck", "Proposal 301: back to the Deck")
        code, out, err = _cli(db, "dice", "reveal")
        assert code == 0 and err == "", err
        learned = _attack(game, client)
        assert learned == set(the_rolls)  # the attacker recomputes every roll of the period
        now = _where(game)
        assert learned & now.keys() == set()  # and none of them says where a card is now


def test_reveal_with_force_names_the_risk(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(db, players=("Ienne",), **ONE_PACK)
    with game, freeze_time("2026-01-01 10:00:00"):
        with game.write() as tx:
            api.deal(tx, "Ienne")
        code, out, err = _cli(db, "dice", "reveal", "--force")
        assert code == 0
        assert err == ("warning: revealed with 1 of its card(s) still in players' hands: "
                       "anyone can now tell where they are\n")
        assert out.startswith("period 1: seed ")


def test_dice_verify_secret_checks_unrevealed_rolls_privately(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(db, players=("Ienne",), **ONE_PACK)
    with game, freeze_time("2026-01-01 10:00:00"):
        with game.write() as tx:
            r = api.deal(tx, "Ienne")
        code, out, _ = _cli(db, "dice", "verify")
        assert code == 0 and "period 1: not revealed yet" in out
        code, out, _ = _cli(db, "dice", "verify", "--secret")
        assert code == 0
        assert out.splitlines()[0] == (f"period 1: all {len(r.rolls)} roll(s) match the secret "
                                       "seed (checked privately; not revealed)")
        from tests.helpers import sql

        data = json.loads(str(sql(game, "select data from event_private where seq = :s",
                                  s=r.event)[0][0]))
        data["values"][-1] = data["values"][-1] % SIDES + 1
        sql(game, "update event_private set data = :d where seq = :s",
            d=json.dumps(data, sort_keys=True, separators=(",", ":")), s=r.event)
        code, out, _ = _cli(db, "dice", "verify", "--secret")
        assert code == 1 and f"event {r.event} roll {len(r.rolls)}" in out
        assert "the seed gives" in out
