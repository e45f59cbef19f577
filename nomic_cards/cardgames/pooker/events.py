"""Pooker's kinds of event and their replay steps: trade notifications, trades, lapses, Motions
to Show Cards and votes, Showdowns opened, cards shown and Showdowns closed.

What a player may not see is private as for the Cards rules' events: the cards of a trade
notification and of a trade; a card a Hand received in a trade also gets its own public
commitment (docs/ledger.md, "Per-card commitments"). Each step checks what the rules demand of
its event against the state it follows, so that a forged or hand-edited event fails ``ledger
verify``. The live data (docs/rules.md, "Pooker") is in small parts, so that what a write or a
view reads and rewrites does not grow with what others have pending: ``pooker`` holds
``{"showdown": ... or None, "showdowns": n, "motion": ..., "motions": n}``; each Player with a
notification waiting, made or naming em, has ``pooker/<player id>``: ``{"mine": {seq:
notification}, "named": {seq: author}}`` (at most ``pending-per-player`` of eir own, rules
version 3); and ``pooker/due`` lists ``[when, author]`` in time order, ``when`` the earliest
window (reminder or lapse) of that author's notifications: the index by which a write finds
the windows due without walking every notification (:func:`due_notes`).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from nomic_cards.cardgames.sdk import (
    HIDDEN,
    Event,
    PointsMove,
    ReplayError,
    State,
    card_commitment,
    cards_text,
    format_end,
    kind,
    params_in_force,
    parse_time,
    pay,
    step,
)

NAME = "pooker"
#: the default of ``pending-per-player``: how many notifications a Player may have waiting
PENDING_PER_PLAYER = 10


def pooker_data(state: State) -> dict[str, Any]:
    """A copy of Pooker's own part of the live state: the Motion and the Showdown (the
    notifications waiting are kept apart, by Player: :func:`notes_of`)."""
    data = state.game_data(NAME)
    return data if data is not None else {"showdown": None, "showdowns": 0,
                                          "motion": None, "motions": 0}


# --- the notifications waiting: a part per Player, and the index of their windows ----------

#: the part listing, in time order, each author's earliest window
DUE = f"{NAME}/due"


def _part(state: State, player: str) -> str:
    """The name of ``player``'s part (by id: a name may be longer than the table's key)."""
    return f"{NAME}/{state.players[player].id}"


def _peek(state: State, name: str) -> Any:
    """A part of the live state, read in place (never changed: :meth:`State.game_data` copies)."""
    return state.games_data.get(name)


def notes_of(state: State, player: str) -> dict[str, dict[str, Any]]:
    """The notifications ``player`` made that are waiting (event number as text -> the
    notification), a copy."""
    part = _peek(state, _part(state, player)) if player in state.players else None
    return {k: dict(v) for k, v in part["mine"].items()} if part else {}


def naming(state: State, player: str) -> dict[str, str]:
    """The notifications waiting that name ``player`` as the other side: event number as text
    -> author."""
    part = _peek(state, _part(state, player)) if player in state.players else None
    return dict(part["named"]) if part else {}


def note_of(state: State, notified: int, author: str) -> dict[str, Any] | None:
    """The notification of event ``notified``, if ``author`` made it and it waits (a copy)."""
    part = _peek(state, _part(state, author)) if author in state.players else None
    note = part["mine"].get(str(notified)) if part else None
    return dict(note) if note is not None else None


def waiting_count(state: State, player: str) -> int:
    """How many notifications ``player`` made are waiting."""
    part = _peek(state, _part(state, player)) if player in state.players else None
    return len(part["mine"]) if part else 0


def find_note(state: State, notified: int) -> dict[str, Any] | None:
    """The notification of event ``notified`` if it waits, whoever made it: looked up in the
    part of each author with one waiting (the due index lists them), never walked."""
    for _when, author in _peek(state, DUE) or ():
        found = note_of(state, notified, author)
        if found is not None:
            return found
    return None


def pending(state: State) -> dict[str, dict[str, Any]]:
    """Every notification waiting, by event number as text (what only the Dealer sees)."""
    out: dict[str, dict[str, Any]] = {}
    for _when, author in _peek(state, DUE) or ():
        out.update(notes_of(state, author))
    return out


def _next(notes: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The earliest window of ``notes``: a reminder still to send, or a lapse."""
    times = []
    for note in notes.values():
        remind = remind_at(note)
        times.append(format_end(remind) if remind is not None else note["expires"])
    return min(times, default=None)


