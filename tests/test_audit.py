"""The audit: a published record that leaks no hidden card, a chain checked over the stored
bytes by the program and by an outside script, anchors in the Dealer's Report, dice that cannot
be ground, private files, and verify messages in words."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.ledger.chain import canonical_json, commitment, event_hash
from nomic_cards.core.nomic import Nomic
from nomic_cards.errors import RuleViolation
from tests.helpers import flat, new_game, scripted, sql

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "tests" / "data" / "legacy"
runner = CliRunner()


def cli(db: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", db, *args])
    return result.exit_code, result.stdout, result.stderr


# --- a curious player with the published record and a brute-force loop ---------------------


def _v1_hash(seq: int, at: str, actor: str, kind: str, subject: str | None,
             payload: dict[str, object], prev: str) -> str:
    """The hash as release 0.1.0 computed it (and printed it in ``log --json``)."""
    body = canonical_json({"seq": seq, "at": at, "actor": actor, "kind": kind,
                           "subject": subject, "payload": payload, "prev": prev})
    return hashlib.sha256(body.encode()).hexdigest()


def _notice(number: int) -> str:
    """The notice the program writes, for a guessed card (pack names as in a default game)."""
    from nomic_cards.cards import spoon_card

    packs = ["Red", "Blue", "Fish", "Corporate"]
    pack, face = spoon_card(number)
    return f"You were dealt the {packs[pack]} {face.title} (card {number})."


def _guesses_v1(e: dict[str, object]) -> Iterator[tuple[int, dict[str, object]]]:
    """Every full format-1 payload a one-roll deal or a transfer could have had."""
    p = e["payload"]
    assert isinstance(p, dict)
    for card in range(1, 209):
        if e["kind"] == "card.dealt" and isinstance(p.get("rolls"), int) and p["rolls"] == 1:
            dice = {"source": "committed", "sides": 208, "period": 1, "index": None}
            for source in ("committed", "system", "manual"):
                for index in range(0, 40) if source == "committed" else [None]:
                    roll = {**dice, "value": card, "source": source,
                            "period": 1 if source == "committed" else None, "index": index}
                    yield card, {**p, "card": card, "rolls": [roll], "notice": _notice(card)}
        elif e["kind"] == "card.transferred":
            yield card, {**p, "card": card}


def brute_force_v1(log: list[dict[str, object]]) -> dict[int, int]:
    """The attack on ``log --json`` as release 0.1.0 printed it: for each hidden deal or
    transfer, try every card against the printed hash. Returns {event: card} recovered."""
    found = {}
    for e in log:
        for card, payload in _guesses_v1(e):
            at = str(e["at"]).replace("+00:00", "Z")
            if "." not in at:
                at = at.replace("Z", ".000000Z")
            if _v1_hash(int(str(e["event"])), at, str(e["actor"]), str(e["kind"]),
                        e["subject"] if isinstance(e["subject"], str) else None, payload,
                        str(e["prev"])) == e["hash"]:
                found[int(str(e["event"]))] = card
                break
    return found


@pytest.mark.slow
def test_the_attack_recovers_cards_from_a_release_0_1_0_log() -> None:
    """The brute force is real: on the record release 0.1.0 published, it finds the cards."""
    with sqlite3.connect(LEGACY / "release-0.1.0.db") as con:
        rows = list(con.execute("select seq, at, actor, kind, subject, payload, prev_hash, hash "
                                "from events order by seq"))
    log = []
    for seq, at, actor, kind, subject, payload, prev, digest in rows:
        p = json.loads(payload)
        if kind in ("card.dealt", "card.transferred"):
            hidden = dict(p)
            for key in ("card", "notice"):
                hidden.pop(key, None)
            if "rolls" in hidden:
                hidden["rolls"] = len(hidden["rolls"])
            p = hidden
        log.append({"event": seq, "at": str(at).replace(" ", "T") + "Z", "actor": actor,
                    "kind": kind, "subject": subject, "payload": p, "prev": prev,
                    "hash": digest})
    truth = {seq: json.loads(payload)["card"] for seq, _a, _b, kind, _s, payload, _p, _h in rows
             if kind in ("card.dealt", "card.transferred")
             and len(json.loads(payload).get("rolls", [0])) == 1}
    found = brute_force_v1(log)
    assert found and all(truth[seq] == card for seq, card in found.items())


def test_the_published_record_reveals_no_hidden_card(game: Nomic, tmp_path: Path) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        api.deal(tx, "bob", source="system")
        api.deal(tx, "carol", **scripted(range(77, 107)))
        card = api.hand(tx, "alice").cards[0]
        api.transfer(tx, card.card, "bob", "Proposal 5")
        public = api.public_record(tx)
        secrets = {c.number for p in ("alice", "bob", "carol")
                   for c in api.hand(tx, p).cards}
    published = json.dumps([r.__dict__ for r in public])
    # no card label, notice or e-mail in the clear
    with game.read() as tx:
        held = [c for p in ("alice", "bob", "carol") for c in api.hand(tx, p).cards]
    for c in held:
        assert c.card not in published and _notice(c.number) not in published
    # every digest published, tried against every guess of every hidden part
    digests = {r.hash for r in public} | {r.private for r in public if r.private}
    for r in public:
        if r.private is None:
            continue
        fields = json.loads(r.payload)
        for guess in range(1, 209):
            tries = [canonical_json({"card": guess}),
                     canonical_json({"card": guess, "notice": _notice(guess),
                                     "values": [guess]})]
            for data in tries:
                assert commitment("", data) not in digests
                assert hashlib.sha256(data.encode()).hexdigest() not in digests
                assert event_hash(seq=r.seq, at=_at(r.at), actor=r.actor, kind=r.kind,
                                  subject=r.subject, prev_hash=r.prev_hash, private=None,
                                  payload=canonical_json({**fields, **json.loads(data)})) \
                    != r.hash
    assert secrets  # the game really has hidden cards
    # the log as a player sees it, run through the format-1 attack, finds nothing either
    code, out, _ = cli(game.url, "log", "--json", "-n", "100")
    log = [{**e, "prev": next(r.prev_hash for r in public if r.seq == e["event"])}
           for e in json.loads(out)]
    assert brute_force_v1(log) == {}


def _at(text: str) -> object:
    from nomic_cards.core.ledger.events import parse_time

    return parse_time(text)


# --- the chain over the stored bytes, checked by the program and from outside ---------------

SQLITE_EXPORT = ("select seq, replace(at, ' ', 'T') || 'Z' as at, actor, kind, subject, "
                 "payload, private, prev_hash, hash from events order by seq")
PSQL_EXPORT = ("select json_agg(e order by seq) from (select seq, to_char(at at time zone 'UTC', "
               "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') as at, actor, kind, subject, payload, "
               "private, prev_hash, hash from events) e")


def outside_check(game: Nomic, *, head: str | None = None) -> tuple[int, str]:
    """Export with the database's own client, as docs/ledger.md shows, and run the script."""
    if game.url.startswith("sqlite"):
        if shutil.which("sqlite3") is None:
            pytest.skip("the sqlite3 command-line client is not installed")
        path = game.url.removeprefix("sqlite:///")
        exported = subprocess.run(["sqlite3", "-json", path, SQLITE_EXPORT], check=True,
                                  capture_output=True, text=True).stdout
    else:
        if shutil.which("psql") is None:
            pytest.skip("the psql client is not installed")
        url = game.url.replace("postgresql+psycopg://", "postgresql://")
        exported = subprocess.run(["psql", "-At", "-c", PSQL_EXPORT, url], check=True,
                                  capture_output=True, text=True).stdout
    args = [sys.executable, str(ROOT / "scripts" / "verify_chain.py")]
    if head:
        args += ["--head", head]
    done = subprocess.run(args, input=exported, capture_output=True, text=True)
    return done.returncode, done.stdout


