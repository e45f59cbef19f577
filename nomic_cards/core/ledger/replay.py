"""The pure fold: ``apply(state, record)`` and ``replay(records) -> State``.

Every effect an event has on the game is here and only here: one step per event class,
registered with :func:`step`, each changing the state only through
:class:`~nomic_cards.core.ledger.state.State`'s methods (which the store's projector turns into
table writes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from nomic_cards.cards import CARDS_PER_PACK
from nomic_cards.core import installed, ruleset
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.chain import card_commitment
from nomic_cards.core.ledger.events import Event, EventRecord
from nomic_cards.core.ledger.state import (
    DealRecord,
    NoticeRecord,
    ReplayError,
    ReportRecord,
    RollRecord,
    RuleChange,
    State,
    VoteRecord,
)
from nomic_cards.errors import NomicCardsError

__all__ = ["ReplayError", "apply", "apply_event", "deal_rolls", "replay", "step"]


def deal_rolls(e: ev.CardDealt) -> tuple[RollRecord, ...]:
    """The rolls of a deal, in order, with their faces."""
    d = e.dice
    return tuple(RollRecord(i, value, d.sides, d.source, d.period,
                            None if d.first is None else d.first + i)
                 for i, value in enumerate(e.values))


#: event class -> its replay step
_STEPS: dict[type[Event], Callable[[State, Any, int, datetime], None]] = {}
E = TypeVar("E", bound=Event)


def step(kind: type[E]) -> Callable[[Callable[[State, E, int, datetime], None]],
                                    Callable[[State, E, int, datetime], None]]:
    """Decorator: the replay step of an event class, ``fn(state, event, seq, at)``."""

    def register(fn: Callable[[State, E, int, datetime], None]
                 ) -> Callable[[State, E, int, datetime], None]:
        if kind in _STEPS:
            raise ValueError(f"event kind {kind.KIND!r} has a replay step already")
        _STEPS[kind] = fn
        return fn

    return register


def apply_event(state: State, seq: int, event: Event, at: datetime) -> None:
    """Apply one event's effects to ``state`` (mutating it)."""
    fn = _STEPS.get(type(event))
    if fn is None:
        raise ReplayError(f"no replay step for event kind {event.KIND!r}")
    fn(state, event, seq, at)
    state.seq = seq


@step(ev.GameCreated)
def _game_created(state: State, e: ev.GameCreated, seq: int, at: datetime) -> None:
    if state.initialised:
        raise ReplayError("game created twice")
    state.set_settings(e.settings)
    for pack in e.packs:
        state.add_pack(pack.name, pack.back, seq)
    state.register(e.dealer, None, seq)
    state.start_dealer_term(e.dealer, seq)
    # the Cards proposal's rules, and the calendar's, as enacted by init
    for spec in ruleset.RULES:
        state.change_rule(RuleChange(seq, at, spec.name, ruleset.ENACTED, True, spec.versions[0],
                                     spec.defaults(e.settings), ruleset.INIT,
                                     1 if spec.name == "nweeks" else None))


@step(ev.PlayerRegistered)
def _player_registered(state: State, e: ev.PlayerRegistered, seq: int, at: datetime) -> None:
    state.register(e.name, e.email, seq)


@step(ev.PlayerEmailSet)
def _player_email_set(state: State, e: ev.PlayerEmailSet, seq: int, at: datetime) -> None:
    state.set_email(e.name, e.email)


@step(ev.PlayerRetired)
def _player_retired(state: State, e: ev.PlayerRetired, seq: int, at: datetime) -> None:
    state.retire(e.name, seq)
    state.move(e.returned, None, seq)


@step(ev.PlayerRejoined)
def _player_rejoined(state: State, e: ev.PlayerRejoined, seq: int, at: datetime) -> None:
    state.rejoin(e.name)


@step(ev.DealerElected)
def _dealer_elected(state: State, e: ev.DealerElected, seq: int, at: datetime) -> None:
    state.player(e.name)
    state.start_dealer_term(e.name, seq)
    state.move(e.merged, None, seq)


