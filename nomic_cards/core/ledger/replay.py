"""The pure fold: ``apply(state, record)`` and ``replay(records) -> State``.

Every effect an event has on the game is here and only here: one step per event class,
registered with :func:`step`, each changing the state only through
:class:`~nomic_cards.core.ledger.state.State`'s methods (which the store's projector turns into
table writes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar

from nomic_cards.cards import CARDS_PER_PACK
from nomic_cards.core import installed, resolution, ruleset
from nomic_cards.core.ledger import claims, mailing
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.chain import card_commitment
from nomic_cards.core.ledger.decisions import ballots_of, resolution_of
from nomic_cards.core.ledger.events import Event, EventRecord
from nomic_cards.core.ledger.points import pay
from nomic_cards.core.ledger.state import (
    POINTS,
    BallotState,
    DealRecord,
    DecisionState,
    Lane,
    LaneError,
    NoticeRecord,
    ReplayError,
    ReportRecord,
    RollRecord,
    RuleChange,
    State,
    StrengthState,
    VoteRecord,
)
from nomic_cards.errors import InputError, NomicCardsError, RuleViolation

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
    """Apply one event's effects to ``state`` (mutating it); a card game's event in its lane
    (:func:`_in_lane`)."""
    fn = _STEPS.get(type(event))
    if fn is None:
        raise ReplayError(f"no replay step for event kind {event.KIND!r}")
    if state.lane is not None:
        raise LaneError(f"card game {state.lane.game}'s event applied another event from "
                        "inside its own")
    game = ev.game_of_event(event)
    if game is None:
        fn(state, event, seq, at)
    else:
        _in_lane(state, game, fn, event, seq, at)
    state.seq = seq


def _in_lane(state: State, game: str, fn: Callable[[State, Any, int, datetime], None],
             event: Event, seq: int, at: datetime) -> None:
    """Apply card game ``game``'s event: its step may move only the cards of the packs bound
    to the game by its rule in force and Points only through ``pay``, as that game, and the
    movements paid must be those its ``points_moves()`` lists, each citing the game
    (docs/games.md, "What a game may change"). The state's methods refuse the rest while the
    step runs; after it, what the record rests on -- who holds each card, the Points accounts
    -- is checked against what the methods did, so that no change made past them stands."""
    rule = state.rules.get(game)
    packs = str(rule.params.get("packs", "")) if rule is not None and rule.in_force else ""
    lane = Lane(game, frozenset(int(n) for n in packs.split(",") if n))
    owners, accounts = dict(state.owner), _accounts(state.games_data.get(POINTS))
    state.lane = lane
    try:
        fn(state, event, seq, at)
    finally:
        state.lane = None
    owners.update(lane.moved)
    if state.owner != owners:  # written past State.move
        changed = sorted(c for c in {*owners, *state.owner}
                         if owners.get(c, "?") != state.owner.get(c, "?"))
        raise LaneError(lane.foreign(state, changed) or f"card game {game}'s event changed who "
                        "holds a card other than by State.move")
    if state.games_data.get(POINTS) != (lane.accounts if lane.paid else accounts):
        raise LaneError(f"card game {game}'s event changed Points other than by paying them "
                        "(the SDK's pay)")
    said = [(m.source, m.target, m.points) for m in event.points_moves() if m.points]
    if sorted(map(_move_key, lane.paid)) != sorted(map(_move_key, said)) or \
            (lane.paid and not event.MOVES_POINTS):
        raise LaneError(f"card game {game}'s {event.KIND} event paid {_moves(lane.paid)} but "
                        f"says it moved {_moves(said)} (its points_moves"
                        f"{'' if event.MOVES_POINTS else ', MOVES_POINTS unset'})")
    for m in event.points_moves():
        if not re.match(rf"card game {re.escape(game)}(?![a-z0-9-])", m.rule):
            raise LaneError(f"card game {game}'s {event.KIND} event cites {m.rule!r} for a "
                            f"movement of Points: a card game's cite it by name (card game "
                            f"{game})")


def _accounts(data: Any) -> Any:
    """A copy of the Points accounts (``{"players": {name: points}, "bank": points}``)."""
    return None if data is None else {**data, "players": dict(data["players"])}


def _move_key(move: tuple[str | None, str | None, int]) -> tuple[str, str, int]:
    source, target, points = move
    return ("" if source is None else f"={source}", "" if target is None else f"={target}",
            points)


def _moves(moves: list[tuple[str | None, str | None, int]]) -> str:
    return ", ".join(f"{p} Point(s) {s or ev.BANK} -> {t or ev.BANK}" for s, t, p in moves) \
        or "none"


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
    for spec in (r for r in ruleset.RULES if r.name in e.rules):
        state.change_rule(RuleChange(seq, at, spec.name, ruleset.ENACTED, True, spec.versions[0],
                                     spec.defaults(e.settings), ruleset.INIT,
                                     1 if spec.name == "nweeks" else None))


@step(ev.PlayerRegistered)
def _player_registered(state: State, e: ev.PlayerRegistered, seq: int, at: datetime) -> None:
    state.register(e.name, e.email, seq)


@step(ev.PlayerEmailSet)
def _player_email_set(state: State, e: ev.PlayerEmailSet, seq: int, at: datetime) -> None:
    state.set_email(e.name, e.email)
    pending = mailing.address_pending(state, e.name)
    if e.confirms:
        if pending is None or pending["request"] != e.confirms or "link" not in pending:
            raise ReplayError(f"{e.name}'s address confirmed by the link of event "
                              f"{e.confirms}, which is not the change waiting for it")
        if at >= ev.parse_time(pending["expires"]):
            raise ReplayError(f"{e.name}'s address confirmed by the link of event "
                              f"{e.confirms} after it expired ({pending['expires']})")
    if pending is not None:  # confirmed, or set by an officer: nothing waits any more
        data = mailing.mail_part(state)
        del data["address"][e.name]
        mailing.put_mail_part(state, data, seq)


@step(ev.MailChosen)
def _mail_chosen(state: State, e: ev.MailChosen, seq: int, at: datetime) -> None:
    state.player(e.name)
    if e.mail not in ev.MAIL_CHOICES:
        raise ReplayError(f"{e.name} chose to be mailed {e.mail!r}, not one of "
                          f"{', '.join(ev.MAIL_CHOICES)}")
    data = mailing.mail_part(state)
    if e.mail == "each":
        data["mail"].pop(e.name, None)
    else:
        data["mail"][e.name] = e.mail
    mailing.put_mail_part(state, data, seq)


@step(ev.AddressAsked)
def _address_asked(state: State, e: ev.AddressAsked, seq: int, at: datetime) -> None:
    mailing.need_player(state, e.name, "an address change asked")
    data = mailing.mail_part(state)
    data["address"][e.name] = {"request": seq}  # a new one replaces the change waiting
    mailing.note_asked(data, e.name, "address", at)
    mailing.put_mail_part(state, data, seq)


@step(ev.AddressLinked)
def _address_linked(state: State, e: ev.AddressLinked, seq: int, at: datetime) -> None:
    pending = mailing.address_pending(state, e.name)
    if pending is None or pending["request"] != e.request or "link" in pending:
        raise ReplayError(f"a confirmation link for the address change of event {e.request}, "
                          "which does not wait for one")
    data = mailing.mail_part(state)
    if e.expires:
        data["address"][e.name] = {"request": e.request, "link": seq, "sha": e.secret_sha256,
                                   "expires": e.expires}
    else:  # refused for good: the change is dropped
        del data["address"][e.name]
    mailing.put_mail_part(state, data, seq)


@step(ev.TokenAsked)
def _token_asked(state: State, e: ev.TokenAsked, seq: int, at: datetime) -> None:
    mailing.need_player(state, e.name, "a new token asked")
    data = mailing.mail_part(state)
    data["token"][e.name] = seq
    mailing.note_asked(data, e.name, "token", at)
    mailing.put_mail_part(state, data, seq)


@step(ev.TokenMailed)
def _token_mailed(state: State, e: ev.TokenMailed, seq: int, at: datetime) -> None:
    if mailing.tokens_due(state).get(e.name) != e.request:
        raise ReplayError(f"a new token for {e.name} answering event {e.request}, which is "
                          "not the request waiting")
    data = mailing.mail_part(state)
    del data["token"][e.name]
    mailing.put_mail_part(state, data, seq)


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


@step(ev.NoticesMailed)
def _notices_mailed(state: State, e: ev.NoticesMailed, seq: int, at: datetime) -> None:
    refused = tuple(r.notice for r in e.refused)
    for listed in (e.notices, e.sealed, refused):
        if list(listed) != sorted(set(listed)):
            raise ReplayError("a sending lists its notices in notice order, each once")
    if len({*e.notices, *e.sealed, *refused}) != len(e.notices) + len(e.sealed) + len(refused):
        raise ReplayError("a sending lists a notice both as mailed and as refused")
    for notice in sorted((*e.notices, *e.sealed)):
        state.mark_notice_sent(notice, seq)
    for r in e.refused:
        state.mark_notice_failed(r.notice, seq, r.address)


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
        _late_owed(state, e.owed, [(v.player, v.at) for v in e.votes])


def _late_owed(state: State, owed: tuple[ev.LateOwed, ...],
               votes: list[tuple[str, datetime]]) -> None:
    """Late votes owed later: each a vote of this event in an nweek whose Cards for Votes were
    already dealt, by a voter who is the Dealer or retired, under rule 9 in force with
    ``absent=owe``, owed the cards per voter in force."""
    cfv = state.rule("cards-for-votes")
    owe = cfv is not None and cfv.in_force and cfv.params.get("absent") == "owe"
    cards = int(cfv.params.get("cards", 1)) if cfv is not None else 1
    cal = state.calendar()
    for o in owed:
        voted = cal is not None and any(
            player == o.player and cal.nweek_of(when) == o.nweek for player, when in votes)
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
    if claims.days(state) > 0:  # handed to the list by cron's output: posted now
        data = claims.claims_part(state)
        for k in e.nweeks:
            data["quiet"].setdefault(str(k), at.isoformat())
        claims.put_claims_part(state, data, seq)


@step(ev.ListPosted)
def _list_posted(state: State, e: ev.ListPosted, seq: int, at: datetime) -> None:
    if e.what == "report":
        missing = [k for k in e.ids if not k.isdigit()
                   or (state.history and int(k) not in state.reports)]
        if missing:
            raise ReplayError(f"a report posted that was never published: nweek {missing[0]}")
    elif e.what == "resolution":
        unresolved = [d for d in e.ids if d not in state.decisions
                      or state.decisions[d].resolved_seq is None]
        if unresolved:
            raise ReplayError(f"the resolution of decision {unresolved[0]} was posted before "
                              "it was resolved")
    else:
        raise ReplayError(f"posted to the list something that is neither a report nor a "
                          f"resolution: {e.what!r}")
    if not e.ids:
        raise ReplayError("posted to the list nothing: no nweek and no decision named")
    if e.what == "report" and e.to_list and claims.days(state) > 0:
        data = claims.claims_part(state)
        for k in e.ids:
            data["quiet"].setdefault(k, at.isoformat())
        claims.put_claims_part(state, data, seq)


@step(ev.ReportDoubted)
def _report_doubted(state: State, e: ev.ReportDoubted, seq: int, at: datetime) -> None:
    if claims.days(state) <= 0:
        raise ReplayError(f"the Dealer's Report for nweek {e.nweek} was doubted while claims "
                          "of error are off (rule 8's doubt_days is 0)")
    player = state.player(e.player)
    if not player.active:
        raise ReplayError(f"{e.player} doubted a report while retired")
    data = claims.claims_part(state)
    if str(e.nweek) not in data["quiet"]:
        raise ReplayError(f"the Dealer's Report for nweek {e.nweek} was doubted, but it is not "
                          "a report posted to the list and not yet ratified")
    if not e.claim.strip():
        raise ReplayError("a claim of error that says nothing")
    data["doubts"][str(seq)] = {"nweek": e.nweek, "player": e.player}
    claims.put_claims_part(state, data, seq)


def _close_doubt(state: State, doubt: int, seq: int, at: datetime) -> None:
    found = claims.open_doubt(state, doubt)
    data = claims.claims_part(state)
    del data["doubts"][str(doubt)]
    nweek = str(found["nweek"])
    if not any(str(d["nweek"]) == nweek for d in data["doubts"].values()):
        data["quiet"][nweek] = at.isoformat()  # undoubted from now
    claims.put_claims_part(state, data, seq)


@step(ev.ReportDenied)
def _report_denied(state: State, e: ev.ReportDenied, seq: int, at: datetime) -> None:
    _close_doubt(state, e.doubt, seq, at)


@step(ev.ReportRevised)
def _report_revised(state: State, e: ev.ReportRevised, seq: int, at: datetime) -> None:
    if not e.correction.strip():
        raise ReplayError(f"a revision of the report doubted by event {e.doubt} that says "
                          "nothing")
    _close_doubt(state, e.doubt, seq, at)


@step(ev.ReportDoubtWithdrawn)
def _doubt_withdrawn(state: State, e: ev.ReportDoubtWithdrawn, seq: int, at: datetime) -> None:
    found = claims.open_doubt(state, e.doubt)
    if found["player"] != e.player:
        raise ReplayError(f"{e.player} withdrew the claim of error of event {e.doubt}, which "
                          f"is {found['player']}'s")
    _close_doubt(state, e.doubt, seq, at)


@step(ev.ReportRatified)
def _report_ratified(state: State, e: ev.ReportRatified, seq: int, at: datetime) -> None:
    when = claims.due(state).get(e.nweek)
    if when is None:
        raise ReplayError(f"the Dealer's Report for nweek {e.nweek} was ratified, but it is "
                          "not a posted report standing undoubted")
    if at < when:
        raise ReplayError(f"the Dealer's Report for nweek {e.nweek} was ratified at "
                          f"{at.isoformat()}, before it had stood undoubted {e.days} days "
                          f"({when.isoformat()})")
    data = claims.claims_part(state)
    del data["quiet"][str(e.nweek)]
    claims.put_claims_part(state, data, seq)


def _spec(name: str) -> ruleset.RuleSpec:
    spec = installed.spec(name)
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


# --- the nomic's decisions ------------------------------------------------------------------


def _is_player(state: State, name: str) -> bool:
    return name in state.players


@step(ev.DecisionOpened)
def _decision_opened(state: State, e: ev.DecisionOpened, seq: int, at: datetime) -> None:
    if e.id in state.decisions:
        raise ReplayError(f"decision {e.id} was opened twice")
    try:
        resolution.check_id(e.id)
        if resolution.parse_ai(e.ai) != e.ai:
            raise ReplayError(f"decision {e.id}'s adoption index {e.ai!r} is not written as "
                              "the record writes one")
        closes = ev.parse_time(e.closes)
    except (InputError, ValueError) as exc:
        raise ReplayError(f"decision {e.id} cannot be opened: {exc}") from None
    low, high = resolution.STRENGTH_LOW, resolution.STRENGTH_HIGH
    if e.klass not in resolution.CLASSES or e.quorum < 0 or \
            not low <= e.strength_default <= high or \
            any(not low <= s.strength <= high for s in e.strengths):
        raise ReplayError(f"decision {e.id} is opened with a class, quorum or strength the "
                          "rules do not know")
    unknown = [s.player for s in e.strengths if not _is_player(state, s.player)]
    if unknown:
        raise ReplayError(f"decision {e.id} gives a strength to {unknown[0]}, who is not a "
                          "player")
    if closes <= at:
        raise ReplayError(f"decision {e.id} closes ({e.closes}) before it was opened")
    params = {"title": e.title, "author": e.author, "coauthors": list(e.coauthors),
              "class": e.klass, "ai": e.ai, "quorum": e.quorum,
              "strength_default": e.strength_default,
              "strengths": {s.player: s.strength for s in e.strengths},
              "changes": [codec_change(c) for c in e.changes], "source": e.source}
    state.open_decision(DecisionState(e.id, seq, at, closes, params))


def codec_change(c: ev.CarriedChange) -> dict[str, object]:
    """A carried rule change as the decision's state keeps it (JSON-ready)."""
    return {"action": c.action, "rule": c.rule, "sets": list(c.sets), "version": c.version,
            "packs": c.packs}