def _put_part(state: State, player: str, mine: dict[str, Any], named: dict[str, str],
              seq: int) -> None:
    state.put_game(_part(state, player),
                   {"mine": mine, "named": named} if mine or named else None, seq)


def _reindex(state: State, author: str, mine: Mapping[str, Mapping[str, Any]],
             seq: int) -> None:
    """Put ``author``'s entry of the due index at the earliest window of ``mine`` (eir
    notifications now), or take it out when none waits."""
    index = _peek(state, DUE) or []
    when = _next(mine)
    if [when, author] in index if when is not None else \
            all(e[1] != author for e in index):
        return  # unchanged (most often: a new notification lapses after eir earliest)
    due = [e for e in index if e[1] != author]
    if when is not None:
        bisect.insort(due, [when, author])
    state.put_game(DUE, due or None, seq)


def add_note(state: State, seq: int, note: dict[str, Any]) -> None:
    """A notification now waiting (event ``seq``)."""
    author, other = note["player"], note["with"]
    mine = notes_of(state, author)
    mine[str(seq)] = note
    _put_part(state, author, mine, naming(state, author), seq)
    named = naming(state, other)
    named[str(seq)] = author
    _put_part(state, other, notes_of(state, other), named, seq)
    _reindex(state, author, mine, seq)


def drop_note(state: State, notified: int, author: str, seq: int) -> dict[str, Any] | None:
    """Take the notification of event ``notified`` by ``author`` off the waiting ones (by event
    ``seq``); the notification, or None when it was not waiting."""
    mine = notes_of(state, author)
    note = mine.pop(str(notified), None)
    if note is None:
        return None
    _put_part(state, author, mine, naming(state, author), seq)
    named = naming(state, note["with"])
    named.pop(str(notified), None)
    _put_part(state, note["with"], notes_of(state, note["with"]), named, seq)
    _reindex(state, author, mine, seq)
    return note


def mark_reminded(state: State, notified: int, author: str, seq: int) -> None:
    mine = notes_of(state, author)
    mine[str(notified)]["reminded"] = True
    _put_part(state, author, mine, naming(state, author), seq)
    _reindex(state, author, mine, seq)


def due_notes(state: State, upto: datetime) -> list[tuple[datetime, str, str, dict[str, Any]]]:
    """The notifications' windows ending at or before ``upto``, found by the due index (each
    author's earliest window, in time order: the walk stops at the first author whose
    earliest is later): ``(end, "remind" or "lapse", event number as text, notification)``,
    earliest first."""
    out = []
    for when, author in _peek(state, DUE) or ():
        if parse_time(when) > upto:
            break
        for key, note in notes_of(state, author).items():
            remind = remind_at(note)
            if remind is not None and remind <= upto:
                out.append((remind, "remind", key, note))
            if parse_time(note["expires"]) <= upto:
                out.append((parse_time(note["expires"]), "lapse", key, note))
    return sorted(out, key=lambda w: (w[0], int(w[2])))


@kind("pooker.notified", private=("partner", "give", "get"))
@dataclass(frozen=True)
class TradeNotified(Event):
    """One side's notification of a Trade to the Dealer: ``player`` gives ``give`` and expects
    ``get`` from ``partner`` (all private but the author); it waits for the other side's
    until ``expires``."""

    player: str
    partner: str
    give: tuple[int, ...]
    get: tuple[int, ...]
    expires: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        what = (f" with {self.partner}: gives {cards_text(state, self.give)}, expects "
                f"{cards_text(state, self.get)}" if reveal else f" {HIDDEN}")
        return f"{self.player} notified a Pooker trade{what}; waits until {self.expires}"


