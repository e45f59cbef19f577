"""A season of Pooker played from the command line, as docs/pooker.md walks it, on SQLite and
PostgreSQL: trades, a Motion, a Showdown closed by ``tick``, Points, the public record checked
by scripts/verify_chain.py and scripts/verify_showdowns.py (the latter also catching a forged
opening).

Then scripts/verify_showdowns.py on its own (docs/pooker.md, "Verifiable Showdowns"): every
Showdown's Scores, winners, prize and Points paid, and every Points balance, recomputed from the
public record alone; a forged close re-hashed after the last published head caught. Real games
played through the API in game time (tests/game_time.py); the script's own Poker Hand scorer
against the poker library's on every pattern of 1 to 5 cards."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import re
import runpy
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from freezegun.api import FrozenDateTimeFactory
from typer.testing import CliRunner

from nomic_cards.cardgames.pooker import PARAMS
from nomic_cards.cardgames.pooker import rules as pooker
from nomic_cards.cards import ness_code, spoon_card
from nomic_cards.cli import app
from nomic_cards.core import api, engine
from nomic_cards.core.ledger.events import EVENT_TYPES
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import points
from nomic_cards.core.services.common import parse_card_ref
from nomic_cards.poker.pookerhands import CATEGORIES, category, hand_score
from tests.game_time import moment as day
from tests.pooker.support import balances, fund, give

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
SCRIPT = ROOT / "scripts" / "verify_showdowns.py"
CHAIN = ROOT / "scripts" / "verify_chain.py"
S = runpy.run_path(str(SCRIPT))
DEALER = "PurpleBob"

#: (time, command) as docs/pooker.md gives them
SEASON = [
    ("2026-01-01T10:00:00Z", "init --epoch 2026-01-01 --nweek-days 10"),
    ("2026-01-01T10:01:00Z", "player add ann"),
    ("2026-01-01T10:02:00Z", "player add ben"),
    ("2026-01-01T10:03:00Z", "player add cat"),
    ("2026-01-01T11:00:00Z", "game enact pooker --packs Red,Blue --proposal 'P456'"),
    ("2026-01-01T11:10:00Z", "transfer 'Red As' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:11:00Z", "transfer 'Red Ks' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:12:00Z", "transfer 'Red Qs' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:13:00Z", "transfer 'Red Js' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:14:00Z", "transfer 'Blue 2h' --to ann --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:15:00Z", "transfer 'Red 10s' --to ben --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:16:00Z", "transfer 'Red 2h' --to ben --from deck --rule 'P470: dealt'"),
    ("2026-01-01T11:17:00Z", "transfer 'Red 3c' --to cat --from deck --rule 'P470: dealt'"),
    ("2026-01-02T09:00:00Z", "points grant ann 5 --rule 'Scorekeeper report, nweek 1'"),
    ("2026-01-02T09:01:00Z", "points grant ben 5 --rule 'Scorekeeper report, nweek 1'"),
    ("2026-01-02T12:00:00Z", "pooker trade ann --give 'Blue 2h' --get 'Red 10s' --with ben"),
    ("2026-01-02T15:00:00Z", "pooker trade ben --give 'Red 10s' --get 'Blue 2h' --with ann"),
    ("2026-01-03T08:00:00Z", "pooker motion cat"),
    ("2026-01-03T09:00:00Z", "pooker vote ann yes"),
    ("2026-01-03T09:30:00Z", "pooker vote ben yes"),
    ("2026-01-03T10:00:00Z", "pooker vote cat yes"),
    ("2026-01-04T10:00:00Z", "pooker show ann --hand 'Red As,Red Ks,Red Qs,Red Js,Red 10s'"),
    ("2026-01-05T10:00:00Z", "pooker show ben --hand 'Red 2h,Blue 2h'"),
    ("2026-01-07T00:00:00Z", "tick"),
]


def run(db: str, at: str | None, command: str) -> str:
    args = ["--db", db, *(["--at", at] if at else []), *shlex.split(command)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, f"{command}: {result.output}"
    return result.stdout


@pytest.mark.slow
def test_a_season_of_pooker_from_the_command_line(db_url: str, tmp_path: Path) -> None:
    out = {command: run(db_url, at, command) for at, command in SEASON}
    assert "waits for ben's" in out[SEASON[15][1]]
    assert "ben and ann traded 1 PCard(s)" in out[SEASON[16][1]]
    assert "it passed: Showdown 1 is open" in out[SEASON[20][1]]
    assert "(Score 80)" in out[SEASON[21][1]]
    assert out["tick"] == "card game pooker: Showdown 1 ends (2026-01-06T10:00:00Z)\n"
    status = json.loads(run(db_url, None, "pooker status --json"))
    assert status["showdown"] is None and status["showdowns"] == 1
    assert status["last"]["winners"] == ["ann"] and status["last"]["prize"] == 80
    assert status["last"]["scores"] == {"ann": 80, "ben": 5}
    balances = {r["player"]: r["points"] for r in json.loads(run(db_url, None,
                                                                "points show --json"))}
    assert balances == {"ann": 84, "ben": 4, "cat": 0, "PurpleBob": 2, "Bank": -90}
    csv = run(db_url, None, "points export --since 2026-01-03").splitlines()
    assert csv[0] == "event,at,from,to,points,rule,note" and len(csv) == 2
    assert ",Bank,ann,80,card game pooker: prize of Showdown 1," in csv[1]
    assert json.loads(run(db_url, None, "hand ann --json"))["cards"] == []
    assert [c["card"] for c in json.loads(run(db_url, None, "hand ben --json"))["cards"]] \
        == []
    run(db_url, None, "ledger verify")  # exits 0 only when the replay equals the tables
    advice = json.loads(run(db_url, None, "pooker advise cat --json"))
    # every PCard but eir own is unseen (nothing shown at an open Showdown)
    assert advice["score"] == 0 and advice["hands"] == [] and advice["unseen"] == 104 - 1
    # the public record alone proves every shown card
    exported = tmp_path / "ledger.json"
    exported.write_text(run(db_url, None, "ledger export"), encoding="utf-8")
    for script in ("verify_chain.py", "verify_showdowns.py"):
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), str(exported)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "7 shown card(s) checked, 0 unproven, 0 problem(s); 1 Showdown(s) recomputed" \
        in done.stdout
    # what docs/pooker.md prints for this season is what the commands and the script print
    doc = (ROOT / "docs" / "pooker.md").read_text(encoding="utf-8")
    printed = " ".join(" ".join(out.values()).split()) + " " + " ".join(done.stdout.split())
    said = re.findall(r"^#   (\[event .*)$", doc, re.M)
    verified = doc[doc.index("verify_showdowns.py ledger.json --strict"):]
    said.append(" ".join(line[1:].strip() for line in verified.split("```")[0].splitlines()[1:]))
    assert len(said) >= 3 and all(" ".join(x.split()) in printed for x in said), said
    # a forged opening is caught
    events = json.loads(exported.read_text(encoding="utf-8"))
    shown = next(e for e in events if e["kind"] == "pooker.shown")
    payload = json.loads(shown["payload"])
    payload["openings"][0]["card"], payload["openings"][1]["card"] = \
        payload["openings"][1]["card"], payload["openings"][0]["card"]
    shown["payload"] = json.dumps(payload)
    exported.write_text(json.dumps(events), encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "verify_showdowns.py"),
                           str(exported)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "does not match a commitment" in done.stdout


# --- the script's Poker Hands against the poker library's -----------------------------------


def library_category(cards: list[int]) -> str:
    return category([ness_code(spoon_card(c)[1]) for c in cards])


def number(pack: int, suit: int, rank: int) -> int:
    """A card number of the Cards proposal (suit 0...3, rank Ace 1 ... King 13)."""
    return pack * 52 + suit * 13 + rank


@pytest.mark.slow
def test_the_scripts_scorer_agrees_with_the_library_on_every_pattern_of_one_to_five_cards(
) -> None:
    """A hand's category depends only on its ranks (with repeats: two packs) and, for five
    cards, on whether they are of one suit. Every multiset of 1 to 5 ranks, each as one suit
    (while two packs allow it) and as mixed suits, in every suit, from either pack."""
    table = dict(zip(CATEGORIES, random.Random(7).sample(range(1, 1000), len(CATEGORIES)),
                     strict=True))
    seen: set[str] = set()
    hands = 0
    for n in range(1, 6):
        for ranks in itertools.combinations_with_replacement(range(1, 14), n):
            for suit in range(4):
                # the k-th card of a rank: mixed suits (when n > 1), or all of one suit from
                # the two packs (while no rank is there more than twice)
                mixed, one_suit = [], []
                for i, r in enumerate(ranks):
                    k = ranks[:i].count(r)
                    mixed.append((k // 4, (suit + k + sorted(set(ranks)).index(r)) % 4))
                    one_suit.append((k, suit))
                patterns = [mixed]
                if all(ranks.count(r) <= 2 for r in ranks):
                    patterns.append(one_suit)
                for pattern in patterns:
                    cards = [number(pack, s, r) for (pack, s), r in zip(pattern, ranks,
                                                                       strict=True)]
                    assert len(set(cards)) == n
                    want = library_category(cards)
                    assert S["category"](cards) == want, cards
                    assert S["hand_score"](cards, table) == \
                        hand_score([ness_code(spoon_card(c)[1]) for c in cards], table)
                    seen.add(want)
                    hands += 1
    assert seen == set(CATEGORIES) and hands > 60_000


def test_the_scripts_scorer_agrees_with_the_library_on_random_hands_from_two_packs() -> None:
    rng = random.Random(2026)
    for _ in range(30_000):
        cards = rng.sample(range(1, 105), rng.randint(1, 5))
        assert S["category"](cards) == library_category(cards), cards
    # each category by name, and the traps: a wheel, no wrap-around, a duplicated flush card
    red, blue = 0, 1
    named = {
        "five-of-a-kind": [number(red, 0, 7), number(red, 1, 7), number(red, 2, 7),
                           number(red, 3, 7), number(blue, 0, 7)],
        "royal-flush": [number(red, 1, r) for r in (1, 10, 11, 12, 13)],
        "straight-flush": [number(red, 2, r) for r in (1, 2, 3, 4, 5)],
        "four-of-a-kind": [number(red, s, 9) for s in range(4)],
        "full-house": [number(red, 0, 3), number(red, 1, 3), number(blue, 0, 3),
                       number(red, 0, 8), number(red, 1, 8)],
        "flush": [number(red, 3, 1), number(blue, 3, 1), number(red, 3, 5),
                  number(red, 3, 9), number(red, 3, 12)],
        "straight": [number(red, 0, 10), number(red, 1, 11), number(red, 2, 12),
                     number(red, 0, 13), number(blue, 0, 1)],
        "three-of-a-kind": [number(red, 0, 4), number(blue, 0, 4), number(red, 2, 4)],
        "two-pair": [number(red, 0, 4), number(blue, 0, 4), number(red, 2, 6),
                     number(red, 3, 6)],
        "one-pair": [number(red, 0, 2), number(blue, 0, 2)],
        "high-card": [number(red, 0, 12), number(red, 1, 13), number(red, 2, 1),
                      number(red, 0, 2), number(red, 0, 3)],  # Q K A 2 3 is no straight
    }
    for name, cards in named.items():
        assert S["category"](cards) == library_category(cards) == name


def test_the_script_carries_the_declarations_defaults_and_knows_every_kind() -> None:
    """The script reads no project code: its copy of Pooker's defaults, of the categories and
    of the kinds of event must be the project's."""
    assert S["POOKER_DEFAULTS"] == {p.name: p.default for p in PARAMS if p.name != "packs"}
    assert S["CATEGORIES"] == CATEGORIES
    engine.games()  # every installed game's kinds registered (the card duel's, if installed)
    assert set(EVENT_TYPES) <= S["KNOWN_KINDS"]
    moving = {k for k, cls in EVENT_TYPES.items() if cls.MOVES_POINTS}
    assert {"points.moved", "pooker.traded", "pooker.closed"} <= moving
    assert moving <= set(S["POINTS_KINDS"]) <= S["KNOWN_KINDS"]


