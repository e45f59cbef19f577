"""The Spoon Nomic "Cards" proposal, rule by rule (see docs/rules.md for the mapping and the
interpretations chosen where the text is silent).

Each action comes as ``verify_X`` (raises :class:`RuleViolation` or :class:`NotFound` with a
reason that cites the rule), ``can_X`` (a bool) and ``X`` (returns the typed event that carries
it out). Nothing here writes anything: the caller records the event in the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nomic_cards.cards import spoon_card
from nomic_cards.core.dice import DiceSource, Roll
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.state import State
from nomic_cards.core.settings import PROPOSAL_DEALER, PROPOSAL_PACKS
from nomic_cards.errors import InputError, NotFound, RuleViolation

DECK = "the Deck"


class EmptyDeck(RuleViolation):
    """Rule 5: the Deck contains no Cards, so the Dealer cannot Deal a Card."""


def describe_card(state: State, number: int) -> str:
    """``the Red Queen of Hearts (card 90)``."""
    pack, face = spoon_card(number)
    return f"the {state.packs[pack].name} {face.title} (card {number})"


def _player(state: State, name: str) -> None:
    if name not in state.players:
        raise NotFound(f"no player named {name!r}")
    if not state.players[name].active:
        raise RuleViolation(f"{name} has retired and is no longer a player")


def _require_game(state: State) -> None:
    if not state.initialised:
        raise RuleViolation("no game here yet: run `nomic-cards init`")


def check_name(name: str, what: str) -> str:
    clean = name.strip()
    if not clean or any(ch in clean for ch in "\n\r\t"):
        raise InputError(f"{what} must be a non-empty single line, not {name!r}")
    if len(clean) > 200:
        raise InputError(f"{what} is too long ({len(clean)} characters; at most 200)")
    return clean


# --- game creation -----------------------------------------------------------------------


def create_game(
    state: State, *, packs: tuple[tuple[str, str], ...] = PROPOSAL_PACKS,
    dealer: str = PROPOSAL_DEALER, settings: Mapping[str, str] | None = None,
) -> ev.GameCreated:
    """Rules 2, 4 and 7: the packs in play, the original Dealer, every card in the Deck."""
    if state.initialised:
        raise RuleViolation("this database already holds a game")
    if not packs:
        raise InputError("a game needs at least one pack")
    names = [check_name(n, "pack name") for n, _ in packs]
    if len({n.lower() for n in names}) != len(names):
        raise InputError("pack names must be different from each other")
    specs = tuple(ev.PackSpec(n, b.strip()) for n, (_, b) in zip(names, packs, strict=True))
    return ev.GameCreated(specs, check_name(dealer, "dealer name"), dict(settings or {}))


# --- players, packs, the Dealer ----------------------------------------------------------


def verify_register(state: State, name: str) -> None:
    _require_game(state)
    name = check_name(name, "player name")
    if name in state.players:
        raise InputError(f"a player named {name!r} already exists")
    if name.lower() == "deck" or name.lower() == DECK.lower():
        raise InputError(f"{name!r} is reserved for the Deck")


def register(state: State, name: str, email: str | None = None) -> ev.PlayerRegistered:
    verify_register(state, name)
    return ev.PlayerRegistered(check_name(name, "player name"), email)


def verify_retire(state: State, name: str) -> None:
    _require_game(state)
    _player(state, name)
    if state.dealer == name:
        raise RuleViolation(f"{name} is the Dealer; elect another Dealer (rule 4) before retiring")


def retire(state: State, name: str) -> ev.PlayerRetired:
    """A player who leaves: their Hand returns to the Deck (interpretation in docs/rules.md)."""
    verify_retire(state, name)
    return ev.PlayerRetired(name, tuple(state.hand(name)))


def set_email(state: State, name: str, email: str | None) -> ev.PlayerEmailSet:
    _require_game(state)
    _player(state, name)
    if email is not None and ("@" not in email or any(c.isspace() for c in email)):
        raise InputError(f"not an e-mail address: {email!r}")
    return ev.PlayerEmailSet(name, email)


def verify_elect(state: State, name: str) -> None:
    _require_game(state)
    _player(state, name)
    if state.dealer == name:
        raise RuleViolation(f"{name} is already the Dealer")


def elect(state: State, name: str) -> ev.DealerElected:
    """Rule 4 (the Dealer is elected); rule 7 (the Deck is every card the Dealer owns), so the
    new Dealer's own Hand becomes part of the Deck."""
    verify_elect(state, name)
    return ev.DealerElected(name, state.dealer, tuple(state.hand(name)))


