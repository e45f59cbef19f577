"""Use cases of the nomic's decisions: opening one, casting ballots, voting strengths, and the
resolution at the close -- recorded by the periodic work as of the close (time-true), with the
rule changes an adopted decision carries -- and what the officer publishes of them.

A decision is opened by the officer who collects votes, with its id as the nomic numbers its
proposal, an adoption index, a quorum and strengths (the rule ``decisions`` gives the defaults);
each active player is told. A ballot on an open decision replaces the player's earlier one; a
player who has not voted is told a day before the close. At the close the decision resolves
(:mod:`nomic_cards.core.resolution`) and, when it is ADOPTED, the rule changes it carries are
recorded, citing it. The rules and the layouts are in docs/decisions.md.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from nomic_cards.core import resolution
from nomic_cards.core.engine import Window
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.decisions import RULE, as_resolved, counted, resolution_of, rule_value
from nomic_cards.core.ledger.replay import REMIND_BEFORE, unvoted, verify_ballot
from nomic_cards.core.ledger.state import DecisionState, State
from nomic_cards.core.rules import names
from nomic_cards.core.rules.cards_proposal import notice_text
from nomic_cards.core.services.common import iso, parse_when, require_player
from nomic_cards.core.services.late_votes import LateVote, late_ballot
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import ascii_int, check_text, read_file, shorten

__all__ = [
    "BallotLine",
    "BallotView",
    "DecisionDetail",
    "DecisionSummary",
    "DecisionView",
    "ResolutionView",
    "StrengthView",
    "agora_block",
    "cast_ballot",
    "decision_show",
    "decision_windows",
    "decisions_list",
    "open_decision",
    "parse_change",
    "resolution_message",
    "resolved",
    "set_strength",
]

MAX_TITLE = 200
MAX_NAME = names.MAX_LENGTH
MAX_TEXT = 64 * 1024
MAX_SOURCE = 500
MAX_AS_CAST = 2000
MAX_COAUTHORS = 20
MAX_DAYS = 365
#: the commands a decision may carry, as `rules` and `game` write them
CHANGES = ("rules amend", "rules repeal", "rules enact", "game enact", "game amend",
           "game repeal")


def _time(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- opening -----------------------------------------------------------------------------------


def parse_change(text: str) -> ev.CarriedChange:
    """A rule change written as its command is (``rules amend cards-for-votes --set cards=2``,
    ``game enact NAME --packs Red,Blue``), without ``--proposal``: the decision cites
    itself."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise InputError(f"--change {shorten(text)}: {exc}") from None
    action = " ".join(words[:2])
    if action not in CHANGES or len(words) < 3:
        raise InputError(f"--change {shorten(text)}: write it as one of "
                         f"{', '.join(a + ' NAME ...' for a in CHANGES)}")
    rule, rest = words[2], words[3:]
    sets: list[str] = []
    version: int | None = None
    packs = ""
    i = 0
    while i < len(rest):
        flag = rest[i]
        value = rest[i + 1] if i + 1 < len(rest) else None
        if value is None or flag not in ("--set", "--version", "--packs"):
            raise InputError(f"--change {shorten(text)}: {flag!r} is not --set KEY=VALUE, "
                             "--version N or --packs P (the decision is the proposal)")
        if flag == "--set":
            sets.append(value)
        elif flag == "--version":
            number = ascii_int(value, "--version")
            if number is None:
                raise InputError(f"--change {shorten(text)}: --version takes a whole number")
            version = number
        else:
            packs = value
        i += 2
    if packs and not action.startswith("game"):
        raise InputError(f"--change {shorten(text)}: --packs is for a card game")
    if action == "game enact" and not packs:
        raise InputError(f"--change {shorten(text)}: a card game is enacted with --packs")
    return ev.CarriedChange(action, rule, tuple(sets), version, packs)


def _check_change(tx: Tx, change: ev.CarriedChange) -> None:
    """The change names a rule the code knows and parameters it takes (checked again, against
    the rules as they are then, when the decision is adopted)."""
    from nomic_cards.core import installed, ruleset

    if change.action.startswith("rules"):
        spec = ruleset.find_rule(change.rule)
    else:
        found = installed.rule(change.rule)
        if found is None:
            raise NotFound(f"--change: unknown card game {shorten(change.rule)}")
        spec = found
    params = ruleset.parse_assignments(spec, change.sets)
    spec.check_params(params, amending=change.action.endswith("amend"))
    if change.version is not None:
        spec.check_version(change.version)