def open_decision(state: State, id: str, at: datetime) -> DecisionState:
    """The decision ``id`` if a ballot may still be cast on it at ``at``, else
    :class:`RuleViolation` saying why (unknown, resolved, closed)."""
    decision = state.decisions.get(id)
    if decision is None:
        raise RuleViolation(f"there is no decision {id} on the ledger")
    if decision.resolved_seq is not None:
        raise RuleViolation(f"decision {id} is resolved ({decision.outcome}): its voting "
                            f"ended {ev.utc(decision.closes).strftime('%Y-%m-%dT%H:%M:%SZ')}")
    if at > decision.closes:
        raise RuleViolation(f"decision {id}'s voting ended "
                            f"{ev.utc(decision.closes).strftime('%Y-%m-%dT%H:%M:%SZ')}: a "
                            "ballot cast after it is not counted")
    return decision


def verify_ballot(state: State, id: str, player: str, *, option: str | None,
                  endorse: str | None, at: datetime) -> DecisionState:
    """Whether ``player`` may cast this ballot on decision ``id`` at ``at``: the decision
    open, e an active player, the option known or the endorsed a player and no loop, and no
    earlier than the ballot it replaces; the decision."""
    decision = open_decision(state, id, at)
    p = state.players.get(player)
    if p is None or not p.active:
        raise RuleViolation(f"{player} is not an active player: only a player votes")
    if (option is None) == (endorse is None):
        raise RuleViolation("a ballot is an option (FOR, AGAINST or PRESENT) or an "
                            "endorsement, exactly one")
    if option is not None and option not in resolution.OPTIONS:
        raise RuleViolation(f"a ballot's option is FOR, AGAINST or PRESENT, not {option!r}")
    if endorse is not None:
        if not _is_player(state, endorse):
            raise RuleViolation(f"{endorse} is not a player: only a player may be endorsed")
        standing = ballots_of(decision)
        standing.pop(player, None)
        resolution.verify_endorsement(standing, player, endorse)
    before = decision.ballots.get(player)
    if before is not None and at < before.at:
        raise RuleViolation(f"{player}'s ballot on decision {id} replaces one cast at "
                            f"{ev.utc(before.at).isoformat()}: a later ballot cannot be cast "
                            "before it")
    if at < decision.opened_at:
        raise RuleViolation(f"decision {id} was not open yet at {ev.utc(at).isoformat()}")
    return decision