# --- real games ---------------------------------------------------------------------------


@pytest.fixture
def players() -> tuple[str, ...]:
    return ("ann", "ben", "cat", "dan")


def trade(game: Nomic, a: str, gives: str, b: str, gets: str) -> None:
    with game.write() as tx:
        pooker.trade(tx, a, [gives], [gets], b)
        pooker.trade(tx, b, [gets], [gives], a)


def close(game: Nomic, clock: FrozenDateTimeFactory, when: float = 4) -> None:
    clock.move_to(day(when))
    with game.write() as tx:
        api.tick(tx)


def record(game: Nomic) -> list[dict[str, Any]]:
    with game.read() as tx:
        return [dataclasses.asdict(r) for r in api.public_record(tx)]


def cardno(game: Nomic, card: str) -> int:
    with game.read() as tx:
        return parse_card_ref(tx.state, card)


def closed(events: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    event = next(e for e in events if e["kind"] == "pooker.closed")
    return event, json.loads(event["payload"])


def edit(events: list[dict[str, Any]], event: dict[str, Any], **fields: Any) -> None:
    """Change a payload (not re-hashed: the script checks meaning, verify_chain.py bytes)."""
    payload = json.loads(event["payload"])
    payload.update(fields)
    event["payload"] = json.dumps(payload, sort_keys=True, separators=(",", ":"))


def rehash_from(events: list[dict[str, Any]], seq: int) -> None:
    """Recompute every hash from event ``seq`` on, as a forger rewriting the chain would."""
    event_hash = runpy.run_path(str(CHAIN))["event_hash"]
    for e in events[seq - 1:]:
        e["prev_hash"] = events[e["seq"] - 2]["hash"] if e["seq"] > 1 else "0" * 64
        e["hash"] = event_hash(e)


def run_script(script: Path, path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(script), str(path), *args],
                          capture_output=True, text=True, timeout=60)