def _text(text: str, what: str, limit: int) -> str:
    """Free text over several lines: each line checked as one."""
    if len(text) > limit:
        raise InputError(f"{what} is too long ({len(text)} characters; at most {limit})")
    for n, line in enumerate(text.split("\n"), 1):
        check_text(line.replace("\t", " "), f"{what}, line {n},", limit)
    return text


def _strengths(state: State, given: Sequence[str]) -> tuple[ev.StrengthGiven, ...]:
    out: dict[str, int] = {}
    for item in given:
        who, sep, value = item.partition("=")
        number = ascii_int(value.strip(), f"--strength for {shorten(who.strip())}") if sep \
            else None
        if number is None:
            raise InputError(f"--strength {shorten(item)}: write PLAYER=N, N a whole number "
                             f"from {resolution.STRENGTH_LOW} to {resolution.STRENGTH_HIGH}")
        name = require_player(state, who.strip())
        n = _strength(number, f"--strength {name}")
        if name in out:
            raise InputError(f"--strength names {name} twice")
        out[name] = n
    return tuple(ev.StrengthGiven(p, n) for p, n in sorted(out.items()))


def _strength(n: int, what: str) -> int:
    if not resolution.STRENGTH_LOW <= n <= resolution.STRENGTH_HIGH:
        raise InputError(f"{what}: a voting strength is from {resolution.STRENGTH_LOW} to "
                         f"{resolution.STRENGTH_HIGH}, not {n}")
    return n


@dataclass(frozen=True)
class DecisionView:
    """A decision as opened: its id, title, when its voting closes, and the event."""

    id: str
    title: str
    closes: str
    ai: str
    quorum: int
    event: int
    told: int


def open_decision(tx: Tx, id: str, *, title: str, author: str, ai: str,
                  coauthors: Sequence[str] = (), klass: str = "ordinary",
                  quorum: int | None = None, closes: str | None = None,
                  days: int | None = None, text_file: str | None = None, source: str = "",
                  strength_default: int | None = None, strengths: Sequence[str] = (),
                  changes: Sequence[str] = ()) -> DecisionView:
    """Open decision ``id`` until ``closes`` (a time) or for ``days``; each active player is
    told."""
    state = tx.state
    did = resolution.check_id(id)
    if did in state.decisions:
        raise RuleViolation(f"decision {did} is on the ledger already (opened at event "
                            f"{state.decisions[did].opened_seq}): a decision's id is used once")
    now = tx.clock.now()
    if (closes is None) == (days is None):
        raise InputError("give the close as --closes TIME or --days N, one of them")
    if days is not None:
        if not 1 <= days <= MAX_DAYS:
            raise InputError(f"--days is from 1 to {MAX_DAYS}, not {days}")
        end = now.replace(microsecond=0) + timedelta(days=days)
    else:
        assert closes is not None
        end = parse_when(closes, "--closes time")
        if end <= now:
            raise InputError(f"--closes {iso(end)} is not after now ({iso(now)})")
        if end > now + timedelta(days=MAX_DAYS):
            raise InputError(f"--closes {iso(end)} is more than {MAX_DAYS} days away")
    kind = klass.strip().lower()
    if kind not in resolution.CLASSES:
        raise InputError(f"--class is {' or '.join(resolution.CLASSES)}, not {shorten(klass)}")
    ai_ = resolution.parse_ai(ai)
    q = rule_value(state, "quorum") if quorum is None else quorum
    if not 0 <= q <= 100000:
        raise InputError(f"--quorum is from 0 to 100000, not {q}")
    default = rule_value(state, "strength-default") if strength_default is None \
        else _strength(strength_default, "--strength-default")
    title_ = check_text(title.strip(), "--title", MAX_TITLE)
    if not title_:
        raise InputError("--title must name the proposal")
    author_ = check_text(author.strip(), "--author", MAX_NAME)
    if not author_:
        raise InputError("--author must name the proposal's author")
    if len(coauthors) > MAX_COAUTHORS:
        raise InputError(f"at most {MAX_COAUTHORS} --coauthor")
    co = tuple(check_text(c.strip(), "--coauthor", MAX_NAME) for c in coauthors)
    body = _text(read_file(text_file, text_file, MAX_TEXT), "the text", MAX_TEXT) \
        if text_file is not None else ""
    carried = tuple(parse_change(c) for c in changes)
    for change in carried:
        _check_change(tx, change)
    event = ev.DecisionOpened(
        did, title_, author_, co, kind, ai_, q, _time(end), default,
        _strengths(state, strengths), body, check_text(source.strip(), "--source", MAX_SOURCE),
        carried)
    seq = tx.record(event)[0].seq
    told = _tell_all(tx, state.decisions[did])
    return DecisionView(did, title_, _time(end), ai_, q, seq, told)