@kind("pooker.traded", private=("a_gives", "b_gives", "salts_a", "salts_b"))
@dataclass(frozen=True)
class Traded(Event):
    """Two matching notifications (events ``notified``) executed at once: ``a`` gives
    ``a_gives`` to ``b`` and ``b_gives`` to ``a`` (private), ``cards`` each way (public), each
    side pays ``fee`` Points to the Dealer ``dealer``. ``to_a``/``to_b``: the public
    commitments of the cards each side received, in order, ``salts_a``/``salts_b`` their salts."""

    a: str
    b: str
    cards: int
    fee: int
    dealer: str | None
    notified: tuple[int, ...]
    a_gives: tuple[int, ...]
    b_gives: tuple[int, ...]
    to_a: tuple[str, ...]
    to_b: tuple[str, ...]
    salts_a: tuple[str, ...]
    salts_b: tuple[str, ...]

    MOVES_POINTS = True

    def subject(self) -> str | None:
        return self.a

    def points_moves(self) -> tuple[PointsMove, ...]:
        if not self.fee:
            return ()
        why = "card game pooker: trade fee"
        return (PointsMove(self.a, self.dealer, self.fee, why),
                PointsMove(self.b, self.dealer, self.fee, why))

    def summary(self, state: State, *, reveal: bool) -> str:
        what = (f": {self.a} gave {cards_text(state, self.a_gives)}, {self.b} gave "
                f"{cards_text(state, self.b_gives)}" if reveal else "")
        return (f"{self.a} and {self.b} traded {self.cards} PCard(s){what}; each paid "
                f"{self.fee} Point(s) to the Dealer")


@kind("pooker.lapsed")
@dataclass(frozen=True)
class TradeLapsed(Event):
    """A notification (event ``notified``) that found no match before it expired."""

    notified: int
    player: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"the trade notification of {self.player} (event {self.notified}) lapsed"


@kind("pooker.reminded", private=("partner",))
@dataclass(frozen=True)
class TradeReminded(Event):
    """A day before the trade notification of event ``notified`` (by ``player``) lapses, the
    other side it names (``partner``, private) is reminded, privately."""

    notified: int
    player: str
    partner: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return (f"the other side named by {self.player}'s trade notification (event "
                f"{self.notified}) was reminded that it lapses in a day")


#: how long before a trade notification lapses the side it names is reminded
REMIND_BEFORE = timedelta(days=1)


def remind_at(note: Mapping[str, Any]) -> datetime | None:
    """When the side a pending notification names is reminded: a day before it lapses, if
    that is after it was made and no reminder went yet; else None."""
    made = note.get("at")
    if not made or note.get("reminded"):
        return None
    at = parse_time(note["expires"]) - REMIND_BEFORE
    return at if at > parse_time(made) else None


@kind("pooker.motion")
@dataclass(frozen=True)
class MotionMade(Event):
    """A Motion to Show Cards (number ``number``) made by ``player``; voting on it ends at
    ``ends`` (rules version 2; "" before: no deadline)."""

    number: int
    player: str
    ends: str = field(default="", metadata={"omit_default": True})

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.player} made Motion {self.number} to Show Cards"


@kind("pooker.voted")
@dataclass(frozen=True)
class MotionVoted(Event):
    """``player``'s vote on the pending Motion ``number``."""

    number: int
    player: str
    vote: bool

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.player} voted {'for' if self.vote else 'against'} Motion {self.number}"


@kind("pooker.failed")
@dataclass(frozen=True)
class MotionFailed(Event):
    """Motion ``number`` failed: a majority of the ``players`` Players voted against it
    (``why`` "against"), or its voting ended without a majority for it (``why`` "time")."""

    number: int
    yes: int
    no: int
    players: int
    why: str

    def summary(self, state: State, *, reveal: bool) -> str:
        why = "a majority voted against it" if self.why == "against" else "voting ended"
        return (f"Motion {self.number} to Show Cards failed: {why} ({self.yes} yes, {self.no} "
                f"no of {self.players} Players)")