def add_pack(state: State, name: str, back: str) -> ev.PackAdded:
    """A pack put in play by a later rule change: numbered next, its cards start in the Deck."""
    _require_game(state)
    name = check_name(name, "pack name")
    if any(p.name.lower() == name.lower() for p in state.packs):
        raise InputError(f"a pack named {name!r} already exists")
    if not back.strip():
        raise InputError("a pack needs a description of its Back")
    return ev.PackAdded(len(state.packs), name, back.strip())


# --- dealing (rule 5) --------------------------------------------------------------------


def verify_deal(state: State, player: str) -> None:
    """Raise unless the Dealer may Deal a Card to ``player`` now."""
    _require_game(state)
    _player(state, player)
    if state.dealer == player:
        raise RuleViolation(
            f"{player} is the Dealer, whose cards are the Deck (rules 6 and 7): "
            "a card dealt to the Dealer would never leave the Deck"
        )
    if not state.deck:
        raise EmptyDeck(
            "the Deck contains no Cards, so the Dealer cannot Deal a Card "
            "(rule 5, which takes precedence over rules that say when a Card is Dealt)"
        )


def can_deal(state: State, player: str) -> bool:
    try:
        verify_deal(state, player)
    except (RuleViolation, NotFound):
        return False
    return True


def refuse_deal(state: State, player: str, reason: str, refusal: str,
                nweek: int | None = None) -> ev.DealRefused:
    return ev.DealRefused(player, reason, refusal, nweek)


@dataclass(frozen=True)
class DealOutcome:
    card: int
    rolls: tuple[Roll, ...]


def roll_for_card(state: State, dice: DiceSource) -> DealOutcome:
    """Rule 5: roll one die with 52 x packs sides; while the number is a card not in the Deck,
    keep rolling."""
    sides = state.sides
    rolls: list[Roll] = []
    while True:
        roll = dice.roll(sides)
        if roll.sides != sides or not 1 <= roll.value <= sides:
            raise InputError(f"a d{sides} cannot show {roll.value}")
        rolls.append(roll)
        if roll.value in state.deck:
            return DealOutcome(roll.value, tuple(rolls))


def deal(state: State, player: str, dice: DiceSource, *, reason: str,
         nweek: int | None = None) -> ev.CardDealt:
    """Deal one card to ``player``: the rolls, the move from the Deck, the private notice.
    ``nweek`` is the nweek the deal belongs to (for the Dealer's Report)."""
    verify_deal(state, player)
    outcome = roll_for_card(state, dice)
    notice = f"You were dealt {describe_card(state, outcome.card)}."
    first = outcome.rolls[0]
    dice_use = ev.DiceUse(first.source, first.sides, first.period, first.index,
                          len(outcome.rolls))
    return ev.CardDealt(player, reason, nweek, dice_use, outcome.card,
                        tuple(r.value for r in outcome.rolls), notice)


# --- other movements need a rule ---------------------------------------------------------


def verify_transfer(state: State, card: int, to: str | None, rule: str) -> None:
    _require_game(state)
    if card not in state.owner:
        raise NotFound(f"no card numbered {card} (cards run 1..{state.sides})")
    if not rule.strip():
        raise RuleViolation("Cards are only transferrable under conditions stated by the rules "
                            "(rule 1): cite the rule that authorizes this transfer")
    if to is not None:
        _player(state, to)
    if state.owner[card] == to:
        where = DECK if to is None else f"{to}'s hand"
        raise RuleViolation(f"card {card} is already in {where}")


def transfer(state: State, card: int, to: str | None, rule: str) -> ev.CardTransferred:
    """Move a card under a cited rule. ``to`` None (or the Dealer) means the Deck."""
    if to is not None and to == state.dealer:
        to = None
    verify_transfer(state, card, to, rule)
    return ev.CardTransferred(card, state.owner[card], to, rule.strip())