def _tell_all(tx: Tx, decision: DecisionState) -> int:
    """Each active player is told that ``decision`` is open, and until when."""
    players = sorted(p.name for p in tx.state.players.values() if p.active)
    at = iso(tx.clock.now())
    for player in players:
        tx.record(ev.NoticeGiven(player, notice_text(
            f"decision {decision.id} ({decision.params['title']}) is open for your ballot",
            why=f"its voting ends {_time(decision.closes)} ({RULE}): cast FOR, AGAINST or "
                "PRESENT, or endorse another player", at=at, nweek=None,
            by=_time(decision.closes)), decision.opened_seq))
    return len(players)


# --- ballots --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BallotView:
    """A ballot recorded: on which decision, for whom, what it is, and whether it replaced
    one (and which event)."""

    decision: str
    player: str
    option: str | None
    endorse: str | None
    at: str
    event: int
    replaced: int | None
    #: Cards for Votes a ballot in an nweek already dealt earned now
    late: tuple[LateVote, ...] = ()


def cast_ballot(tx: Tx, player: str, decision: str, *, option: str | None = None,
                endorse: str | None = None, as_cast: str = "", source: str = "",
                comment: str = "", at: str | None = None) -> BallotView:
    """Record ``player``'s ballot on open decision ``decision`` (``at``: when it was cast,
    default now): an option, or an endorsement of another player. It replaces eir earlier
    ballot. A ballot is a vote for Cards for Votes too (a late one is dealt its card now, as
    ``vote cast``'s)."""
    state = tx.state
    now = tx.clock.now()
    when = parse_when(at, "--at time") if at else now.replace(microsecond=0)
    if when > now:
        raise InputError(f"--at {iso(when)} is in the future (it is now {iso(now)})")
    did = resolution.check_id(decision)
    name = require_player(state, player)
    if (option is None) == (endorse is None):
        raise InputError("give the ballot as --option FOR|AGAINST|PRESENT or --endorse "
                         "PLAYER, one of them")
    chosen = resolution.check_option(option) if option is not None else None
    other = require_player(state, endorse) if endorse is not None else None
    verify_ballot(state, did, name, option=chosen, endorse=other, at=when)
    before = state.decisions[did].ballots.get(name)
    owed = late_ballot(tx, name, when)
    event = ev.BallotCast(
        did, name, when, chosen, other, check_text(as_cast, "--as-cast", MAX_AS_CAST),
        check_text(source.strip(), "--source", MAX_SOURCE),
        check_text(comment.strip(), "--comment", MAX_AS_CAST), owed.later)
    with tx.as_of(now):  # recorded at the moment its time was read: one clock reading
        seq = tx.record(event)[0].seq
    late = owed.deal()
    return BallotView(did, name, chosen, other, _time(when), seq,
                      before.seq if before is not None else None, tuple(late))


# --- strengths ------------------------------------------------------------------------------


@dataclass(frozen=True)
class StrengthView:
    player: str
    strength: int | None
    reason: str
    event: int


def set_strength(tx: Tx, player: str, strength: int | None, *, reason: str) -> StrengthView:
    """``player``'s voting strength from now on, and why (None: the default again)."""
    name = require_player(tx.state, player)
    if strength is not None:
        _strength(strength, "the strength")
    why = check_text(reason.strip(), "--reason", MAX_SOURCE)
    if not why:
        raise InputError("--reason must say why the strength changes (the rule, the report)")
    seq = tx.record(ev.StrengthSet(name, strength, why))[0].seq
    return StrengthView(name, strength, why, seq)


# --- the close: reminders and resolutions (time-true) -----------------------------------------


def decision_windows(state: State, upto: datetime) -> list[Window]:
    """The moments of the open decisions at or before ``upto``: each one's reminder a day
    before it closes (if it opened before then), and its close; every write closes them in
    time order, each as of its moment, with the card games' windows (``catch_up``)."""
    out: list[Window] = []
    for d in state.decisions.values():
        if d.resolved_seq is not None:
            continue
        remind = d.closes - REMIND_BEFORE
        if d.reminded_seq is None and d.opened_at < remind <= upto:
            out.append(Window(RULE, remind, f"decision {d.id}: a day before it closes",
                              _reminder(d.id)))
        elif d.closes <= upto:
            out.append(Window(RULE, d.closes, f"decision {d.id} closes", _resolver(d.id)))
    return out


