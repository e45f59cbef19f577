"""Votes, as the officer who counts them records them: one (``vote cast``) or the vote
counter's CSV file (``vote import``). A vote on a decision of the ledger is a ballot
(:mod:`.decisions`); one on a proposal the ledger does not hold is recorded as a vote alone,
as it always was. Every vote counts for Cards for Votes (rule 9); one recorded late earns its
card now (:mod:`.late_votes`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nomic_cards.core.calendar import Calendar
from nomic_cards.core.ledger.events import VoteEntry, VotesRecorded
from nomic_cards.core.ledger.state import State
from nomic_cards.core.rules import names
from nomic_cards.core.services.common import calendar, iso, parse_when, require_player
from nomic_cards.core.services.decisions import MAX_AS_CAST, MAX_SOURCE, BallotView, cast_ballot
from nomic_cards.core.services.late_votes import LateVote, late_votes, owed_late, owed_later
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation
from nomic_cards.inputs import MAX_PROPOSAL, check_text, read_file, shorten

__all__ = ["VoteCast", "VoteImport", "cast_vote", "import_votes", "record_vote", "record_votes"]

_MAX_SOURCE = 255  # a file name
_MAX_TIME = 64  # an ISO time, generously


@dataclass(frozen=True)
class VoteImport:
    rows: int
    recorded: int
    already: int
    event: int | None
    late: tuple[LateVote, ...] = ()
    #: of them, ballots on decisions of the ledger (each an event of its own)
    ballots: int = 0


def record_vote(tx: Tx, player: str, proposal: str, *, at: str | None = None) -> VoteImport:
    """Record one vote (``at`` default: now). Recording the same vote again changes nothing."""
    when = parse_when(at) if at else tx.clock.now().replace(microsecond=0)
    return record_votes(tx, [(player, proposal, when)], source="vote")


#: how many bad lines of a vote file an error lists (the rest are counted)
MAX_LISTED = 20


@dataclass(frozen=True)
class _Bad:
    """What is wrong with one line of a vote file (``kind``: the error class to raise when it
    is the only one)."""

    line: int
    message: str
    kind: type[InputError] = InputError


def _refusal(source: str, bad: list[_Bad]) -> InputError:
    """One error for every bad line of a vote file (one problem per line, the first found): a
    single line says what is wrong on it; several give a summary line, then each bad line
    (the first :data:`MAX_LISTED`, and how many more)."""
    first: dict[int, _Bad] = {}
    for b in sorted(bad, key=lambda b: b.line):
        first.setdefault(b.line, b)
    found = list(first.values())
    if len(found) == 1:
        return found[0].kind(f"{source} line {found[0].line}: {found[0].message}")
    lines = [f"{source}: {len(found)} bad lines, nothing imported:"]
    lines += [f"  line {b.line}: {b.message}" for b in found[:MAX_LISTED]]
    if len(found) > MAX_LISTED:
        lines.append(f"  and {len(found) - MAX_LISTED} more")
    return InputError("\n".join(lines))


#: the columns of a vote file: three (votes alone, as always), or six (ballots too)
COLUMNS = ("player", "proposal", "time")
BALLOT_COLUMNS = ("player", "proposal", "option", "time", "source", "as_cast")


@dataclass(frozen=True)
class _Row:
    line: int
    player: str
    proposal: str
    at: datetime
    option: str = ""
    source: str = ""
    as_cast: str = ""


def import_votes(tx: Tx, path: str) -> VoteImport:
    """Import a CSV of ``player,proposal,time`` or ``player,proposal,option,time,source,as_cast``
    (header optional, at most :data:`~nomic_cards.inputs.MAX_FILE_BYTES`). A row whose proposal
    is a decision of the ledger is a ballot (its option FOR, AGAINST, PRESENT or ``endorse
    PLAYER``), in the file's order; any other row a vote, as ``vote cast`` records it. Any bad
    line: nothing is imported and the error names every bad line (:func:`_refusal`; a ballot the
    rules refuse, the first). Votes already recorded are skipped."""
    text = read_file(path, path, encoding="utf-8-sig")
    if "\0" in text:
        raise InputError(f"{path} is not a text file (it holds NUL characters)")
    source = check_text(Path(path).name, "the vote file's name", _MAX_SOURCE)
    parsed: list[_Row] = []
    bad: list[_Bad] = []
    reader = csv.reader(io.StringIO(text))
    width = 0
    try:
        for row in reader:
            line_no = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            cells = [c.strip() for c in row]
            if line_no == 1 and [c.lower() for c in cells] in (list(COLUMNS),
                                                                list(BALLOT_COLUMNS)):
                width = len(cells)
                continue
            if len(row) not in (3, 6) or (width and len(row) != width):
                names_ = BALLOT_COLUMNS if width == 6 else COLUMNS
                bad.append(_Bad(line_no, f"expected {len(names_)} fields "
                                         f"{','.join(names_)}, got {len(row)}"))
                continue
            width = width or len(row)
            found = _row(line_no, cells, bad)
            if found is not None:
                parsed.append(found)
    except csv.Error as exc:  # e.g. a field over csv.field_size_limit(): reading stops here
        bad.append(_Bad(reader.line_num, f"unreadable CSV ({exc}); the lines after it were "
                                         "not read"))
    decisions = tx.state.decisions
    plain = [r for r in parsed if r.proposal not in decisions]
    for r in parsed:
        if r.proposal in decisions and not r.option:
            bad.append(_Bad(r.line, f"decision {r.proposal} is on the ledger: its ballot needs "
                                    "an option (FOR, AGAINST, PRESENT or endorse PLAYER)"))
    result = record_votes(tx, [(r.player, r.proposal, r.at) for r in plain], source=source,
                          lines=[r.line for r in plain], bad=bad, path=path)
    ballots = already = 0
    for r in parsed:
        if r.proposal not in decisions:
            continue
        endorse = r.option[len("endorse"):].strip() if r.option.lower().startswith(
            "endorse") else None
        standing = decisions[r.proposal].ballots.get(r.player)
        if standing is not None and standing.at == r.at and (
                standing.endorse == endorse if endorse else standing.option == r.option.upper()):
            already += 1  # the file imported before
            continue
        try:
            cast_ballot(tx, r.player, r.proposal, option=None if endorse else r.option,
                        endorse=endorse, as_cast=r.as_cast, source=r.source or source,
                        at=iso(r.at))
        except (InputError, NotFound, RuleViolation) as exc:
            raise type(exc)(f"{path} line {r.line}: {exc}; nothing imported") from None
        ballots += 1
    return VoteImport(len(parsed), result.recorded + ballots, result.already + already,
                      result.event, result.late, ballots)


def _row(line: int, cells: list[str], bad: list[_Bad]) -> _Row | None:
    """One line of a vote file, checked (None: it is bad, and ``bad`` says why)."""
    if len(cells) == 3:
        player, proposal, when = cells
        option = source = as_cast = ""
    else:
        player, proposal, option, when, source, as_cast = cells
    if not player or not proposal:
        bad.append(_Bad(line, "empty player or proposal"))
        return None
    try:
        check_text(player, "the player", names.MAX_LENGTH)
        check_text(proposal, "the proposal", MAX_PROPOSAL)
        at = parse_when(check_text(when, "the time", _MAX_TIME))
        check_text(option, "the option", names.MAX_LENGTH + 10)
        check_text(source, "the source", MAX_SOURCE)
        check_text(as_cast, "the ballot as cast", MAX_AS_CAST)
    except InputError as exc:
        message = str(exc)
        if message.startswith("bad time"):
            message = f"bad time {shorten(when)}"
        bad.append(_Bad(line, message))
        return None
    return _Row(line, player, proposal, at, option, source, as_cast)


@dataclass(frozen=True)
class VoteCast:
    """What ``vote cast`` recorded: a ballot on a decision of the ledger, or a vote."""

    ballot: BallotView | None
    votes: VoteImport | None
    #: what was given for a proposal no decision of the ledger holds, and not kept
    dropped: tuple[str, ...] = ()


def cast_vote(tx: Tx, player: str, proposal: str, *, option: str | None = None,
              endorse: str | None = None, as_cast: str = "", source: str = "",
              comment: str = "", at: str | None = None) -> VoteCast:
    """``vote cast``: a ballot when ``proposal`` is a decision of the ledger, else a vote as
    always (a nomic whose votes are counted elsewhere loses nothing; the option and the rest,
    which only a decision counts, are not kept)."""
    pid = proposal.strip()
    if pid in tx.state.decisions:
        if option is None and endorse is None:
            raise InputError(f"decision {pid} is on the ledger: give the ballot as --option "
                             "FOR|AGAINST|PRESENT or --endorse PLAYER")
        return VoteCast(cast_ballot(tx, player, pid, option=option, endorse=endorse,
                                    as_cast=as_cast, source=source, comment=comment, at=at),
                        None)
    given = {"--option": option, "--endorse": endorse, "--as-cast": as_cast or None,
             "--source": source or None, "--comment": comment or None}
    return VoteCast(None, record_vote(tx, player, proposal, at=at),
                    tuple(k for k, v in given.items() if v is not None))


def record_votes(tx: Tx, rows: list[tuple[str, str, datetime]], *, source: str,
                 lines: list[int] | None = None, bad: list[_Bad] | None = None,
                 path: str = "") -> VoteImport:
    """Validate every row first, then record the new ones in one event. For a file (``path``),
    ``lines`` gives each row's line and ``bad`` the lines already refused: any bad line and
    nothing is recorded, the error naming them all. A vote in an nweek whose Cards for Votes
    were already dealt earns its card now, in the same transaction (:func:`_late_votes`)."""
    state = tx.state
    cal = calendar(state)
    now = tx.clock.now()
    named: list[tuple[str, str, datetime]] = []
    problems = list(bad or ())
    for i, (player, proposal, at) in enumerate(rows):
        line = lines[i] if lines else 0
        try:
            named.append(_check_vote(state, cal, now, player, proposal, at))
        except InputError as exc:
            if not lines:
                raise
            problems.append(_Bad(line, str(exc), type(exc)))
    if problems:
        raise _refusal(path, problems)
    existing = tx.existing_votes(min(r[2] for r in named), max(r[2] for r in named),
                                  [state.players[r[0]].id for r in named]) \
        if named else set()
    new: list[VoteEntry] = []
    seen = set(existing)
    for player, proposal, at in named:
        key = (player, proposal, at)
        if key in seen:
            continue
        seen.add(key)
        new.append(VoteEntry(player, proposal, at))
    event = None
    late: list[LateVote] = []
    if new:
        owed = owed_late(tx, state, cal, new)
        later = owed_later(state, owed)
        event = tx.record(VotesRecorded(tuple(new), source, later))[0].seq
        late = late_votes(tx, state, owed)
    return VoteImport(len(rows), len(new), len(rows) - len(new), event, tuple(late))


def _check_vote(state: State, cal: Calendar, now: datetime, player: str, proposal: str,
                at: datetime) -> tuple[str, str, datetime]:
    """One vote as recorded (the voter's registered name, the proposal stripped), or the
    error saying what is wrong with it."""
    try:
        name = require_player(state, player)
    except NotFound:
        raise NotFound(f"unknown player {shorten(player)}") from None
    proposal = proposal.strip()
    if not proposal:
        raise InputError("the proposal voted on must not be empty")
    check_text(proposal, "the proposal", MAX_PROPOSAL)
    if at < cal.origin:
        raise InputError(f"vote time {iso(at)} is before the game began "
                         f"(its first day is {cal.epoch.isoformat()})")
    if at > now:
        raise InputError(f"vote time {iso(at)} is in the future (it is now {iso(now)})")
    return name, proposal, at
