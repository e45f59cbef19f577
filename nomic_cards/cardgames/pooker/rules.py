"""Pooker's rules as the record wrote them (docs/pooker.md): trades notified privately
by both sides, Motions to Show Cards, Showdowns judged by Poker Hands of 1 to 5 PCards.

Each act is a ``verify_*`` (raise unless the rules allow it), a ``can_*`` (the same as a
yes/no) and a builder of the events it records; the use cases (``trade``, ``motion``, ``vote``,
``showdown_open``, ``show``) run them in the transaction they are given, and the windows
(:func:`windows`) close a Showdown and lapse a notification when their time comes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from nomic_cards.cardgames.pooker import events as ge
from nomic_cards.cardgames.pooker.events import NAME, pooker_data
from nomic_cards.cardgames.sdk import (
    ActionField,
    ActionOutcome,
    ActionSpec,
    InputError,
    NotFound,
    NoticeGiven,
    ParamValue,
    RuleViolation,
    SealedNotice,
    State,
    Tx,
    Window,
    card_commitment,
    card_label,
    check_text,
    format_end,
    iso,
    new_nonce,
    notice_text,
    params_in_force,
    parse_card_ref,
    parse_time,
    player_cards,
    require_player,
    verify_pay,
    window_end,
)

LABEL = "card game pooker"
#: the rule cited by Pooker's movements of cards and Points
RULE = "card game pooker (rule 399)"
_MAX_MOTION = 200


# --- the rules in force -------------------------------------------------------------------


def params(state: State) -> dict[str, ParamValue]:
    """Pooker's parameters in force (implicit ones at their defaults), or RuleViolation."""
    return params_in_force(state, NAME)


def pcards_held(state: State, player: str) -> list[int]:
    """The PCards in ``player``'s Hand."""
    return player_cards(state, NAME, player)


def _cards(state: State, texts: Sequence[str], what: str) -> tuple[int, ...]:
    """Cards given as ``Red As`` or numbers (a text may hold several, comma-separated)."""
    out: list[int] = []
    for text in texts:
        for part in text.split(","):
            if part.strip():
                out.append(parse_card_ref(state, part))
    if not out:
        raise InputError(f"{what}: name at least one card")
    if len(set(out)) != len(out):
        raise InputError(f"{what}: a card is named twice")
    return tuple(sorted(out))


def _not_pcards(state: State, cards: Sequence[int], what: str) -> None:
    pcards = state.pcards(NAME)
    for c in cards:
        if c not in pcards:
            raise RuleViolation(f"{what}: {card_label(state, c)} is not a PCard (its pack is "
                                "not bound to card game pooker)")


def _trader(state: State, name: str) -> str:
    player = require_player(state, name)
    if not state.players[player].active:
        raise RuleViolation(f"{player} has retired and cannot trade")
    if player == state.dealer:
        raise RuleViolation(f"{player} is the Dealer, who owns the Deck and is not a trader")
    return player


def shown_at_showdown(state: State) -> set[int]:
    """The cards shown at the open Showdown (none while no Showdown is open)."""
    showdown = pooker_data(state)["showdown"]
    if showdown is None:
        return set()
    return {c for hands in showdown["shown"].values() for h in hands for c in h}


def _tell(tx: Tx, player: str, headline: str, *, why: str, by: str | None = None,
          waits: int = 0, sealed: bool = False) -> None:
    """A private notice to ``player``, dated now; ``by``: the deadline of what now waits for
    em, ``waits`` the event whose business it is (:func:`waiting` says whether it still
    waits); ``sealed``: naming em publicly would tell others what only the players concerned
    may know (the side a trade notification names), so the addressee is private too."""
    text = notice_text(headline, why=f"{why} ({RULE})", at=iso(tx.clock.now()), nweek=None,
                       by=by)
    tx.record(SealedNotice(player, text, waits) if sealed else
              NoticeGiven(player, text, waits))


# --- trades -------------------------------------------------------------------------------


