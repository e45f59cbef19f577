#!/usr/bin/env python3
"""Check every Pooker Showdown and every Points balance against the public record alone, with
nothing but Python's standard library.

Reads the JSON array of ``nomic-cards ledger export`` (or stdin; check the chain itself, and the
heads the Dealer published, with scripts/verify_chain.py). Three checks, every one from the
public fields of the events (docs/pooker.md, "Verifiable Showdowns", says what each proves and
what it cannot):

1. **Openings.** Each card of a ``pooker.shown`` comes with the opening ``{"card", "event",
   "salt"}`` of the commitment that put it in the shower's Hand: that event (a deal, a transfer
   or a trade) is earlier, gave a card to the shower, and one of its per-card commitments (the
   hex SHA-256 of the netstrings of ``"nomic-cards/card/1"``, the salt and the card's number)
   opens to the shown card; no retirement of the shower, election of em as Dealer or
   retirement of the card's pack lies between it and the show. A card put there before
   per-card commitments existed (no commitment, empty salt) is *unproven*, not false.
2. **Showdowns.** Each ``pooker.closed`` is recomputed from the shown hands and the rules in
   force at its close (Pooker's version and parameters from the public ``rule.enacted`` /
   ``rule.amended`` events, over the declaration's defaults written below): every Score (the
   Poker Hands scored card by card, here), the winners, the prize, the Points paid, which shows
   were not scored (version 2: the shower is retired at the close, or was elected Dealer after
   showing, even if replaced since), which shown cards went back to the Deck and which had
   gone elsewhere. Any difference is a problem, named in one line with its event.
3. **Points.** Every balance is recomputed from the public movements (``points.moved``, the
   fees of ``pooker.traded``, the prizes of ``pooker.closed``, the card duel's
   ``duel.decided``) and printed; a movement that takes a Player below zero while no rule in
   force allows it, a fee that is not the one in force or not paid to the Dealer, or a prize
   paid to a non-winner is a problem.

    python3 scripts/verify_showdowns.py ledger.json [--strict]

Prints one line per problem (and per unproven item), a line per Showdown, the balances, and a
summary; exit 0 when nothing is wrong (with --strict: nothing wrong and nothing unproven), 1
otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal, TypedDict

#: Pooker's parameters at their declared defaults (nomic_cards/cardgames/pooker/__init__.py,
#: ``PARAMS``): in force until a ``rule.enacted`` or ``rule.amended`` of ``pooker`` says
#: otherwise. The score table is rule 397's as far as the record keeps it (to Four of a Kind),
#: then the continuation chosen for the lost entries.
POOKER_DEFAULTS: dict[str, int | str] = {
    "trade-fee": 1, "show-days": 3, "trigger-pcards": 10, "trigger-min-shown": 2,
    "motion-threshold": "majority", "motion-days": 3, "dealer-may-show": "no",
    "prize": "score",
    "score-five-of-a-kind": 80, "score-royal-flush": 80, "score-straight-flush": 70,
    "score-four-of-a-kind": 60, "score-full-house": 50, "score-flush": 40,
    "score-straight": 30, "score-three-of-a-kind": 20, "score-two-pair": 10,
    "score-one-pair": 5, "score-high-card": 0,
    "trade-expiry-days": 7, "points-below-zero": "no", "pending-per-player": 10,
}

#: rule 397's categories, the first statement that applies taking precedence
CATEGORIES = ("five-of-a-kind", "royal-flush", "straight-flush", "four-of-a-kind",
              "full-house", "flush", "straight", "three-of-a-kind", "two-pair", "one-pair",
              "high-card")

#: each card game's parameter (yes/no) that lets its payments take a Player below zero
OVERDRAW = {"pooker": "points-below-zero"}

#: why a show is not scored at the close (rules version 2), as the close records it
RETIRED = "retired"
NOW_DEALER = "now the Dealer, who may never show"
WAS_DEALER = "made the Dealer after showing, and the Dealer may never show"

#: the kinds of event that move Points (``MOVES_POINTS``), each read here: a movement of the
#: Scorekeeper's, a trade's fees, a Showdown's prize, the prize of the card duel
#: (tests/plugins/duel, a game installed from outside the project)
POINTS_KINDS = ("points.moved", "pooker.traded", "pooker.closed", "duel.decided")

#: every kind of event this script knows: the others move no Points
KNOWN_KINDS = frozenset((
    "game.created", "player.registered", "player.email_set", "player.retired",
    "player.rejoined", "dealer.elected", "pack.added", "pack.retired", "dice.committed",
    "dice.revealed", "card.dealt", "deal.refused", "card.transferred", "notice.given",
    "notice.sealed", "notice.sent", "notice.failed", "notices.mailed", "clock.stopped",
    "clock.started",
    "votes.recorded", "decision.opened", "ballot.cast", "decision.reminded", "decision.resolved",
    "strength.set",
    "nweek.started", "report.published", "reports.posted", "rule.enacted", "rule.amended",
    "rule.repealed", "points.moved", "list.posted",
    "report.doubted", "report.denied", "report.revised", "report.withdrawn", "report.ratified",
    "player.mail_chosen", "player.address_asked", "player.address_linked", "player.token_asked",
    "player.token_mailed",
    "pooker.notified", "pooker.reminded", "pooker.traded", "pooker.lapsed", "pooker.motion",
    "pooker.voted",
    "pooker.failed", "pooker.withdrawn", "pooker.declined", "pooker.opened", "pooker.shown",
    "pooker.closed",
    "duel.challenged", "duel.committed", "duel.decided",
))

CARDS_PER_PACK = 52
DECK = None  # where a card in the Deck is (the close's ``holder`` null)
OUT = "(out of play)"  # a card of a retired pack: no longer in the Deck nor in a Hand


class Event(TypedDict):
    """One event of the public record, as exported (docs/ledger.md)."""

    seq: int
    at: str
    actor: str
    kind: str
    subject: str | None
    payload: str
    private: str | None
    prev_hash: str
    hash: str


#: an event's payload: a JSON object whose fields each kind of event reads as it has them (a
#: field missing or of the wrong type is caught and named as a problem of its event)
Payload = dict[str, Any]


class Rule(TypedDict):
    """A rule as the public record has it: whether in force, its version, its parameters (a
    card game's declared defaults under what was enacted and amended)."""

    in_force: bool
    version: int
    params: dict[str, int | str]


class _Show(TypedDict):
    player: str
    seq: int
    hands: list[list[int]]
    #: card -> where it may be: a player's name, DECK or OUT
    places: dict[int, set[str | None]]


class Show(_Show, total=False):
    """One player's show at the open Showdown."""

    elected: bool  # the shower was elected Dealer after showing


class Showdown(TypedDict):
    number: int
    shown: dict[str, Show]  # player -> eir show


class Close(TypedDict):
    """What a ``pooker.closed`` says, each field sorted."""

    scores: list[tuple[str, int]]  # (player, Score)
    winners: list[str]
    prize: int
    paid: list[tuple[str, int]]  # (player, Points)
    voided: list[tuple[str, str]]  # (player, why the show is not scored)
    returned: list[int]  # the cards back to the Deck
    gone: list[tuple[int, str, str | None]]  # (card, shower, where it is: DECK, or a player)


CloseField = Literal["scores", "winners", "prize", "paid", "voided", "returned", "gone"]
#: the fields of a close, in the order a difference is named
CLOSE_FIELDS: tuple[CloseField, ...] = (
    "scores", "winners", "prize", "paid", "voided", "returned", "gone")


# --- cards and Poker Hands ------------------------------------------------------------------


def netstring(text: str) -> bytes:
    data = text.encode("utf-8")
    return str(len(data)).encode() + b":" + data + b","


def card_commitment(salt: str, card: int) -> str:
    parts = ["nomic-cards/card/1", salt, str(card)]
    return hashlib.sha256(b"".join(netstring(p) for p in parts)).hexdigest()


def face(card: int) -> tuple[int, int]:
    """(rank, suit) of a card number: ranks Ace 1 ... King 13, suits 0...3, the pack
    forgotten (numbers are ``pack*52 + suit*13 + rank``)."""
    suit, rank0 = divmod((card - 1) % CARDS_PER_PACK, 13)
    return rank0 + 1, suit


def pack_of(card: int) -> int:
    return (card - 1) // CARDS_PER_PACK


def _run(ranks: Collection[int]) -> bool:
    """Whether five distinct ranks are consecutive, the Ace high (10 J Q K A) or low (A 2 3 4
    5), never both (Q K A 2 3 is no run)."""
    if len(ranks) != 5:
        return False
    if ranks == {1, 2, 3, 4, 5}:
        return True
    high = {14 if r == 1 else r for r in ranks}
    return max(high) - min(high) == 4


def category(cards: Sequence[int]) -> str:
    """The category of a Poker Hand of 1 to 5 card numbers (two packs: a card face may
    repeat). Rule 397's first statement that applies."""
    faces = [face(c) for c in cards]
    counts = sorted(Counter(r for r, _ in faces).values(), reverse=True)
    ranks = {r for r, _ in faces}
    if len(cards) == 5:
        one_suit = len({s for _, s in faces}) == 1
        run = _run(ranks)
        if counts[0] == 5:
            return "five-of-a-kind"
        if one_suit and run:
            return "royal-flush" if ranks == {1, 10, 11, 12, 13} else "straight-flush"
        if counts[0] == 4:
            return "four-of-a-kind"
        if counts == [3, 2]:
            return "full-house"
        if one_suit:
            return "flush"
        if run:
            return "straight"
    if counts[0] == 4:
        return "four-of-a-kind"
    if counts[0] == 3:
        return "three-of-a-kind"
    if counts[0] == 2:
        return "two-pair" if counts[1:2] == [2] else "one-pair"
    return "high-card"


def hand_score(cards: Sequence[int], table: Mapping[str, int]) -> int:
    """The Score of one Poker Hand under a score table (category -> Score)."""
    return table[category(cards)]


def score_table(params: Mapping[str, int | str]) -> dict[str, int]:
    return {name: int(params[f"score-{name}"]) for name in CATEGORIES}


# --- the public record, followed event by event --------------------------------------------


class Problems:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.unproven: list[str] = []

    def bad(self, seq: int | None, text: str) -> None:
        self.problems.append(f"event {seq}: {text}")

    def unsure(self, seq: int, text: str) -> None:
        self.unproven.append(f"event {seq}: {text}")


def commitments_to(event: Event, payload: Payload, player: str) -> list[str] | None:
    """The commitments an event published for cards it gave ``player`` (None: it has none)."""
    kind = event["kind"]
    if kind == "card.dealt" and payload.get("player") == player:
        return [payload["commit"]] if payload.get("commit") else None
    if kind == "card.transferred" and payload.get("to") == player:
        return [payload["commit"]] if payload.get("commit") else None
    if kind == "pooker.traded":
        if payload.get("a") == player:
            return list(payload.get("to_a", []))
        if payload.get("b") == player:
            return list(payload.get("to_b", []))
    return []


def payload_of(event: Event, out: Problems) -> Payload | None:
    try:
        data = json.loads(event["payload"])
    except (TypeError, ValueError):
        out.bad(event.get("seq"), f"the payload of this {event.get('kind')} event is not JSON")
        return None
    if not isinstance(data, dict):
        out.bad(event["seq"], f"the payload of this {event['kind']} event is not an object")
        return None
    return data


def check_openings(events: Sequence[Event], payloads: Mapping[int, Payload], out: Problems
                   ) -> int:
    """Check 1: every shown card's opening. Returns how many openings checked."""
    by_seq = {e["seq"]: e for e in events}
    # player -> seqs of events that emptied eir whole Hand; pack -> the seq that retired it (a
    # payload without the name or number files its event under None)
    departures: dict[str | None, list[int]] = {}
    packs_gone: dict[int | None, int] = {}
    for e in events:
        p = payloads.get(e["seq"])
        if p is None:
            continue
        if e["kind"] in ("player.retired", "dealer.elected"):
            departures.setdefault(p.get("name"), []).append(e["seq"])
        elif e["kind"] == "pack.retired":
            packs_gone.setdefault(p.get("number"), e["seq"])
    checked = 0
    for e in events:
        shown = payloads.get(e["seq"])
        if e["kind"] != "pooker.shown" or shown is None:
            continue
        try:
            checked += check_show(e, shown, by_seq, payloads, departures, packs_gone, out)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            out.bad(e["seq"], f"the payload of this pooker.shown event lacks a field or has "
                              f"one of the wrong type ({exc!r})")
    return checked


def check_show(e: Event, shown: Payload, by_seq: Mapping[int, Event],
               payloads: Mapping[int, Payload], departures: Mapping[str | None, list[int]],
               packs_gone: Mapping[int | None, int], out: Problems) -> int:
    """The openings of one show; returns how many check."""
    checked = 0
    player = shown["player"]
    cards = sorted(c for hand in shown["hands"] for c in hand)
    openings = shown.get("openings", [])
    if sorted(o["card"] for o in openings) != cards:
        out.bad(e["seq"], "the openings are not one per shown card")
    for o in openings:
        what = f"card {o['card']} shown by {player}"
        source = by_seq.get(o["event"])
        if source is None or o["event"] >= e["seq"] or source["seq"] not in payloads:
            out.bad(e["seq"], f"{what}: its opening names event {o['event']}, not an "
                              "earlier event of this record")
            continue
        left = [d for d in departures.get(player, ()) if o["event"] < d < e["seq"]]
        retired = packs_gone.get(pack_of(o["card"]))
        if retired is not None and o["event"] < retired < e["seq"]:
            left.append(retired)
        if left:
            out.bad(e["seq"], f"{what}: it left eir Hand at event {min(left)}, after event "
                              f"{o['event']} that its opening names")
        commits = commitments_to(source, payloads[source["seq"]], player)
        if commits is None or (not commits and not o["salt"]):
            out.unsure(e["seq"], f"{what}: event {o['event']} carries no per-card "
                                 "commitment (recorded before they existed): unproven")
            continue
        if not commits:
            out.bad(e["seq"], f"{what}: event {o['event']} gave {player} no card")
        elif card_commitment(o["salt"], o["card"]) not in commits:
            out.bad(e["seq"], f"{what}: the opening does not match a commitment of event "
                              f"{o['event']}")
        else:
            checked += 1
    return checked


class Ledger:
    """What the public record says of the players, the Dealer, the rules in force, the open
    Showdown and the Points, event by event."""

    def __init__(self, out: Problems) -> None:
        self.out = out
        self.players: dict[str, bool] = {}  # name -> active
        self.dealer: str | None = None
        self.rules: dict[str, Rule] = {}  # name -> {"in_force", "version", "params"}
        self.showdown: Showdown | None = None
        self.balances: dict[str, int] = {}
        self.bank = 0  # the Bank's balance: minus what it paid out, net
        self.movements = 0
        self.closes: list[str] = []  # one summary line per Showdown closed
        self.unknown: set[str] = set()

    # the rules in force

    def pooker(self) -> Rule | None:
        rule = self.rules.get("pooker")
        return rule if rule is not None and rule["in_force"] else None

    def overdraft_allowed(self) -> bool:
        for name, key in OVERDRAW.items():
            rule = self.rules.get(name)
            if rule is not None and rule["in_force"] and rule["params"].get(key) == "yes":
                return True
        return False

    def rule_event(self, seq: int, kind: str, p: Payload) -> None:
        name = p["rule"]
        now = self.rules.get(name)
        defaults = POOKER_DEFAULTS if name == "pooker" else {}
        if kind == "rule.enacted":
            self.rules[name] = {"in_force": True, "version": p["version"],
                                "params": {**defaults, **p["params"]}}
        elif kind == "rule.amended":
            if now is None or not now["in_force"]:
                self.out.bad(seq, f"rule {name} amended while not in force")
                return
            now["params"] = {**now["params"], **p["params"]}
            if p.get("version") is not None:
                now["version"] = p["version"]
        elif now is not None:
            now["in_force"] = False

    # Points

    def pay(self, seq: int, source: str | None, target: str | None, points: int, why: str
            ) -> None:
        self.movements += 1
        for who in (source, target):
            if who is not None and who not in self.players:
                self.out.bad(seq, f"{why}: {who} is not a player")
        if source is None:
            self.bank -= points
        else:
            left = self.balances.get(source, 0) - points
            if left < 0 and not self.overdraft_allowed():
                self.out.bad(seq, f"{why}: {source} paid {points} Point(s) holding "
                                  f"{self.balances.get(source, 0)}, and no rule in force lets "
                                  "a balance go below zero")
            self.balances[source] = left
        if target is None:
            self.bank += points
        else:
            self.balances[target] = self.balances.get(target, 0) + points

    # the whereabouts of shown cards, while their Showdown is open

    def moved(self, kind: str, p: Payload) -> None:
        """Follow each shown card of the open Showdown: ``places`` is the set of where it may
        be (a player, DECK or OUT), one place while the public record says where it is."""
        if self.showdown is None:
            return
        rule = self.pooker()
        held = rule is not None and rule["version"] >= 2
        for show in self.showdown["shown"].values():
            if kind == "dealer.elected" and p["name"] == show["player"]:
                show["elected"] = True  # a shower made the Dealer is not scored (version 2)
            for card, places in show["places"].items():
                if kind in ("player.retired", "dealer.elected") and p["name"] in places:
                    places.discard(p["name"])  # the whole Hand joins the Deck
                    places.add(DECK)
                elif kind == "card.transferred" and p["from"] in places and not held:
                    places.add(p["to"])  # which card moved is private: perhaps this one
                elif kind == "card.dealt" and DECK in places:
                    places.add(p["player"])  # which card was dealt is private: perhaps this one
                elif kind == "pack.retired" and pack_of(card) == p["number"]:
                    places.clear()
                    places.add(OUT)
        # a pooker.traded moves no shown card: the rules forbid it (both versions) and the
        # Dealer's replay refuses it; nor, in version 2 (a shown card held to its Showdown), a
        # card.transferred: the replay refuses that too. Which cards either moved is private.

    def step(self, e: Event, p: Payload) -> None:
        seq, kind = e["seq"], e["kind"]
        if kind not in KNOWN_KINDS and kind not in self.unknown:
            self.unknown.add(kind)
            self.out.unsure(seq, f"kind {kind} is unknown to this script: if it moves Points, "
                                 "the balances leave it out")
        self.moved(kind, p)
        if kind == "game.created":
            self.dealer = p["dealer"]
            self.players[p["dealer"]] = True
        elif kind == "player.registered":
            self.players[p["name"]] = True
        elif kind == "player.retired":
            self.players[p["name"]] = False
        elif kind == "player.rejoined":
            self.players[p["name"]] = True
        elif kind == "dealer.elected":
            self.dealer = p["name"]
        elif kind in ("rule.enacted", "rule.amended", "rule.repealed"):
            self.rule_event(seq, kind, p)
        elif kind == "points.moved":
            why = f"{p['points']} Point(s) moved under {p['rule']!r}"
            if p["points"] < 1 or not p["rule"].strip() or p["from"] == p["to"]:
                self.out.bad(seq, "a movement of Points moves 1 or more, between two accounts, "
                                  "citing a rule")
            self.pay(seq, p["from"], p["to"], p["points"], why)
        elif kind == "pooker.traded":
            self.traded(seq, p)
        elif kind == "duel.decided":
            if p.get("winner") is not None and p.get("prize"):
                self.pay(seq, None, p["winner"], p["prize"], f"the prize of duel {p['number']}")
        elif kind == "pooker.opened":
            self.showdown = {"number": p["number"], "shown": {}}
        elif kind == "pooker.shown":
            self.shown(seq, p)
        elif kind == "pooker.closed":
            self.closed(seq, p)

    def traded(self, seq: int, p: Payload) -> None:
        rule = self.pooker()
        if rule is None:
            self.out.bad(seq, "a Pooker trade while card game pooker is not in force")
        elif p["fee"] != rule["params"]["trade-fee"] or p["dealer"] != self.dealer:
            self.out.bad(seq, f"the trade's fee, {p['fee']} Point(s) each to {p['dealer']}, is "
                              f"not the fee in force ({rule['params']['trade-fee']}) paid to "
                              f"the Dealer ({self.dealer})")
        if p["fee"]:
            for side in (p["a"], p["b"]):
                self.pay(seq, side, p["dealer"], p["fee"], f"{side}'s trade fee")

    def shown(self, seq: int, p: Payload) -> None:
        rule, player = self.pooker(), p["player"]
        if self.showdown is None or self.showdown["number"] != p["showdown"]:
            self.out.bad(seq, f"cards shown at Showdown {p['showdown']}, which is not open")
            return
        if player in self.showdown["shown"]:
            self.out.bad(seq, f"{player} showed twice at Showdown {p['showdown']}")
            return
        bound = {int(n) for n in str(rule["params"].get("packs", "")).split(",") if n} \
            if rule else set()
        cards = [c for hand in p["hands"] for c in hand]
        if len(set(cards)) != len(cards) or any(not 1 <= len(h) <= 5 for h in p["hands"]):
            self.out.bad(seq, f"{player}'s Poker Hands are not 1 to 5 distinct cards each")
        if any(pack_of(c) not in bound for c in cards):
            self.out.bad(seq, f"{player} showed a card that is not a PCard (of the packs bound "
                              "to card game pooker)")
        if not self.players.get(player):
            self.out.bad(seq, f"{player}, who showed, is not an active player")
        if rule is not None and player == self.dealer and \
                rule["params"].get("dealer-may-show") != "yes":
            self.out.bad(seq, f"{player}, the Dealer, showed, and the Dealer may never show")
        for other in self.showdown["shown"].values():
            for c in set(cards) & set(other["places"]):
                if other["places"][c] == {other["player"]}:
                    self.out.bad(seq, f"card {c} shown by {player} was shown by "
                                      f"{other['player']} at event {other['seq']}, and no "
                                      "public event can have moved it since")
        self.showdown["shown"][player] = {"player": player, "seq": seq, "hands": p["hands"],
                                          "places": {c: {player} for c in cards}}

    def closed(self, seq: int, p: Payload) -> None:
        """Check 2: the close recomputed from the shown hands and the rules in force."""
        rule = self.pooker()
        if self.showdown is None or self.showdown["number"] != p["number"]:
            self.out.bad(seq, f"Showdown {p['number']} closed, but it is not open")
            return
        if rule is None:
            self.out.bad(seq, f"Showdown {p['number']} closed while card game pooker is not "
                              "in force")
            return
        recorded: Close = {
            "scores": sorted((s["player"], s["score"]) for s in p["scores"]),
            "winners": sorted(p["winners"]), "prize": p["prize"],
            "paid": sorted((x["player"], x["points"]) for x in p["paid"]),
            "voided": sorted((v["player"], v["why"]) for v in p.get("voided", [])),
            "returned": sorted(p["returned"]),
            "gone": sorted(((g["card"], g["player"], g["holder"]) for g in p.get("gone", [])),
                           key=lambda g: (g[0], g[1], str(g[2]))),
        }
        due = self.settle(seq, rule, self.showdown, recorded)
        for x in p["paid"]:
            if x["player"] not in p["winners"]:
                self.out.bad(seq, f"Showdown {p['number']} paid {x['points']} Point(s) to "
                                  f"{x['player']}, who is not among its winners")
        diffs = [f"{key} {fmt(recorded, key)} (recorded) vs {fmt(due, key)}"
                 for key in CLOSE_FIELDS if recorded[key] != due[key]]
        if diffs:
            self.out.bad(seq, f"Showdown {p['number']} closed otherwise than the shown hands "
                              "and the rules in force give: " + "; ".join(diffs))
        for x in p["paid"]:
            if x["points"]:
                self.pay(seq, None, x["player"], x["points"],
                         f"the prize of Showdown {p['number']}")
        won = (f"won by {fmt(due, 'winners')}, prize {due['prize']}, paid "
               f"{fmt(due, 'paid')}" if due["winners"] else "no winner")
        self.closes.append(
            f"Showdown {p['number']}, closed at event {seq} under Pooker version "
            f"{rule['version']}, recomputed: Scores {fmt(due, 'scores')}; {won}; "
            f"{len(due['returned'])} shown card(s) back to the Deck, {len(due['gone'])} gone "
            f"elsewhere, {len(due['voided'])} show(s) not scored")
        self.showdown = None

    def settle(self, seq: int, rule: Rule, showdown: Showdown, recorded: Close) -> Close:
        """What the close must say (nomic_cards/cardgames/pooker/events.py: settle). Version 2
        does not score a shower who is retired at the close or was elected Dealer after showing,
        still the Dealer or replaced since (unless dealer-may-show=yes),
        and returns only the scored shown cards still in their showers' Hands, naming where the
        others are. Where the public record leaves a card more than one possible place, the
        recorded place is taken if it is one of them (unproven); else the possible ones are
        what is due (a difference)."""
        params, version = rule["params"], rule["version"]
        table = score_table(params)
        scores: list[tuple[str, int]] = []
        voided: list[tuple[str, str]] = []
        returned: list[int] = []
        gone: list[tuple[int, str, str | None]] = []
        rec_returned = set(recorded["returned"])
        rec_gone = {(c, pl): h for c, pl, h in recorded["gone"]}
        for player, shown in sorted(showdown["shown"].items()):
            why: str | None = None
            if version >= 2 and not self.players.get(player):
                why = RETIRED
            elif version >= 2 and params.get("dealer-may-show") != "yes":
                if player == self.dealer:
                    why = NOW_DEALER
                elif shown.get("elected"):
                    why = WAS_DEALER
            if why is None:
                scores.append((player, sum(hand_score(h, table) for h in shown["hands"])))
            else:
                voided.append((player, why))
            for c in (c for h in shown["hands"] for c in h):
                places = {DECK if x == OUT else x for x in shown["places"][c]}
                if why is None:
                    may_return, places = player in places, places - {player}
                else:
                    may_return = False
                if version < 2 or (may_return and not places):
                    returned.append(c)
                    continue
                if len(places) == 1 and not may_return:
                    gone.append((c, player, next(iter(places))))
                    continue
                where = ([f"{player}'s Hand"] if may_return else []) + sorted(
                    "the Deck" if x is None else x for x in places)
                self.out.unsure(seq, f"card {c} shown by {player}: the public record cannot "
                                     f"tell where it was at the close ({', '.join(where)}); "
                                     "the close's word is taken")
                if may_return and c in rec_returned:
                    returned.append(c)
                elif (c, player) in rec_gone and rec_gone[(c, player)] in places:
                    gone.append((c, player, rec_gone[(c, player)]))
                else:  # the close puts it where the public record says it cannot be
                    gone.append((c, player, "one of " + "/".join(where)))
        best = max((s for _, s in scores), default=0)
        winners = sorted(pl for pl, s in scores if s == best) if best > 0 else []
        share = best // len(winners) if winners else 0
        return {"scores": sorted(scores), "winners": winners,
                "prize": best if winners else 0,
                "paid": sorted((w, share) for w in winners if share),
                "voided": sorted(voided), "returned": sorted(returned),
                "gone": sorted(gone, key=lambda g: (g[0], g[1], str(g[2])))}


def fmt(close: Close, key: CloseField) -> str:
    """A field of a close, as the problem line and the summary print it."""
    if key in ("scores", "paid"):
        return ", ".join(f"{a} {b}" for a, b in close[key]) or "none"
    if key in ("winners", "returned"):
        return ", ".join(str(v) for v in close[key]) or "none"
    if key == "voided":
        return ", ".join(f"{a} ({b})" for a, b in close[key]) or "none"
    if key == "gone":
        return ", ".join(f"card {c} of {p} at {h or 'the Deck'}" for c, p, h in close[key]) \
            or "none"
    return str(close[key])


class Report:
    def __init__(self, problems: list[str], unproven: list[str], checked: int, closes: list[str],
                 balances: list[tuple[str, int]], movements: int) -> None:
        self.problems, self.unproven, self.checked = problems, unproven, checked
        self.closes, self.balances, self.movements = closes, balances, movements


def audit(events: Sequence[Event], strict: bool = False) -> Report:
    """Every check over the public record ``events`` (a list of dicts, as exported)."""
    out = Problems()
    payloads: dict[int, Payload] = {}
    for e in events:
        p = payload_of(e, out)
        if p is not None:
            payloads[e["seq"]] = p
    checked = check_openings(events, payloads, out)
    ledger = Ledger(out)
    for e in events:
        p = payloads.get(e["seq"])
        if p is None:
            continue
        try:
            ledger.step(e, p)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            out.bad(e["seq"], f"the payload of this {e['kind']} event lacks a field or has one of "
                              f"the wrong type ({exc!r})")
    # as `points show`: the active players and anyone who ever held Points, then the Bank
    names = {n for n, active in ledger.players.items() if active} | set(ledger.balances)
    balances = [(n, ledger.balances.get(n, 0)) for n in sorted(names)]
    balances.append(("Bank", ledger.bank))
    problems = list(out.problems)
    if strict:
        problems.extend(out.unproven)
    return Report(problems, out.unproven, checked, ledger.closes, balances, ledger.movements)


def verify(events: Sequence[Event], strict: bool = False) -> tuple[list[str], list[str], int]:
    """(problems, unproven, checked) over the public record ``events``."""
    report = audit(events, strict)
    return report.problems, report.unproven, report.checked


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Check Pooker Showdowns and Points against the "
                                             "public record.")
    ap.add_argument("file", nargs="?", help="the JSON array of events (default: stdin)")
    ap.add_argument("--strict", action="store_true", help="count unproven items as problems")
    args = ap.parse_args(argv)
    if args.file:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    else:
        text = sys.stdin.read()
    events: list[Event] = json.loads(text) if text.strip() else []
    report = audit(events, args.strict)
    for p in report.problems:
        print(p)
    if not args.strict:
        for u in report.unproven:
            print(u)
    for line in report.closes:
        print(line)
    print(f"Points from {report.movements} public movement(s): "
          + ", ".join(f"{n} {b}" for n, b in report.balances))
    print(f"{report.checked} shown card(s) checked, {len(report.unproven)} unproven, "
          f"{len(report.problems)} problem(s); {len(report.closes)} Showdown(s) recomputed")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