@kind("pooker.withdrawn", private=("partner",))
@dataclass(frozen=True)
class TradeWithdrawn(Event):
    """``player`` withdrew eir own trade notification (event ``notified``); ``partner``, the
    other side it named (private), is told."""

    notified: int
    player: str
    partner: str

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        return f"{self.player} withdrew eir trade notification (event {self.notified})"


@kind("pooker.declined", private=("player",))
@dataclass(frozen=True)
class TradeDeclined(Event):
    """The other side named by the trade notification of event ``notified`` (``player``,
    private) declined it; its author is told."""

    notified: int
    author: str
    player: str

    def summary(self, state: State, *, reveal: bool) -> str:
        who = self.player if reveal else "the other side"
        return f"the trade notification of {self.author} (event {self.notified}) was " \
               f"declined by {who}"


@kind("pooker.opened")
@dataclass(frozen=True)
class ShowdownOpened(Event):
    """Showdown ``number`` begins: ``how`` is ``motion`` (``motion``: the Motion that passed)
    or ``ten`` (``by``: the Player holding the ten PCards, who must show ``min_shown``);
    showing ends at ``ends`` (ISO, UTC)."""

    number: int
    how: str
    motion: str
    by: str | None
    ends: str
    min_shown: int

    def subject(self) -> str | None:
        return self.by

    def summary(self, state: State, *, reveal: bool) -> str:
        why = f"{self.by} holds ten PCards" if self.how == "ten" else (
            self.motion or "a Motion passed")
        return f"Showdown {self.number} opened ({why}); showing ends {self.ends}"


@dataclass(frozen=True)
class CardOpening:
    """The opening of the commitment that put ``card`` in the shower's Hand: event ``event``
    and the card's salt ("" when that event carries no per-card commitment)."""

    card: int
    event: int
    salt: str


@kind("pooker.shown")
@dataclass(frozen=True)
class Shown(Event):
    """``player`` shows PCards arranged into Poker Hands, in public, each card with the
    opening of its commitment."""

    showdown: int
    player: str
    hands: tuple[tuple[int, ...], ...]
    openings: tuple[CardOpening, ...]

    def subject(self) -> str | None:
        return self.player

    def summary(self, state: State, *, reveal: bool) -> str:
        hands = "; ".join(cards_text(state, h) for h in self.hands)
        return f"{self.player} showed at Showdown {self.showdown}: {hands}"


@dataclass(frozen=True)
class PlayerScore:
    player: str
    score: int


@dataclass(frozen=True)
class Payment:
    player: str
    points: int


@dataclass(frozen=True)
class Gone:
    """A shown card not in its shower's Hand at the close (``holder`` None: the Deck): the
    Showdown does not take it back."""

    card: int
    player: str
    holder: str | None


@dataclass(frozen=True)
class Voided:
    """A show not scored at the close: its shower ``player`` is no longer a Player who may show
    (``why``: retired, or now the Dealer)."""

    player: str
    why: str


@kind("pooker.closed")
@dataclass(frozen=True)
class ShowdownClosed(Event):
    """The end of Showdown ``number``: every shower's Score, the winners, the prize paid from
    the Bank (``paid``; a tie splits it, rounding down, docs/pooker.md), and the shown cards
    returned to the Deck."""

    number: int
    scores: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    prize: int
    paid: tuple[Payment, ...]
    returned: tuple[int, ...]
    gone: tuple[Gone, ...] = field(default=(), metadata={"omit_default": True})
    voided: tuple[Voided, ...] = field(default=(), metadata={"omit_default": True})

    MOVES_POINTS = True

    def points_moves(self) -> tuple[PointsMove, ...]:
        return tuple(PointsMove(None, p.player, p.points,
                                f"card game pooker: prize of Showdown {self.number}")
                     for p in self.paid if p.points)

    def summary(self, state: State, *, reveal: bool) -> str:
        scores = ", ".join(f"{s.player} {s.score}" for s in self.scores) or "nobody showed"
        won = (f"; won by {', '.join(self.winners)}, prize {self.prize}" if self.winners
               else "")
        voided = "".join(f"; {v.player}'s show not scored ({v.why})" for v in self.voided)
        gone = (f"; {len(self.gone)} shown card(s) had left their showers' Hands"
                if self.gone else "")
        return (f"Showdown {self.number} closed: {scores}{won}; {len(self.returned)} shown "
                f"card(s) back to the Deck{gone}{voided}")


