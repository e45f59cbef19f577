"""Output formats: complete PBN that round-trips (ours and endplay's parser), LIN, JSON, and
dealer's text layouts on a fixed deal."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.output import layouts
from nomic_cards.bridge.output.formats import (
    DDResult,
    board,
    board_json,
    parse_pbn_deal,
    read_pbn,
    write_lin,
    write_pbn,
)
from nomic_cards.bridge.run.loop import RunOptions, run

DEAL_PBN = "N:AKQ2.J3.T98765.A JT98.AK2.AKQ.KQJ 7653.QT9876.J.T9 4.54.432.8765432"
MANDATORY = ["Event", "Site", "Date", "Round", "Board", "West", "North", "East", "South",
             "Dealer", "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result"]


def _deal() -> np.ndarray:
    return parse_pbn_deal(DEAL_PBN)


def test_pbn_deal_parses_any_first_seat() -> None:
    deal = _deal()
    assert layouts.pbn_deal(deal) == DEAL_PBN
    rotated = "E:JT98.AK2.AKQ.KQJ 7653.QT9876.J.T9 4.54.432.8765432 AKQ2.J3.T98765.A"
    assert (parse_pbn_deal(rotated) == deal).all()
    assert layouts.pbn_deal(deal, 2).startswith("S:7653.QT9876.J.T9 4.54")


def test_boards_rotate_dealer_and_vulnerability() -> None:
    got = [(b.dealer, b.vulnerable) for b in (board(k, _deal(), dealer=None, vulnerable=None)
                                              for k in range(1, 18))]
    assert got[:4] == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert [v for _, v in got[4:16]] == [1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2]
    assert got[16] == got[0]
    assert board(5, _deal(), dealer=3, vulnerable=2).dealer == 3


def test_pbn_has_the_mandatory_tags_in_order_and_round_trips() -> None:
    b = board(6, _deal(), dealer=None, vulnerable=None,
              dd=DDResult(((9, 8, 3, 3, 6),) * 4, 100, ("EW 4DX",)))
    text = write_pbn(b, event='a "quoted" \\ event', date="2026.01.02")
    tags = [line.split()[0][1:] for line in text.splitlines() if line.startswith("[")]
    assert tags[:16] == MANDATORY
    game = read_pbn(text)[0]
    assert game["Event"] == 'a "quoted" \\ event' and game["Board"] == "6"
    assert game["Dealer"] == "E" and game["Vulnerable"] == "EW"
    assert game["Deal"].startswith("E:")
    assert (parse_pbn_deal(game["Deal"]) == _deal()).all()
    assert game["DoubleDummyTricks"] == "69833" * 4 and game["ParContract"] == "EW 4DX"


def test_read_pbn_skips_comments() -> None:
    text = ('% header\n[Event "x"]\n{a comment [Board "9"]}\n[Board "1"]\n\n'
            '; note\n[Board "2"]\n')
    assert read_pbn(text) == [{"Event": "x", "Board": "1"}, {"Board": "2"}]


def _run(text: str, fmt: str) -> tuple[str, dict[str, object]]:
    out: list[str] = []
    summary = run(parse_script(text), RunOptions(seed=9, fmt=fmt), out.append,
                  report=lambda _: None)
    return "".join(out), summary


def test_run_writes_pbn_games_that_read_back() -> None:
    text, summary = _run("produce 20\ndealer west\ncondition hcp(north) > 12\n", "pbn")
    games = read_pbn(text)
    assert len(games) == 20 and summary["produced"] == 20
    assert [g["Board"] for g in games] == [str(k) for k in range(1, 21)]
    assert {g["Dealer"] for g in games} == {"W"}
    assert [g["Vulnerable"] for g in games[:4]] == ["None", "NS", "EW", "All"]
    for g in games:
        deal = parse_pbn_deal(g["Deal"])
        assert g["Deal"].startswith("W:")
        hcp = sum(("JQKA".index(c) + 1) for c in layouts.pbn_deal(deal).split()[0][2:]
                  if c in "JQKA")
        assert hcp > 12


def test_pbn_round_trips_through_endplay() -> None:
    pbn = pytest.importorskip("endplay.parsers.pbn", reason="endplay (the dd extra) is absent")
    text, _ = _run("produce 5\n", "pbn")
    boards = pbn.loads(text)
    ours = read_pbn(text)
    assert len(boards) == 5
    for b, g in zip(boards, ours, strict=True):
        assert (parse_pbn_deal(b.deal.to_pbn()) == parse_pbn_deal(g["Deal"])).all()
        assert b.board_num == int(g["Board"])
        assert b.dealer.name[0].upper() == g["Dealer"]


def test_lin_lists_south_west_north_east_after_the_dealer_digit() -> None:
    line = write_lin(board(1, _deal(), dealer=None, vulnerable=None))
    assert line == ("pn|South,West,North,East|st||qx|o1|md|3S7653HQT9876DJCT9,"
                    "S4H54D432C8765432,SAKQ2HJ3DT98765CA,SJT98HAK2DAKQCKQJ|rh||ah|Board 1|"
                    "sv|o|pg||\n")
    assert "|sv|b|" in write_lin(board(4, _deal(), dealer=None, vulnerable=None))


def test_lin_round_trips_through_endplay() -> None:
    lin = pytest.importorskip("endplay.parsers.lin", reason="endplay (the dd extra) is absent")
    line = write_lin(board(2, _deal(), dealer=None, vulnerable=None))
    parsed = lin.loads(line + write_lin(board(3, _deal(), dealer=None, vulnerable=None)))
    assert len(parsed) == 2
    assert (parse_pbn_deal(parsed[0].deal.to_pbn()) == _deal()).all()
    assert parsed[0].dealer.name == "east" and parsed[0].board_num == 2
    assert parsed[1].vul.name == "ew"


def test_json_document() -> None:
    text, summary = _run('produce 3\naction average "h" hcp(north)\n', "json")
    assert text == ""  # the CLI writes the document; the runner hands over the boards
    data = board_json(summary["boards"][0])  # type: ignore[index]
    assert set(data) == {"board", "dealer", "vulnerable", "north", "east", "south", "west"}
    assert summary["reports"][0]["action"] == "average"  # type: ignore[index]
    json.dumps(data)


def test_text_layouts_of_a_fixed_deal() -> None:
    deal = _deal()
    assert layouts.compact(deal, oneline=True) == (
        "n AKQ2.J3.T98765.A e JT98.AK2.AKQ.KQJ s 7653.QT9876.J.T9 w 4.54.432.8765432 ")
    assert layouts.printall(deal, 3).splitlines()[:2] == [
        "   3.", "A K Q 2             J T 9 8             7 6 5 3             4 "]
    assert layouts.printew(deal).splitlines()[3] == "8 7 6 5 4 3 2       K Q J "
    pages = layouts.print_pages([deal] * 5, [1])
    assert pages.startswith("\n\nEast hands:\n\n\n\n   1." + " " * 15 + "   2.")
    assert pages.endswith("\f")
    assert layouts.frequency_report("x", 2, 3, [5, 6], 1, 0) == (
        "Frequency x:\nLow\t       1\n    2\t       5\n    3\t       6\n")


def test_bulk_layouts_match_the_deal_by_deal_ones() -> None:
    rng = np.random.default_rng(11)
    deals = rng.integers(0, 1 << 13, size=(200, 4, 4)).astype(np.uint16)
    deals[0, 0, 0], deals[1, 1, 2], deals[2, 3, 0] = (1 << 13) - 1, 0, (1 << 11) - 1
    flat = deals.reshape(-1).tolist()
    assert layouts.print_flat(flat, 200, [(n.PrintAll, -1)], [], 7) == "".join(
        layouts.printall(d, 7 + k) for k, d in enumerate(deals))
    values = list(range(-3, 197))
    for kind in (n.PrintOneLine, n.PrintCompact):
        oneline = kind is n.PrintOneLine
        assert layouts.print_flat(flat, 200, [(kind, 0)], [values], 1) == "".join(
            layouts.compact(d, oneline=oneline) + f"{v}\n"
            for d, v in zip(deals, values, strict=True))
        assert layouts.print_flat(flat, 200, [(kind, -1)], [], 1) == "".join(
            layouts.compact(d, oneline=oneline) + ("\n" if oneline else "") for d in deals)
    mixed = layouts.print_flat(flat, 3, [(n.PrintCompact, 0), (n.PrintAll, -1)], [values], 4)
    assert mixed == "".join(
        layouts.compact(d, oneline=False) + f"{v}\n" + layouts.printall(d, 4 + k)
        for k, (d, v) in enumerate(zip(deals[:3], values, strict=False)))
    first = layouts.compact(deals[0], oneline=True)
    assert first.startswith("n AKQJT98765432.") and first.endswith(" ")