def test_docs_show_the_export_commands_the_tests_run() -> None:
    docs = (ROOT / "docs" / "ledger.md").read_text(encoding="utf-8")
    assert SQLITE_EXPORT in docs and PSQL_EXPORT.replace('"', '\\"') in docs


def test_the_outside_script_agrees_with_verify(game: Nomic) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
        api.retire_player(tx, "alice")
        assert api.ledger_verify(tx).ok
    code, out = outside_check(game)
    assert code == 0 and out.startswith("chain OK")
    # an edit of the stored bytes alone (one space in the JSON) is seen by both
    sql(game, "update events set payload = replace(payload, ',', ', ') where seq = 1")
    code, out = outside_check(game)
    assert code == 1 and "event 1: the hash does not match" in out
    with game.read() as tx:
        problems = api.ledger_verify(tx).problems
    assert any(p.seq == 1 and "does not match its stored content" in p.message for p in problems)
    assert any(p.seq == 1 and "canonical form" in p.message for p in problems)


def test_ledger_export_is_the_public_record(game: Nomic, tmp_path: Path) -> None:
    with game.write() as tx:
        api.deal(tx, "alice")
    code, out, _ = cli(game.url, "ledger", "export")
    assert code == 0
    (tmp_path / "ledger.json").write_text(out)
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "verify_chain.py"),
                           str(tmp_path / "ledger.json")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    rows = json.loads(out)
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    assert all("card" not in json.loads(r["payload"]) for r in rows)