@step(ev.PackAdded)
def _pack_added(state: State, e: ev.PackAdded, seq: int, at: datetime) -> None:
    if e.number != len(state.packs):
        raise ReplayError(f"pack numbered {e.number}, expected {len(state.packs)}")
    state.add_pack(e.name, e.back, seq)


@step(ev.PackRetired)
def _pack_retired(state: State, e: ev.PackRetired, seq: int, at: datetime) -> None:
    problem = state.retire_problem(e.number)
    if problem is not None:
        raise ReplayError(problem)
    if state.packs[e.number].name != e.name:
        raise ReplayError(f"pack {e.number} retired as {e.name!r}, but it is named "
                          f"{state.packs[e.number].name!r}")
    held: dict[str, int] = {}
    deck = 0
    for card in range(e.number * CARDS_PER_PACK + 1, (e.number + 1) * CARDS_PER_PACK + 1):
        holder = state.owner.get(card)
        if holder is None:
            deck += 1
        else:
            held[holder] = held.get(holder, 0) + 1
    said = {h.player: h.cards for h in e.hands}
    if deck != e.deck or said != held or len(said) != len(e.hands):
        raise ReplayError(f"pack {e.number}'s retirement records {e.deck} card(s) leaving the "
                          f"Deck and {sum(said.values())} leaving Hands, but {deck} were in the "
                          f"Deck and {sum(held.values())} in Hands")
    state.retire_pack(e.number, seq)


@step(ev.DiceCommitted)
def _dice_committed(state: State, e: ev.DiceCommitted, seq: int, at: datetime) -> None:
    state.open_period(e.period, e.commitment, seq)


@step(ev.DiceRevealed)
def _dice_revealed(state: State, e: ev.DiceRevealed, seq: int, at: datetime) -> None:
    state.reveal_period(e.period, e.seed, seq)


@step(ev.CardDealt)
def _card_dealt(state: State, e: ev.CardDealt, seq: int, at: datetime) -> None:
    if state.owner.get(e.card, "?") is not None:
        raise ReplayError(f"card {e.card} was dealt but it is not in the Deck")
    if e.dice.sides != state.sides:
        raise ReplayError(f"card {e.card} was dealt with a d{e.dice.sides}, but the packs in "
                          f"play make the die a d{state.sides} (rule 5)")
    if len(e.values) != e.dice.count or not e.values or \
            state.card_of_face(e.values[-1]) != e.card:
        raise ReplayError(f"the {len(e.values)} roll(s) kept do not end with card {e.card}, "
                          f"the last of the {e.dice.count} roll(s) announced")
    if any(not 1 <= v <= e.dice.sides for v in e.values):
        raise ReplayError(f"a roll shows a face a d{e.dice.sides} does not have")
    if any(state.card_of_face(v) in state.deck for v in e.values[:-1]):
        raise ReplayError(f"the deal of card {e.card} rerolled a number that named a card in "
                          "the Deck (rule 5 rerolls only a card not in the Deck)")
    _card_commit(e.card, e.commit, e.salt)
    state.move((e.card,), e.player, seq)
    rolls = deal_rolls(e)
    for r in rolls:
        if r.period is not None and r.index is not None:
            state.use_rolls(r.period, r.index + 1)
    state.add_deal(DealRecord(seq, e.player, e.card, e.reason, None, rolls, e.nweek))
    state.add_notice(NoticeRecord(seq, e.player, e.notice))


def _card_commit(card: int, commit: str, salt: str) -> None:
    """A card's own commitment opens to it (when the salt is at hand: the Dealer's replay)."""
    if salt and card_commitment(salt, card) != commit:
        raise ReplayError(f"the commitment to card {card} does not open to it")


@step(ev.DealRefused)
def _deal_refused(state: State, e: ev.DealRefused, seq: int, at: datetime) -> None:
    state.player(e.player)
    state.add_deal(DealRecord(seq, e.player, None, e.reason, e.refused, (), e.nweek))


