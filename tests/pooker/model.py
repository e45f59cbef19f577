"""A reference model of Pooker, written from the record (the shared ``games.md``: Rules 399 and
397, the first proposal, P456, "Fix the Showdown", "Really Fix the Showdown") and from the
decisions ``docs/pooker.md`` and ``docs/rules.md`` record where the record leaves things open --
not from the engine's code. It imports nothing of the project: ``tests/pooker/test_model.py``
plays the same acts on the engine and on this model and compares them.

Where neither the record nor the docs decide, the model reads the rules as follows (each is
marked *reading* where it is used):

- a Player is an active player, the Dealer included (the Dealer is counted among the Players of
  a Motion and may vote; the Dealer has no Hand, so makes no Motion, trades nothing, shows
  nothing);
- a Motion passes (or fails by a majority against) when a vote makes it so, counting the votes of
  those who are Players at that moment, of the Players at that moment; a vote may be changed;
- a Showdown opened while a Motion is pending ends the Motion (no Showdown can follow from it);
- a trade notification whose mirror arrives when the waiting side can no longer carry it out
  (eir cards gone or shown, eir fee unpayable) is not executed: both wait (refusing would tell
  the second side what the first holds: docs/pooker.md, "Trades": "only your side is
  checked");
- a shower who retires or is made the Dealer before the Showdown closes is not scored (docs:
  "a shower retired or made Dealer is not scored"), whoever is Dealer at the close;
- a prize share of 0 Points pays nothing.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TypeVar

PACKS = ("Red", "Blue")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "dshc"  # rule 5's numbering: Diamonds 0, Spades 1, Hearts 2, Clubs 3
ALL_CARDS = frozenset(range(1, 52 * len(PACKS) + 1))

#: rule 397's table, the first statement that applies taking precedence (the record breaks off
#: after four of a kind; docs/rules.md continues it ten points down each step)
CATEGORIES = ("five-of-a-kind", "royal-flush", "straight-flush", "four-of-a-kind",
              "full-house", "flush", "straight", "three-of-a-kind", "two-pair", "one-pair",
              "high-card")
DEFAULT_SCORES = dict(zip(CATEGORIES, (80, 80, 70, 60, 50, 40, 30, 20, 10, 5, 0), strict=True))

#: the parameters of Pooker (docs/rules.md) at their defaults
DEFAULTS: dict[str, int | str] = {
    "trade-fee": 1, "show-days": 3, "trigger-pcards": 10, "trigger-min-shown": 2,
    "motion-threshold": "majority", "motion-days": 3, "dealer-may-show": "no",
    "trade-expiry-days": 7, "points-below-zero": "no", "pending-per-player": 10,
    **{f"score-{c}": s for c, s in DEFAULT_SCORES.items()},
}


class Refused(Exception):
    """The rules refuse the act (the engine must refuse it too, and record nothing)."""


# --- cards and Poker Hands (rule 397) ---------------------------------------------------------


def rank(card: int) -> int:
    """1 (Ace) to 13 (King)."""
    return (card - 1) % 13 + 1


def suit(card: int) -> int:
    return ((card - 1) % 52) // 13


def label(card: int) -> str:
    """``Red As``, ``Blue 10c``: pack, rank, suit."""
    pack, within = divmod(card - 1, 52)
    return f"{PACKS[pack]} {RANKS[within % 13]}{SUITS[within // 13]}"


def category(cards: Sequence[int]) -> str:
    """The first statement of rule 397's table that applies to a Poker Hand of 1 to 5 cards."""
    counts = sorted(Counter(rank(c) for c in cards).values(), reverse=True)
    five = len(cards) == 5
    one_suit = five and len({suit(c) for c in cards}) == 1
    ranks = {rank(c) for c in cards}
    broadway = ranks == {1, 10, 11, 12, 13}
    run = five and len(ranks) == 5 and (max(ranks) - min(ranks) == 4 or broadway)
    if counts[0] >= 5:
        return "five-of-a-kind"
    if one_suit and broadway:
        return "royal-flush"
    if one_suit and run:
        return "straight-flush"
    if counts[0] >= 4:
        return "four-of-a-kind"
    if counts[:2] == [3, 2]:
        return "full-house"
    if one_suit:
        return "flush"
    if run:
        return "straight"
    if counts[0] >= 3:
        return "three-of-a-kind"
    if counts[:2] == [2, 2]:
        return "two-pair"
    if counts[0] >= 2:
        return "one-pair"
    return "high-card"


