"""Use cases for who plays: creating the game, players, the Dealer office, packs in play."""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.cards import pack_numbers
from nomic_cards.core.ledger.events import PlayerRegistered, PlayerRejoined
from nomic_cards.core.ledger.state import State
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.common import card_label, moment, require_player
from nomic_cards.core.services.dice import open_period
from nomic_cards.core.services.tokens import revoke_all_of
from nomic_cards.core.settings import StoredSettings
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.schema import head_revision
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError

__all__ = [
    "DealerTermView",
    "DealerView",
    "InitResult",
    "PackRetiredView",
    "PackView",
    "PlayerView",
    "add_pack",
    "add_player",
    "elect_dealer",
    "init_game",
    "list_packs",
    "list_players",
    "retire_pack",
    "retire_player",
    "set_email",
    "show_dealer",
    "show_player",
]


@dataclass(frozen=True)
class InitResult:
    database: str
    created: bool
    revision: str
    packs: int
    cards: int
    dealer: str | None
    commitment: str | None


#: the settings ``init`` can be given, by option name
INIT_OPTIONS = ("packs", "dealer", "nweek_days", "epoch")


def init_game(nomic: Nomic, *, given: frozenset[str] = frozenset(INIT_OPTIONS)) -> InitResult:
    """Create or upgrade the schema; on an empty database, create the game from
    ``nomic.settings`` (rules 2, 4, 7) and open the first dice period.

    The settings are checked before anything is written; if creating the game fails anyway, a
    SQLite file this :class:`Nomic` created is removed. On a database that already holds a
    game, the settings named in ``given`` (those the user chose) must agree with the game's:
    otherwise nothing is changed in the game and the error names each that differs."""
    settings = nomic.settings
    stored = settings.stored(nomic.clock.now().date())
    try:
        rules.create_game(State(), packs=settings.packs, dealer=settings.dealer,
                          settings=stored)
        nomic.migrate()
        # an existing game is only compared here, never moved on (no boundary work is done)
        with nomic.write(need_game=False, catch_up=False) as tx:
            created = False
            commitment = None
            if not tx.state.initialised:
                tx.record(rules.create_game(tx.state, packs=settings.packs,
                                             dealer=settings.dealer, settings=stored))
                commitment = open_period(tx)
                created = True
            else:
                _refuse_differences(nomic, tx.state, given)
            state = tx.state
            result = InitResult(nomic.database, created, head_revision(), len(state.packs),
                                len(state.owner), state.dealer, commitment)
    except BaseException:
        nomic.discard_new_file()
        raise
    nomic.keep_new_file()
    return result


def _refuse_differences(nomic: Nomic, state: State, given: frozenset[str]) -> None:
    """Refuse an ``init`` whose chosen settings differ from the existing game's."""
    settings = nomic.settings
    have = StoredSettings.parse(state.settings)
    first = [(p.name, p.back) for p in state.packs if p.added_seq == state.packs[0].added_seq]
    original = state.dealer_terms[0].player if state.dealer_terms else None
    diffs: list[str] = []
    created = ", ".join(n for n, _ in first)
    if "packs" in given and [n for n, _ in settings.packs] != [n for n, _ in first]:
        diffs.append(f"--pack {', '.join(n for n, _ in settings.packs)} (the game was created "
                     f"with {created})")
    elif "packs" in given and list(settings.packs) != first:
        diffs.append(f"--pack: the Backs differ from those the game was created with "
                     f"({created})")
    if "dealer" in given and settings.dealer != original:
        diffs.append(f"--dealer {settings.dealer} (the original Dealer is {original})")
    if have is not None and "nweek_days" in given and settings.nweek_days != have.nweek_days:
        diffs.append(f"--nweek-days {settings.nweek_days} (the game has {have.nweek_days})")
    if (have is not None and "epoch" in given and settings.epoch is not None
            and settings.epoch != have.epoch):
        diffs.append(f"--epoch {settings.epoch.isoformat()} (the game's is "
                     f"{have.epoch.isoformat()})")
    if diffs:
        in_play = ", ".join(p.name for p in state.in_play())
        raise InputError(f"{nomic.database} already holds a game, and these options differ from "
                         f"it: {'; '.join(diffs)}. The packs now in play are {in_play}. Nothing "
                         f"in the game was changed (its schema is at revision "
                         f"{head_revision()}).")


@dataclass(frozen=True)
class PlayerView:
    name: str
    email: str | None
    active: bool
    dealer: bool
    cards: int
    rejoined: bool = False


def player_view(state: State, name: str, *, rejoined: bool = False) -> PlayerView:
    p = state.players[name]
    dealer = state.dealer == name
    held = len(state.deck) if dealer else len(state.hand(name))
    return PlayerView(p.name, p.email, p.active, dealer, held, rejoined)


