"""How a decision of the nomic is resolved, as its Assessor does it: pure functions of its ballots
(below the ledger, whose replay checks every resolution against them).

A decision (a proposal put to a vote) has an adoption index ``AI`` (a decimal: ``1.0`` a simple
majority), a quorum and voting strengths. Each Player has at most one ballot on it: FOR, AGAINST
or PRESENT, or an endorsement of another Player (it counts as the endorsed Player's final
option on the same decision, PRESENT when e has none; a chain of endorsements is followed to
its end, and a ballot that would close a loop is refused when it is cast). The resolution:

1. **Quorum**: fewer distinct voters than the quorum (PRESENT counts) is ``FAILED QUORUM``,
   whatever the votes say.
2. ``F`` and ``A``, the summed strengths FOR and AGAINST (PRESENT adds nothing).
3. ``ADOPTED`` exactly when ``F >= AI * A`` and ``F > A``; otherwise ``REJECTED``.
4. Popularity (reported, not part of the outcome): (ballots FOR - ballots AGAINST) / ballots,
   heads not strength, printed to 3 decimals, half away from zero.

A strength in a published block is marked after the name when it differs from the decision's
default, by :data:`SYMBOLS` (``~`` 0 ... ``-`` 15). The block and the resolution message are laid
out as Agora Nomic's Assessor publishes them (docs/decisions.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext

from nomic_cards.errors import InputError, RuleViolation

FOR, AGAINST, PRESENT = "FOR", "AGAINST", "PRESENT"
OPTIONS = (FOR, AGAINST, PRESENT)
ADOPTED, REJECTED, FAILED_QUORUM = "ADOPTED", "REJECTED", "FAILED QUORUM"
CLASSES = ("ordinary", "democratic")

#: the mark of each strength from 0 to 15 after a name whose strength is not the default
SYMBOLS = "~!@#$%^&*+=/?<>-"
#: the bounds of a voting strength (a strength is clamped to the rule's, within these)
STRENGTH_LOW, STRENGTH_HIGH = 0, len(SYMBOLS) - 1
#: the largest adoption index
AI_HIGH = Decimal(1000)
#: a decision's id: letters, digits and ``._-``, as a proposal's number or name is written
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


def check_id(text: str) -> str:
    """A decision's id as given, or :class:`InputError` saying what it may hold."""
    t = text.strip()
    if not ID.fullmatch(t):
        raise InputError(f"a decision's id is 1 to 40 letters, digits, '.', '_' or '-' (as "
                         f"the proposal is numbered), starting with a letter or digit, not "
                         f"{t[:50]!r}")
    return t


def parse_ai(text: str) -> str:
    """An adoption index as written for the record: a non-negative decimal (``2``, ``1.5``,
    ``3.0``), at most :data:`AI_HIGH`, kept with at least one decimal (``2`` is ``2.0``)."""
    t = text.strip()
    try:
        value = Decimal(t)
    except InvalidOperation:
        value = Decimal("NaN")
    if not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{1,4})?", t) or not value.is_finite() \
            or value > AI_HIGH:
        raise InputError(f"the adoption index is a non-negative decimal such as 1.0 or 2.5 "
                         f"(at most {AI_HIGH}, four decimals), not {t[:30]!r}")
    return t if "." in t else f"{t}.0"


def check_option(text: str) -> str:
    """FOR, AGAINST or PRESENT (any case)."""
    t = text.strip().upper()
    if t not in OPTIONS:
        raise InputError(f"a ballot's option is FOR, AGAINST or PRESENT, not {text.strip()[:30]!r}")
    return t


def clamp(strength: int, low: int, high: int) -> int:
    """A strength within the rule's bounds."""
    return max(low, min(high, strength))


@dataclass(frozen=True)
class Ballot:
    """A Player's ballot as it stands: an option, or the Player e endorses."""

    option: str | None
    endorse: str | None = None
    comment: str = ""


def endorsement_loop(ballots: Mapping[str, Ballot], player: str, endorse: str) -> list[str]:
    """The loop ``player``'s endorsement of ``endorse`` would close (empty: none): the chain
    from ``endorse`` through its endorsements back to ``player``."""
    chain = [player, endorse]
    seen = {player}
    who = endorse
    while who in ballots and ballots[who].endorse is not None:
        if who in seen:
            return []  # a loop not through ``player`` (refused when it was cast)
        seen.add(who)
        who = ballots[who].endorse  # type: ignore[assignment]
        chain.append(who)
        if who == player:
            return chain
    return []


def verify_endorsement(ballots: Mapping[str, Ballot], player: str, endorse: str) -> None:
    """A Player may endorse another, and never close a loop of endorsements."""
    if endorse == player:
        raise RuleViolation(f"{player} cannot endorse emself")
    loop = endorsement_loop(ballots, player, endorse)
    if loop:
        raise RuleViolation(f"{player}'s endorsement of {endorse} would close a loop of "
                            f"endorsements ({' -> '.join(loop)}): no option could be found "
                            "for any of them")


def final_option(ballots: Mapping[str, Ballot], player: str) -> str:
    """What ``player``'s ballot counts as: its option, or the endorsed Player's final option
    (PRESENT when e has no ballot), the chain followed to its end."""
    seen: set[str] = set()
    who = player
    while True:
        ballot = ballots.get(who)
        if ballot is None:
            return PRESENT
        if ballot.endorse is None:
            assert ballot.option is not None
            return ballot.option
        if who in seen:  # pragma: no cover - a loop is refused when it is cast
            return PRESENT
        seen.add(who)
        who = ballot.endorse


