"""One line per ledger event, as ``nomic-cards log`` prints it: what happened, in words.

Private fields (a dealt card, a player's address, a revealed seed...) appear only with
``reveal``; without it the line says what kind of thing is hidden. The Deck is named ``Deck``,
never by the ``None`` that stands for it in a payload. Nested data (the rendered Dealer's
Report, the votes of an import) is summed up, never printed whole: ``--json`` has it all.
"""

from __future__ import annotations

from collections.abc import Sequence

from nomic_cards.core.ledger.events import (
    CardDealt,
    CardTransferred,
    ClockStarted,
    ClockStopped,
    DealerElected,
    DealRefused,
    DiceCommitted,
    DiceRevealed,
    DiceUse,
    EventRecord,
    GameCreated,
    NoticeFailed,
    NoticeSent,
    NweekStarted,
    PackAdded,
    PackRetired,
    PlayerEmailSet,
    PlayerRegistered,
    PlayerRejoined,
    PlayerRetired,
    ReportPublished,
    ReportsPosted,
    VotesRecorded,
)
from nomic_cards.core.ledger.state import State
from nomic_cards.core.services.common import card_label

#: what a line says in place of a private field when it is not revealed
HIDDEN_NOTE = "(hidden: use --reveal)"
#: how many names or votes a line lists before it counts the rest
LISTED = 3


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:LISTED])
    rest = len(items) - LISTED
    return f"{shown} and {rest} more" if rest > 0 else shown


def _holder(name: str | None) -> str:
    return "Deck" if name is None else name


def _cards(state: State, numbers: Sequence[int]) -> str:
    return _listed([card_label(state, n) for n in numbers]) if numbers else "none"


def _dice(dice: DiceUse) -> str:
    rolls = _plural(dice.count, "roll")
    where = f", period {dice.period}" if dice.period is not None else ""
    return f"{rolls} of a {dice.sides}-sided die ({dice.source} dice{where})"


def summary(rec: EventRecord, state: State, *, reveal: bool) -> str:
    """The line for ``rec``; ``state`` names the packs of revealed cards."""
    e = rec.event
    if isinstance(e, GameCreated):
        packs = ", ".join(p.name for p in e.packs)
        return f"created the game: packs {packs}; the Dealer is {e.dealer}"
    if isinstance(e, PlayerRegistered):
        mail = f" <{e.email}>" if reveal and e.email else ""
        return f"registered {e.name}{mail}"
    if isinstance(e, PlayerEmailSet):
        if not reveal:
            return f"changed {e.name}'s e-mail address {HIDDEN_NOTE}"
        if e.email is None:
            return f"removed {e.name}'s e-mail address"
        return f"set {e.name}'s e-mail address to <{e.email}>"
    if isinstance(e, PlayerRetired):
        back = f": {_cards(state, e.returned)}" if reveal else f" {HIDDEN_NOTE}"
        return f"{e.name} retired; their hand returned to the Deck{back}"
    if isinstance(e, PlayerRejoined):
        return f"{e.name} rejoined the game with an empty hand"
    if isinstance(e, DealerElected):
        before = f" after {e.previous}" if e.previous else ""
        merged = f": {_cards(state, e.merged)}" if reveal else f" {HIDDEN_NOTE}"
        return f"{e.name} was elected Dealer{before}; their hand joined the Deck{merged}"
    if isinstance(e, PackAdded):
        return f"put pack {e.number}, {e.name}, in play"
    if isinstance(e, PackRetired):
        hands = ", ".join(f"{h.cards} from {h.player}'s Hand" for h in e.hands)
        return (f"retired pack {e.number}, {e.name}, under {e.proposal!r}: {e.deck} card(s) "
                f"left the Deck" + (f", {hands}" if hands else ""))
    if isinstance(e, DiceCommitted):
        return f"opened dice period {e.period}, commitment {e.commitment}"
    if isinstance(e, DiceRevealed):
        seed = f": {e.seed}" if reveal else f" {HIDDEN_NOTE}"
        return f"revealed the seed of dice period {e.period}{seed}"
    if isinstance(e, CardDealt):
        card = (f"{card_label(state, e.card)} (card {e.card})" if reveal
                else f"a card {HIDDEN_NOTE}")
        return f"dealt {e.player} {card} with {_dice(e.dice)}; reason: {e.reason}"
    if isinstance(e, DealRefused):
        return f"refused to deal {e.player} a card ({e.reason}): {e.refused}"
    if isinstance(e, CardTransferred):
        card = card_label(state, e.card) if reveal else "a card"
        return f"{card}: {_holder(e.from_)} -> {_holder(e.to)} under {e.rule!r}"
    if isinstance(e, NoticeSent):
        return f"mailed the notice of event {e.notice}" + (f" to {rec.subject}"
                                                            if rec.subject else "")
    if isinstance(e, NoticeFailed):
        why = f" <{e.address}>: {e.reply}" if reveal else f" {HIDDEN_NOTE}"
        return f"the mail server refused the notice of event {e.notice}{why}"
    if isinstance(e, ClockStopped):
        return "switched the Clock Off"
    if isinstance(e, ClockStarted):
        return "switched the Clock On"
    if isinstance(e, VotesRecorded):
        votes = [f"{v.player} on proposal {v.proposal}" for v in e.votes]
        source = "" if e.source == "vote" else f" from {e.source}"
        owed = [f"{o.player} ({o.cards} for nweek {o.nweek})" for o in e.owed]
        later = f"; late votes owed later: {_listed(owed)}" if owed else ""
        return f"recorded {_plural(len(votes), 'vote')}{source}: {_listed(votes)}{later}"
    if isinstance(e, NweekStarted):
        dealt = f": {_listed(e.dealt)}" if e.dealt else ""
        not_dealt = (f"; not dealt: {_listed([f'{n.player} ({n.reason})' for n in e.not_dealt])}"
                     if e.not_dealt else "")
        start = f" (from {e.start})" if e.start else ""
        paid = (f"; owed cards dealt: "
                f"{_listed([f'{p.player} ({p.cards} for nweek {p.nweek})' for p in e.paid])}"
                if e.paid else "")
        return (f"nweek {e.nweek} started{start}; Cards for Votes dealt to "
                f"{_plural(len(e.dealt), 'voter')}{dealt}{not_dealt}{paid}")
    if isinstance(e, ReportPublished):
        return f"published the Dealer's Report for nweek {e.nweek}"
    if isinstance(e, ReportsPosted):
        nweeks = _listed([str(k) for k in e.nweeks])
        return f"posted the Dealer's Report for nweek {nweeks} to the list"
    said = e.summary(state, reveal=reveal)  # a card game's kind (and Points) describe
    if said is not None:                     # themselves
        return said
    return ", ".join(f"{k}={v}" for k, v in rec.payload.items()
                     if not isinstance(v, dict | list))
