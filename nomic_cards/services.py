"""Use cases: each one opens one unit of work (one transaction), asks the rules what to do,
records the resulting events and returns a plain result object for an adapter to print.

``db`` everywhere is the ``--db`` value (None: ``nomic-cards.db`` in the working directory).
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from nomic_cards import dice as dice_mod
from nomic_cards.cards import Card, format_pack_card, parse_pack_card, spoon_card, spoon_number
from nomic_cards.clock import Clock, SystemClock
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.gameclock import Calendar
from nomic_cards.ledger import events as ev
from nomic_cards.ledger.events import EventRecord, NewEvent, parse_time
from nomic_cards.ledger.replay import replay
from nomic_cards.ledger.state import State
from nomic_cards.ledger.verify import Problem, check_chain_and_replay, compare
from nomic_cards.rules import cards_proposal as rules

# --- plumbing ----------------------------------------------------------------------------


def _actor() -> str:
    env = os.environ.get("NOMIC_CARDS_ACTOR")
    if env:
        return env
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # pragma: no cover - no login name
        return "unknown"


_ENGINES: dict[str, Any] = {}


def _engine(url: str) -> Any:
    """One engine per database URL per process, checked to be at the current schema once."""
    engine = _ENGINES.get(url)
    if engine is None:
        from nomic_cards.store.engine import make_engine
        from nomic_cards.store.migrate import require_current

        engine = make_engine(url)
        try:
            require_current(engine)
        except BaseException:
            engine.dispose()
            raise
        _ENGINES[url] = engine
    return engine


def url_for(db: str | None) -> str:
    from nomic_cards.store.engine import resolve_url

    return resolve_url(db)


@contextmanager
def _uow(db: str | None, *, write: bool = True, clock: Clock | None = None,
         actor: str | None = None) -> Iterator[Any]:
    from nomic_cards.store.uow import unit_of_work

    engine = _engine(url_for(db))
    with unit_of_work(engine, actor=actor or _actor(), clock=clock or SystemClock(),
                      write=write) as uow:
        if not uow.state.initialised:
            raise RuleViolation("this database holds no game yet: run `nomic-cards init`")
        yield uow


def forget_engines() -> None:
    """Dispose of the cached engines (tests that create and drop databases use this)."""
    while _ENGINES:
        _ENGINES.popitem()[1].dispose()


def card_label(state: State, number: int) -> str:
    """``Red Qh``."""
    pack, face = spoon_card(number)
    return format_pack_card(state.packs[pack].name, face)


def parse_card_ref(state: State, text: str) -> int:
    """A card by number (``90``) or by pack and face (``Red Qh``)."""
    t = text.strip()
    if t.isdigit():
        n = int(t)
        if n not in state.owner:
            raise NotFound(f"no card numbered {n} (cards run 1..{state.sides})")
        return n
    pack, face = parse_pack_card(t, [p.name for p in state.packs])
    return spoon_number(pack, face.suit, face.rank)


# --- init ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitResult:
    database: str
    created: bool
    revision: str
    packs: int
    cards: int
    dealer: str | None
    commitment: str | None


def init_game(
    db: str | None, *, packs: tuple[tuple[str, str], ...] = rules.DEFAULT_PACKS,
    dealer: str = rules.DEFAULT_DEALER, settings: dict[str, str] | None = None,
    clock: Clock | None = None, actor: str | None = None,
) -> InitResult:
    """Create or upgrade the schema; on an empty database, create the game (rules 2, 4, 7) and
    open the first dice period."""
    from nomic_cards.store.engine import display_url, make_engine
    from nomic_cards.store.migrate import head_revision, upgrade
    from nomic_cards.store.uow import unit_of_work

    url = url_for(db)
    engine = make_engine(url, must_exist=False)
    upgrade(engine)
    forget_engines()
    created = False
    commit_hex = None
    clock = clock or SystemClock()
    settings = {"epoch": clock.now().date().isoformat(), "nweek_days": "10", **(settings or {})}
    with unit_of_work(engine, actor=actor or _actor(), clock=clock) as uow:
        state = uow.state
        if not state.initialised:
            uow.record(rules.create_game(state, packs=packs, dealer=dealer, settings=settings))
            commit_hex = _open_period(uow)
            created = True
        state = uow.state
        result = InitResult(display_url(url), created, head_revision(), len(state.packs),
                            len(state.owner), state.dealer, commit_hex)
    engine.dispose()
    return result


# --- players, packs, the Dealer ----------------------------------------------------------


@dataclass(frozen=True)
class PlayerView:
    name: str
    email: str | None
    active: bool
    dealer: bool
    cards: int


def add_player(db: str | None, name: str, *, email: str | None = None,
               clock: Clock | None = None) -> PlayerView:
    with _uow(db, clock=clock) as uow:
        name = rules.check_name(name, "player name")
        uow.record(rules.register(uow.state, name, None))
        if email:
            uow.record(rules.set_email(uow.state, name, email))
        return _player_view(uow.state, name)


def set_email(db: str | None, name: str, email: str | None,
              clock: Clock | None = None) -> PlayerView:
    with _uow(db, clock=clock) as uow:
        uow.record(rules.set_email(uow.state, name, email))
        return _player_view(uow.state, name)


def retire_player(db: str | None, name: str, clock: Clock | None = None) -> list[str]:
    """Retire a player; returns the labels of the cards returned to the Deck."""
    with _uow(db, clock=clock) as uow:
        recs = uow.record(rules.retire(uow.state, name))
        return [card_label(uow.state, c) for c in recs[0].payload["returned"]]


def list_players(db: str | None, *, include_retired: bool = False) -> list[PlayerView]:
    with _uow(db, write=False) as uow:
        return [_player_view(uow.state, n) for n, p in uow.state.players.items()
                if p.active or include_retired]


def _player_view(state: State, name: str) -> PlayerView:
    p = state.players[name]
    dealer = state.dealer == name
    held = len(state.deck) if dealer else len(state.hand(name))
    return PlayerView(p.name, p.email, p.active, dealer, held)


@dataclass(frozen=True)
class DealerView:
    dealer: str | None
    since_event: int | None
    history: list[dict[str, Any]]


def show_dealer(db: str | None) -> DealerView:
    with _uow(db, write=False) as uow:
        terms = uow.state.dealer_terms
        hist = [{"player": t.player, "from_event": t.start_seq, "until_event": t.end_seq}
                for t in terms]
        current = terms[-1] if terms else None
        return DealerView(uow.state.dealer, current.start_seq if current else None, hist)


def elect_dealer(db: str | None, name: str, clock: Clock | None = None) -> list[str]:
    """Elect a new Dealer; returns the labels of their former hand, now part of the Deck."""
    with _uow(db, clock=clock) as uow:
        recs = uow.record(rules.elect(uow.state, name))
        return [card_label(uow.state, c) for c in recs[0].payload["merged"]]


def add_pack(db: str | None, name: str, back: str, clock: Clock | None = None) -> dict[str, Any]:
    with _uow(db, clock=clock) as uow:
        recs = uow.record(rules.add_pack(uow.state, name, back))
        p = recs[0].payload
        return {"number": p["number"], "name": p["name"], "back": p["back"],
                "sides": uow.state.sides, "event": recs[0].seq}


# --- dice ---------------------------------------------------------------------------------


def _open_period(uow: Any) -> str:
    """Open a new committed-seed period: store the secret, record the commitment."""
    seed = dice_mod.new_seed()
    period = max(uow.state.periods, default=0) + 1
    commit_hex = dice_mod.commitment(seed)
    uow.record(NewEvent(ev.DICE_COMMITTED, {"period": period, "commitment": commit_hex}))
    uow.save_secret(period, seed.hex())
    return commit_hex


def _committed_dice(uow: Any) -> tuple[dice_mod.CommittedDice, str | None]:
    """The dice of the current period, opening one first if none is open."""
    opened = None
    period = uow.state.current_period()
    if period is None or uow.secret(period.id) is None:
        opened = _open_period(uow)
        period = uow.state.current_period()
    seed = bytes.fromhex(uow.secret(period.id))
    return dice_mod.CommittedDice(seed, period.id, period.rolls_used), opened


@dataclass(frozen=True)
class PeriodView:
    period: int
    commitment: str
    opened_event: int
    rolls: int
    revealed: bool
    seed: str | None


def dice_periods(db: str | None) -> list[PeriodView]:
    with _uow(db, write=False) as uow:
        return [PeriodView(p.id, p.commitment, p.opened_seq, p.rolls_used,
                           p.revealed_seed is not None, p.revealed_seed)
                for p in sorted(uow.state.periods.values(), key=lambda p: p.id)]


def dice_open(db: str | None, clock: Clock | None = None) -> PeriodView:
    with _uow(db, clock=clock) as uow:
        _open_period(uow)
        p = uow.state.current_period()
        return PeriodView(p.id, p.commitment, p.opened_seq, 0, False, None)


def dice_reveal(db: str | None, period: int | None = None,
                clock: Clock | None = None) -> dict[str, Any]:
    """Reveal a period's seed (default: the current one); if that was the current period, open
    the next so dealing can go on."""
    with _uow(db, clock=clock) as uow:
        state = uow.state
        current = state.current_period()
        target = state.periods.get(period) if period is not None else current
        if target is None:
            raise NotFound("no such dice period" if period is not None
                           else "no dice period is open")
        if target.revealed_seed is not None:
            raise RuleViolation(f"dice period {target.id} was already revealed")
        seed = uow.secret(target.id)
        if seed is None:
            raise NotFound(f"the secret seed of dice period {target.id} is not in this database")
        uow.record(NewEvent(ev.DICE_REVEALED, {"period": target.id, "seed": seed}))
        new_commit = _open_period(uow) if current is not None and target.id == current.id else None
        return {"period": target.id, "seed": seed, "commitment": target.commitment,
                "rolls": target.rolls_used, "next_commitment": new_commit}


@dataclass(frozen=True)
class DiceCheck:
    period: int
    revealed: bool
    rolls: int
    problems: list[str]


def dice_verify(db: str | None, period: int | None = None) -> list[DiceCheck]:
    """Recompute every roll of each revealed period (or the one named) from the ledger."""
    with _uow(db, write=False) as uow:
        state = uow.full_state()
        return verify_dice_state(state, period)


def verify_dice_state(state: State, period: int | None = None) -> list[DiceCheck]:
    periods = sorted(state.periods.values(), key=lambda p: p.id)
    if period is not None:
        periods = [p for p in periods if p.id == period]
        if not periods:
            raise NotFound(f"no dice period {period}")
    by_period: dict[int, list[tuple[int, int, Any]]] = {}
    for d in state.deals:
        for r in d.rolls:
            if r.source == dice_mod.COMMITTED and r.period is not None:
                by_period.setdefault(r.period, []).append((d.seq, r.position, r))
    out = []
    for p in periods:
        rolls = by_period.get(p.id, [])
        problems: list[str] = []
        if p.revealed_seed is not None:
            try:
                seed = bytes.fromhex(p.revealed_seed)
            except ValueError:
                seed = b""
                problems.append("the revealed seed is not hexadecimal")
            if dice_mod.commitment(seed) != p.commitment:
                problems.append("the revealed seed does not match the commitment "
                                f"{p.commitment[:16]}...")
            for expect, (seq, pos, r) in enumerate(rolls):
                if r.index != expect:
                    problems.append(f"event {seq} roll {pos + 1}: roll index {r.index}, "
                                    f"expected {expect} (rolls skipped or reused)")
                face = dice_mod.committed_face(seed, r.index, r.sides)
                if face != r.value:
                    problems.append(f"event {seq} roll {pos + 1}: the ledger says {r.value} "
                                    f"on a d{r.sides}, the seed gives {face}")
        out.append(DiceCheck(p.id, p.revealed_seed is not None, len(rolls), problems))
    return out


# --- dealing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealResult:
    event: int | None
    player: str
    card: str | None
    card_number: int | None
    rolls: list[dict[str, Any]]
    notice: str | None
    opened_commitment: str | None = None
    refused: str | None = None


def make_dice(uow: Any, source: str, ask: Callable[[int], int] | None = None,
              reject: Callable[[str], None] | None = None) -> tuple[Any, str | None]:
    if source == dice_mod.COMMITTED:
        return _committed_dice(uow)
    if source == dice_mod.SYSTEM:
        return dice_mod.SystemDice(), None
    if source == dice_mod.MANUAL:
        if ask is None:
            raise InputError("manual dice need someone to type the results")
        return dice_mod.ManualDice(ask, reject or (lambda _m: None)), None
    raise InputError(f"unknown dice source {source!r} (use committed, manual or system)")


def calendar(state: State) -> Calendar:
    """The game calendar from the settings and the Clock's history."""
    try:
        epoch = date.fromisoformat(state.settings.get("epoch", ""))
        days = int(state.settings.get("nweek_days", "10"))
    except ValueError:
        raise RuleViolation("this game has no valid epoch setting: nweeks are unknown") from None
    stops = tuple((s.stopped_at, s.started_at) for s in state.clock_stops)
    return Calendar(epoch, days, stops)