# --- replay steps ---------------------------------------------------------------------


def _in_force(state: State) -> dict[str, Any]:
    if not state.in_force(NAME):
        raise ReplayError("a Pooker event while card game pooker is not in force")
    return params_in_force(state, NAME)


def version(state: State) -> int:
    """The version of Pooker's rules in force (docs/pooker.md, "Versions")."""
    change = state.rule(NAME)
    return 1 if change is None else change.version


def motion_voters(state: State) -> int:
    """How many Players a Motion to Show Cards' majority is counted of (the active ones)."""
    return sum(1 for p in state.players.values() if p.active)


def motion_count(state: State, motion: Mapping[str, Any]) -> tuple[int, int, int]:
    """(yes, no, Players) of a pending Motion, as its passing and failing are judged: a
    majority "of Players", so in rules version 2 only the votes of those who are Players now
    count (a retired voter's vote counts no more, and again if e rejoins); version 1 counted
    every vote recorded (docs/pooker.md, "Motions to Show Cards")."""
    players = motion_voters(state)
    if version(state) < 2:
        return len(motion["yes"]), len(motion["no"]), players

    def active(names: list[str]) -> int:
        return sum(1 for n in names if n in state.players and state.players[n].active)

    return active(motion["yes"]), active(motion["no"]), players


#: why a show is not scored at the close (rules version 2), as ``pooker.closed`` records it
RETIRED = "retired"
NOW_DEALER = "now the Dealer, who may never show"
WAS_DEALER = "made the Dealer after showing, and the Dealer may never show"


def not_a_shower(state: State, player: str, params: Mapping[str, Any],
                 shown_at: int) -> str | None:
    """Why ``player``'s show (event ``shown_at``) no longer counts (rules version 2): retired
    (a Player no more at the close), or made the Dealer since the show -- whether still the
    Dealer or replaced since: eir Hand, the shown cards with it, joined the Deck, and the
    Dealer may never show; None when it counts."""
    if not state.players[player].active:
        return RETIRED
    if params.get("dealer-may-show", "no") == "yes":
        return None
    if player == state.dealer:
        return NOW_DEALER
    if any(t.player == player and t.start_seq > shown_at for t in state.dealer_terms):
        return WAS_DEALER
    return None


def settle(state: State) -> ShowdownClosed:
    """The close of the open Showdown under the rules in force, from the shown hands alone: in
    version 2 a show whose shower retired or was made the Dealer after showing (even if
    replaced since) is not scored, and the close
    returns to the Deck exactly the scored shown cards still in their showers' Hands, listing
    the others where they are; in version 1 every show is scored and every shown card returns.
    The prize, the best Score, goes to the winners from the Bank, a tie split rounding down."""
    from nomic_cards.cardgames.pooker.scoring import score_of, scores

    params = _in_force(state)
    current = version(state)
    showdown = pooker_data(state)["showdown"]
    table = scores(params)
    results: list[PlayerScore] = []
    returned: list[int] = []
    gone: list[Gone] = []
    voided: list[Voided] = []
    shown_at = showdown.get("shown_at", {})
    for player, hands in sorted(showdown["shown"].items()):
        cards = [c for h in hands for c in h]
        # (a Showdown opened before the show's event was kept: its opening stands in)
        why = not_a_shower(state, player, params, shown_at.get(player, showdown["opened"])) \
            if current >= 2 else None
        if why is not None:
            voided.append(Voided(player, why))
            gone += [Gone(c, player, state.owner.get(c)) for c in cards]
            continue
        for c in cards:
            if current < 2 or state.owner.get(c) == player:
                returned.append(c)
            else:
                gone.append(Gone(c, player, state.owner.get(c)))
        results.append(PlayerScore(player, score_of(table, hands)))
    best = max((r.score for r in results), default=0)
    winners = tuple(r.player for r in results if r.score == best) if best > 0 else ()
    share = best // len(winners) if winners else 0
    paid = tuple(Payment(w, share) for w in winners if share)
    return ShowdownClosed(showdown["number"], tuple(results), winners,
                          best if winners else 0, paid, tuple(sorted(returned)),
                          tuple(sorted(gone, key=lambda g: g.card)), tuple(voided))