def score(hands: Iterable[Sequence[int]], params: Mapping[str, int | str]) -> int:
    return sum(int(params[f"score-{category(h)}"]) for h in hands)


def stamp(at: datetime) -> str:
    """A window's end as the record writes it."""
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the state --------------------------------------------------------------------------------


@dataclass
class Notification:
    event: int
    player: str
    other: str
    give: frozenset[int]
    get: frozenset[int]
    expires: datetime


@dataclass
class Motion:
    number: int
    by: str
    ends: datetime
    votes: dict[str, bool] = field(default_factory=dict)


@dataclass
class Showdown:
    number: int
    how: str  # "motion" or "ten"
    motion: str
    by: str | None
    ends: datetime
    min_shown: int
    shown: dict[str, list[list[int]]] = field(default_factory=dict)
    #: showers who retired or were made the Dealer before the close: not scored
    voided: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Closed:
    number: int
    at: datetime
    scores: dict[str, int]
    winners: tuple[str, ...]
    prize: int
    paid: dict[str, int]
    returned: frozenset[int]
    #: (card, who holds it now or None for the Deck, its shower)
    gone: frozenset[tuple[int, str | None, str]]
    voided: frozenset[str]


@dataclass(frozen=True)
class Failed:
    number: int
    at: datetime
    why: str  # "against" or "time"


@dataclass(frozen=True)
class Lapsed:
    notification: int
    at: datetime


T = TypeVar("T")


