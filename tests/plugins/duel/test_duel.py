"""A card game installed from outside the project -- the card duel of tests/plugins/duel, a
package with its own pyproject.toml and the ``nomic_cards.games`` entry point, installed by
tests/conftest.py -- plays everywhere Pooker does: ``act``, the server, ``tick`` (its deadline
time-true), ``log``, ``ledger verify`` and the public record, on both backends. A game the
ledger names but that is not installed is refused in one line; the package imports the SDK and
the libraries alone; no adapter or module of the core names a game."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from nomic_cards.cli import app as cli
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.server import create_app
from tests.helpers import new_game, sql

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = Path(__file__).resolve().parent
START = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def _cli(db: str, *args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    r = CliRunner().invoke(cli, ["--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def duel(db_url: str) -> Iterator[Nomic]:
    """ann and ben, the duel enacted on the Fish pack, a Fish ace to ann, a Fish king to ben
    and a Fish king to cat."""
    with freeze_time(START), new_game(db_url, players=("ann", "ben", "cat")) as game:
        with game.write() as tx:
            api.game_enact(tx, "duel", "Fish", ["prize=7"], proposal="P1")
            for card, who in (("Fish As", "ann"), ("Fish Kd", "ben"), ("Fish Kh", "cat"),
                              ("Fish Ks", "ann")):
                api.transfer(tx, card, who, "P2: a gift", source="deck")
        yield game


def _points(game: Nomic) -> dict[str, int]:
    from nomic_cards.core.services import points

    with game.read() as r:
        return {b.player: b.points for b in points.balances(r)}


def test_a_duel_through_act_the_higher_card_wins_the_prize(duel: Nomic) -> None:
    db = duel.url
    with freeze_time(START + timedelta(hours=1)):
        assert _cli(db, "act", "duel.challenge", "--as", "ann", "opponent=ben")[0] == 0
        code, out, _ = _cli(db, "act", "duel.commit", "--as", "ann", "duel=1",
                            "card=Fish As", "--json")
        assert code == 0 and json.loads(out)["waiting"] is True
        # the committed card is private: its commitment alone is public, until both committed
        with duel.read() as r:
            record = api.public_record(r)
        assert "Fish As" not in json.dumps([e.payload for e in record])
        assert not [e for e in record if e.kind == "duel.decided"]
        code, out, _ = _cli(db, "act", "duel.commit", "--as", "ben", "duel=1", "card=Fish Kd")
    assert code == 0 and "ann won duel 1" in out
    assert _points(duel)["ann"] == 7 and _points(duel)["Bank"] == -7
    code, out, _ = _cli(db, "log", "-n", "3")
    assert code == 0 and "duel 1: Fish As vs Fish Kd; won by ann, 7 Point(s)" in out
    code, out, _ = _cli(db, "points", "history")
    assert code == 0 and "card game duel: duel 1" in out
    with duel.read() as r:
        assert api.ledger_verify(r).ok


def test_each_rule_is_checked_once_by_the_action_and_again_by_the_replay(duel: Nomic) -> None:
    """verify_commit: the action refuses a card ann does not hold; the same check in the
    replay step refuses the event recorded by code that skips the action, in the same words;
    and ``ledger verify`` names the event when the database is edited to say so."""
    from nomic_cards_duel import Committed

    from nomic_cards.core.ledger.chain import card_commitment
    from nomic_cards.core.services.common import parse_card_ref
    from nomic_cards.errors import RuleViolation

    db = duel.url
    with freeze_time(START + timedelta(hours=1)):
        assert _cli(db, "act", "duel.challenge", "--as", "ann", "opponent=ben")[0] == 0
        code, _, err = _cli(db, "act", "duel.commit", "--as", "ann", "duel=1", "card=Fish Kd")
        assert (code, err) == (1, "error: Fish Kd is not a duel card in ann's Hand\n")
        with duel.read() as r:
            before = api.ledger_head(r).event
            kd, ace = (parse_card_ref(r.state, c) for c in ("Fish Kd", "Fish As"))
        with pytest.raises(RuleViolation, match="^Fish Kd is not a duel card in ann's Hand$"), \
                duel.write() as tx:
            tx.record(Committed(1, "ann", card_commitment("salt", kd), kd, "salt"))
        with duel.read() as r:
            assert api.ledger_head(r).event == before  # nothing written
        assert _cli(db, "act", "duel.commit", "--as", "ann", "duel=1", "card=Fish As")[0] == 0
    seq = int(str(sql(duel, "select max(seq) from events")[0][0]))
    private = json.loads(str(sql(duel, "select data from event_private where seq = :s",
                                 s=seq)[0][0]))
    assert private["card"] == ace
    sql(duel, "update event_private set data = :d where seq = :s",
        d=json.dumps({**private, "card": kd}), s=seq)
    with duel.read() as r:
        problems = [(p.seq, p.message) for p in api.ledger_verify(r).problems]
    assert (seq, "the duel.committed event cannot be replayed: Fish Kd is not a duel card in "
                 "ann's Hand") in problems


def test_a_tie_is_played_again(duel: Nomic) -> None:
    db = duel.url
    with freeze_time(START + timedelta(hours=1)):
        _cli(db, "act", "duel.challenge", "--as", "ben", "opponent=cat")
        _cli(db, "act", "duel.commit", "--as", "ben", "duel=1", "card=Fish Kd")
        code, out, _ = _cli(db, "act", "duel.commit", "--as", "cat", "duel=1", "card=Fish Kh")
        assert code == 0 and "tied" in out
        assert _cli(db, "act", "duel.commit", "--as", "cat", "duel=1", "card=Fish Kh")[0] == 0
        code, out, err = _cli(db, "act", "duel.commit", "--as", "cat", "duel=1",
                              "card=Fish Kh")
    assert code == 1 and err == "error: cat has committed a card to duel 1 already\n"
    with duel.read() as r:
        assert api.ledger_verify(r).ok


def _play_to_deadline(game: Nomic, tick_at: datetime) -> list[tuple[str, str, str]]:
    """ann commits, ben never does; a tick at ``tick_at``: the ledger's events after the
    challenge (kind, time, payload)."""
    with freeze_time(START + timedelta(hours=1)):
        _cli(game.url, "act", "duel.challenge", "--as", "ann", "opponent=ben")
        _cli(game.url, "act", "duel.commit", "--as", "ann", "duel=1", "card=Fish As")
    with freeze_time(tick_at):
        assert _cli(game.url, "tick")[0] == 0
    return [(str(k), str(a), str(p)) for k, a, p in
            sql(game, "select kind, at, payload from events where kind like 'duel.decided'")]


def test_a_side_that_never_commits_forfeits_at_the_deadline_time_true(
        db_url: str, tmp_path: Path, duel: Nomic) -> None:
    """The deadline is a window: a tick just after it and one five days late record the same
    forfeit, dated at the deadline."""
    deadline = START + timedelta(hours=1, days=2)
    on_time = _play_to_deadline(duel, deadline + timedelta(minutes=1))
    assert len(on_time) == 1 and json.loads(on_time[0][2])["winner"] == "ann"
    assert _points(duel)["ann"] == 7
    late_db = f"sqlite:///{tmp_path / 'late.db'}"
    with freeze_time(START), new_game(late_db, players=("ann", "ben", "cat")) as late:
        with late.write() as tx:
            api.game_enact(tx, "duel", "Fish", ["prize=7"], proposal="P1")
            for card, who in (("Fish As", "ann"), ("Fish Kd", "ben"), ("Fish Kh", "cat"),
                              ("Fish Ks", "ann")):
                api.transfer(tx, card, who, "P2: a gift", source="deck")
        late_events = _play_to_deadline(late, deadline + timedelta(days=5))
    assert [(k, p) for k, _a, p in late_events] == [(k, p) for k, _a, p in on_time]
    stamp = deadline.strftime("%Y-%m-%d %H:%M:%S")
    assert all(a.startswith(stamp) for _k, a, _p in [*on_time, *late_events]), \
        (on_time, late_events)


def test_a_duel_through_the_server(duel: Nomic) -> None:
    with freeze_time(START + timedelta(hours=1)), duel.write() as tx:
        tokens = {p: api.issue_token(tx, p).token for p in ("ann", "ben")}
    with freeze_time(START + timedelta(hours=2), tick=True), \
            TestClient(create_app(duel)) as client:
        def act(who: str, body: dict[str, object]) -> dict[str, object]:
            r = client.post("/api/v1/me/actions", json=body,
                            headers={"Authorization": f"Bearer {tokens[who]}"})
            assert r.status_code in (201, 202), r.text
            answer: dict[str, object] = r.json()
            return answer

        doc = client.get("/api/v1/openapi.json").json()
        mapping = doc["paths"]["/api/v1/me/actions"]["post"]["requestBody"]["content"][
            "application/json"]["schema"]["discriminator"]["mapping"]
        assert {"duel.challenge", "duel.commit"} <= set(mapping)
        games = {g["name"]: g for g in client.get("/api/v1/games").json()}
        assert games["duel"]["in_force"] and games["duel"]["panel"] is None
        act("ann", {"action": "duel.challenge", "opponent": "ben"})
        mine = client.get("/api/v1/me/games",
                          headers={"Authorization": f"Bearer {tokens['ben']}"}).json()
        assert mine["games"]["duel"]["duels"][0]["against"] == "ann"
        act("ann", {"action": "duel.commit", "duel": 1, "card": "Fish Ks"})
        done = act("ben", {"action": "duel.commit", "duel": 1, "card": "Fish Kd"})
        assert done["summary"] == "duel 1 tied: commit again"
    with duel.read() as r:
        assert api.ledger_verify(r).ok


def test_the_public_scripts_check_a_ledger_with_the_duel(duel: Nomic, tmp_path: Path) -> None:
    db = duel.url
    with freeze_time(START + timedelta(hours=1)):
        _cli(db, "act", "duel.challenge", "--as", "ann", "opponent=ben")
        _cli(db, "act", "duel.commit", "--as", "ann", "duel=1", "card=Fish As")
        _cli(db, "act", "duel.commit", "--as", "ben", "duel=1", "card=Fish Kd")
    code, out, _ = _cli(db, "ledger", "export")
    assert code == 0
    (tmp_path / "public.json").write_text(out)
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "verify_chain.py"),
                           str(tmp_path / "public.json")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


#: a process in which the duel is not installed: its entry point and its module are gone
NOT_INSTALLED = """
import sys, importlib.metadata as md
real = md.entry_points
def entry_points(**kw):
    found = real(**kw)
    if kw.get("group") == "nomic_cards.games":
        return md.EntryPoints(ep for ep in found if ep.name != "duel")
    return found