def verify_trade(state: State, player: str, other: str, give: tuple[int, ...],
                 get: tuple[int, ...]) -> tuple[str, str]:
    """Raise unless ``player`` may notify this trade; the two registered names. Only the
    notifier's side is checked (whether the other holds ``get`` is never told)."""
    values = params(state)
    player, other = _trader(state, player), _trader(state, other)
    if player == other:
        raise RuleViolation("a trade is between two Players")
    if len(give) != len(get):
        raise RuleViolation(f"both sides of a trade give the same number of cards (give "
                            f"names {len(give)}, get {len(get)})")
    _not_pcards(state, give, "give")
    _not_pcards(state, get, "get")
    for c in give:
        if state.owner.get(c) != player:
            raise RuleViolation(f"give: {card_label(state, c)} is not in {player}'s Hand")
    if set(give) & set(get):
        raise RuleViolation("a card cannot be both given and got")
    if shown_at_showdown(state) & set(give):
        raise RuleViolation("give: a card shown at the open Showdown stays until it ends")
    verify_pay(state, player, int(values["trade-fee"]), "as the trade fee", game=NAME)
    bound = int(values["pending-per-player"])
    if ge.version(state) >= 3 and ge.waiting_count(state, player) >= bound:
        raise RuleViolation(f"{player} has {bound} trade notifications waiting, the most a "
                            f"Player may (pending-per-player {bound}): withdraw one or let "
                            "one lapse first")
    return player, other


def can_trade(state: State, player: str, other: str, give: tuple[int, ...],
              get: tuple[int, ...]) -> bool:
    try:
        verify_trade(state, player, other, give, get)
    except (RuleViolation, NotFound, InputError):
        return False
    return True


def matching(state: State, seq: int, player: str) -> int | None:
    """The pending notification that matches the one ``player`` recorded by event ``seq`` and
    can be executed now (both sides still hold what they give), if any: the oldest (only the
    other side's own notifications are looked at)."""
    me = ge.note_of(state, seq, player)
    if me is None:
        return None
    theirs = ge.notes_of(state, me["with"])
    for key in sorted(theirs, key=int):
        o = theirs[key]
        if (o["player"], o["with"], o["give"], o["get"]) == \
                (me["with"], me["player"], me["get"], me["give"]) and \
                all(state.owner.get(c) == o["player"] for c in o["give"]) and \
                all(state.owner.get(c) == me["player"] for c in me["give"]) and \
                not (shown_at_showdown(state) & set(o["give"])):
            return int(key)
    return None


def _committed(cards: Sequence[int], salt: Any
               ) -> tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]:
    """Cards going to a Hand with their salted commitments, in the order of the commitments:
    an order that tells nothing of the cards (showing one says nothing of the others' ranks)."""
    rows = sorted((card_commitment(s, c), s, c) for c, s in ((c, salt()) for c in cards))
    return (tuple(c for _k, _s, c in rows), tuple(k for k, _s, _c in rows),
            tuple(s for _k, s, _c in rows))


def traded(state: State, first: int, second: int, author: str, *,
           salt: Any = new_nonce) -> ge.Traded:
    """The trade executing notifications ``first`` (its ``author``: side A) and ``second``."""
    one = ge.note_of(state, first, author)
    assert one is not None
    a, b = one["player"], one["with"]
    b_gives, to_a, salts_a = _committed(one["get"], salt)
    a_gives, to_b, salts_b = _committed(one["give"], salt)
    return ge.Traded(a, b, len(a_gives), int(params(state)["trade-fee"]), state.dealer,
                     (first, second), a_gives, b_gives, to_a, to_b, salts_a, salts_b)


@dataclass(frozen=True)
class TradeResult:
    """A notification recorded (event ``notified``) and, when it matched, the trade
    (``traded``: its event) -- public summary only."""

    notified: int
    player: str
    other: str
    cards: int
    traded: int | None
    expires: str


def trade(tx: Tx, player: str, give: Sequence[str], get: Sequence[str], other: str
          ) -> TradeResult:
    """Record ``player``'s notification of a trade with ``other``; when the other side's
    matching notification is pending, execute the trade at once."""
    state = tx.state
    give_c = _cards(state, give, "give")
    get_c = _cards(state, get, "get")
    player, other = verify_trade(state, player, other, give_c, get_c)
    now = tx.clock.now()
    expires = format_end(now + timedelta(days=int(params(state)["trade-expiry-days"])))
    rec = tx.record(ge.TradeNotified(player, other, give_c, get_c, expires))[0]
    found = matching(state, rec.seq, player)
    done = None
    if found is not None:
        event = traded(state, found, rec.seq, other)
        verify_pay(state, event.a, event.fee, "as the trade fee", game=NAME)
        verify_pay(state, event.b, event.fee, "as the trade fee", game=NAME)
        done = tx.record(event)[0].seq
        at = iso(now) or ""
        for who, got, gave in ((event.a, event.b_gives, event.a_gives),
                               (event.b, event.a_gives, event.b_gives)):
            tx.record(NoticeGiven(who, notice_text(
                f"you traded {_labels(state, gave)} for {_labels(state, got)}",
                why=f"both notifications matched (events {event.notified[0]} and "
                    f"{event.notified[1]}; {RULE})", at=at, nweek=None)))
    else:
        gives, gets = _labels(state, give_c), _labels(state, get_c)
        _tell(tx, other, f"{player} offers you a trade: eir {gives} for your {gets}",
              why=f"the trade is made when you notify the same one (give {gets}, get "
                  f"{gives}) before it lapses; you may also decline it (event {rec.seq})",
              by=expires, waits=rec.seq, sealed=True)
    return TradeResult(rec.seq, player, other, len(give_c), done, expires)


