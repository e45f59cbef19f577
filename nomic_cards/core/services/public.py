"""Use cases for the server: what anyone may read (the public record and what the Dealer's
Report makes public) and what a player reads with their token. The hot paths are narrow
queries, never a replay of the game.

Backs are public -- everyone sees the backs of the cards in a player's hand -- faces are not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from nomic_cards.cards import spoon_card
from nomic_cards.core import engine
from nomic_cards.core.services.common import (
    CardView,
    HandView,
    calendar,
    card_view,
    has_calendar,
    iso,
)
from nomic_cards.core.services.tokens import accepted, check, split_token, verifier_hash
from nomic_cards.core.store.reads import HeldCard, Reads

__all__ = [
    "ledger_head",
]


@dataclass(frozen=True)
class Head:
    event: int
    hash: str

    @property
    def etag(self) -> str:
        return f'"{self.event}-{self.hash[:16]}"'


def ledger_head(tx: Reads) -> Head:
    """The ledger head: one query (what the server's ETags are keyed to)."""
    return Head(*tx.head())


def game_id(tx: Reads) -> str:
    """The first 16 hex digits of the hash of the ledger's first event: a name for the game
    that no request can change."""
    return tx.first_hash()[:16]


@dataclass(frozen=True)
class HeldBack:
    """How many cards of one Back (named, as in the Dealer's Report, by its pack)."""

    back: str
    cards: int


@dataclass(frozen=True)
class PublicPlayer:
    name: str
    active: bool
    dealer: bool
    cards: int
    by_back: tuple[HeldBack, ...]


@dataclass(frozen=True)
class PublicPlayers:
    head: Head
    players: tuple[PublicPlayer, ...]
    deck: tuple[HeldBack, ...]
    deck_total: int
    sides: int


def public_holdings(tx: Reads) -> PublicPlayers:
    """Every player's hand size by Back, and the Deck's counts by Back."""
    state = tx.state
    packs = {p.number: p for p in state.packs}
    held: dict[str | None, dict[int, int]] = {}
    for row in tx.counts_by_back():
        held.setdefault(row.holder, {})[row.pack] = row.cards

    def backs(holder: str | None) -> tuple[HeldBack, ...]:
        counts = held.get(holder, {})
        return tuple(HeldBack(packs[n].name, counts[n]) for n in sorted(counts))

    players = tuple(
        PublicPlayer(p.name, p.active, state.dealer == p.name,
                     sum(held.get(p.name, {}).values()), backs(p.name))
        for p in state.players.values())
    deck = backs(None)
    return PublicPlayers(Head(state.seq, state.head_hash), players, deck,
                         sum(b.cards for b in deck), state.sides)


@dataclass(frozen=True)
class PackInfo:
    """A pack in play: its name, and the description of its Back."""

    name: str
    back: str


@dataclass(frozen=True)
class GameInfo:
    head: Head
    dealer: str | None
    packs: tuple[PackInfo, ...]  # in numbering order
    sides: int
    epoch: str | None
    nweek_days: int | None
    now: str
    nweek: int | None
    nday: int | None
    clock_running: bool
    last_ticked_nweek: int
    #: when the next nweek begins (None: the Clock is Off, or there is no calendar)
    next_nweek_at: str | None = None


def game_info(tx: Reads) -> GameInfo:
    """The Dealer, the packs, the game Clock and the current nweek."""
    state = tx.state
    now = tx.clock.now()
    nweek = nday = None
    epoch = days = None
    following = None
    if has_calendar(state):
        cal = calendar(state)
        pos = cal.position(now)
        nweek, nday = pos.nweek, pos.nday
        epoch, days = cal.epoch.isoformat(), cal.days_in(pos.nweek)
        following = iso(cal.start_of(pos.nweek + 1)) if state.clock_running else None
    return GameInfo(Head(state.seq, state.head_hash), state.dealer,
                    tuple(PackInfo(p.name, p.back) for p in state.in_play()), state.sides,
                    epoch, days,
                    iso(now) or "", nweek, nday, state.clock_running, state.last_nweek,
                    following)


@dataclass(frozen=True)
class FieldInfo:
    name: str
    kind: str
    required: bool
    doc: str


@dataclass(frozen=True)
class ActionInfo:
    action: str
    scope: str
    private: bool
    doc: str
    fields: tuple[FieldInfo, ...]


@dataclass(frozen=True)
class CardGameInfo:
    """An installed card game as the page needs it: whether it is in force, its own panel
    script (None: the generic panel draws it), and its actions and their fields."""

    name: str
    title: str
    doc: str
    in_force: bool
    panel: str | None
    actions: tuple[ActionInfo, ...]


def card_games(tx: Reads) -> list[CardGameInfo]:
    """Every installed card game, and whether it is in force."""
    state = tx.state
    return [CardGameInfo(
        g.name, g.title, g.doc, state.in_force(g.name),
        f"/static/games/{g.name}.js" if g.panel else None,
        tuple(ActionInfo(a.name, a.scope, a.private, a.doc,
                         tuple(FieldInfo(f.name, f.kind, f.required, f.doc) for f in a.fields))
              for a in g.actions))
        for _name, g in sorted(engine.games().items())]


@dataclass(frozen=True)
class ReportEntry:
    nweek: int
    event: int
    published: str


def reports_index(tx: Reads) -> list[ReportEntry]:
    """Every published Dealer's Report, newest first."""
    return [ReportEntry(n, seq, iso(at) or "") for n, seq, at in tx.reports_index()]


# --- a player's own view -------------------------------------------------------------------


def hand_for_token(tx: Reads, token: str) -> HandView | None:
    """The hand of the player whose token this is, now; None for a token that is not valid
    (whatever is wrong with it). One statement looks the token up by its selector and reads
    its player's cards only if the verifier's hash is the stored one; the verifier is then
    compared in constant time (against a dummy hash when no token has that selector), so a
    rejected token costs the same one lookup and one comparison whether or not its selector
    exists."""
    selector, verifier = split_token(token)
    row, cards, (seq, _hash), dealer = tx.token_and_hand(selector, verifier_hash(verifier))
    if check(row, verifier) is None:
        return None
    assert row is not None
    return HandView(row.player, seq, _own_cards(cards), dealer)


def _own_cards(cards: list[HeldCard]) -> tuple[CardView, ...]:
    return tuple(card_view(c.number, c.pack) for c in cards)


def hand_as_of(tx: Reads, player: str, as_of: str) -> HandView:
    """A player's hand as of an event number or a time, from the history of where each card has
    been (``card_moves``): a few narrow queries, no replay, and nothing read from the events'
    private fields (the server's account may not read them). The same answer as
    ``queries.hand(game, player, as_of=...)``, which replays the log."""
    from nomic_cards.core.services.queries import check_as_of
    from nomic_cards.errors import NotFound

    last, _hash = tx.head()
    seq, at = check_as_of(as_of, last=last, now=tx.clock.now())
    if seq is None:
        assert at is not None
        seq = tx.last_event_at(at)
    joined = tx.joined_seq(player)
    if joined is None or joined > seq:
        raise NotFound(f"no player named {player!r} at that point")
    if tx.dealer_at(seq) == player:  # the Dealer holds no hand (the Deck is theirs)
        return HandView(player, seq, (), dealer=True)
    return HandView(player, seq, _own_cards(tx.hand_as_of(player, seq)), dealer=False)


def as_of_event(tx: Reads, as_of: str) -> int:
    """The event an as-of point names: an event number of the log, or the last event recorded
    at or before a time (0: none); checked as :func:`~.queries.check_as_of` checks it."""
    from nomic_cards.core.services.queries import check_as_of

    last, _hash = tx.head()
    seq, at = check_as_of(as_of, last=last, now=tx.clock.now())
    if seq is not None:
        return seq
    assert at is not None
    return tx.last_event_at(at)


@dataclass(frozen=True)
class HandsAt:
    """Every player's hand as it was just after one event: a replay of the log (slow: the
    server caches it by event number, since what happened never changes)."""

    event: int
    players: frozenset[str]
    hands: Mapping[str, tuple[CardView, ...]]
    #: the Dealer then (None: none), who holds no hand
    dealer: str | None

    def hand(self, player: str) -> HandView:
        """``player``'s hand (one of :attr:`players`)."""
        return HandView(player, self.event, self.hands[player], player == self.dealer)


def hands_at(tx: Reads, event: int) -> HandsAt:
    """Every hand as of ``event`` (1 .. the ledger head), from the history of where each card
    has been (``card_moves``): narrow queries, no replay of the log, and nothing read from the
    events' private fields (the server's account may not read them). The same hands as a
    replay up to ``event`` gives (``tests/test_migrations.py`` compares them)."""
    dealer = tx.dealer_at(event)
    players = tx.players_by(event)
    hands = {name: () if name == dealer else _own_cards(tx.hand_as_of(name, event))
             for name in players}
    return HandsAt(event, frozenset(players), MappingProxyType(hands), dealer)


def player_for_token(tx: Reads, token: str) -> str | None:
    """The player whose valid token this is, or None."""
    row = accepted(tx, token)
    return None if row is None else row.player


@dataclass(frozen=True)
class OwnNotice:
    """A private notice as its player reads it: the text (which names the card received), and
    for a dealt card how many rolls the deal took and the dice source -- never the rolled
    numbers, since a reroll names a card that was in someone else's hand (docs/dice.md)."""

    event: int
    at: str
    text: str
    sent: bool
    rolls: int  # 0 for a card received by a transfer
    dice: str | None  # committed, manual or system; None for a transfer


def notices_for(tx: Reads, player: str) -> list[OwnNotice]:
    """A player's private notices, newest first, each with how many rolls its deal took."""
    return [OwnNotice(n.seq, iso(n.at) or "", n.text, n.sent, n.rolls, n.dice)
            for n in reversed(tx.notices_of(player))]


@dataclass(frozen=True)
class Me:
    """A player's own record (without their address: the server does not read addresses),
    and what the token that asked may do: ``scope`` ``dealer`` for an officer token (the
    Dealer's actions), None for a player's own token. ``cards``: the cards in eir Hand, or in
    the Deck for the Dealer."""

    name: str
    active: bool
    dealer: bool
    joined_event: int
    cards: int
    scope: str | None = None


def me(tx: Reads, player: str, *, scope: str | None = None) -> Me:
    state = tx.state
    p = state.players[player]
    dealer = state.dealer == player
    return Me(p.name, p.active, dealer, p.joined_seq,
              len(state.deck) if dealer else len(state.hand(player)), scope)


@dataclass(frozen=True)
class OwnVote:
    """One of the player's votes: the proposal, when, the nweek it fell in, and the cards the
    votes of that nweek earned em (Cards for Votes, dealt at the next nweek's start; empty
    until then)."""

    event: int
    proposal: str
    at: str
    nweek: int | None
    earned: tuple[CardView, ...]


def votes_for(tx: Reads, player: str) -> list[OwnVote]:
    """A player's own votes, newest first, each with the cards its nweek's votes earned."""
    import re

    state = tx.state
    votes = tx.votes_of(player)
    deals = tx.vote_deals_of(player)
    packs = {p.number: p.name for p in state.packs}
    cal = calendar(state) if has_calendar(state) else None
    by_nweek: dict[int, list[HeldCard]] = {}
    for _seq, reason, notice in deals:
        found = re.search(r"voted in nweek (\d+)", reason)
        named = re.search(r"\(card (\d+)\)", notice)
        if found and named:
            card = int(named.group(1))
            pack = packs.get(spoon_card(card)[0], "")
            by_nweek.setdefault(int(found.group(1)), []).append(HeldCard(card, pack))
    out = []
    for seq, proposal, at in reversed(votes):
        nweek = cal.nweek_of(at) if cal is not None else None
        earned = _own_cards(by_nweek.get(nweek, [])) if nweek is not None else ()
        out.append(OwnVote(seq, proposal, iso(at) or "", nweek, earned))
    return out