@step(ev.BallotCast)
def _ballot_cast(state: State, e: ev.BallotCast, seq: int, at: datetime) -> None:
    if e.at > at:
        raise ReplayError(f"a ballot of {e.player} cast at {ev.utc(e.at).isoformat()}, after it "
                          "was recorded")
    decision = verify_ballot(state, e.decision, e.player, option=e.option, endorse=e.endorse,
                             at=e.at)
    if at > decision.closes:
        raise ReplayError(f"a ballot on decision {e.decision} recorded after its voting ended")
    if e.owed:
        _late_owed(state, e.owed, [(e.player, e.at)])
    state.add_ballot(BallotState(seq, e.decision, e.player, e.at, e.option, e.endorse,
                                 e.as_cast, e.source, e.comment))


@step(ev.DecisionResolved)
def _decision_resolved(state: State, e: ev.DecisionResolved, seq: int, at: datetime) -> None:
    decision = state.decisions.get(e.decision)
    if decision is None or decision.resolved_seq is not None:
        raise ReplayError(f"decision {e.decision} is resolved, but it is not open")
    if at < decision.closes:
        raise ReplayError(f"decision {e.decision} was resolved before its voting ended")
    right = resolution_of(state, decision)
    if e != right:
        raise ReplayError(f"decision {e.decision}'s resolution does not follow from its "
                          f"ballots and strengths: it says {e.outcome} ({e.f}/{e.a}, "
                          f"{e.ballots} ballot(s)), they give {right.outcome} "
                          f"({right.f}/{right.a}, {right.ballots})")
    state.resolve_decision(e.decision, seq, e.outcome)