@dataclass(frozen=True)
class Resolved:
    """A waiting notification withdrawn by its author or declined by the side it names."""

    event: int
    notified: int
    player: str


def _resolver(state: State, player: str, act: str) -> str:
    """``player``, a Player who may withdraw or decline (``act``) a notification: only a
    Player acts, and a retired one's tokens are revoked."""
    name = require_player(state, player)
    if not state.players[name].active:
        raise RuleViolation(f"{name} has retired and cannot {act} a trade notification")
    return name


def _notification(state: State, notified: int, player: str) -> dict[str, Any]:
    """The notification of event ``notified`` if it waits: looked up first where ``player``'s
    own and those naming em are kept."""
    author = ge.naming(state, player).get(str(notified), player)
    note = ge.note_of(state, notified, author) or ge.find_note(state, notified)
    if note is None:
        raise RuleViolation(f"no trade notification of event {notified} is waiting (it was "
                            "matched, withdrawn, declined or has lapsed)")
    return note


def withdraw(tx: Tx, player: str, notified: int) -> Resolved:
    """``player`` withdraws eir own waiting trade notification; the other side it named is
    told, privately."""
    state = tx.state
    params(state)
    name = _resolver(state, player, "withdraw")
    note = _notification(state, notified, name)
    if note["player"] != name:
        raise RuleViolation(f"the notification of event {notified} is not {name}'s own: only "
                            "its author may withdraw it")
    rec = tx.record(ge.TradeWithdrawn(notified, name, note["with"]))[0]
    _tell(tx, note["with"], f"{name} withdrew eir trade notification naming you (event "
                            f"{notified})", why="its author withdrew it", sealed=True)
    _tell(tx, name, f"you withdrew your trade notification naming {note['with']} (event "
                    f"{notified})", why="you withdrew it; the other side is told")
    return Resolved(rec.seq, notified, name)


def decline(tx: Tx, player: str, notified: int) -> Resolved:
    """``player`` declines a waiting trade notification that names em; its author is told,
    privately."""
    state = tx.state
    params(state)
    name = _resolver(state, player, "decline")
    note = _notification(state, notified, name)
    if note["with"] != name:
        raise RuleViolation(f"the notification of event {notified} does not name {name}: only "
                            "the other side it names may decline it")
    rec = tx.record(ge.TradeDeclined(notified, note["player"], name))[0]
    _tell(tx, note["player"], f"{name} declined your trade notification (event {notified})",
          why="the other side it named declined it")
    _tell(tx, name, f"you declined {note['player']}'s trade notification naming you (event "
                    f"{notified})", why="you declined it; its author is told", sealed=True)
    return Resolved(rec.seq, notified, name)


def _labels(state: State, cards: Sequence[int]) -> str:
    return ", ".join(card_label(state, c) for c in cards)


# --- Motions and Showdowns ---------------------------------------------------------------


def _threshold(values: Mapping[str, ParamValue], yes: int, players: int) -> bool:
    rule = values["motion-threshold"]
    if rule == "unanimity":
        return yes >= players
    if rule == "two-thirds":
        return 3 * yes >= 2 * players
    return 2 * yes > players


def _opened(state: State, tx: Tx, how: str, motion: str, by: str | None
            ) -> ge.ShowdownOpened:
    values = params(state)
    ends = tx.clock.now() + timedelta(days=int(values["show-days"]))
    data = pooker_data(state)
    return ge.ShowdownOpened(data["showdowns"] + 1, how, motion, by, format_end(ends),
                             int(values["trigger-min-shown"]) if how == "ten" else 1)