def _holds(state: State, player: str, cards: tuple[int, ...], pcards: set[int]) -> None:
    for card in cards:
        if card not in pcards:
            raise ReplayError(f"card {card} is not a PCard")
        if state.owner.get(card) != player:
            raise ReplayError(f"{player} does not hold card {card}")


@step(TradeNotified)
def _notified(state: State, e: TradeNotified, seq: int, at: datetime) -> None:
    params = _in_force(state)
    state.player(e.player)
    state.player(e.partner)
    if len(e.give) != len(e.get) or not e.give:
        raise ReplayError("a trade gives and gets the same number of cards, at least one")
    bound = int(params.get("pending-per-player", PENDING_PER_PLAYER))
    if version(state) >= 3 and waiting_count(state, e.player) >= bound:
        raise ReplayError(f"a trade notification by {e.player}, who has {bound} waiting "
                          f"already (pending-per-player {bound})")
    add_note(state, seq, {"player": e.player, "with": e.partner, "give": list(e.give),
                          "get": list(e.get), "expires": e.expires, "at": format_end(at)})


@step(TradeReminded)
def _reminded(state: State, e: TradeReminded, seq: int, at: datetime) -> None:
    note = note_of(state, e.notified, e.player)
    if note is None or note["with"] != e.partner:
        raise ReplayError(f"a reminder of the notification of event {e.notified}, which is "
                          "not pending between those players")
    due = remind_at(note)
    if due is None or at < due:
        raise ReplayError(f"a reminder of the notification of event {e.notified} before its "
                          "time, or a second one")
    mark_reminded(state, e.notified, e.player, seq)


