"""The kinds of event of the card games layer: Points (accounts per player and the Bank) and
Pooker (trade notifications, trades, Motions to Show Cards, Showdowns).

Registered on import by :mod:`.events` (so the codec knows them wherever events are decoded);
their replay steps are in :mod:`.game_replay`. What a player may not see is private as for the
Cards rules' events: the cards of a trade notification and of a trade; a card a Hand received
in a trade also gets its own public commitment (docs/ledger.md, "Per-card commitments").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nomic_cards.core.ledger.events import Event, json_name, kind

#: the name of the Bank in points movements (None in events; "Bank" when shown)
BANK = "Bank"


@kind("points.moved")
@dataclass(frozen=True)
class PointsMoved(Event):
    """Points from one account to another (None: the Bank), citing the rule that moves them;
    ``note``: what the nomic's Scorekeeper reported, or why."""

    from_: str | None = field(metadata=json_name("from"))
    to: str | None
    points: int
    rule: str
    note: str = field(default="", metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.to or self.from_


@kind("pooker.notified", private=("partner", "give", "get"))
@dataclass(frozen=True)
class TradeNotified(Event):
    """One side's notification of a Trade to the Dealer: ``player`` gives ``give`` and expects
    ``get`` from ``partner`` (all private but the author); it waits for the other side's
    until ``expires``."""

    player: str
    partner: str
    give: tuple[int, ...]
    get: tuple[int, ...]
    expires: str

    def subject(self) -> str | None:
        return self.player


@kind("pooker.traded", private=("a_gives", "b_gives", "salts_a", "salts_b"))
@dataclass(frozen=True)
class Traded(Event):
    """Two matching notifications (events ``notified``) executed at once: ``a`` gives
    ``a_gives`` to ``b`` and ``b_gives`` to ``a`` (private), ``cards`` each way (public), each
    side pays ``fee`` Points to the Dealer ``dealer``. ``to_a``/``to_b``: the public
    commitments of the cards each side received, in order, ``salts_a``/``salts_b`` their salts."""

    a: str
    b: str
    cards: int
    fee: int
    dealer: str | None
    notified: tuple[int, ...]
    a_gives: tuple[int, ...]
    b_gives: tuple[int, ...]
    to_a: tuple[str, ...]
    to_b: tuple[str, ...]
    salts_a: tuple[str, ...]
    salts_b: tuple[str, ...]

    def subject(self) -> str | None:
        return self.a


@kind("pooker.lapsed")
@dataclass(frozen=True)
class TradeLapsed(Event):
    """A notification (event ``notified``) that found no match before it expired."""

    notified: int
    player: str

    def subject(self) -> str | None:
        return self.player


@kind("pooker.motion")
@dataclass(frozen=True)
class MotionMade(Event):
    """A Motion to Show Cards (number ``number``) made by ``player``."""

    number: int
    player: str

    def subject(self) -> str | None:
        return self.player


@kind("pooker.voted")
@dataclass(frozen=True)
class MotionVoted(Event):
    """``player``'s vote on the pending Motion ``number``."""

    number: int
    player: str
    vote: bool

    def subject(self) -> str | None:
        return self.player


@kind("pooker.opened")
@dataclass(frozen=True)
class ShowdownOpened(Event):
    """Showdown ``number`` begins: ``how`` is ``motion`` (``motion``: the Motion that passed)
    or ``ten`` (``by``: the Player holding the ten PCards, who must show ``min_shown``);
    showing ends at ``ends`` (ISO, UTC)."""

    number: int
    how: str
    motion: str
    by: str | None
    ends: str
    min_shown: int

    def subject(self) -> str | None:
        return self.by


@dataclass(frozen=True)
class CardOpening:
    """The opening of the commitment that put ``card`` in the shower's Hand: event ``event``
    and the card's salt ("" when that event carries no per-card commitment)."""

    card: int
    event: int
    salt: str


@kind("pooker.shown")
@dataclass(frozen=True)
class Shown(Event):
    """``player`` shows PCards arranged into Poker Hands, in public, each card with the
    opening of its commitment."""

    showdown: int
    player: str
    hands: tuple[tuple[int, ...], ...]
    openings: tuple[CardOpening, ...]

    def subject(self) -> str | None:
        return self.player


@dataclass(frozen=True)
class PlayerScore:
    player: str
    score: int


@dataclass(frozen=True)
class Payment:
    player: str
    points: int


@kind("pooker.closed")
@dataclass(frozen=True)
class ShowdownClosed(Event):
    """The end of Showdown ``number``: every shower's Score, the winners, the prize paid from
    the Bank (``paid``; a tie splits it, rounding down, docs/games.md), and the shown cards
    returned to the Deck."""

    number: int
    scores: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    prize: int
    paid: tuple[Payment, ...]
    returned: tuple[int, ...]