def add_player(tx: Tx, name: str, *, email: str | None = None) -> PlayerView:
    """Register a player; a retired player of that name rejoins (docs/rules.md)."""
    event = tx.record(rules.register(tx.state, name, None))[0].event
    assert isinstance(event, PlayerRegistered | PlayerRejoined)
    name = event.name
    if email:
        tx.record(rules.set_email(tx.state, name, email))
    return player_view(tx.state, name, rejoined=isinstance(event, PlayerRejoined))


def set_email(tx: Tx, name: str, email: str | None) -> PlayerView:
    """Set (or, with None, remove) a player's address: a private field of the ledger."""
    event = rules.set_email(tx.state, name, email)
    tx.record(event)
    return player_view(tx.state, event.name)


def show_player(tx: Reads, name: str) -> PlayerView:
    """One player, address included (the Dealer's view)."""
    return player_view(tx.state, require_player(tx.state, name))


def retire_player(tx: Tx, name: str) -> list[str]:
    """Retire a player; returns the labels of the cards returned to the Deck."""
    event = rules.retire(tx.state, name)
    at, nweek = moment(tx.state, tx.clock.now())
    gone = rules.left_hand(tx.state, event.name, event.returned, at=at, nweek=nweek,
                           went="returned to the Deck", why="you retired from the game")
    tx.record(event)
    if gone is not None:
        tx.record(gone)
    revoke_all_of(tx, tx.state.players[event.name].id, tx.clock.now())
    return [card_label(tx.state, c) for c in event.returned]


def list_players(tx: Reads, *, include_retired: bool = False) -> list[PlayerView]:
    return [player_view(tx.state, n) for n, p in tx.state.players.items()
            if p.active or include_retired]


@dataclass(frozen=True)
class DealerTermView:
    player: str
    from_event: int
    until_event: int | None


@dataclass(frozen=True)
class DealerView:
    dealer: str | None
    since_event: int | None
    history: tuple[DealerTermView, ...]


def show_dealer(tx: Reads) -> DealerView:
    terms = tx.state.dealer_terms
    hist = tuple(DealerTermView(t.player, t.start_seq, t.end_seq) for t in terms)
    current = terms[-1] if terms else None
    return DealerView(tx.state.dealer, current.start_seq if current else None, hist)


def elect_dealer(tx: Tx, name: str) -> list[str]:
    """Elect a new Dealer; returns the labels of their former hand, now part of the Deck."""
    event = rules.elect(tx.state, name)
    at, nweek = moment(tx.state, tx.clock.now())
    gone = rules.left_hand(tx.state, event.name, event.merged, at=at, nweek=nweek,
                           went="it joined the Deck",
                           why="you were elected Dealer, and the Dealer's cards are the "
                               "Deck (rules 4 and 7)")
    tx.record(event)
    if gone is not None:
        tx.record(gone)
    return [card_label(tx.state, c) for c in event.merged]


@dataclass(frozen=True)
class PackView:
    number: int
    name: str
    back: str
    sides: int
    event: int
    #: the event that retired it (None: in play)
    retired: int | None = None


def add_pack(tx: Tx, name: str, back: str) -> PackView:
    """Put a pack in play: numbered next, its cards in the Deck, the die grows at once."""
    rec = tx.record(rules.add_pack(tx.state, name, back))[0]
    pack = tx.state.packs[-1]
    return PackView(pack.number, pack.name, pack.back, tx.state.sides, rec.seq)


@dataclass(frozen=True)
class PackRetiredView:
    """A pack taken out of play: how many of its cards left the Deck and whose Hands."""

    number: int
    name: str
    proposal: str
    deck: int
    hands: tuple[tuple[str, int], ...]
    sides: int
    event: int


def retire_pack(tx: Tx, pack: str, *, proposal: str) -> PackRetiredView:
    """Rule 2 amended by ``proposal``: the pack (its number or name) leaves play. Its cards
    leave the Deck and every Hand, each holder told privately which of eirs left; the die is
    over the packs still in play from now on (docs/rules.md, "Retired packs")."""
    from nomic_cards.core.services.rules import cite

    cited = cite(proposal)
    state = tx.state
    event = rules.retire_pack(state, pack, cited)
    at, nweek = moment(state, tx.clock.now())
    mine = set(pack_numbers(event.number))
    notices = [rules.left_hand(state, h.player,
                               tuple(c for c in state.hand(h.player) if c in mine),
                               went=f"its pack, {event.name}, left play",
                               why=f"pack {event.number} ({event.name}) was retired by "
                                   f"{cited!r} (rule 2)", at=at, nweek=nweek)
               for h in event.hands]
    rec = tx.record(event)[0]
    for notice in notices:
        if notice is not None:
            tx.record(notice)
    return PackRetiredView(event.number, event.name, cited, event.deck,
                           tuple((h.player, h.cards) for h in event.hands),
                           tx.state.sides, rec.seq)


def list_packs(tx: Reads) -> list[PackView]:
    return [PackView(p.number, p.name, p.back, tx.state.sides, p.added_seq,
                     p.retired_seq) for p in tx.state.packs]
