"""The Spoon Nomic "Cards" proposal, rule by rule (see docs/rules.md for the mapping and the
interpretations chosen where the text is silent).

Each action comes as ``verify_X`` (raises :class:`RuleViolation` or :class:`NotFound` with a
reason that cites the rule), ``can_X`` (a bool) and ``X`` (returns the typed event that carries
it out). Nothing here writes anything: the caller records the event in the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nomic_cards.cards import CARDS_PER_PACK, pack_numbers, spoon_card
from nomic_cards.core.dice import DiceSource, Roll
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.chain import card_commitment, new_nonce
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import names
from nomic_cards.core.ruleset import RULES
from nomic_cards.core.settings import PROPOSAL_DEALER, PROPOSAL_PACKS
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import (
    MAX_PACK_BACK,
    MAX_PACK_NAME,
    MAX_REASON,
    check_address,
    check_text,
    shorten,
    show_number,
)

DECK = "the Deck"


class EmptyDeck(RuleViolation):
    """Rule 5: the Deck contains no Cards, so the Dealer cannot Deal a Card."""


def describe_card(state: State, number: int) -> str:
    """``the Red Queen of Hearts (card 90)``."""
    pack, face = spoon_card(number)
    return f"the {state.packs[pack].name} {face.title} (card {number})"


def player_name(state: State, name: str, *, when: str = "") -> str:
    """The registered name that ``name`` designates (the same without regard to case and
    Unicode normalisation), or :class:`NotFound`."""
    return names.resolve(state.players, name, when=when)


def _player(state: State, name: str) -> str:
    """The registered name of an active player, or the reason there is none."""
    name = player_name(state, name)
    if not state.players[name].active:
        raise RuleViolation(f"{name} has retired and is no longer a player (`nomic-cards player "
                            f"add {name}` lets them rejoin)")
    return name


def _require_game(state: State) -> None:
    if not state.initialised:
        raise RuleViolation("no game here yet: run `nomic-cards init`")


def check_name(name: str, what: str, limit: int = MAX_PACK_NAME) -> str:
    """A pack's name or the description of its Back: stripped, not empty, at most ``limit``
    characters, no control character (docs/cli.md, "Limits")."""
    clean = name.strip()
    if not clean:
        raise InputError(f"{what} must not be empty, not {name!r}")
    return check_text(clean, what, limit)


def check_email(email: str) -> str:
    """A player's e-mail address: exactly one address, ``name@example.org``, of at most 254
    characters (:func:`nomic_cards.inputs.check_address`: no name, comment, angle brackets or
    second address)."""
    return check_address(email)


def check_rule(rule: str) -> str:
    """The rule cited for a movement, as given: at most :data:`MAX_REASON` characters, no
    control character (a newline would print as a forged line of the log)."""
    return check_text(rule, "the rule cited", MAX_REASON)


def check_reason(reason: str) -> str:
    """Why a card is dealt: not empty, at most :data:`MAX_REASON` characters, no control
    character."""
    if not reason.strip():
        raise InputError("the reason for the deal must not be empty")
    return check_text(reason, "the reason for the deal", MAX_REASON)


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
    pack_names = [check_name(n, "pack name") for n, _ in packs]
    if len({n.lower() for n in pack_names}) != len(pack_names):
        raise InputError("pack names must be different from each other")
    backs = [check_name(b, f"the Back of pack {n!r}", MAX_PACK_BACK) for n, (_, b)
             in zip(pack_names, packs, strict=True)]
    specs = tuple(ev.PackSpec(n, b) for n, b in zip(pack_names, backs, strict=True))
    return ev.GameCreated(specs, names.clean(dealer, "dealer name"), dict(settings or {}),
                          tuple(r.name for r in RULES))


# --- players, packs, the Dealer ----------------------------------------------------------


def verify_register(state: State, name: str) -> str | None:
    """Raise unless ``name`` may join the game; returns the retired player it names (who
    rejoins), or None for a new player. See docs/rules.md, "Names" and "A player who comes
    back"."""
    _require_game(state)
    name = names.clean(name, "player name")
    if names.clash(("deck", DECK), name) is not None:
        raise InputError(f"{name!r} is reserved for the Deck")
    found = names.clash(state.players, name)
    if found is None:
        return None
    other, why = found
    if why == "confusable":
        gone = " (retired)" if not state.players[other].active else ""
        raise InputError(f"{name!r} looks like the existing player {other!r}{gone}: choose a "
                         "name that cannot be mistaken for it")
    if state.players[other].active:
        same = "" if other == name else " (names are the same without regard to case)"
        raise InputError(f"a player named {other!r} already exists{same}")
    if other != name:
        raise InputError(f"{name!r} is the retired player {other!r}: to let them rejoin, use "
                         f"their name as registered, {other!r}")
    return other