def _held(state: State, card: int) -> str | None:
    """Why a card game in force holds ``card`` now (its declaration's ``held``: no transfer
    may move it), or None. The games are reached as every rule event reaches them, by name
    through :mod:`nomic_cards.core.installed`; a rule of the proposal is no game."""
    for name, change in state.rules.items():
        game = installed.load(name) if change.in_force else None
        held = getattr(game, "held", None)
        why = held(state).get(card) if held is not None else None
        if why:
            return f"card game {name} holds it: {why}"
    return None


@step(ev.CardTransferred)
def _card_transferred(state: State, e: ev.CardTransferred, seq: int, at: datetime) -> None:
    if state.owner.get(e.card, "?") != e.from_:
        raise ReplayError(f"card {e.card} transferred from {e.from_!r}, who does not hold it")
    holding = _held(state, e.card)
    if holding is not None:
        raise ReplayError(f"card {e.card} was transferred, but {holding}")
    _card_commit(e.card, e.commit, e.salt)
    state.move((e.card,), e.to, seq)
    if e.notice is not None:
        if e.to is None:
            raise ReplayError(f"a notice about card {e.card} is addressed to the Deck")
        state.add_notice(NoticeRecord(seq, e.to, e.notice))


@step(ev.NoticeGiven)
def _notice_given(state: State, e: ev.NoticeGiven, seq: int, at: datetime) -> None:
    state.player(e.player)
    state.add_notice(NoticeRecord(seq, e.player, e.notice))


@step(ev.SealedNotice)
def _notice_sealed(state: State, e: ev.SealedNotice, seq: int, at: datetime) -> None:
    state.player(e.player)
    state.add_notice(NoticeRecord(seq, e.player, e.notice))


@step(ev.NoticeSent)
def _notice_sent(state: State, e: ev.NoticeSent, seq: int, at: datetime) -> None:
    state.mark_notice_sent(e.notice, seq)


@step(ev.NoticeFailed)
def _notice_failed(state: State, e: ev.NoticeFailed, seq: int, at: datetime) -> None:
    state.mark_notice_failed(e.notice, seq, e.address)


@step(ev.ClockStopped)
def _clock_stopped(state: State, e: ev.ClockStopped, seq: int, at: datetime) -> None:
    state.stop_clock(e.at, seq)


@step(ev.ClockStarted)
def _clock_started(state: State, e: ev.ClockStarted, seq: int, at: datetime) -> None:
    state.start_clock(e.at, seq)


@step(ev.VotesRecorded)
def _votes_recorded(state: State, e: ev.VotesRecorded, seq: int, at: datetime) -> None:
    state.add_votes(tuple(VoteRecord(seq, v.player, v.proposal, v.at) for v in e.votes))
    if e.owed:
        _late_owed(state, e)


def _late_owed(state: State, e: ev.VotesRecorded) -> None:
    """Late votes owed later: each a vote of this event in an nweek whose Cards for Votes were
    already dealt, by a voter who is the Dealer or retired, under rule 9 in force with
    ``absent=owe``, owed the cards per voter in force."""
    cfv = state.rule("cards-for-votes")
    owe = cfv is not None and cfv.in_force and cfv.params.get("absent") == "owe"
    cards = int(cfv.params.get("cards", 1)) if cfv is not None else 1
    cal = state.calendar()
    for o in e.owed:
        voted = cal is not None and any(
            v.player == o.player and cal.nweek_of(v.at) == o.nweek for v in e.votes)
        if not (owe and voted and o.cards == cards > 0 and o.nweek + 1 in state.nweeks
                and _absent(state, o.player)):
            raise ReplayError(f"a late vote of {o.player} in nweek {o.nweek} is recorded owed "
                              f"{o.cards} card(s), but rule 9 in force does not owe them")
        state.owe(o.player, o.nweek, o.cards)