def _reminder(id: str) -> Callable[[Tx], None]:
    def remind(tx: Tx) -> None:
        decision = tx.state.decisions[id]
        players = unvoted(tx.state, decision)
        tx.record(ev.DecisionReminded(id, players))
        at = iso(tx.clock.now())
        for player in players:
            tx.record(ev.NoticeGiven(player, notice_text(
                f"decision {id} ({decision.params['title']}) closes in a day: you have cast "
                "no ballot", why=f"its voting ends {_time(decision.closes)} ({RULE})", at=at,
                nweek=None, by=_time(decision.closes)), decision.opened_seq))
    return remind


def ballot_waits(state: State, event: ev.DecisionOpened, player: str) -> bool:
    """Whether the decision ``event`` opened still waits for ``player``'s ballot (what its
    notices asked): open, and e has cast none."""
    decision = state.decisions.get(event.id)
    return decision is not None and decision.resolved_seq is None and \
        player not in decision.ballots


def _resolver(id: str) -> Callable[[Tx], None]:
    def resolve(tx: Tx) -> None:
        state = tx.state
        decision = state.decisions[id]
        resolved = resolution_of(state, decision)
        tx.record(resolved)
        if resolved.outcome == resolution.ADOPTED:
            for change in decision.params.get("changes", ()):
                _carry(tx, id, change)
    return resolve


def _carry(tx: Tx, id: str, change: dict[str, object]) -> None:
    """Record a rule change an adopted decision carries, citing it; one the rules refuse now
    (the rule changed since the opening) is not recorded (``decision show`` says so)."""
    from nomic_cards.core.services import rules

    action, rule = str(change["action"]), str(change["rule"])
    raw = change.get("sets")
    sets = [str(s) for s in raw] if isinstance(raw, list) else []
    version = change.get("version")
    packs = str(change.get("packs") or "")
    v = int(version) if isinstance(version, int) else None
    try:
        with tx.savepoint():
            _apply(tx, rules, action, rule, sets, v, packs, id)
    except (RuleViolation, InputError):
        return


def _apply(tx: Tx, rules: Any, action: str, rule: str, sets: list[str], v: int | None,
           packs: str, id: str) -> None:
    """One carried change, by the use case its command runs."""
    if action == "rules amend":
        rules.amend_rule(tx, rule, sets, proposal=id, version=v)
    elif action == "rules repeal":
        rules.repeal_rule(tx, rule, proposal=id)
    elif action == "rules enact":
        rules.enact_rule(tx, rule, sets, proposal=id, version=v)
    elif action == "game enact":
        rules.game_enact(tx, rule, packs, sets, proposal=id)
    elif action == "game amend":
        rules.game_amend(tx, rule, sets, packs=packs or None, proposal=id, version=v)
    else:
        rules.game_repeal(tx, rule, proposal=id)


# --- what the officer reads and publishes -----------------------------------------------------


@dataclass(frozen=True)
class DecisionSummary:
    id: str
    title: str
    author: str
    closes: str
    status: str  # "open" or the outcome
    ballots: int
    event: int


def decisions_list(tx: Reads) -> list[DecisionSummary]:
    """Every decision, newest first, with its status."""
    rows = tx.decision_rows()
    return [DecisionSummary(r.id, str(r.params["title"]), str(r.params["author"]),
                            _time(r.closes), r.outcome or "open", r.ballots, r.opened_seq)
            for r in reversed(rows)]


@dataclass(frozen=True)
class BallotLine:
    player: str
    option: str | None
    endorse: str | None
    counts_as: str
    strength: int
    at: str
    as_cast: str
    source: str
    comment: str
    event: int


@dataclass(frozen=True)
class ResolutionView:
    outcome: str
    f: int
    a: int
    ballots: int
    popularity: str
    event: int


@dataclass(frozen=True)
class DecisionDetail:
    """A decision whole: what its opening set, the ballots standing (each with what it counts
    as and its strength), and its resolution once resolved (or the tally as it stands)."""

    id: str
    title: str
    author: str
    coauthors: tuple[str, ...]
    decision_class: str
    ai: str
    quorum: int
    strength_default: int
    opened: int
    closes: str
    source: str
    text: str
    changes: tuple[str, ...]
    ballots: tuple[BallotLine, ...]
    standing: ResolutionView | None
    resolution: ResolutionView | None
    strengths: tuple[ev.StrengthUsed, ...]