@dataclass
class Pooker:
    dealer: str
    now: datetime
    players: dict[str, bool] = field(default_factory=dict)  # name -> active
    hands: dict[str, set[int]] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    bank: int = 0
    params: dict[str, int | str] = field(default_factory=lambda: dict(DEFAULTS))
    pending: list[Notification] = field(default_factory=list)
    motion: Motion | None = None
    motions: int = 0
    showdown: Showdown | None = None
    showdowns: int = 0
    closed: list[Closed] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    lapsed: list[Lapsed] = field(default_factory=list)

    # -- reading --

    def active(self) -> list[str]:
        return sorted(p for p, on in self.players.items() if on)

    def traders(self) -> list[str]:
        """The Players with a Hand: active, not the Dealer."""
        return [p for p in self.active() if p != self.dealer]

    def deck(self) -> set[int]:
        held = set().union(*self.hands.values()) if self.hands else set()
        return set(ALL_CARDS) - held

    def shown(self) -> set[int]:
        sd = self.showdown
        return {c for hands in (sd.shown.values() if sd else ()) for h in hands for c in h}

    def holder(self, card: int) -> str | None:
        return next((p for p, h in self.hands.items() if card in h), None)

    def fee_payable(self, player: str, fee: int) -> bool:
        return self.params["points-below-zero"] == "yes" or self.points.get(player, 0) >= fee

    # -- the windows: each closed at its end, in time order (time-true) --

    def advance(self, to: datetime) -> None:
        """Close every window ending at or before ``to``, earliest first, each as of its end
        (each close reads only the window's own end, never the time of the write)."""
        while True:
            due: list[tuple[datetime, int, Callable[[], None]]] = []
            if self.showdown is not None:
                due.append((self.showdown.ends, 0, self._close))
            if self.motion is not None:
                due.append((self.motion.ends, 1, self._motion_ends))
            due += [(n.expires, 2, partial(self._lapse, n)) for n in self.pending]
            due = [d for d in due if d[0] <= to]
            if not due:
                break
            min(due, key=lambda d: (d[0], d[1]))[2]()
        self.now = max(self.now, to)

    def _lapse(self, n: Notification) -> None:
        self.pending.remove(n)
        self.lapsed.append(Lapsed(n.event, n.expires))

    def _motion_ends(self) -> None:
        assert self.motion is not None
        self.failed.append(Failed(self.motion.number, self.motion.ends, "time"))
        self.motion = None

    def _close(self) -> None:
        """Fix the Showdown: the highest total Score takes the prize (Points from the Bank equal
        to it, split on a tie, rounded down); every shown PCard returns to the Deck."""
        sd = self.showdown
        assert sd is not None
        voided = {p for p in sd.shown
                  if p in sd.voided or not self.players.get(p) or p == self.dealer}
        scores = {p: score(h, self.params) for p, h in sd.shown.items() if p not in voided}
        best = max(scores.values(), default=0)
        winners = tuple(sorted(p for p, s in scores.items() if s == best)) if best > 0 else ()
        share = best // len(winners) if winners else 0
        paid = {w: share for w in winners} if share > 0 else {}
        returned: set[int] = set()
        gone: set[tuple[int, str | None, str]] = set()
        for p, hands in sd.shown.items():
            for c in (c for h in hands for c in h):
                if p not in voided and c in self.hands.get(p, set()):
                    returned.add(c)
                else:
                    gone.add((c, self.holder(c), p))
        for p in sd.shown:
            if p not in voided:
                self.hands[p] -= returned
        for w, n in paid.items():
            self.points[w] = self.points.get(w, 0) + n
            self.bank -= n
        self.closed.append(Closed(sd.number, sd.ends, scores, winners, best if winners else 0,
                                  paid, frozenset(returned), frozenset(gone),
                                  frozenset(voided)))
        self.showdown = None

    # -- acts: each first closes the windows due, then is refused (nothing changes) or done --

    def act(self, at: datetime, what: Callable[[], T]) -> T:
        """Do ``what`` at ``at`` after the windows due; on a refusal, leave the model as it was
        (a refused act writes nothing, the windows' closing included)."""
        saved = copy.deepcopy(self.__dict__)
        try:
            self.advance(at)
            return what()
        except Refused:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _player(self, name: str) -> None:
        if not self.players.get(name):
            raise Refused(f"{name} is not a Player")

    def _trader(self, name: str) -> None:
        self._player(name)
        if name == self.dealer:
            raise Refused(f"{name} is the Dealer: not a trader")

    def deal(self, player: str, card: int) -> None:
        """Rule 5: a card of the Deck to a Player's Hand (not the Dealer's)."""
        self._trader(player)
        if card not in self.deck():
            raise Refused("not in the Deck")
        self.hands[player].add(card)

    def grant(self, player: str, n: int) -> None:
        """The Scorekeeper's report: to any registered player, a retired one included (reading:
        ``points grant`` refuses "a player who is not one", i.e. a name never registered)."""
        if player not in self.players:
            raise Refused(f"{player} was never a player")
        if n == 0:
            raise Refused("a grant moves Points")
        if n < 0 and not self.fee_payable(player, -n):
            raise Refused("no balance goes below zero")
        self.points[player] = self.points.get(player, 0) + n
        self.bank -= n

    def retire(self, player: str) -> None:
        self._player(player)
        if player == self.dealer:
            raise Refused("the Dealer cannot retire in office")
        self._leaves_hand(player)
        self.players[player] = False

    def elect(self, player: str) -> None:
        self._player(player)
        if player == self.dealer:
            raise Refused("already the Dealer")
        self._leaves_hand(player)  # eir Hand joins the Deck
        self.dealer = player

    def _leaves_hand(self, player: str) -> None:
        self.hands[player] = set()
        if self.showdown is not None and player in self.showdown.shown:
            self.showdown.voided.add(player)

    def amend(self, sets: Mapping[str, int | str]) -> None:
        if all(self.params[k] == v for k, v in sets.items()):
            raise Refused("an amendment that changes nothing")
        self.params.update(sets)

    # trades (the first proposal; P456; Really Fix the Showdown)

    def trade(self, actor: str, other: str, give: frozenset[int], get: frozenset[int],
              event: int) -> bool:
        """One side's notification; True when it matched and the trade was executed."""
        self._trader(actor)
        self._trader(other)
        if actor == other:
            raise Refused("a trade is between two Players")
        if len(give) != len(get) or not give:
            raise Refused("both sides give the same number of cards")
        if not give <= self.hands[actor]:
            raise Refused("cards not in eir Hand")
        if give & self.shown():
            raise Refused("a shown card stays until the Showdown ends")
        fee = int(self.params["trade-fee"])
        if not self.fee_payable(actor, fee):
            raise Refused("eir fee is not payable")
        if sum(n.player == actor for n in self.pending) >= int(self.params["pending-per-player"]):
            raise Refused("as many notifications waiting as a Player may have")  # version 3
        for n in self.pending:
            if (n.player, n.other, n.give, n.get) != (other, actor, get, give):
                continue
            if (n.give <= self.hands.get(other, set()) and not n.give & self.shown()
                    and self.fee_payable(other, fee)):
                self.pending.remove(n)
                self.hands[actor] = (self.hands[actor] - give) | get
                self.hands[other] = (self.hands[other] - get) | give
                for p in (actor, other):
                    self.points[p] = self.points.get(p, 0) - fee
                self.points[self.dealer] = self.points.get(self.dealer, 0) + 2 * fee
                return True
        days = int(self.params["trade-expiry-days"])
        self.pending.append(Notification(event, actor, other, give, get,
                                         self.now + timedelta(days=days)))
        return False

    def _waiting(self, event: int) -> Notification:
        found = next((n for n in self.pending if n.event == event), None)
        if found is None:
            raise Refused("no such notification waiting")
        return found

    def withdraw(self, actor: str, event: int) -> None:
        self._player(actor)
        n = self._waiting(event)
        if n.player != actor:
            raise Refused("only its author may withdraw it")
        self.pending.remove(n)

    def decline(self, actor: str, event: int) -> None:
        self._player(actor)
        n = self._waiting(event)
        if n.other != actor:
            raise Refused("only the other side it names may decline it")
        self.pending.remove(n)

    # Motions and Showdowns (Really Fix the Showdown)

    def make_motion(self, actor: str) -> None:
        self._player(actor)
        if not self.hands.get(actor) or actor == self.dealer:
            raise Refused("only a Player with a Hand may make a Motion")
        if self.motion is not None or self.showdown is not None:
            raise Refused("a Motion is pending or a Showdown open")
        self.motions += 1
        days = int(self.params["motion-days"])
        self.motion = Motion(self.motions, actor, self.now + timedelta(days=days))

    def vote(self, actor: str, vote: str) -> bool:
        """True when the vote passes the Motion (a Showdown opens)."""
        if vote not in ("yes", "no"):
            raise Refused("a vote is yes or no")
        self._player(actor)
        m = self.motion
        if m is None:
            raise Refused("no Motion pending")
        m.votes[actor] = vote == "yes"
        players = self.active()
        yes = sum(1 for p in players if m.votes.get(p) is True)
        no = sum(1 for p in players if m.votes.get(p) is False)
        if 2 * yes > len(players):
            self._open("motion", f"Motion {m.number}", None, 1)
            return True
        if 2 * no > len(players):
            self.failed.append(Failed(m.number, self.now, "against"))
            self.motion = None
        return False

    def _open(self, how: str, motion: str, by: str | None, min_shown: int) -> None:
        if self.showdown is not None:
            raise Refused("a Showdown is open")
        self.showdowns += 1
        days = int(self.params["show-days"])
        self.showdown = Showdown(self.showdowns, how, motion, by,
                                 self.now + timedelta(days=days), min_shown)
        self.motion = None  # reading: a Showdown open ends the pending Motion

    def open_passed(self, motion: str) -> None:
        """The officer records a Motion the nomic passed elsewhere."""
        self._open("motion", motion, None, 1)

    def declare(self, actor: str) -> None:
        """Ten (trigger-pcards) or more PCards: a Showdown without a Motion."""
        self._trader(actor)
        if len(self.hands[actor]) < int(self.params["trigger-pcards"]):
            raise Refused("too few PCards to declare")
        self._open("ten", "", actor, int(self.params["trigger-min-shown"]))

    def show(self, actor: str, hands: Sequence[Sequence[int]]) -> int:
        """Show PCards arranged into Poker Hands; eir Score under the table in force."""
        sd = self.showdown
        if sd is None:
            raise Refused("no Showdown is open")
        self._player(actor)
        if actor == self.dealer and self.params["dealer-may-show"] == "no":
            raise Refused("the Dealer may never show")
        if actor in sd.shown:
            raise Refused("a second show")
        cards = [c for h in hands for c in h]
        if not hands or any(not 1 <= len(h) <= 5 for h in hands):
            raise Refused("a Poker Hand is 1 to 5 PCards")
        if len(set(cards)) != len(cards) or not set(cards) <= self.hands[actor]:
            raise Refused("cards not held")
        if len(cards) < (sd.min_shown if actor == sd.by else 1):
            raise Refused("fewer than the minimum")
        sd.shown[actor] = [list(h) for h in hands]
        return score(hands, self.params)