md.entry_points = entry_points
sys.modules["nomic_cards_duel"] = None
from nomic_cards.cli import main
main(sys.argv[1:])
"""


def test_a_game_the_ledger_names_but_not_installed_is_one_line(duel: Nomic) -> None:
    with freeze_time(START + timedelta(hours=1)):
        _cli(duel.url, "act", "duel.challenge", "--as", "ann", "opponent=ben")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", NOT_INSTALLED, "--db", duel.url, *args],
                              capture_output=True, text=True, timeout=120,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})

    fix = "card game duel is not installed: install nomic-cards-duel"
    for args in (["log"], ["ledger", "verify"], ["deal", "cat"]):
        done = run(*args)
        assert done.returncode == 1 and done.stdout == "", (args, done.stdout)
        assert len(done.stderr.splitlines()) == 1 and fix in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert run("hand", "ann").returncode == 0  # reading what needs no duel event still works


def test_the_duel_package_imports_the_sdk_and_libraries_alone() -> None:
    source = PLUGIN / "nomic_cards_duel" / "__init__.py"
    imported = {n.module for n in ast.walk(ast.parse(source.read_text()))
                if isinstance(n, ast.ImportFrom) and n.module}
    project = {m for m in imported if m.startswith("nomic_cards")}
    assert project <= {"nomic_cards.cardgames.sdk", "nomic_cards.cards",
                       "nomic_cards.poker.codes"}, project
    package = [*(PLUGIN / "nomic_cards_duel").rglob("*.py"), PLUGIN / "pyproject.toml"]
    lines = sum(len(p.read_text().splitlines()) for p in package)
    assert lines <= 320, lines  # a whole game, its typed state and one check per rule


def test_no_adapter_or_core_module_names_a_card_game() -> None:
    """The core and the adapters ask the engine: a game is named only in its own package."""
    named = []
    for folder in ("nomic_cards/core", "nomic_cards/cli", "nomic_cards/server",
                   "nomic_cards/mail", "nomic_cards/cardgames"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".js", ".html", ".css") or "pooker" in path.parts:
                continue
            if path.name == "poker.py" and path.parent.name == "cli":
                continue  # the poker library's own commands (its Poker Hands, rule 397)
            for word in ("pooker", "duel"):
                if re.search(rf"\b{word}\b", path.read_text(), re.IGNORECASE):
                    named.append(f"{path.relative_to(ROOT)}: {word}")
    assert named == []