def deal_in(uow: Any, player: str, *, source: str = dice_mod.COMMITTED, reason: str,
            ask: Callable[[int], int] | None = None,
            reject: Callable[[str], None] | None = None, nweek: int | None = None) -> DealResult:
    """Deal inside an open unit of work. An empty Deck records a refusal and returns it.
    ``nweek`` defaults to the nweek of the clock's current time."""
    state = uow.state
    if nweek is None and "epoch" in state.settings:
        nweek = calendar(state).nweek_of(uow.clock.now())
    try:
        rules.verify_deal(state, player)
    except rules.EmptyDeck as exc:
        rec = uow.record(rules.refuse_deal(state, player, reason, str(exc), nweek))[0]
        return DealResult(rec.seq, player, None, None, [], None, refused=str(exc))
    dice, opened = make_dice(uow, source, ask, reject)
    rec = uow.record(rules.deal(state, player, dice, reason=reason, nweek=nweek))[-1]
    p = rec.payload
    return DealResult(rec.seq, player, card_label(state, p["card"]), p["card"], p["rolls"],
                      p["notice"], opened)


def deal(db: str | None, player: str, *, source: str = dice_mod.COMMITTED,
         reason: str = "dealt by the Dealer", ask: Callable[[int], int] | None = None,
         reject: Callable[[str], None] | None = None, clock: Clock | None = None) -> DealResult:
    """Rule 5. An empty Deck records the refusal, then raises :class:`rules.EmptyDeck`."""
    with _uow(db, clock=clock) as uow:
        result = deal_in(uow, player, source=source, reason=reason, ask=ask, reject=reject)
    if result.refused:
        raise rules.EmptyDeck(f"cannot deal to {player}: {result.refused}; "
                              f"the refusal is recorded as event {result.event}")
    return result