@step(Traded)
def _traded(state: State, e: Traded, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    if len(e.notified) != 2:
        raise ReplayError("a trade executes two pending notifications")
    one, two = note_of(state, e.notified[0], e.a), note_of(state, e.notified[1], e.b)
    if one is None or two is None:
        raise ReplayError("a trade executes two pending notifications")
    a_gives, b_gives = sorted(e.a_gives), sorted(e.b_gives)
    if (one["player"], one["with"], sorted(one["give"]), sorted(one["get"])) != \
            (e.a, e.b, a_gives, b_gives) or \
            (two["player"], two["with"], sorted(two["give"]), sorted(two["get"])) != \
            (e.b, e.a, b_gives, a_gives):
        raise ReplayError("the trade is not what both notifications describe")
    if len(e.a_gives) != len(e.b_gives) or e.cards != len(e.a_gives):
        raise ReplayError("both sides of a trade give the same number of cards")
    if e.fee != int(params.get("trade-fee", 1)) or e.dealer != state.dealer:
        raise ReplayError("a trade pays the fee in force to the Dealer")
    pcards = state.pcards(NAME)
    _holds(state, e.a, e.a_gives, pcards)
    _holds(state, e.b, e.b_gives, pcards)
    shown = _shown_cards(data)
    if shown & (set(e.a_gives) | set(e.b_gives)):
        raise ReplayError("a card shown at the open Showdown was traded")
    for cards, commits, salts in ((e.b_gives, e.to_a, e.salts_a), (e.a_gives, e.to_b,
                                                                    e.salts_b)):
        if len(commits) != len(cards) or len(salts) != len(cards) or any(
                card_commitment(s, c) != k for c, k, s in zip(cards, commits, salts,
                                                                strict=True)):
            raise ReplayError("a traded card's commitment does not open to it")
    state.move(e.a_gives, e.b, seq)
    state.move(e.b_gives, e.a, seq)
    drop_note(state, e.notified[0], e.a, seq)
    drop_note(state, e.notified[1], e.b, seq)
    if e.fee:
        pay(state, e.a, e.dealer, e.fee, seq)
        pay(state, e.b, e.dealer, e.fee, seq)


@step(TradeLapsed)
def _lapsed(state: State, e: TradeLapsed, seq: int, at: datetime) -> None:
    if e.player not in state.players or drop_note(state, e.notified, e.player, seq) is None:
        raise ReplayError(f"no pending notification of {e.player} recorded by event "
                          f"{e.notified}")


@step(MotionMade)
def _motion(state: State, e: MotionMade, seq: int, at: datetime) -> None:
    _in_force(state)
    data = pooker_data(state)
    if data["motion"] is not None or data["showdown"] is not None:
        raise ReplayError("a Motion to Show Cards while one is pending or a Showdown is open")
    if e.number != data["motions"] + 1:
        raise ReplayError(f"Motion numbered {e.number}, expected {data['motions'] + 1}")
    state.player(e.player)
    if version(state) >= 2 and not e.ends:
        raise ReplayError("a Motion to Show Cards says when its voting ends")
    data["motions"] = e.number
    data["motion"] = {"number": e.number, "by": e.player, "yes": [], "no": [], "ends": e.ends}
    state.put_game(NAME, data, seq)


@step(MotionVoted)
def _voted(state: State, e: MotionVoted, seq: int, at: datetime) -> None:
    data = pooker_data(state)
    motion = data["motion"]
    if motion is None or motion["number"] != e.number:
        raise ReplayError(f"a vote on Motion {e.number}, which is not pending")
    if motion.get("ends") and format_end(at) >= motion["ends"]:
        raise ReplayError(f"a vote on Motion {e.number} after its voting ended")
    if not state.player(e.player).active:
        raise ReplayError(f"a vote on Motion {e.number} by {e.player}, who has retired")
    for side in ("yes", "no"):
        if e.player in motion[side]:
            motion[side].remove(e.player)
    motion["yes" if e.vote else "no"].append(e.player)
    state.put_game(NAME, data, seq)


@step(MotionFailed)
def _failed(state: State, e: MotionFailed, seq: int, at: datetime) -> None:
    data = pooker_data(state)
    motion = data["motion"]
    if motion is None or motion["number"] != e.number:
        raise ReplayError(f"Motion {e.number} failed, but it is not pending")
    counted = motion_count(state, motion)
    if (e.yes, e.no, e.players) != counted:
        raise ReplayError(f"Motion {e.number}'s votes are not those recorded")
    ended = bool(motion.get("ends")) and format_end(at) >= motion["ends"]
    if not (e.why == "against" and 2 * e.no > e.players or e.why == "time" and ended):
        raise ReplayError(f"Motion {e.number} failed before a majority voted against it or "
                          "its voting ended")
    data["motion"] = None
    state.put_game(NAME, data, seq)


def _resolved(state: State, notified: int, player: str, author: str, seq: int) -> None:
    """A notification of ``author``'s withdrawn by em or declined by the side it names
    (``player``)."""
    if not state.player(player).active:
        raise ReplayError(f"{player}, who has retired, resolved the notification of event "
                          f"{notified}")
    note = note_of(state, notified, author) if author in state.players else None
    if note is None or player not in (author, note["with"]):
        raise ReplayError(f"no pending notification of event {notified} for {player}")
    drop_note(state, notified, author, seq)


@step(TradeWithdrawn)
def _withdrawn(state: State, e: TradeWithdrawn, seq: int, at: datetime) -> None:
    _resolved(state, e.notified, e.player, e.player, seq)


@step(TradeDeclined)
def _declined(state: State, e: TradeDeclined, seq: int, at: datetime) -> None:
    if e.author == e.player:
        raise ReplayError(f"no pending notification of event {e.notified} for {e.player}")
    _resolved(state, e.notified, e.player, e.author, seq)


@step(ShowdownOpened)
def _opened(state: State, e: ShowdownOpened, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise ReplayError("a Showdown opened while one is open")
    if e.number != data["showdowns"] + 1:
        raise ReplayError(f"Showdown numbered {e.number}, expected {data['showdowns'] + 1}")
    if e.how == "ten":
        if e.by is None:
            raise ReplayError("a Showdown at ten PCards names its Player")
        held = len(state.pcards(NAME) & set(state.hand(e.by)))
        if held < int(params.get("trigger-pcards", 10)):
            raise ReplayError(f"{e.by} declared a Showdown holding {held} PCard(s)")
        if e.min_shown != int(params.get("trigger-min-shown", 2)):
            raise ReplayError("the minimum shown is not the one in force")
    elif e.how != "motion":
        raise ReplayError(f"a Showdown opened by {e.how!r}")
    data["showdowns"] = e.number
    data["motion"] = None
    data["showdown"] = {"number": e.number, "how": e.how, "motion": e.motion, "by": e.by,
                        "ends": e.ends, "min": e.min_shown, "opened": seq, "shown": {},
                        "shown_at": {}}
    state.put_game(NAME, data, seq)


def _shown_cards(data: dict[str, Any]) -> set[int]:
    showdown = data["showdown"]
    if showdown is None:
        return set()
    return {c for hands in showdown["shown"].values() for hand in hands for c in hand}


@step(Shown)
def _shown(state: State, e: Shown, seq: int, at: datetime) -> None:
    params = _in_force(state)
    data = pooker_data(state)
    showdown = data["showdown"]
    if showdown is None or showdown["number"] != e.showdown:
        raise ReplayError(f"cards shown at Showdown {e.showdown}, which is not open")
    if e.player == state.dealer and params.get("dealer-may-show", "no") != "yes":
        raise ReplayError("the Dealer may never show eir cards")
    if e.player in showdown["shown"]:
        raise ReplayError(f"{e.player} showed twice at one Showdown")
    cards = tuple(c for hand in e.hands for c in hand)
    if len(set(cards)) != len(cards) or any(not 1 <= len(h) <= 5 for h in e.hands):
        raise ReplayError("Poker Hands are 1 to 5 distinct PCards")
    _holds(state, e.player, cards, state.pcards(NAME))
    if showdown["how"] == "ten" and e.player == showdown["by"] and len(cards) < showdown["min"]:
        raise ReplayError(f"{e.player} showed fewer than {showdown['min']} PCards")
    if sorted(o.card for o in e.openings) != sorted(cards):
        raise ReplayError("every shown card comes with its opening")
    showdown["shown"][e.player] = [list(h) for h in e.hands]
    showdown.setdefault("shown_at", {})[e.player] = seq
    state.put_game(NAME, data, seq)


@step(ShowdownClosed)
def _closed(state: State, e: ShowdownClosed, seq: int, at: datetime) -> None:
    _in_force(state)
    data = pooker_data(state)
    showdown = data["showdown"]
    if showdown is None or showdown["number"] != e.number:
        raise ReplayError(f"Showdown {e.number} closed, but it is not open")
    if format_end(at) < showdown["ends"]:
        raise ReplayError(f"Showdown {e.number} closed before its window ended")
    due = settle(state)  # what the shown hands and the rules in force give
    if (sorted(e.returned), sorted(e.gone, key=lambda g: g.card)) != \
            (sorted(due.returned), list(due.gone)):
        raise ReplayError("the cards returned to the Deck are not the shown cards still in "
                          "their showers' Hands")
    if sorted(e.voided, key=lambda v: v.player) != list(due.voided) or \
            sorted(e.scores, key=lambda r: r.player) != list(due.scores):
        raise ReplayError("a Score is not that of the Poker Hands shown under the score "
                          "table in force, or a show was scored that may not be")
    if (sorted(e.winners), e.prize) != (sorted(due.winners), due.prize):
        raise ReplayError("the winners or the prize do not follow from the Scores")
    if sorted(e.paid, key=lambda p: p.player) != list(due.paid):
        raise ReplayError("the prize was not paid to the winners as the rules split it")
    state.move(e.returned, None, seq)
    data["showdown"] = None
    state.put_game(NAME, data, seq)
    for p in e.paid:
        if p.points > 0:
            pay(state, None, p.player, p.points, seq)