@step(ev.NweekStarted)
def _nweek_started(state: State, e: ev.NweekStarted, seq: int, at: datetime) -> None:
    cfv = state.rule("cards-for-votes")
    if cfv is not None and e.dealt:  # Cards for Votes as the rule in force said
        allowed = int(cfv.params.get("cards", 1)) if cfv.in_force else 0
        most = max(e.dealt.count(p) for p in set(e.dealt))
        if most > allowed:
            raise ReplayError(f"nweek {e.nweek}'s Cards for Votes dealt {most} card(s) to one "
                              f"voter, but rule 9 in force {_allows(cfv.in_force, allowed)}")
    _owed(state, e, cfv)
    cal = state.calendar()
    boundary = cal.start_of(e.nweek) if cal is not None and e.start is not None else None
    if boundary is not None:  # the boundary as the calendar rule in force puts it
        if e.start != boundary.strftime("%Y-%m-%dT%H:%M:%SZ"):
            raise ReplayError(f"nweek {e.nweek} is recorded as beginning {e.start}, but the "
                              f"calendar in force has it begin "
                              f"{boundary.strftime('%Y-%m-%dT%H:%M:%SZ')}")
        if at < boundary:
            raise ReplayError(f"nweek {e.nweek} was started before it began ({e.start})")
    state.mark_nweek(e.nweek, seq)


def _owed(state: State, e: ev.NweekStarted, cfv: RuleChange | None) -> None:
    """Cards for Votes owed later (``absent=owe``; docs/rules.md, "Owed later"): the debts paid
    at this start were owed and their players present; a voter is owed exactly when the rule in
    force said so; no present player's debt is left unpaid while the Deck still holds cards."""
    in_force = cfv is None or cfv.in_force
    owe = cfv is not None and cfv.in_force and cfv.params.get("absent") == "owe"
    cards = int(cfv.params.get("cards", 1)) if cfv is not None else 1
    for p in e.paid:
        left = state.owed.get((p.player, p.nweek), 0)
        if not in_force or p.cards < 1 or p.cards > left or not _present(state, p.player):
            raise ReplayError(f"nweek {e.nweek} dealt {p.player} {p.cards} card(s) owed for "
                              f"nweek {p.nweek}, but {left} were owed to a "
                              f"{'present' if _present(state, p.player) else 'absent'} player "
                              f"under rule 9 {'in force' if in_force else 'repealed'}")
    for n in e.not_dealt:
        absent = n.player in e.voters and _absent(state, n.player)
        due = cards if owe and cards > 0 and absent else 0
        if n.owed != due and (n.owed or absent):
            raise ReplayError(f"nweek {e.nweek} records {n.player} owed {n.owed} card(s), but "
                              f"rule 9 in force owes {due}")
    state.settle_owed(e.nweek, ((n.player, n.owed) for n in e.not_dealt),
                      ((p.player, p.nweek, p.cards) for p in e.paid))
    if in_force and state.deck:
        for (player, voted), left in state.owed.items():
            if left and _present(state, player):
                raise ReplayError(f"nweek {e.nweek} left {player} owed {left} card(s) for "
                                  f"nweek {voted} with cards in the Deck (rule 9, absent=owe)")


def _present(state: State, player: str) -> bool:
    p = state.players.get(player)
    return p is not None and p.active and state.dealer != player


def _absent(state: State, player: str) -> bool:
    p = state.players.get(player)
    return p is not None and (not p.active or state.dealer == player)


def _allows(in_force: bool, cards: int) -> str:
    return f"deals {cards} per voter" if in_force else "was repealed"


@step(ev.ReportPublished)
def _report_published(state: State, e: ev.ReportPublished, seq: int, at: datetime) -> None:
    if not state.in_force("report") and state.rule("report") is not None:
        raise ReplayError(f"the Dealer's Report for nweek {e.nweek} was published while rule 8 "
                          "was repealed")
    report = state.rule("report")
    if report is not None and report.in_force and report.version >= 2 and (
            "commitments" in e.report
            or any(isinstance(r, dict) and "cards" in r for r in e.report.get("received", ()))):
        raise ReplayError(f"the Dealer's Report for nweek {e.nweek} says how each card came, "
                          f"but rule 8 version {report.version} in force gives the Backs alone")
    out = e.rendered
    state.add_report(ReportRecord(e.nweek, seq, out.text, out.markdown, out.json))