def transfer(db: str | None, card: str, to: str, rule: str,
             clock: Clock | None = None) -> dict[str, Any]:
    """Move a card under a cited rule; ``to`` is a player, or ``deck``."""
    with _uow(db, clock=clock) as uow:
        state = uow.state
        number = parse_card_ref(state, card)
        target = None if to.strip().lower() in ("deck", "the deck") else to
        rec = uow.record(rules.transfer(state, number, target, rule))[0]
        p = rec.payload
        return {"event": rec.seq, "card": card_label(state, number), "from": p["from"] or "Deck",
                "to": p["to"] or "Deck", "rule": p["rule"]}


# --- queries ------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandView:
    player: str
    as_of_event: int
    cards: list[dict[str, Any]] = field(default_factory=list)
    dealer: bool = False


def _parse_as_of(text: str) -> tuple[int | None, datetime | None]:
    t = text.strip()
    if t.isdigit():
        return int(t), None
    try:
        return None, parse_time(t)
    except ValueError:
        raise InputError(f"--as-of takes an event number or an ISO time, not {text!r}") from None


def _card_dict(state: State, number: int) -> dict[str, Any]:
    pack, face = spoon_card(number)
    return {"number": number, "card": card_label(state, number), "pack": state.packs[pack].name,
            "name": f"{face.title}", "back": state.packs[pack].name}


