"""`nomic-cards poker ...` through the real CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core.nomic import Nomic
from tests.helpers import scripted
from tests.poker.conftest import load

runner = CliRunner()
PAPER = load("ness_paper.json")


def run(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_eval_text_and_json() -> None:
    code, out, _ = run("poker", "eval", "4C 9S 4D 4H 9C")
    assert code == 0
    assert "label  Full house, fours over nines" in out
    assert "cv     6 2 7 12 11 10" in out and "ne     1452225" in out
    code, out, _ = run("poker", "eval", "2c 2d Ah Kh Qh", "--wild", "deuces", "--json")
    data = json.loads(out)
    assert data["value"]["label"] == "Royal flush" and data["wild"] == "deuces"
    code, out, _ = run("poker", "eval", "9d 5h 4s 3c 2d", "--game", "low8")
    assert code == 0 and "value  none (no qualifying low)" in out


def test_ne_and_unne() -> None:
    assert run("poker", "ne", "4c 9s 4d 4h 9c")[1].strip() == "1452225"
    assert run("poker", "unne", "1452225")[1].strip() == "9s 4h 4d 4c 9c"
    data = json.loads(run("poker", "unne", "0", "--json")[1])
    assert data["codes"] == [0, 1, 2, 3, 4]


def test_table_json_is_the_papers_deuces_table() -> None:
    code, out, _ = run("poker", "table", "--wild", "2c,2d,2h,2s", "--json")
    assert code == 0
    data = json.loads(out)
    got = {r["category"]: [r["hands"], r["distinct"]] for r in data["rows"]}
    got["Total"] = [data["hands"], data["distinct"]]
    assert got == PAPER["deuces_wild"]
    code, out, _ = run("poker", "table", "--jokers", "1")
    assert code == 0 and "Five of a kind" in out and "2869685" in out


def test_showdown_explicit_hands() -> None:
    code, out, _ = run("poker", "showdown", "-H", "ann=As Ks Qs Js 9s",
                       "--hand", "bob=2c 3d 4h 5s 7c", "--game", "hilo8", "--pot", "10")
    assert code == 0
    assert "ann  Flush, A-K-Q-J-9; no low" in out and "share 5  wins high" in out
    data = json.loads(run("poker", "showdown", "-H", "ann=As Ks Qs Js Ts",
                          "-H", "bob=Ad Kd Qd Jd Td", "--pot", "3", "--json")[1])
    assert data["winners"] == ["ann", "bob"]
    assert [p["share"] for p in data["players"]] == ["3/2", "3/2"]


@pytest.mark.slow
def test_errors_are_one_line_with_exit_code_1() -> None:
    code, _, err = run("poker", "eval", "As Kx")
    assert code == 1
    assert err.startswith("error: expected a suit (s, h, d or c) after 'K', got 'x' "
                          "(at column 5)")
    for args, message in [
        (("poker", "showdown"), "error: name some players, or give hands with --hand NAME=CARDS"),
        (("poker", "showdown", "-H", "As Ks"), "error: --hand needs NAME=CARDS, got 'As Ks'"),
        (("poker", "unne", "2598960"), "error: NE must be 0...2598959, not 2598960"),
        (("poker", "ne", "As Ks"), "error: NE numbers 5-card hands; got 2 cards"),
        (("poker", "eval", "As"), "error: a poker hand needs at least 5 cards, got 1"),
    ]:
        code, _, err = run(*args)
        assert code == 1 and err.startswith(message), (args, err)
    # a game outside the fixed set is a usage error listing the games
    code, _, err = run("poker", "eval", "As Ks Qs Js Ts", "--game", "x")
    assert code == 2 and "'x' is not one of 'high', 'a5', '27', 'low8'" in err


def test_showdown_players_from_the_ledger(sqlite_game: Nomic) -> None:
    from nomic_cards.core import api

    # proposal numbering: pack*52 + suit*13 + rank, suits D S H C, ace 1
    royal = [14, 26, 25, 24, 23]  # As Ks Qs Js 10s from the first pack
    aces = [14 + 52, 14 + 104, 27, 1, 40]  # As (2nd pack), As (3rd), Ah, Ad, Ac
    for a, b in zip(royal, aces, strict=True):
        with sqlite_game.write() as tx:
            api.deal(tx, "alice", **scripted([a]))  # type: ignore[arg-type]
            api.deal(tx, "bob", **scripted([b]))  # type: ignore[arg-type]
    code, out, err = run("--db", sqlite_game.url, "poker", "showdown", "alice", "bob", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["winners"] == ["bob"]
    labels = [p["value"]["label"] for p in data["players"]]
    assert labels == ["Royal flush", "Five of a kind, aces"]
    code, _, err = run("--db", sqlite_game.url, "poker", "showdown", "alice", "carol")
    assert code == 1 and err.startswith("error: carol holds 0 cards; a poker hand needs 5")


def test_showdown_refuses_a_player_named_twice(sqlite_game: Nomic) -> None:
    from nomic_cards.core import api

    for n in (1, 2, 3, 4, 5):  # Ad 2d 3d 4d 5d of the first pack
        with sqlite_game.write() as tx:
            api.deal(tx, "alice", **scripted([n]))  # type: ignore[arg-type]
    for args in (("alice", "ALICE"), ("alice", "bob", "Alice")):
        code, out, err = run("--db", sqlite_game.url, "poker", "showdown", *args)
        assert code == 1 and out == "", (args, out)
        assert err.startswith("error: player named twice: alice (as 'alice' and "), err
        assert len(err.strip().splitlines()) == 1


def test_showdown_names_each_cards_pack(sqlite_game: Nomic) -> None:
    from nomic_cards.core import api

    # proposal numbering: pack*52 + suit*13 + rank, suits D S H C, ace 1: the Jd of the Red
    # pack (11) and of the Blue pack (52 + 11), then Red As, Red Ks, Red Ac
    for n in (11, 63, 14, 26, 40):
        with sqlite_game.write() as tx:
            api.deal(tx, "alice", **scripted([n]))  # type: ignore[arg-type]
    for n in (2, 3, 4, 5, 6):  # Red 2d ... 6d: a straight flush
        with sqlite_game.write() as tx:
            api.deal(tx, "bob", **scripted([n]))  # type: ignore[arg-type]
    code, out, err = run("--db", sqlite_game.url, "poker", "showdown", "ALICE", "bob")
    assert code == 0, err
    alice, bob = out.splitlines()
    assert alice.startswith("alice  ") and bob.startswith("bob    ")
    assert "[Red Jd Red As Red Ks Red Ac Blue Jd]" in alice
    assert "[Red 2d Red 3d Red 4d Red 5d Red 6d]" in bob and bob.endswith("share 1  wins high")
    data = json.loads(run("--db", sqlite_game.url, "poker", "showdown", "alice", "bob",
                          "--json")[1])
    assert data["players"][0]["labels"] == ["Red Jd", "Red As", "Red Ks", "Red Ac", "Blue Jd"]
    code, out, _ = run("poker", "showdown", "-H", "ann=As Ks Qs Js 9s")
    assert code == 0 and "[As Ks Qs Js 9s]" in out  # explicit hands have no packs