def _open(tx: Tx, event: ge.ShowdownOpened) -> int:
    """Record a Showdown's opening and tell each Player who may show (an active Player with
    PCards; the Dealer only when e may show) by when; its event number."""
    seq = tx.record(event)[0].seq
    state = tx.state
    dealer_shows = params(state)["dealer-may-show"] == "yes"
    for name, p in sorted(state.players.items()):
        held_ = len(pcards_held(state, name))
        if not p.active or not held_ or name == state.dealer and not dealer_shows:
            continue
        must = (f"; you declared it and must show at least {event.min_shown} PCards"
                if event.how == "ten" and name == event.by else "")
        _tell(tx, name, f"Showdown {event.number} is open: show your Poker Hands by "
                        f"{event.ends}",
              why=f"you hold {held_} PCard(s){must}; the highest total Score takes the prize, "
                  "and the cards you show return to the Deck when the Showdown closes",
              by=event.ends, waits=seq)
    return seq


@dataclass(frozen=True)
class MotionResult:
    number: int
    event: int
    yes: int
    no: int
    players: int
    showdown: int | None  # the Showdown it opened, when it passed
    failed: bool = False  # a majority voted against it


def motion(tx: Tx, player: str) -> MotionResult:
    """A Motion to Show Cards by ``player`` (a Player with a Hand, none pending)."""
    state = tx.state
    params(state)
    name = require_player(state, player)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise RuleViolation(f"Showdown {data['showdown']['number']} is open")
    if data["motion"] is not None:
        raise RuleViolation(f"Motion {data['motion']['number']} is pending")
    if name == state.dealer or not pcards_held(state, name):
        raise RuleViolation(f"{name} has no PCards in eir Hand: only a Player with a Hand "
                            "may make a Motion to Show Cards")
    ends = window_end(tx.clock.now(), int(params(state)["motion-days"])) \
        if ge.version(state) >= 2 else ""
    number = data["motions"] + 1
    rec = tx.record(ge.MotionMade(number, name, ends))[0]
    voters = _motion_voters(state)
    fails = "; it fails if a majority votes against it or its voting ends first" if ends else ""
    for who, p in sorted(state.players.items()):
        if p.active:
            _tell(tx, who, f"your Motion {number} to Show Cards is pending: vote on it"
                  if who == name else f"{name} made Motion {number} to Show Cards: vote on it",
                  why=f"a majority of the {voters} Players for it opens a Showdown{fails}",
                  by=ends or None, waits=rec.seq)
    return _motion_result(tx, rec.seq)


_motion_voters = ge.motion_voters


def _motion_result(tx: Tx, seq: int) -> MotionResult:
    """The Motion after a vote: passed (a majority of Players for it: the Showdown opens),
    failed (rules version 2: a majority against it), or still pending."""
    state = tx.state
    data = pooker_data(state)
    m = data["motion"]
    assert m is not None
    yes, no, players = ge.motion_count(state, m)
    if _threshold(params(state), yes, players):
        opened = _opened(state, tx, "motion", f"Motion {m['number']}", None)
        _open(tx, opened)
        return MotionResult(m["number"], seq, yes, no, players, opened.number)
    if ge.version(state) >= 2 and 2 * no > players:
        _failed(tx, ge.MotionFailed(m["number"], yes, no, players, "against"), m["by"])
        return MotionResult(m["number"], seq, yes, no, players, None, failed=True)
    return MotionResult(m["number"], seq, yes, no, players, None)


def vote(tx: Tx, player: str, yes: bool) -> MotionResult:
    """``player``'s vote on the pending Motion; when it passes, the Showdown opens."""
    state = tx.state
    params(state)
    name = require_player(state, player)
    if not state.players[name].active:
        raise RuleViolation(f"{name} has retired and cannot vote")
    m = pooker_data(state)["motion"]
    if m is None:
        raise RuleViolation("no Motion to Show Cards is pending")
    rec = tx.record(ge.MotionVoted(m["number"], name, yes))[0]
    return _motion_result(tx, rec.seq)


@dataclass(frozen=True)
class OpenResult:
    number: int
    event: int
    how: str
    ends: str
    min_shown: int