def hand(db: str | None, player: str, *, as_of: str | None = None) -> HandView:
    with _uow(db, write=False) as uow:
        state = uow.state
        if as_of is not None:
            seq, at = _parse_as_of(as_of)
            state = replay(uow.events(), upto_seq=seq, upto_time=at, history=False)
        if player not in state.players:
            raise NotFound(f"no player named {player!r}"
                           + (" at that point" if as_of is not None else ""))
        if state.dealer == player:
            return HandView(player, state.seq, [], dealer=True)
        return HandView(player, state.seq, [_card_dict(state, c) for c in state.hand(player)])


def hand_faces(db: str | None, players: list[str]) -> dict[str, list[Card]]:
    """Each player's cards as faces (suit and rank only; duplicates across packs kept)."""
    with _uow(db, write=False) as uow:
        state = uow.state
        out = {}
        for name in players:
            if name not in state.players:
                raise NotFound(f"no player named {name!r}")
            out[name] = [spoon_card(c)[1] for c in state.hand(name)]
        return out


def cards_of(db: str | None, owner: str | None) -> list[str]:
    """Labels (``Red Qh``) of a player's hand, or of the Deck when ``owner`` is None."""
    with _uow(db, write=False) as uow:
        state = uow.state
        if owner is None:
            return [card_label(state, c) for c in sorted(state.deck)]
        if owner not in state.players:
            raise NotFound(f"no player named {owner!r}")
        return [card_label(state, c) for c in state.hand(owner)]