# --- the Dealer's Report anchors the chain --------------------------------------------------


def _reported_game(db_url: str) -> Nomic:
    with freeze_time("2026-01-01 10:00:00"):
        g = new_game(db_url, players=("ann", "ben"))
        with g.write() as tx:
            api.record_vote(tx, "ann", "1")
    with freeze_time("2026-01-11 00:05:00"), g.write() as tx:
        api.tick(tx)
    with freeze_time("2026-01-12 10:00:00"), g.write() as tx:
        api.deal(tx, "ben", source="system")
        api.deal(tx, "ann", **scripted(range(5, 35)))
    with freeze_time("2026-01-21 00:05:00"), g.write() as tx:
        api.tick(tx)
    return g


def test_the_report_anchors_the_chain_and_verify_checks_against_it(db_url: str,
                                                                    tmp_path: Path) -> None:
    with _reported_game(db_url) as game:
        with game.read() as tx:
            text = api.report(tx, 2).body
        assert re.search(r"^  ben: 1 card: 1 \w+$", text, re.M), text
        assert "dealt, system dice, not checkable" in flat(text)
        assert "dealt, manual dice, not checkable" in flat(text)
        posted = tmp_path / "report-2.txt"
        posted.write_text(text)
        assert cli(game.url, "ledger", "verify", "--against", str(posted))[0] == 0
        with game.read() as tx:
            head = json.loads(api.report(tx, 2, fmt="json").body)["ledger_head"]
        # a rewrite of the past with every hash after it recomputed: consistent, but not the
        # chain the list saw
        rewrite_suffix(game, head["event"] - 1, actor="someone else")
        with game.read() as tx:
            assert api.ledger_verify(tx).ok  # nothing inside the database shows it
        code, out, _ = cli(game.url, "ledger", "verify", "--against", str(posted))
        assert code == 1
        assert f"event {head['event']}: the published ledger head is event {head['event']}" \
            in out
        assert outside_check(game, head=f"{head['event']}:{head['hash']}")[0] == 1


def rewrite_suffix(game: Nomic, start: int, *, actor: str) -> None:
    """What a dishonest Dealer with database access could do: edit event ``start`` and
    recompute every later hash so that the chain is consistent again."""
    rows = sql(game, "select seq, at, actor, kind, subject, payload, private, prev_hash, hash "
                     "from events where seq >= :s order by seq", s=start - 1)
    from nomic_cards.core.ledger.events import utc

    prev = str(rows[0][8])
    for seq, at, old_actor, kind, subject, payload, private, _prev, _hash in rows[1:]:
        who = actor if seq == start else str(old_actor)
        when = at if not isinstance(at, str) else _parse_stored(at)
        digest = event_hash(seq=int(str(seq)), at=utc(when), actor=who, kind=str(kind),
                            subject=subject if isinstance(subject, str) else None,
                            prev_hash=prev, private=private if isinstance(private, str) else None,
                            payload=str(payload))
        sql(game, "update events set actor = :a, prev_hash = :p, hash = :h where seq = :s",
            a=who, p=prev, h=digest, s=seq)
        prev = digest
    sql(game, "update ledger_head set hash = :h", h=prev)


def _parse_stored(text: str) -> object:
    from datetime import datetime

    return datetime.fromisoformat(text)


# --- the dice cannot be ground --------------------------------------------------------------


def test_no_new_dice_period_while_the_current_one_is_unused(game: Nomic) -> None:
    with game.read() as tx:
        before = api.ledger_verify(tx).events
    with pytest.raises(RuleViolation, match="period 1 has no rolls yet"), game.write() as tx:
        api.dice_open(tx)
    with pytest.raises(RuleViolation, match="period 1 has no rolls"), game.write() as tx:
        api.dice_reveal(tx)
    with game.write() as tx:
        assert api.ledger_verify(tx).events == before
        api.deal(tx, "alice")
        assert api.dice_open(tx).period == 2
    with pytest.raises(RuleViolation, match="period 2 has no rolls yet"), game.write() as tx:
        api.dice_open(tx)