def verify_open(state: State, ten: str | None) -> str | None:
    """Raise unless a Showdown may open now (at ten PCards: ``ten``'s name)."""
    values = params(state)
    data = pooker_data(state)
    if data["showdown"] is not None:
        raise RuleViolation(f"Showdown {data['showdown']['number']} is open until "
                            f"{data['showdown']['ends']}")
    if ten is None:
        return None
    name = require_player(state, ten)
    if name == state.dealer:
        raise RuleViolation("the Dealer may never show eir cards, so cannot declare a Showdown")
    held = len(pcards_held(state, name))
    need = int(values["trigger-pcards"])
    if held < need:
        raise RuleViolation(f"{name} holds {held} PCard(s); a Showdown without a Motion needs "
                            f"{need} or more")
    return name


def declare(tx: Tx, player: str) -> OpenResult:
    """``player``, holding ten or more PCards (after a transfer, a deal or a trade), declares a
    Showdown without a Motion ("Really Fix the Showdown"): e must then show at least the
    minimum in force."""
    state = tx.state
    by = verify_open(state, player)
    assert by is not None
    event = _opened(state, tx, "ten", "", by)
    return OpenResult(event.number, _open(tx, event), event.how, event.ends, event.min_shown)


def held(state: State) -> dict[int, str]:
    """The cards the open Showdown holds (rules version 2): every shown card, until the
    close returns it to the Deck; nothing else may move it."""
    showdown = pooker_data(state)["showdown"]
    if showdown is None or ge.version(state) < 2:
        return {}
    why = (f"it was shown at Showdown {showdown['number']}, which holds it until it closes "
           f"({showdown['ends']}) and returns it to the Deck ({RULE})")
    return {c: why for c in shown_at_showdown(state)}


def showdown_open(tx: Tx, *, motion_passed: str | None = None,
                  ten: str | None = None) -> OpenResult:
    """Open a Showdown: a Motion to Show Cards passed (as the nomic recorded it), or a Player
    holding ten or more PCards declares one."""
    if (motion_passed is None) == (ten is None):
        raise InputError("give exactly one of motion_passed (the Motion that passed) and ten "
                         "(the Player holding ten PCards)")
    text = check_text(motion_passed, "motion_passed", _MAX_MOTION).strip() \
        if motion_passed is not None else ""
    if motion_passed is not None and not text:
        raise InputError("motion_passed: name the Motion that passed")
    state = tx.state
    by = verify_open(state, ten)
    event = _opened(state, tx, "ten" if by else "motion", text, by)
    return OpenResult(event.number, _open(tx, event), event.how, event.ends, event.min_shown)


def verify_show(state: State, player: str, hands: Sequence[tuple[int, ...]]) -> str:
    values = params(state)
    data = pooker_data(state)
    showdown = data["showdown"]
    if showdown is None:
        raise RuleViolation("no Showdown is open")
    name = require_player(state, player)
    if name == state.dealer and values["dealer-may-show"] != "yes":
        raise RuleViolation("the Dealer may never show eir cards")
    if name in showdown["shown"]:
        raise RuleViolation(f"{name} has shown already at Showdown {showdown['number']}")
    cards = [c for h in hands for c in h]
    if len(set(cards)) != len(cards):
        raise InputError("a card is shown twice")
    for h in hands:
        if not 1 <= len(h) <= 5:
            raise InputError(f"a Poker Hand is 1 to 5 PCards, not {len(h)}")
    _not_pcards(state, cards, "hands")
    for c in cards:
        if state.owner.get(c) != name:
            raise RuleViolation(f"hands: {card_label(state, c)} is not in {name}'s Hand")
    if showdown["how"] == "ten" and name == showdown["by"] and len(cards) < showdown["min"]:
        raise RuleViolation(f"{name} declared the Showdown and must show at least "
                            f"{showdown['min']} PCards")
    return name


@dataclass(frozen=True)
class ShowResult:
    event: int
    showdown: int
    player: str
    hands: tuple[tuple[str, ...], ...]
    score: int


def show(tx: Tx, player: str, hands: Sequence[str]) -> ShowResult:
    """``player`` shows PCards arranged into Poker Hands (each ``--hand``: 1 to 5 cards,
    comma-separated), published with the opening of each card's commitment."""
    if not hands:
        raise InputError("hands: show at least one Poker Hand")
    state = tx.state
    arranged = [_cards(state, [h], "hands") for h in hands]
    name = verify_show(state, player, arranged)
    openings = tuple(_opening(tx, state, c, name) for h in arranged for c in h)
    number = pooker_data(state)["showdown"]["number"]
    rec = tx.record(ge.Shown(number, name, tuple(arranged), openings))[0]
    total = score_of(params(state), arranged)
    return ShowResult(rec.seq, number, name,
                      tuple(tuple(card_label(state, c) for c in h) for h in arranged), total)