@dataclass(frozen=True)
class Tally:
    """A decision resolved: who counted as each option (sorted as published), the strengths
    FOR and AGAINST, the number of ballots, the popularity and the outcome."""

    for_: tuple[str, ...]
    against: tuple[str, ...]
    present: tuple[str, ...]
    f: int
    a: int
    ballots: int
    popularity: str
    outcome: str


def popularity(for_: int, against: int, ballots: int) -> str:
    """(FOR - AGAINST) / ballots to 3 decimals, a half rounded away from zero ("0.000" with no
    ballot)."""
    if ballots == 0:
        return "0.000"
    with localcontext() as ctx:
        ctx.prec = 50
        value = Decimal(for_ - against) / Decimal(ballots)
    return str(value.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def adopted(f: int, a: int, ai: str) -> bool:
    """``F >= AI * A`` and ``F > A``."""
    return Decimal(f) >= Decimal(ai) * Decimal(a) and f > a


def tally(ballots: Mapping[str, Ballot], strengths: Mapping[str, int], *, default: int,
          quorum: int, ai: str) -> Tally:
    """The resolution of a decision from the ballots standing at its close (by Player) and
    the voting strength of each Player (``default`` for one not named)."""
    counted = {p: final_option(ballots, p) for p in ballots}
    names = {o: tuple(sorted(p for p, got in counted.items() if got == o)) for o in OPTIONS}
    f = sum(strengths.get(p, default) for p in names[FOR])
    a = sum(strengths.get(p, default) for p in names[AGAINST])
    n = len(counted)
    outcome = FAILED_QUORUM if n < quorum else ADOPTED if adopted(f, a, ai) else REJECTED
    return Tally(names[FOR], names[AGAINST], names[PRESENT], f, a, n,
                 popularity(len(names[FOR]), len(names[AGAINST]), n), outcome)


def mark(strength: int, default: int) -> str:
    """The mark after a name in a published block: nothing at the default strength."""
    return "" if strength == default else SYMBOLS[strength]


def endorsement_comment(endorse: str, comment: str) -> str:
    """What a published block says of an endorsement in its brackets."""
    said = f"Endorsement of {endorse}"
    return f"{comment}: {said}" if comment else said


@dataclass(frozen=True)
class Block:
    """What a published block shows of one decision."""

    id: str
    title: str
    author: str
    klass: str
    ai: str
    tally: Tally
    strengths: Mapping[str, int]
    default: int
    #: the bracketed notes, by Player: an endorsement, an officer's note on a ballot
    notes: Mapping[str, str]


def agora_block(b: Block) -> str:
    """One decision in the Assessor's published layout, every line ending in a newline."""
    t = b.tally

    def names(players: Sequence[str]) -> str:
        return ", ".join(p + mark(b.strengths.get(p, b.default), b.default) for p in players)

    lines = [f"PROPOSAL {b.id} ({b.title})", f"AUTHOR: {b.author}",
             f"CLASS: {b.klass.upper()}",
             f"FOR ({len(t.for_)}): {names(t.for_)}",
             f"AGAINST ({len(t.against)}): {names(t.against)}",
             f"PRESENT ({len(t.present)}): {names(t.present)}",
             f"BALLOTS: {t.ballots}", f"AI (F/A): {t.f}/{t.a} (AI={b.ai})",
             f"POPULARITY: {t.popularity}", f"OUTCOME: {t.outcome}"]
    if b.notes:
        lines += ["[", *(f"{p}: {b.notes[p]}" for p in sorted(b.notes)), "]"]
    return "".join(line + "\n" for line in lines)


def underline(title: str) -> str:
    return f"{title}\n{'=' * len(title)}\n"


def resolution_message(blocks: Sequence[Block], quorums: Mapping[str, int],
                       texts: Mapping[str, str], coauthors: Mapping[str, Sequence[str]]) -> str:
    """The whole resolution of ``blocks`` as the Assessor posts it: the header, the quorum,
    the strengths other than the default, each decision's block, and the full text of each
    one adopted."""
    ids = ", ".join(b.id for b in blocks)
    out = [underline(f"RESOLUTION OF PROPOSALS {ids}"), "\n",
           "I hereby resolve the decisions to adopt the below proposals.\n", "\n"]
    if len(set(quorums.values())) == 1:
        out.append(f"The quorum for all below decisions was {next(iter(quorums.values()))}.\n")
    else:
        out += [f"The quorum of decision {b.id} was {quorums[b.id]}.\n" for b in blocks]
    defaults = {b.default for b in blocks}
    special = sorted({s for b in blocks for p, s in b.strengths.items() if s != b.default})
    if special:
        out.append("\n")
        out.append(underline("VOTING STRENGTHS"))
        if len(defaults) == 1:
            out.append(f"Strength is {next(iter(defaults))} unless otherwise noted.\n")
        out += [f"{SYMBOLS[s]}: player has voting strength {s}\n" for s in special]
    out += ["\n", underline("PROPOSALS"), "\n"]
    for b in blocks:
        out += [agora_block(b), "\n"]
    adopted_ = [b for b in blocks if b.tally.outcome == ADOPTED]
    if not adopted_:
        out.append("No proposals were adopted.\n")
        return "".join(out)
    out += ["The full text of each ADOPTED proposal is included below:\n", "\n"]
    bar = "/" * 70 + "\n"
    for b in adopted_:
        out += [bar, f"ID: {b.id}\n", f"Title: {b.title}\n", f"Adoption index: {b.ai}\n",
                f"Author: {b.author}\n", f"Co-authors: {', '.join(coauthors.get(b.id, ()))}\n",
                "\n", "\n", texts.get(b.id, "").strip() + "\n", "\n"]
    out.append(bar)
    return "".join(out)