def audit(events: list[dict[str, Any]], strict: bool = False) -> Any:
    return S["audit"](events, strict)


def _season(game: Nomic, clock: FrozenDateTimeFactory) -> None:
    """A trade with its fees; ann shows a pair, ben a High Card, dan a Straight and then
    retires (version 2: not scored, eir cards gone to the Deck); cat shows nothing."""
    fund(game, "ann", "ben")
    give(game, "ann", "Red As", "Blue As", "Red 9c")
    give(game, "ben", "Red 2h", "Blue 7d")
    give(game, "cat", "Red Kd")
    give(game, "dan", "Red 5s", "Red 6h", "Red 7d", "Red 8c", "Blue 9s")
    trade(game, "ann", "Red 9c", "ben", "Blue 7d")
    with game.write() as tx:
        pooker.showdown_open(tx, motion_passed="Motion 1 of the nomic")
        pooker.show(tx, "ann", ["Red As,Blue As"])
        pooker.show(tx, "ben", ["Red 2h,Red 9c"])
        pooker.show(tx, "dan", ["Red 5s,Red 6h,Red 7d,Red 8c,Blue 9s"])
    with game.write() as tx:
        api.retire_player(tx, "dan")
    close(game, clock)


def test_every_showdown_and_balance_is_recomputed_from_the_public_record(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    _season(pg, clock)
    events = record(pg)
    _, payload = closed(events)
    assert payload["winners"] == ["ann"] and payload["voided"] == [{"player": "dan",
                                                                     "why": "retired"}]
    report = audit(events, strict=True)
    assert (report.problems, report.unproven, report.checked) == ([], [], 9)
    assert report.closes == [
        f"Showdown 1, closed at event {closed(events)[0]['seq']} under Pooker version 3, "
        "recomputed: Scores ann 5, ben 0; won by ann, prize 5, paid ann 5; 4 shown card(s) "
        "back to the Deck, 5 gone elsewhere, 1 show(s) not scored"]
    assert dict(report.balances) == balances(pg) == {
        "ann": 14, "ben": 9, "cat": 0, DEALER: 2, "Bank": -25}  # dan retired


@pytest.mark.slow
def test_a_forged_close_rehashed_after_the_published_head_is_caught(
        pg: Nomic, clock: FrozenDateTimeFactory, tmp_path: Path) -> None:
    """The Dealer rewrites the close: cat, who showed nothing, paid 80 Points, instead of
    ann, who showed a pair; every later hash recomputed, so the chain alone is whole again.
    The recomputation names the event and the difference in one line; the head published
    before the forgery no longer is in the chain."""
    _season(pg, clock)
    events = record(pg)
    published = f"{events[-1]['seq']}:{events[-1]['hash']}"  # e.g. in a Dealer's Report
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    honest = run_script(SCRIPT, path, "--strict")
    assert honest.returncode == 0, honest.stdout
    assert "Points from 5 public movement(s): PurpleBob 2, ann 14, ben 9, cat 0, Bank -25" \
        in honest.stdout
    assert "9 shown card(s) checked, 0 unproven, 0 problem(s); 1 Showdown(s) recomputed" \
        in honest.stdout

    event, _ = closed(events)
    edit(events, event, winners=["cat"], prize=80, paid=[{"player": "cat", "points": 80}])
    rehash_from(events, event["seq"])
    path.write_text(json.dumps(events), encoding="utf-8")
    chain = run_script(CHAIN, path)
    assert chain.returncode == 0 and "chain OK" in chain.stdout  # the chain alone is whole
    done = run_script(SCRIPT, path, "--strict")
    assert done.returncode == 1
    lines = [x for x in done.stdout.splitlines() if x.startswith(f"event {event['seq']}:")]
    assert any("Showdown 1 closed otherwise than the shown hands and the rules in force give"
               in x and "winners cat (recorded) vs ann" in x and "prize 80 (recorded) vs 5" in x
               and "paid cat 80 (recorded) vs ann 5" in x for x in lines), done.stdout
    assert "cat 80" in done.stdout  # the balances are what the record's movements make
    headed = run_script(CHAIN, path, "--head", published)
    assert headed.returncode == 1 and "is not in the chain" in headed.stdout
    # the same forgery from standard input
    piped = subprocess.run([sys.executable, str(SCRIPT)], input=path.read_text("utf-8"),
                           capture_output=True, text=True, timeout=60)
    assert piped.returncode == 1 and "winners cat (recorded) vs ann" in piped.stdout


def test_a_close_that_differs_in_any_field_is_named(pg: Nomic,
                                                    clock: FrozenDateTimeFactory) -> None:
    _season(pg, clock)
    events = record(pg)
    event, payload = closed(events)
    dan = [cardno(pg, c) for c in ("Red 5s", "Red 6h", "Red 7d", "Red 8c", "Blue 9s")]
    forgeries = {
        "scores": {"scores": [{"player": "ann", "score": 5}, {"player": "ben", "score": 0},
                              {"player": "dan", "score": 30}], "voided": []},
        "paid": {"paid": [{"player": "ann", "points": 4}]},
        "returned": {"returned": sorted([*payload["returned"], dan[0]]),
                     "gone": [g for g in payload["gone"] if g["card"] != dan[0]]},
        "gone": {"gone": [{**g, "holder": "cat"} for g in payload["gone"]]},
        "voided": {"voided": [{"player": "dan", "why": "now the Dealer, who may never show"}]},
    }
    for field, change in forgeries.items():
        forged = json.loads(json.dumps(events))
        edit(forged, forged[event["seq"] - 1], **change)
        problems = audit(forged).problems
        assert len(problems) == 1 and problems[0].startswith(f"event {event['seq']}: ")
        assert f"; {field} " in problems[0] or f": {field} " in problems[0], problems


def test_a_shower_made_dealer_a_split_prize_and_the_score_table_at_the_close(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """cat shows Three of a Kind, then is elected Dealer (not scored); one pair is amended to
    7 during the Showdown: ann and ben tie on 7, each paid 3 (the remainder stays in the
    Bank); the trade after the election pays its fees to cat."""
    fund(pg, "ann", "dan")
    give(pg, "ann", "Red As", "Blue As", "Red 9c")
    give(pg, "ben", "Red 2h", "Blue 2h")
    give(pg, "cat", "Red Kd", "Blue Kd", "Red Kh")
    give(pg, "dan", "Red 3d")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red As,Blue As"])
        pooker.show(tx, "ben", ["Red 2h,Blue 2h"])
        pooker.show(tx, "cat", ["Red Kd,Blue Kd,Red Kh"])
        api.elect_dealer(tx, "cat")
        api.game_amend(tx, "pooker", ["score-one-pair=7"], proposal="P500")
    trade(pg, "ann", "Red 9c", "dan", "Red 3d")
    close(pg, clock)
    events = record(pg)
    _, payload = closed(events)
    assert payload["paid"] == [{"player": "ann", "points": 3}, {"player": "ben", "points": 3}]
    report = audit(events, strict=True)
    assert (report.problems, report.unproven) == ([], [])
    assert "won by ann, ben, prize 7, paid ann 3, ben 3" in report.closes[0]
    assert dict(report.balances) == balances(pg)
    assert balances(pg)["cat"] == 2  # the fees of the trade after the election
    # a fee recorded as paid to the former Dealer is named
    forged = json.loads(json.dumps(events))
    traded = next(e for e in forged if e["kind"] == "pooker.traded")
    edit(forged, traded, dealer=DEALER)
    assert [p for p in audit(forged).problems if "not the fee in force" in p
            and p.startswith(f"event {traded['seq']}: ")]


def test_a_transfer_moves_no_shown_card_but_a_deal_from_the_deck_may(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """Version 2 holds shown cards, and the replay refuses a transfer of one: a transfer out
    of ben's Hand during the Showdown (which card is private) leaves ben's shown pair where
    the public record put it, proven; a close naming one gone to the transfer's recipient is a
    problem. dan's shown card joins the Deck when e retires, and a deal from the Deck names no
    card: that one may have been dealt, so its place is unproven and the close's word taken."""
    give(pg, "ann", "Red As", "Blue As")
    give(pg, "ben", "Red 2h", "Blue 2h", "Blue 3c")
    give(pg, "dan", "Red 5s")
    red4s = cardno(pg, "Red 4s")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red As,Blue As"])
        pooker.show(tx, "ben", ["Red 2h,Blue 2h"])
        pooker.show(tx, "dan", ["Red 5s"])
    with pg.write() as tx:
        api.transfer(tx, "Blue 3c", "cat", "Proposal 91")  # an unshown card
        api.retire_player(tx, "dan")
        api.deal(tx, "cat", source="manual", ask=lambda sides: red4s, reject=lambda msg: None)
    close(pg, clock)
    events = record(pg)
    report = audit(events)
    assert report.problems == [] and len(report.unproven) == 1
    assert f"card {cardno(pg, 'Red 5s')} shown by dan: the public record cannot tell where it " \
           "was at the close (cat, the Deck)" in report.unproven[0]
    assert audit(events, strict=True).problems == report.unproven
    event, payload = closed(events)
    red2h = cardno(pg, "Red 2h")
    forged = json.loads(json.dumps(events))
    edit(forged, forged[event["seq"] - 1],
         returned=[c for c in payload["returned"] if c != red2h],
         gone=[*payload["gone"], {"card": red2h, "player": "ben", "holder": "cat"}])
    problems = audit(forged).problems
    assert len(problems) == 1 and problems[0].startswith(f"event {event['seq']}: ")
    assert f"card {red2h} of ben at cat (recorded)" in problems[0]


def test_a_shower_made_dealer_and_replaced_is_not_scored_as_recomputed(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """cat shows Three of a Kind and is elected Dealer, then PurpleBob again: dealer elections
    are public, so the recomputed close leaves cat unscored and ann wins with eir pair; a close
    scoring cat is named."""
    give(pg, "ann", "Red As", "Blue As")
    give(pg, "cat", "Red Kd", "Blue Kd", "Red Kh")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red As,Blue As"])
        pooker.show(tx, "cat", ["Red Kd,Blue Kd,Red Kh"])
        api.elect_dealer(tx, "cat")
        api.elect_dealer(tx, DEALER)
    close(pg, clock)
    events = record(pg)
    event, payload = closed(events)
    assert payload["voided"] == [{"player": "cat", "why": S["WAS_DEALER"]}]
    report = audit(events, strict=True)
    assert (report.problems, report.unproven) == ([], [])
    assert "won by ann, prize 5, paid ann 5" in report.closes[0]
    forged = json.loads(json.dumps(events))
    edit(forged, forged[event["seq"] - 1], voided=[],
         scores=[{"player": "ann", "score": 5}, {"player": "cat", "score": 20}],
         winners=["cat"], prize=20, paid=[{"player": "cat", "points": 20}])
    problems = audit(forged).problems
    assert len(problems) == 1 and "voided none (recorded) vs cat (made the Dealer after " \
        "showing, and the Dealer may never show)" in problems[0]


def test_the_rules_version_and_the_overdraw_parameter_are_read_from_the_record(
        pg: Nomic, clock: FrozenDateTimeFactory) -> None:
    """Version 1 scores a shower who retired and returns every shown card; a balance below
    zero is a problem unless points-below-zero=yes is in force."""
    with pg.write() as tx:
        api.game_amend(tx, "pooker", version=1, proposal="P1")
        api.game_amend(tx, "pooker", ["points-below-zero=yes"], proposal="P2")
        points.grant_points(tx, "ben", -3, rule="fine")
    give(pg, "ann", "Red As", "Blue As")
    give(pg, "dan", "Red 3s", "Red 3h", "Blue 3c")
    with pg.write() as tx:
        pooker.showdown_open(tx, motion_passed="M")
        pooker.show(tx, "ann", ["Red As,Blue As"])
        pooker.show(tx, "dan", ["Red 3s,Red 3h,Blue 3c"])
        api.retire_player(tx, "dan")
    close(pg, clock)
    events = record(pg)
    _, payload = closed(events)
    assert payload["winners"] == ["dan"] and "voided" not in payload  # version 1
    report = audit(events, strict=True)
    assert (report.problems, report.unproven) == ([], [])
    assert dict(report.balances) == balances(pg) and balances(pg)["dan"] == 20
    assert dict(report.balances)["ben"] == -3
    # the same close under version 2 is not what the record shows
    v2 = json.loads(json.dumps(events))
    amended = next(e for e in v2 if e["kind"] == "rule.amended")
    edit(v2, amended, version=2)
    problems = audit(v2).problems
    assert len(problems) == 1 and "voided none (recorded) vs dan (retired)" in problems[0]
    # without points-below-zero=yes, ben's fine takes em below zero
    no = json.loads(json.dumps(events))
    overdraw = [e for e in no if e["kind"] == "rule.amended"][1]
    edit(no, overdraw, params={"points-below-zero": "no"})
    fine = next(e for e in no if e["kind"] == "points.moved")
    assert audit(no).problems == [
        f"event {fine['seq']}: 3 Point(s) moved under 'fine': ben paid 3 Point(s) holding 0, "
        "and no rule in force lets a balance go below zero"]


def test_an_unknown_kind_is_unproven_and_a_broken_payload_a_problem(pg: Nomic) -> None:
    events = record(pg)
    events.append({**events[-1], "seq": len(events) + 1, "kind": "cups.won",
                   "payload": '{"points": 3}'})
    events.append({**events[-1], "seq": len(events) + 1, "kind": "points.moved",
                   "payload": '{"to": "ann"}'})
    report = audit(events)
    assert report.unproven == [f"event {len(events) - 1}: kind cups.won is unknown to this "
                               "script: if it moves Points, the balances leave it out"]
    assert len(report.problems) == 1 and report.problems[0].startswith(
        f"event {len(events)}: the payload of this points.moved event lacks a field")