def _detail(tx: Reads, id: str) -> tuple[DecisionState, State]:
    """The decision with every ballot standing on it (a narrow read of its rows), and the
    state it is resolved against."""
    did = resolution.check_id(id)
    found = tx.decision_with_ballots(did)
    if found is None:
        raise NotFound(f"there is no decision {did} on the ledger")
    return found, tx.state


def decision_show(tx: Reads, id: str) -> DecisionDetail:
    """Decision ``id`` whole: once resolved, as its resolution recorded it (the strengths of
    its close); while open, as it stands."""
    decision, state = _detail(tx, id)
    opened = tx.event_at(decision.opened_seq)
    assert opened is not None and isinstance(opened.event, ev.DecisionOpened)
    o = opened.event
    if decision.resolved_seq is None:
        c = counted(state, decision)
    else:
        recorded = tx.event_at(decision.resolved_seq)
        assert recorded is not None and isinstance(recorded.event, ev.DecisionResolved)
        c = as_resolved(decision, recorded.event)
    t = c.tally
    counts_as = {p: option for option, names in ((resolution.FOR, t.for_),
                                                 (resolution.AGAINST, t.against),
                                                 (resolution.PRESENT, t.present))
                 for p in names}
    lines = tuple(BallotLine(p, b.option, b.endorse, counts_as[p], c.strengths[p], _time(b.at),
                             b.as_cast, b.source, b.comment, b.seq)
                  for p, b in sorted(decision.ballots.items()))
    view = ResolutionView(t.outcome, t.f, t.a, t.ballots, t.popularity,
                          decision.resolved_seq or 0)
    return DecisionDetail(
        decision.id, o.title, o.author, o.coauthors, o.klass, o.ai, o.quorum,
        o.strength_default, decision.opened_seq, _time(decision.closes), o.source, o.text,
        tuple(_change_text(ch) for ch in o.changes), lines,
        None if decision.resolved_seq is not None else view,
        view if decision.resolved_seq is not None else None, c.unusual)


def _change_text(c: ev.CarriedChange) -> str:
    words = [c.action, c.rule, *(f"--set {s}" for s in c.sets)]
    if c.version is not None:
        words.append(f"--version {c.version}")
    if c.packs:
        words.append(f"--packs {c.packs}")
    return " ".join(shlex.quote(w) if " " not in w else w for w in words)


def _block(detail: DecisionDetail) -> resolution.Block:
    notes: dict[str, str] = {}
    for b in detail.ballots:
        if b.endorse is not None:
            notes[b.player] = resolution.endorsement_comment(b.endorse, b.comment)
        elif b.comment:
            notes[b.player] = b.comment
    view = detail.resolution or detail.standing
    assert view is not None
    strengths = {b.player: b.strength for b in detail.ballots}
    names_of = {o: tuple(sorted(b.player for b in detail.ballots if b.counts_as == o))
                for o in resolution.OPTIONS}
    tally = resolution.Tally(names_of[resolution.FOR], names_of[resolution.AGAINST],
                             names_of[resolution.PRESENT], view.f, view.a, view.ballots,
                             view.popularity, view.outcome)
    return resolution.Block(detail.id, detail.title, detail.author, detail.decision_class,
                            detail.ai, tally, strengths, detail.strength_default, notes)


def agora_block(tx: Reads, id: str) -> str:
    """Decision ``id``'s block in the Assessor's published layout (an open one's as it
    stands)."""
    return resolution.agora_block(_block(decision_show(tx, id)))


def resolved(tx: Reads, ids: Sequence[str]) -> list[DecisionDetail]:
    """The decisions named, each resolved (refused in one line otherwise)."""
    out = []
    for id in ids:
        detail = decision_show(tx, id)
        if detail.resolution is None:
            raise RuleViolation(f"decision {detail.id} is not resolved yet: its voting ends "
                                f"{detail.closes}, and the periodic work resolves it then")
        out.append(detail)
    return out


def resolution_message(tx: Reads, ids: Sequence[str]) -> str:
    """The whole resolution of the decisions named, as the Assessor posts it."""
    return resolution_text(resolved(tx, ids))


def resolution_text(details: Sequence[DecisionDetail]) -> str:
    """The whole resolution of the decisions ``details`` (each resolved), as the Assessor
    posts it."""
    return resolution.resolution_message(
        [_block(d) for d in details], {d.id: d.quorum for d in details},
        {d.id: d.text for d in details}, {d.id: d.coauthors for d in details})