#: how long before a decision closes the players who have not voted on it are told
REMIND_BEFORE = timedelta(days=1)


def unvoted(state: State, decision: DecisionState) -> tuple[str, ...]:
    """The active players with no ballot standing on ``decision``, sorted."""
    return tuple(sorted(p.name for p in state.players.values()
                        if p.active and p.name not in decision.ballots))


@step(ev.DecisionReminded)
def _decision_reminded(state: State, e: ev.DecisionReminded, seq: int, at: datetime) -> None:
    decision = state.decisions.get(e.decision)
    if decision is None or decision.resolved_seq is not None or \
            decision.reminded_seq is not None:
        raise ReplayError(f"a reminder of decision {e.decision}, which is not open or was "
                          "reminded already")
    if at < decision.closes - REMIND_BEFORE or at > decision.closes:
        raise ReplayError(f"decision {e.decision}'s reminder is not a day before it closes")
    if e.players != unvoted(state, decision):
        raise ReplayError(f"decision {e.decision}'s reminder names other players than those "
                          "who had not voted")
    state.remind_decision(e.decision, seq)


@step(ev.StrengthSet)
def _strength_set(state: State, e: ev.StrengthSet, seq: int, at: datetime) -> None:
    if not _is_player(state, e.player):
        raise ReplayError(f"a voting strength set for {e.player}, who is not a player")
    if e.strength is not None and not \
            resolution.STRENGTH_LOW <= e.strength <= resolution.STRENGTH_HIGH:
        raise ReplayError(f"{e.player}'s voting strength {e.strength} is outside 0 to 15")
    if not e.reason.strip():
        raise ReplayError("a voting strength is set with a reason")
    state.set_strength(e.player, None if e.strength is None
                       else StrengthState(e.strength, e.reason, seq))


@step(ev.PointsMoved)
def _points_moved(state: State, e: ev.PointsMoved, seq: int, at: datetime) -> None:
    if e.points < 1 or not e.rule.strip():
        raise ReplayError("a movement of points moves 1 or more and cites a rule")
    if e.from_ == e.to:
        raise ReplayError("points moved from an account to itself")
    pay(state, e.from_, e.to, e.points, seq)


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