@step(ev.ReportsPosted)
def _reports_posted(state: State, e: ev.ReportsPosted, seq: int, at: datetime) -> None:
    if state.history:
        missing = [k for k in e.nweeks if k not in state.reports]
        if missing:
            raise ReplayError(f"reports posted that were never published: nweek {missing[0]}")


def _spec(name: str) -> ruleset.RuleSpec:
    spec = ruleset.spec(name)
    if spec is None:
        raise ReplayError(f"no rule named {name!r} is known")
    return spec


@step(ev.RuleEnacted)
def _rule_enacted(state: State, e: ev.RuleEnacted, seq: int, at: datetime) -> None:
    spec = _spec(e.rule)
    if state.in_force(e.rule):
        raise ReplayError(f"{spec.label} was enacted while in force")
    try:
        spec.check_version(e.version)
        params = {**spec.defaults(state.settings), **spec.check_params(e.params)}
    except NomicCardsError as exc:
        raise ReplayError(str(exc)) from None
    _check_game(state, spec, params)
    state.change_rule(RuleChange(seq, at, e.rule, ruleset.ENACTED, True, e.version, params,
                                 e.proposal, _from_nweek(state, spec, e.params, at)))


@step(ev.RuleAmended)
def _rule_amended(state: State, e: ev.RuleAmended, seq: int, at: datetime) -> None:
    spec = _spec(e.rule)
    now = state.rule(e.rule)
    if now is None or not now.in_force:
        raise ReplayError(f"{spec.label} was amended while not in force")
    try:
        version = now.version if e.version is None else spec.check_version(e.version)
        params = {**now.params, **spec.check_params(e.params, amending=True)}
    except NomicCardsError as exc:
        raise ReplayError(str(exc)) from None
    _check_game(state, spec, params)
    state.change_rule(RuleChange(seq, at, e.rule, ruleset.AMENDED, True, version, params,
                                 e.proposal, _from_nweek(state, spec, e.params, at)))


@step(ev.RuleRepealed)
def _rule_repealed(state: State, e: ev.RuleRepealed, seq: int, at: datetime) -> None:
    spec = _spec(e.rule)
    now = state.rule(e.rule)
    if now is None or not now.in_force:
        raise ReplayError(f"{spec.label} was repealed while not in force")
    if not spec.repealable:
        raise ReplayError(f"{spec.label} cannot be repealed")
    state.change_rule(RuleChange(seq, at, e.rule, ruleset.REPEALED, False, now.version,
                                 dict(now.params), e.proposal))


def _check_game(state: State, spec: ruleset.RuleSpec, params: Mapping[str, object]) -> None:
    """A card game (Rule 399) binds at least one pack, every one in play and in no other game
    in force."""
    if not spec.game:
        return
    problem = state.binding_problem(spec.name, str(params.get("packs", "")))
    if problem is not None:
        raise ReplayError(problem)


def _from_nweek(state: State, spec: ruleset.RuleSpec, params: Mapping[str, object],
                at: datetime) -> int | None:
    """The first nweek a new nweek length applies to: the one after the nweek in which the
    change is made (the current nweek keeps its length)."""
    if not any(p.at_boundary and p.name in params for p in spec.params):
        return None
    cal = state.calendar()
    if cal is None:
        raise ReplayError("the nweek's length changed in a game without a calendar")
    return max(1, cal.nweek_of(at) + 1)


def apply(state: State, record: EventRecord) -> None:
    """Apply a stored event and move the state's head to it."""
    apply_event(state, record.seq, record.event, record.at)
    state.head_hash = record.hash


def replay(
    records: Iterable[EventRecord], *, upto_seq: int | None = None,
    upto_time: datetime | None = None, history: bool = True,
) -> State:
    """Fold ``records`` (in order) into a fresh :class:`State`, optionally stopping after a
    sequence number or a time."""
    state = State(history=history)
    for rec in records:
        if upto_seq is not None and rec.seq > upto_seq:
            break
        if upto_time is not None and rec.at > upto_time:
            break
        apply(state, rec)
    return state


# Points (points.moved) registers its kind and step on import
from nomic_cards.core.ledger import points as _points  # noqa: E402,F401