def register(state: State, name: str,
             email: str | None = None) -> ev.PlayerRegistered | ev.PlayerRejoined:
    """A new player, or a retired one who comes back (with an empty Hand: theirs returned to
    the Deck when they retired)."""
    back = verify_register(state, name)
    if back is not None:
        return ev.PlayerRejoined(back)
    return ev.PlayerRegistered(names.clean(name, "player name"),
                               None if email is None else check_email(email))


def verify_retire(state: State, name: str) -> str:
    _require_game(state)
    name = _player(state, name)
    if state.dealer == name:
        raise RuleViolation(f"{name} is the Dealer; elect another Dealer (rule 4) before retiring")
    return name


def retire(state: State, name: str) -> ev.PlayerRetired:
    """A player who leaves: their Hand returns to the Deck (interpretation in docs/rules.md)."""
    name = verify_retire(state, name)
    return ev.PlayerRetired(name, tuple(state.hand(name)))


def set_email(state: State, name: str, email: str | None) -> ev.PlayerEmailSet:
    _require_game(state)
    name = _player(state, name)
    return ev.PlayerEmailSet(name, None if email is None else check_email(email))


def verify_elect(state: State, name: str) -> str:
    _require_game(state)
    name = _player(state, name)
    if state.dealer == name:
        raise RuleViolation(f"{name} is already the Dealer")
    return name


def elect(state: State, name: str) -> ev.DealerElected:
    """Rule 4 (the Dealer is elected); rule 7 (the Deck is every card the Dealer owns), so the
    new Dealer's own Hand becomes part of the Deck."""
    name = verify_elect(state, name)
    return ev.DealerElected(name, state.dealer, tuple(state.hand(name)))


def add_pack(state: State, name: str, back: str) -> ev.PackAdded:
    """A pack put in play by a later rule change: numbered next, its cards start in the Deck."""
    _require_game(state)
    name = check_name(name, "pack name")
    if any(p.name.lower() == name.lower() for p in state.packs):
        raise InputError(f"a pack named {name!r} already exists")
    if not back.strip():
        raise InputError("a pack needs a description of its Back")
    return ev.PackAdded(len(state.packs), name,
                        check_name(back, f"the Back of pack {name!r}", MAX_PACK_BACK))


def find_pack(state: State, text: str) -> int:
    """A pack by its number or its name (any case), as ``pack list`` shows them."""
    _require_game(state)
    t = text.strip()
    if t.isascii() and t.isdigit() and len(t) <= 6:
        number = int(t)
        if number < len(state.packs):
            return number
    found = next((p.number for p in state.packs if p.name.lower() == t.lower()), None)
    if found is None:
        raise NotFound(f"no pack {shorten(text)} (the packs: "
                       f"{', '.join(f'{p.number} {p.name}' for p in state.packs)})")
    return found


def verify_retire_pack(state: State, pack: str) -> int:
    """Raise unless the pack named by ``pack`` may leave play now: it is in play, it is not
    the last pack in play, and no card game in force uses it. Returns its number."""
    number = find_pack(state, pack)
    problem = state.retire_problem(number)
    if problem is not None:
        raise RuleViolation(problem)
    return number


def retire_pack(state: State, pack: str, proposal: str) -> ev.PackRetired:
    """Rule 2 amended: a pack leaves play. Its cards leave the Deck and every Hand (the public
    record counts them per Hand), and the die shrinks by 52 sides."""
    number = verify_retire_pack(state, pack)
    deck, held = 0, dict[str, int]()
    for card in pack_numbers(number):
        holder = state.owner.get(card)
        if holder is None:
            deck += 1
        else:
            held[holder] = held.get(holder, 0) + 1
    return ev.PackRetired(number, state.packs[number].name, proposal, deck,
                          tuple(ev.HandCount(p, n) for p, n in sorted(held.items())))


# --- dealing (rule 5) --------------------------------------------------------------------


def verify_deal(state: State, player: str) -> str:
    """Raise unless the Dealer may Deal a Card to ``player`` now; returns the player's
    registered name."""
    _require_game(state)
    player = _player(state, player)
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
    return player


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
    """Rule 5: roll one die with 52 x packs sides (the packs in play); while the number is a
    card not in the Deck, keep rolling. The faces run over the packs in play in pack order
    (:meth:`State.card_of_face`: face N is card N while no pack has been retired)."""
    sides = state.sides
    rolls: list[Roll] = []
    while True:
        roll = dice.roll(sides)
        if roll.sides != sides or not 1 <= roll.value <= sides:
            raise InputError(f"a d{sides} cannot show {roll.value}")
        rolls.append(roll)
        card = state.card_of_face(roll.value)
        if card in state.deck:
            return DealOutcome(card, tuple(rolls))


def notice_text(headline: str, *, why: str, at: str | None, nweek: int | None,
                by: str | None = None) -> str:
    """A private notice: what happened (its first line, the mail's subject), why, when, and
    -- when something now waits for the player -- by when (``by``) e must act."""
    where = f"Nweek {nweek}: " if nweek is not None else ""
    lines = [f"{where}{headline}", f"Why: {why}"]
    if at:
        lines.append(f"When: {at}")
    if by:
        lines.append(f"By: {by}")
    return "\n".join(lines)


