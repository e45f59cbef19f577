"""Use cases for the server: what anyone may read (the public record and what the Dealer's
Report makes public) and what a player reads with their token. The hot paths are narrow
queries, never a replay of the game.

Backs are public -- everyone sees the backs of the cards in a player's hand -- faces are not.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.cards import spoon_card
from nomic_cards.core.game import Game
from nomic_cards.core.services.common import calendar, has_calendar, iso
from nomic_cards.core.services.dealing import RollView
from nomic_cards.core.services.tokens import check, split_token
from nomic_cards.core.store import reads


@dataclass(frozen=True)
class Head:
    event: int
    hash: str

    @property
    def etag(self) -> str:
        return f'"{self.event}-{self.hash[:16]}"'


def ledger_head(game: Game) -> Head:
    """The ledger head: one query (what the server's ETags are keyed to)."""
    with game.reader() as r:
        return Head(*r.head())


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


def public_holdings(game: Game) -> PublicPlayers:
    """Every player's hand size by Back, and the Deck's counts by Back."""
    with game.unit_of_work(write=False) as uow:
        state = uow.state
        packs = {p.number: p for p in state.packs}
        held: dict[str | None, dict[int, int]] = {}
        for row in reads.counts_by_back(uow.session):
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
class GameInfo:
    head: Head
    dealer: str | None
    packs: tuple[tuple[str, str], ...]  # (name, description of its Back)
    sides: int
    epoch: str | None
    nweek_days: int | None
    now: str
    nweek: int | None
    nday: int | None
    clock_running: bool
    last_ticked_nweek: int


def game_info(game: Game) -> GameInfo:
    """The Dealer, the packs, the game Clock and the current nweek."""
    with game.read() as uow:
        state = uow.state
        now = game.clock.now()
        nweek = nday = None
        epoch = days = None
        if has_calendar(state):
            cal = calendar(state)
            pos = cal.position(now)
            nweek, nday = pos.nweek, pos.nday
            epoch, days = cal.epoch.isoformat(), cal.days_in(pos.nweek)
        return GameInfo(Head(state.seq, state.head_hash), state.dealer,
                        tuple((p.name, p.back) for p in state.packs), state.sides, epoch, days,
                        iso(now) or "", nweek, nday, state.clock_running, state.last_nweek)


@dataclass(frozen=True)
class ReportEntry:
    nweek: int
    event: int
    published: str


def reports_index(game: Game) -> list[ReportEntry]:
    """Every published Dealer's Report, newest first."""
    with game.unit_of_work(write=False, need_game=False) as uow:
        return [ReportEntry(n, seq, iso(at) or "") for n, seq, at in reads.reports_index(
            uow.session)]


# --- a player's own view -------------------------------------------------------------------


@dataclass(frozen=True)
class OwnCard:
    number: int  # the proposal's number, 1 .. 52 x packs
    card: str  # "Red Ad"
    name: str  # "Ace of Diamonds"
    back: str  # the pack whose Back it has ("Red")


@dataclass(frozen=True)
class OwnHand:
    player: str
    as_of: int
    cards: tuple[OwnCard, ...]


def hand_for_token(game: Game, token: str) -> OwnHand | None:
    """The hand of the player whose token this is, now, in one query; None for a token that is
    not valid (whatever is wrong with it)."""
    selector, verifier = split_token(token)
    with game.reader() as r:
        row, cards, (seq, _hash) = r.token_and_hand(selector)
    player = check(row, verifier)
    if player is None:
        return None
    out = []
    for c in cards:
        face = spoon_card(c.number)[1]
        out.append(OwnCard(c.number, f"{c.pack} {face}", face.title, c.pack))
    return OwnHand(player, seq, tuple(out))


def player_for_token(game: Game, token: str) -> str | None:
    """The player whose valid token this is, or None."""
    selector, verifier = split_token(token)
    with game.unit_of_work(write=False, need_game=False) as uow:
        return check(reads.token(uow.session, selector), verifier)


@dataclass(frozen=True)
class OwnNotice:
    event: int
    at: str
    text: str
    sent: bool
    rolls: tuple[RollView, ...]


def notices_for(game: Game, player: str) -> list[OwnNotice]:
    """A player's private notices, each with every roll of its deal."""
    with game.unit_of_work(write=False, need_game=False) as uow:
        return [OwnNotice(n.seq, iso(n.at) or "", n.text, n.sent,
                          tuple(RollView(*r) for r in n.rolls))
                for n in reads.notices_of(uow.session, player)]


@dataclass(frozen=True)
class Me:
    name: str
    active: bool
    dealer: bool
    email: str | None
    joined_event: int
    cards: int


def me(game: Game, player: str) -> Me:
    with game.read() as uow:
        state = uow.state
        p = state.players[player]
        dealer = state.dealer == player
        return Me(p.name, p.active, dealer, p.email, p.joined_seq,
                  len(state.deck) if dealer else len(state.hand(player)))