def _opening(tx: Tx, state: State, card: int, player: str) -> ge.CardOpening:
    """The opening of the commitment of the event that put ``card`` in ``player``'s Hand."""
    seq = state.owner_seq[card]
    rec = tx.event_at(seq)
    salt = ""
    if rec is not None:
        e = rec.event
        if isinstance(e, ge.Traded):
            got = e.b_gives if player == e.a else e.a_gives
            salts = e.salts_a if player == e.a else e.salts_b
            salt = salts[got.index(card)] if card in got else ""
        else:
            salt = str(getattr(e, "salt", "") or "")
    return ge.CardOpening(card, seq, salt)


def score_of(values: Mapping[str, ParamValue], hands: Sequence[Sequence[int]]) -> int:
    """The total Score of Poker Hands under the parameters in force."""
    from nomic_cards.cardgames.pooker import scoring

    return scoring.score_of(scoring.scores(values), hands)


def closed(state: State) -> ge.ShowdownClosed:
    """The end of the open Showdown: Scores, winners, the prize from the Bank (split on a tie,
    each winner getting the prize divided by their number, rounded down; the remainder stays
    in the Bank), and the shown cards returned to the Deck -- the one computation the replay
    checks the event against (:func:`~.events.settle`)."""
    return ge.settle(state)


def _close(tx: Tx) -> None:
    event = closed(tx.state)
    tx.record(event)
    paid = {p.player: p.points for p in event.paid}
    winners = ", ".join(event.winners) or "nobody"
    for s in event.scores:  # each scored shower is told the result
        won = paid.get(s.player, 0)
        _tell(tx, s.player, f"Showdown {event.number} closed: you scored {s.score}"
              + (f" and won {won} Point(s)" if won else ""),
              why=f"the highest total Score takes the prize (won by {winners}, prize "
                  f"{event.prize}); the cards you showed went back to the Deck")
    for v in event.voided:  # the shower is told why eir show was not scored
        tx.record(NoticeGiven(v.player, notice_text(
            f"your show at Showdown {event.number} was not scored: you "
            + {ge.RETIRED: "retired", ge.NOW_DEALER: f"are {v.why}"}.get(v.why,
                                                                          f"were {v.why}"),
            why=f"only a Player who may show is scored ({RULE})", at=iso(tx.clock.now()),
            nweek=None)))


def _lapse(seq: int, player: str) -> Any:
    def close(tx: Tx) -> None:
        state = tx.state
        note = ge.note_of(state, seq, player)
        tx.record(ge.TradeLapsed(seq, player))
        if note is None:
            return
        gives, gets = _labels(state, note["give"]), _labels(state, note["get"])
        why = "no matching notification came before it expired"
        _tell(tx, player, f"your trade notification naming {note['with']} lapsed (event "
                          f"{seq}): your {gives} for eir {gets}", why=why)
        _tell(tx, note["with"], f"{player}'s trade offer to you lapsed (event {seq}): eir "
                                f"{gives} for your {gets}", why=why, sealed=True)
    return close


def _failed(tx: Tx, event: ge.MotionFailed, mover: str) -> None:
    """Record a Motion's failure and tell its mover why."""
    tx.record(event)
    why = "a majority of Players voted against it" if event.why == "against" else \
        "its voting ended without a majority for it"
    _tell(tx, mover, f"your Motion {event.number} to Show Cards failed",
          why=f"{why} ({event.yes} yes, {event.no} no of {event.players} Players)")


def _motion_ends(tx: Tx) -> None:
    state = tx.state
    m = pooker_data(state)["motion"]
    _failed(tx, ge.MotionFailed(m["number"], *ge.motion_count(state, m), "time"), m["by"])


def _remind(key: str, author: str) -> Any:
    def close(tx: Tx) -> None:
        state = tx.state
        note = ge.note_of(state, int(key), author)
        assert note is not None
        tx.record(ge.TradeReminded(int(key), note["player"], note["with"]))
        gives, gets = _labels(state, note["give"]), _labels(state, note["get"])
        _tell(tx, note["with"], f"{note['player']}'s trade offer to you lapses in a day: eir "
                                f"{gives} for your {gets}",
              why=f"the trade is made when you notify the same one (give {gets}, get {gives}) "
                  f"before it lapses; you may also decline it (event {key})",
              by=note["expires"], waits=int(key), sealed=True)
    return close