def deal(state: State, player: str, dice: DiceSource, *, reason: str,
         nweek: int | None = None, at: str | None = None) -> ev.CardDealt:
    """Deal one card to ``player``: the rolls, the move from the Deck, the private notice
    (what, why -- the deal's reason -- and when: ``at``, and ``nweek``, the nweek the deal
    belongs to, for the Dealer's Report too)."""
    player = verify_deal(state, player)
    outcome = roll_for_card(state, dice)
    rolls = len(outcome.rolls)
    notice = notice_text(
        f"you were dealt {describe_card(state, outcome.card)}",
        why=f"{reason} (it took {rolls} roll{'s' if rolls != 1 else ''})",
        at=at, nweek=nweek)
    first = outcome.rolls[0]
    dice_use = ev.DiceUse(first.source, first.sides, first.period, first.index,
                          len(outcome.rolls))
    commit, salt = card_commit(state, outcome.card)
    return ev.CardDealt(player, reason, nweek, dice_use, outcome.card,
                        tuple(r.value for r in outcome.rolls), notice, commit, salt)


def card_commit(state: State, card: int, *, to_deck: bool = False) -> tuple[str, str]:
    """A card of a card game going to a Hand gets its own salted commitment (public) and salt
    (private): (commit, salt); ("", "") for other cards (docs/ledger.md, "Per-card
    commitments")."""
    if to_deck or (card - 1) // CARDS_PER_PACK not in state.games():
        return "", ""
    salt = new_nonce()
    return card_commitment(salt, card), salt


# --- other movements need a rule ---------------------------------------------------------


def verify_transfer(state: State, card: int, to: str | None, rule: str) -> str | None:
    """Raise unless ``card`` may move to ``to`` (None: the Deck); returns the receiver's
    registered name."""
    _require_game(state)
    check_in_play(state, card)
    if not rule.strip():
        raise RuleViolation("Cards are only transferrable under conditions stated by the rules "
                            "(rule 1): cite the rule that authorizes this transfer")
    check_rule(rule)
    if to is not None:
        to = _player(state, to)
    if state.owner[card] == to:
        raise RuleViolation(f"card {card} is already in {_place(state, to)}")
    return to


def check_in_play(state: State, card: int) -> None:
    """Raise unless ``card`` is a card in play (of a pack not retired)."""
    if card in state.owner:
        return
    retired = state.retired_pack_of(card)
    if retired is not None:
        raise RuleViolation(f"card {card} is of pack {retired.number} ({retired.name}), which "
                            f"was retired (event {retired.retired_seq}): it is out of play")
    raise NotFound(f"no card numbered {show_number(card)} (cards run "
                   f"1..{CARDS_PER_PACK * len(state.packs)})")


def _place(state: State, holder: str | None) -> str:
    return DECK if holder is None else f"{holder}'s hand"


def verify_source(state: State, card: int, source: str | None) -> str | None:
    """Raise unless ``card`` is where the one moving it says it is: in ``source``'s hand, or
    the Deck (None, or the Dealer, whose cards are the Deck). A guard against a mistyped card
    number moving someone else's card. Returns the holder's registered name."""
    _require_game(state)
    check_in_play(state, card)
    if source is not None:
        source = player_name(state, source)
        if source == state.dealer:
            source = None
    if state.owner[card] != source:
        raise RuleViolation(f"card {card} is in {_place(state, state.owner[card])}, not in "
                            f"{_place(state, source)}: check the card number (nothing moved)")
    return source


def transfer(state: State, card: int, to: str | None, rule: str, *, at: str | None = None,
             nweek: int | None = None) -> ev.CardTransferred:
    """Move a card under a cited rule. ``to`` None (or the Dealer) means the Deck. The
    receiving player is told privately which card they received, from whom, under which rule
    and when (``notice``)."""
    if to is not None and state.dealer is not None and names.find([state.dealer], to):
        to = None
    to = verify_transfer(state, card, to, rule)
    giver = state.owner[card]
    notice = None if to is None else notice_text(
        f"you received {describe_card(state, card)} from {giver or DECK}",
        why=f"transferred under {rule.strip()!r}", at=at, nweek=nweek)
    commit, salt = card_commit(state, card, to_deck=to is None)
    return ev.CardTransferred(card, giver, to, rule.strip(), notice, commit, salt)


def left_hand(state: State, player: str, cards: tuple[int, ...], *, went: str, why: str,
              at: str | None = None, nweek: int | None = None) -> ev.NoticeGiven | None:
    """The private notice telling ``player`` that ``cards`` left eir Hand (None: no cards)."""
    if not cards:
        return None
    what = (describe_card(state, cards[0]) if len(cards) == 1 else
            f"{len(cards)} cards ({', '.join(describe_card(state, c) for c in cards)})")
    return ev.NoticeGiven(player, notice_text(f"{what} left your Hand: {went}", why=why,
                                              at=at, nweek=nweek))