# --- files readable by their owner alone ----------------------------------------------------


def test_new_sqlite_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with new_game(str(tmp_path / "g.db"), players=("ann",)) as g:
            with g.write() as tx:
                api.deal(tx, "ann")
            sqlite3.connect(tmp_path / "g.db").execute("select 1").fetchall()
    finally:
        os.umask(old)
    made = sorted(p.name for p in tmp_path.iterdir())
    assert "g.db" in made
    for name in made:
        assert (tmp_path / name).stat().st_mode & 0o077 == 0, name


# --- messages a Dealer can act on -----------------------------------------------------------


def test_verify_speaks_in_sentences(game: Nomic) -> None:
    with game.write() as tx:
        first = api.deal(tx, "alice", **scripted([90])).event
        second = api.deal(tx, "bob", **scripted([91])).event
    sql(game, "update players set email = 'x@y' where name = 'carol'")
    sql(game, "delete from notices where seq = :s", s=first)
    sql(game, "update deals set reason = 'other' where seq = :s", s=second)
    sql(game, "update dice_periods set rolls_used = 7")
    with game.read() as tx:
        problems = api.ledger_verify(tx).problems
    assert len(problems) >= 3
    for p in problems:
        assert "(" not in p.message.split(" ")[0] and "Record(" not in p.message \
            and "State(" not in p.message and "=" not in p.message, p.message


# --- the grants docs/dice.md shows for a shared PostgreSQL game -----------------------------


def _grants_sql(schema: str, role: str) -> str:
    text = (ROOT / "docs" / "dice.md").read_text(encoding="utf-8")
    # the superuser's block (the players' role), then the owner's (the grants)
    block = "".join(b.split("```", 1)[0] for b in text.split("```sql\n")[1:3])
    return block.replace("SCHEMA public", f'SCHEMA "{schema}"').replace("nomic_player", role)


@pytest.mark.pg
def test_documented_grants_let_players_read_the_public_record_only(tmp_path: Path) -> None:
    import uuid

    import psycopg

    from tests.conftest import _require_pg, drop_pg_schema, new_pg_schema_url, pg_base_url

    _require_pg()
    url, schema = new_pg_schema_url()
    role = f"player_{uuid.uuid4().hex[:8]}"
    admin = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
    try:
        with new_game(url, players=("ann",)) as game, game.write() as tx:
            api.set_email(tx, "ann", "ann@example.org")
            api.deal(tx, "ann")
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute(f'SET search_path TO "{schema}"')
            con.execute(_grants_sql(schema, role))
            con.execute(f"ALTER ROLE {role} LOGIN")
        as_player = admin.rsplit("@", 1)
        player_url = f"postgresql://{role}@{as_player[1]}"
        with psycopg.connect(player_url, autocommit=True) as con:
            con.execute(f'SET search_path TO "{schema}"')
            assert con.execute("select count(*) from events").fetchone()[0] > 0
            assert con.execute("select name from players where name = 'ann'").fetchone()
            for secret in ("select * from event_private", "select * from dice_secrets",
                           "select * from ownership", "select * from card_moves",
                           "select * from rolls",
                           "select * from notices", "select email from players",
                           "select card from deals"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    con.execute(secret)
        exported = subprocess.run(
            ["psql", "-At", "-c", PSQL_EXPORT, f"{player_url}?options=-csearch_path%3D{schema}"],
            check=True, capture_output=True, text=True).stdout
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / "verify_chain.py")],
                              input=exported, capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout.startswith("chain OK"), done.stdout
    finally:
        drop_pg_schema(schema)
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute(f"DROP OWNED BY {role}")
            con.execute(f"DROP ROLE {role}")


def test_the_ledger_refuses_an_event_dated_before_the_last(db_url: str) -> None:
    with freeze_time("2026-03-01 12:00:00"):
        game = new_game(db_url, players=("ann",))
    with game:
        with game.read() as tx:
            before = api.ledger_verify(tx).events
        with (
            freeze_time("2026-02-28 12:00:00"),
            pytest.raises(RuleViolation, match=r"before the last event in the ledger"),
            game.write() as tx,
        ):
            api.deal(tx, "ann")
        with game.read() as tx:
            assert api.ledger_verify(tx).events == before