def waiting(state: State, event: Any, seq: int, player: str) -> bool:
    """Whether what Pooker's event ``seq`` asked of ``player`` in a notice still waits for
    em: a vote on the Motion it made (pending, and e has not voted), a show at the Showdown it
    opened (open, and e has not shown), the trade notification naming em (waiting: not
    matched, withdrawn, declined or lapsed)."""
    data = pooker_data(state)
    if isinstance(event, ge.MotionMade):
        m = data["motion"]
        active = player in state.players and state.players[player].active
        return m is not None and m["number"] == event.number and active and \
            player not in m["yes"] and player not in m["no"]
    if isinstance(event, ge.ShowdownOpened):
        sd = data["showdown"]
        return sd is not None and sd["number"] == event.number and player not in sd["shown"]
    if isinstance(event, ge.TradeNotified):
        note = ge.note_of(state, seq, event.player)
        return note is not None and note["with"] == player
    return False


def _own_windows(state: State, upto: datetime | None) -> list[Window]:
    """The pending Motion's voting (rules version 2) and a Showdown's end, if they end by
    ``upto`` (None: whenever)."""
    data = pooker_data(state)
    out: list[Window] = []
    motion_ = data["motion"]
    if motion_ is not None and motion_.get("ends"):
        out.append(Window(NAME, parse_time(motion_["ends"]),
                          f"Motion {motion_['number']}'s voting ends", _motion_ends))
    if data["showdown"] is not None:
        out.append(Window(NAME, parse_time(data["showdown"]["ends"]),
                          f"Showdown {data['showdown']['number']} ends", _close))
    return [w for w in out if upto is None or w.end <= upto]


def _note_window(end: datetime, what: str, key: str, note: dict[str, Any]) -> Window:
    if what == "remind":
        return Window(NAME, end, f"notification {key}'s reminder", _remind(key, note["player"]))
    return Window(NAME, end, f"notification {key} lapses", _lapse(int(key), note["player"]))


def windows(state: State) -> list[Window]:
    """Every window open: a Showdown's end, the pending Motion's voting (rules version 2), and
    each pending notification's reminder and expiry."""
    out = _own_windows(state, None)
    for key, note in ge.pending(state).items():
        out.append(_note_window(parse_time(note["expires"]), "lapse", key, note))
        remind = ge.remind_at(note)
        if remind is not None:
            out.append(_note_window(remind, "remind", key, note))
    return out


def due(state: State, upto: datetime) -> list[Window]:
    """The windows ending at or before ``upto``: what every write walks, the notifications'
    found by their index (``events.due_notes``), not by walking each one."""
    return _own_windows(state, upto) + [_note_window(end, what, key, note)
                                        for end, what, key, note in ge.due_notes(state, upto)]


# --- the actions, declared once for the CLI and the server ---------------------------------


def _list(body: Mapping[str, object], key: str) -> list[str]:
    value = body.get(key)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    raise InputError(f"{key}: expected a list of cards")


