"""The Spoon Nomic "Cards" proposal, rule by rule (see docs/rules.md for the mapping and the
interpretations chosen where the text is silent).

Each action comes as ``verify_X`` (raises :class:`RuleViolation` or :class:`NotFound` with a reason
that cites the rule), ``can_X`` (a bool) and ``X`` (returns the events that carry it out). Nothing
here writes anything: the caller records the events in the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nomic_cards.cards import spoon_card
from nomic_cards.dice import DiceSource, Roll
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.ledger import events as ev
from nomic_cards.ledger.events import NewEvent
from nomic_cards.ledger.state import State

#: The proposal's packs (rule 2), numbered 0.. in the order they are described.
DEFAULT_PACKS: tuple[tuple[str, str], ...] = (
    ("Red", "The Backs of these cards are primarily Red. They are decorated with the traditional "
            "card design featuring the twisty lines surrounding circles which appear to contain "
            "cherubs on pogo sticks."),
    ("Blue", "The Backs of these cards are primarily Blue. Other than the color, they are "
             "decorated the same way as the Red Pack."),
    ("Fish", "The Backs of these cards contain colorful drawings of tropical fish."),
    ("Corporate", "The Backs of these cards contain a message urging you to fly the friendly "
                  "skies with United."),
)
#: Rule 4: "The original Dealer is PurpleBob."
DEFAULT_DEALER = "PurpleBob"
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
    state: State, *, packs: tuple[tuple[str, str], ...] = DEFAULT_PACKS,
    dealer: str = DEFAULT_DEALER, settings: dict[str, str] | None = None,
) -> list[NewEvent]:
    """Rules 2, 4 and 7: the packs in play, the original Dealer, every card in the Deck."""
    if state.initialised:
        raise RuleViolation("this database already holds a game")
    if not packs:
        raise InputError("a game needs at least one pack")
    names = [check_name(n, "pack name") for n, _ in packs]
    if len({n.lower() for n in names}) != len(names):
        raise InputError("pack names must be different from each other")
    payload: dict[str, Any] = {
        "packs": [{"name": n, "back": b.strip()} for n, (_, b) in zip(names, packs, strict=True)],
        "dealer": check_name(dealer, "dealer name"),
        "settings": dict(settings or {}),
    }
    return [NewEvent(ev.GAME_CREATED, payload, payload["dealer"])]


# --- players, packs, the Dealer ----------------------------------------------------------


def verify_register(state: State, name: str) -> None:
    _require_game(state)
    name = check_name(name, "player name")
    if name in state.players:
        raise InputError(f"a player named {name!r} already exists")
    if name.lower() == "deck" or name.lower() == DECK.lower():
        raise InputError(f"{name!r} is reserved for the Deck")


def register(state: State, name: str, email: str | None = None) -> list[NewEvent]:
    verify_register(state, name)
    name = check_name(name, "player name")
    return [NewEvent(ev.PLAYER_REGISTERED, {"name": name, "email": email}, name)]


def verify_retire(state: State, name: str) -> None:
    _require_game(state)
    _player(state, name)
    if state.dealer == name:
        raise RuleViolation(f"{name} is the Dealer; elect another Dealer (rule 4) before retiring")


def retire(state: State, name: str) -> list[NewEvent]:
    """A player who leaves: their Hand returns to the Deck (interpretation in docs/rules.md)."""
    verify_retire(state, name)
    return [NewEvent(ev.PLAYER_RETIRED, {"name": name, "returned": state.hand(name)}, name)]


def set_email(state: State, name: str, email: str | None) -> list[NewEvent]:
    _require_game(state)
    _player(state, name)
    if email is not None and ("@" not in email or any(c.isspace() for c in email)):
        raise InputError(f"not an e-mail address: {email!r}")
    return [NewEvent(ev.PLAYER_EMAIL_SET, {"name": name, "email": email}, name)]


def verify_elect(state: State, name: str) -> None:
    _require_game(state)
    _player(state, name)
    if state.dealer == name:
        raise RuleViolation(f"{name} is already the Dealer")


def elect(state: State, name: str) -> list[NewEvent]:
    """Rule 4 (the Dealer is elected); rule 7 (the Deck is every card the Dealer owns), so the
    new Dealer's own Hand becomes part of the Deck."""
    verify_elect(state, name)
    payload = {"name": name, "previous": state.dealer, "merged": state.hand(name)}
    return [NewEvent(ev.DEALER_ELECTED, payload, name)]


def add_pack(state: State, name: str, back: str) -> list[NewEvent]:
    """A pack put in play by a later rule change: numbered next, its cards start in the Deck."""
    _require_game(state)
    name = check_name(name, "pack name")
    if any(p.name.lower() == name.lower() for p in state.packs):
        raise InputError(f"a pack named {name!r} already exists")
    if not back.strip():
        raise InputError("a pack needs a description of its Back")
    payload = {"number": len(state.packs), "name": name, "back": back.strip()}
    return [NewEvent(ev.PACK_ADDED, payload, None)]


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
                nweek: int | None = None) -> list[NewEvent]:
    payload = {"player": player, "reason": reason, "refused": refusal, "nweek": nweek}
    return [NewEvent(ev.DEAL_REFUSED, payload, player)]


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
         nweek: int | None = None) -> list[NewEvent]:
    """Deal one card to ``player``: the rolls, the move from the Deck, the private notice.
    ``nweek`` is the nweek the deal belongs to (for the Dealer's Report)."""
    verify_deal(state, player)
    outcome = roll_for_card(state, dice)
    notice = f"You were dealt {describe_card(state, outcome.card)}."
    payload = {
        "player": player, "card": outcome.card, "reason": reason,
        "rolls": [r.as_payload() for r in outcome.rolls], "notice": notice, "nweek": nweek,
    }
    return [NewEvent(ev.CARD_DEALT, payload, player)]


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


def transfer(state: State, card: int, to: str | None, rule: str) -> list[NewEvent]:
    """Move a card under a cited rule. ``to`` None (or the Dealer) means the Deck."""
    if to is not None and to == state.dealer:
        to = None
    verify_transfer(state, card, to, rule)
    payload = {"card": card, "from": state.owner[card], "to": to, "rule": rule.strip()}
    return [NewEvent(ev.CARD_TRANSFERRED, payload, to or state.owner[card])]