@dataclass(frozen=True)
class DeckView:
    dealer: str | None
    total: int
    sides: int
    by_back: list[dict[str, Any]]
    cards: list[dict[str, Any]] | None


def deck(db: str | None, *, show_cards: bool = False) -> DeckView:
    with _uow(db, write=False) as uow:
        state = uow.state
        counts = {p.number: 0 for p in state.packs}
        for c in state.deck:
            counts[spoon_card(c)[0]] += 1
        by_back = [{"pack": p.name, "back": p.back, "cards": counts[p.number]}
                   for p in state.packs]
        cards = [_card_dict(state, c) for c in sorted(state.deck)] if show_cards else None
        return DeckView(state.dealer, len(state.deck), state.sides, by_back, cards)


def log(db: str | None, *, player: str | None = None, limit: int = 20,
        reveal: bool = False) -> list[dict[str, Any]]:
    """Recent events; card faces in deal and transfer events only with ``reveal``."""
    if limit < 1:
        raise InputError("--limit must be at least 1")
    with _uow(db, write=False) as uow:
        if player is not None and player not in uow.state.players:
            raise NotFound(f"no player named {player!r}")
        recs = uow.recent_events(subject=player, limit=limit)
        return [_event_view(uow.state, r, reveal) for r in recs]


def _event_view(state: State, r: EventRecord, reveal: bool) -> dict[str, Any]:
    p = dict(r.payload)
    if not reveal:
        for key in ("card", "notice", "returned", "merged"):
            # a notice.sent event's "notice" is only an event number: nothing to hide
            if key in p and p[key] and not (key == "notice" and isinstance(p[key], int)):
                p[key] = "(hidden: use --reveal)"
        if "rolls" in p:
            p["rolls"] = len(p["rolls"])
    if r.kind == ev.DICE_REVEALED and not reveal:
        p["seed"] = "(hidden: use --reveal)"
    return {"event": r.seq, "at": r.at.isoformat(), "actor": r.actor, "kind": r.kind,
            "subject": r.subject, "payload": p, "hash": r.hash}


@dataclass(frozen=True)
class NoticeView:
    event: int
    player: str
    text: str
    sent: bool


def notices(db: str | None, player: str | None = None) -> list[NoticeView]:
    with _uow(db, write=False) as uow:
        state = uow.full_state()
        if player is not None and player not in state.players:
            raise NotFound(f"no player named {player!r}")
        return [NoticeView(n.seq, n.player, n.text, n.sent_seq is not None)
                for n in state.notices.values() if player is None or n.player == player]


@dataclass(frozen=True)
class VerifyReport:
    events: int
    cards: int
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems


def ledger_verify(db: str | None) -> VerifyReport:
    """Replay the whole log from scratch and compare with the tables (DESIGN.md section 2)."""
    with _uow(db, write=False) as uow:
        replayed, problems = check_chain_and_replay(uow.events())
        tables = uow.full_state()
        problems += compare(replayed, tables, uow.card_rows())
        return VerifyReport(replayed.seq, len(replayed.owner), problems)


# --- notices by mail ----------------------------------------------------------------------


@dataclass(frozen=True)
class MailedNotice:
    notice: int
    player: str
    address: str | None
    event: int | None = None  # the notice.sent event, for those sent
    reason: str | None = None  # why skipped or failed


@dataclass(frozen=True)
class SendReport:
    smtp: str
    sent: list[MailedNotice]
    skipped: list[MailedNotice]  # no address: they stay unsent
    failed: MailedNotice | None  # the notice the server refused; the batch stopped there
    unsent: int  # notices with an address still unsent after this run (failed one included)

    @property
    def ok(self) -> bool:
        return self.failed is None


def send_notices(db: str | None, *, smtp: str, sender: str | None = None,
                 clock: Clock | None = None) -> SendReport:
    """Mail each unsent notice, in event order, to its player's address over one SMTP
    connection, recording a ``notice.sent`` event for each in its own unit of work.

    Each message is sent while that unit of work holds the ledger lock, after checking the
    notice is still unsent, so two senders running at once cannot both send it. A refusal or a
    dropped connection stops the batch: the notices sent so far stay recorded, the rest stay
    unsent for the next run (``failed`` names the one refused). A crash after the server
    accepted a message but before the commit would send that one again on the next run; its
    Message-ID is the same both times (see docs/notices.md). A bad ``smtp`` value or an
    unreachable server raises :class:`nomic_cards.mail.MailError`/InputError, recording nothing.
    """
    from nomic_cards import mail

    endpoint = mail.parse_endpoint(smtp)
    from_addr = mail.check_sender(sender if sender is not None else mail.DEFAULT_SENDER)
    clock = clock or SystemClock()
    with _uow(db, write=False, clock=clock) as uow:
        state = uow.full_state()
        known_seq = state.seq
        queue = [n for n in sorted(state.notices.values(), key=lambda n: n.seq)
                 if n.sent_seq is None]
    skipped = [MailedNotice(n.seq, n.player, None, reason=f"{n.player} has no e-mail address")
               for n in queue if not state.players[n.player].email]
    todo = [n for n in queue if state.players[n.player].email]
    sent: list[MailedNotice] = []
    failed: MailedNotice | None = None
    done: set[int] = set()  # notices found sent by others, as of event ``known_seq``
    if todo:
        with mail.Sender(endpoint) as conn:
            for i, n in enumerate(todo):
                address: str | None = None
                try:
                    with _uow(db, clock=clock) as uow:
                        live = uow.state
                        if live.seq != known_seq:  # someone else wrote: look again
                            done = {s for s, r in uow.full_state().notices.items()
                                    if r.sent_seq is not None}
                            known_seq = live.seq
                        if n.seq in done:
                            continue
                        address = live.players[n.player].email
                        if not address:
                            skipped.append(MailedNotice(
                                n.seq, n.player, None,
                                reason=f"{n.player} has no e-mail address"))
                            continue
                        head = uow.event_at(n.seq)
                        note = mail.Notice(n.seq, head.hash if head else "", n.player, address,
                                           n.text)
                        conn.send(mail.build_message(note, sender=from_addr, now=clock.now()))
                        rec = uow.record(NewEvent(ev.NOTICE_SENT, {"notice": n.seq}, n.player))
                        known_seq = rec[-1].seq
                        sent.append(MailedNotice(n.seq, n.player, address, rec[-1].seq))
                except mail.MailError as exc:
                    failed = MailedNotice(n.seq, n.player, address, reason=str(exc))
                    unsent = len(todo) - i
                    return SendReport(str(endpoint), sent, skipped, failed, unsent)
    return SendReport(str(endpoint), sent, skipped, failed, 0)