def _run_trade(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = trade(tx, actor, _list(body, "give"), _list(body, "get"), str(body["with"]))
    seqs = (r.notified,) if r.traded is None else (r.notified, r.traded)
    return ActionOutcome(seqs, waiting=r.traded is None,
                         summary=f"{r.player} notified a trade of {r.cards} PCard(s) with "
                                 f"{r.other}" + ("; traded" if r.traded else "; waiting"))


def _run_show(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    raw = body.get("hands")
    if not isinstance(raw, list | tuple) or not raw:
        raise InputError("hands: expected a list of Poker Hands, each a list of cards")
    hands = [",".join(str(c) for c in h) if isinstance(h, list | tuple) else str(h)
             for h in raw]
    r = show(tx, actor, hands)
    return ActionOutcome((r.event,), summary=f"{r.player} showed {len(r.hands)} Poker "
                                             f"Hand(s) at Showdown {r.showdown}")


def _run_motion(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = motion(tx, actor)
    return ActionOutcome((r.event,), summary=f"Motion {r.number} to Show Cards by {actor}")


def _run_vote(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    yes = str(body.get("vote", "")).lower()
    if yes not in ("yes", "no", "for", "against"):
        raise InputError("vote: yes or no")
    r = vote(tx, actor, yes in ("yes", "for"))
    opened = f"; Showdown {r.showdown} opened" if r.showdown else ""
    return ActionOutcome((r.event,), summary=f"{actor} voted on Motion {r.number}{opened}")


def _number(body: Mapping[str, object]) -> int:
    value = body.get("notification")
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError("notification: the event number of the trade notification")
    return value


def _run_withdraw(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = withdraw(tx, actor, _number(body))
    return ActionOutcome((r.event,), summary=f"{actor} withdrew eir notification "
                                             f"(event {r.notified})")


def _run_decline(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = decline(tx, actor, _number(body))
    return ActionOutcome((r.event,), summary=f"{actor} declined the notification "
                                             f"(event {r.notified})")


def _run_declare(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    r = declare(tx, actor)
    return ActionOutcome((r.event,), summary=f"{actor} declared Showdown {r.number} (ten "
                                             f"PCards): show at least {r.min_shown} by {r.ends}")


def _run_open(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    motion_text = body.get("motion_passed")
    ten = body.get("ten")
    r = showdown_open(tx, motion_passed=str(motion_text) if motion_text else None,
                      ten=str(ten) if ten else None)
    return ActionOutcome((r.event,), summary=f"Showdown {r.number} open until {r.ends}")


#: how players write a trade in a message to the game (docs/mail.md): "I trade my Red As and
#: Red Kd with Wonko for eir Blue Kd"
TRADE_PHRASE = (r"I (?:offer to )?trade (?:my )?(?P<give>.+?) (?:with|to) (?P<with>\S+?) for "
                r"(?:eir |his |her |their |your )?(?P<get>.+?)")

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("pooker.trade", "player",
               "Notify the Dealer of a trade: the PCards you give and those you expect; it is "
               "executed when the other side's notification matches (a fee to the Dealer from "
               "each side).",
               (ActionField("with", "player", "the other side of the trade"),
                ActionField("give", "cards", "the PCards of your Hand you give"),
                ActionField("get", "cards", "the PCards you expect in return")),
               _run_trade, private=True,
               example={"with": "Bob", "give": ["Red As"], "get": ["Blue Kd"]},
               phrases=(TRADE_PHRASE,)),
    ActionSpec("pooker.show", "player",
               "Show PCards at the open Showdown, arranged into Poker Hands of 1 to 5 cards.",
               (ActionField("hands", "card-lists", "the Poker Hands shown"),),
               _run_show, example={"hands": [["Red As", "Red Ks"], ["Blue 2c"]]},
               phrases=(r"I show (?:the Poker Hands? )?(?P<hands>.+?)(?: at the Showdown)?",)),
    ActionSpec("pooker.motion", "player",
               "Make a Motion to Show Cards (a Player with PCards; none pending).", (),
               _run_motion, phrases=(r"I (?:make|move) a Motion to Show Cards",)),
    ActionSpec("pooker.vote", "player",
               "Vote on the pending Motion to Show Cards: yes or no.",
               (ActionField("vote", "text", "yes or no"),), _run_vote,
               example={"vote": "yes"},
               phrases=(r"I vote (?P<vote>yes|no) on the Motion(?: to Show Cards)?",)),
    ActionSpec("pooker.withdraw", "player",
               "Withdraw your own trade notification while it waits (the other side is told).",
               (ActionField("notification", "int", "the event number of your notification"),),
               _run_withdraw, private=True, example={"notification": 12},
               phrases=(r"I withdraw (?:my )?(?:trade )?notification (?:#|event )?"
                        r"(?P<notification>\d+)",)),
    ActionSpec("pooker.decline", "player",
               "Decline a trade notification that names you (its author is told).",
               (ActionField("notification", "int", "the event number of the notification"),),
               _run_decline, private=True, example={"notification": 12},
               phrases=(r"I decline (?:the )?(?:trade )?notification (?:#|event )?"
                        r"(?P<notification>\d+)",)),
    ActionSpec("pooker.declare", "player",
               "Declare a Showdown without a Motion: you hold ten or more PCards, and must then "
               "show at least two.", (), _run_declare,
               phrases=(r"I declare a Showdown",)),
    ActionSpec("pooker.showdown_open", "dealer",
               "Open a Showdown: a Motion the nomic passed, or a Player holding ten PCards.",
               (ActionField("motion_passed", "text", "the Motion that passed", required=False),
                ActionField("ten", "player", "the Player holding ten or more PCards",
                            required=False)),
               _run_open, example={"ten": "Alice"}),
)
