"""One line per ledger event, as ``nomic-cards log`` prints it: what happened, in words.

Private fields (a dealt card, a player's address, a revealed seed...) appear only with
``reveal``; without it the line says what kind of thing is hidden. The Deck is named ``Deck``,
never by the ``None`` that stands for it in a payload. Nested data (the rendered Dealer's
Report, the votes of an import) is summed up, never printed whole: ``--json`` has it all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from nomic_cards.core.installed import spec as rule_spec
from nomic_cards.core.ledger.codec import EventDecodeError, decode_public
from nomic_cards.core.ledger.events import (
    AddressAsked,
    AddressLinked,
    BallotCast,
    CardDealt,
    CardTransferred,
    ClockStarted,
    ClockStopped,
    DealerElected,
    DealRefused,
    DecisionOpened,
    DecisionReminded,
    DecisionResolved,
    DiceCommitted,
    DiceRevealed,
    DiceUse,
    EventRecord,
    GameCreated,
    JsonObject,
    ListPosted,
    MailChosen,
    NoticeFailed,
    NoticeGiven,
    NoticeSent,
    NoticesMailed,
    NweekStarted,
    PackAdded,
    PackRetired,
    PlayerEmailSet,
    PlayerRegistered,
    PlayerRejoined,
    PlayerRetired,
    ReportDenied,
    ReportDoubted,
    ReportDoubtWithdrawn,
    ReportPublished,
    ReportRatified,
    ReportRevised,
    ReportsPosted,
    RuleAmended,
    RuleEnacted,
    RuleRepealed,
    SealedNotice,
    StrengthSet,
    TokenAsked,
    TokenMailed,
    VotesRecorded,
)
from nomic_cards.core.ledger.state import State
from nomic_cards.core.services.common import card_label

#: what a line says in place of a private field when it is not revealed
HIDDEN_NOTE = "(hidden: use --reveal)"
#: what the public channels (streams, the page, the feed) say in its place
HIDDEN_PUBLIC = "(hidden)"
#: how many names or votes a line lists before it counts the rest
LISTED = 3


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:LISTED])
    rest = len(items) - LISTED
    return f"{shown} and {rest} more" if rest > 0 else shown


def _events(seqs: Sequence[int]) -> str:
    return f"event{'s' if len(seqs) > 1 else ''} {_listed([str(s) for s in seqs])}"


def _holder(name: str | None) -> str:
    return "Deck" if name is None else name


def _cards(state: State, numbers: Sequence[int]) -> str:
    return _listed([card_label(state, n) for n in numbers]) if numbers else "none"


def _dice(dice: DiceUse) -> str:
    rolls = _plural(dice.count, "roll")
    where = f", period {dice.period}" if dice.period is not None else ""
    return f"{rolls} of a {dice.sides}-sided die ({dice.source} dice{where})"


def _rule(name: str) -> str:
    found = rule_spec(name)
    return found.label if found is not None else f"rule {name}"


def _params(state: State, params: Mapping[str, object]) -> str:
    """A rule change's parameters as a player reads them: the packs by name."""
    out = []
    for key, value in params.items():
        if key == "packs":
            numbers = [int(n) for n in str(value).split(",") if n.isdigit()]
            value = ", ".join(state.packs[n].name if n < len(state.packs) else str(n)
                              for n in numbers)
            out.append(f"packs {value}")
        else:
            out.append(f"{key}={value}")
    return "; ".join(out)


def _first_line(notice: str, reveal: bool) -> str:
    """A notice's first line (what it is about: its mail's subject), or that it is hidden."""
    return notice.split("\n", 1)[0] if reveal else HIDDEN_NOTE


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
    if isinstance(e, NoticeGiven):
        waits = f" (event {e.waits} waits for em)" if e.waits else ""
        return f"a private notice to {e.player}{waits}: {_first_line(e.notice, reveal)}"
    if isinstance(e, SealedNotice):
        to = f" to {e.player}" if reveal else ""
        return f"a sealed private notice{to}: {_first_line(e.notice, reveal)}"
    if isinstance(e, NoticeSent):
        return f"mailed the notice of event {e.notice}" + (f" to {rec.subject}"
                                                            if rec.subject else "")
    if isinstance(e, NoticeFailed):
        why = f" <{e.address}>: {e.reply}" if reveal else f" {HIDDEN_NOTE}"
        return f"the mail server refused the notice of event {e.notice}{why}"
    if isinstance(e, NoticesMailed):
        named = _events(e.notices) if e.notices else "none naming its player"
        if not reveal:
            return f"mailed the notices: {named}; sealed ones and refusals {HIDDEN_NOTE}"
        refused = [f"event {r.notice} <{r.address}>: {r.reply}" for r in e.refused]
        return (f"mailed the notices: {named}; sealed: "
                f"{_events(e.sealed) if e.sealed else 'none'}; refused: "
                f"{_listed(refused) if refused else 'none'}")
    if isinstance(e, MailChosen):
        how = "in a daily digest" if e.mail == "daily" else "at each sending"
        return f"{e.name} chose to be mailed eir notices {how}"
    if isinstance(e, AddressAsked):
        where = f"<{e.email}>" if reveal else HIDDEN_NOTE
        return f"{e.name} asked to change eir e-mail address to {where}; a link confirms it"
    if isinstance(e, AddressLinked):
        if not e.expires:
            why = f": {e.reply}" if reveal else f" {HIDDEN_NOTE}"
            return (f"the new address {e.name} asked for (event {e.request}) refused its "
                    f"confirmation link{why}; the change is dropped")
        return (f"mailed {e.name} the link confirming the address change of event "
                f"{e.request}, good until {e.expires}")
    if isinstance(e, TokenAsked):
        return f"a new token was asked for {e.name}, to be mailed to eir address"
    if isinstance(e, TokenMailed):
        if not reveal:
            return (f"answered the request for a new token for {e.name} (event {e.request}) "
                    f"{HIDDEN_NOTE}")
        if e.selector:
            return (f"mailed {e.name} a new token ({e.selector}) at <{e.address}>; eir "
                    "earlier tokens are revoked")
        return f"mailed {e.name} no new token (event {e.request}): {e.reply}"
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
    if isinstance(e, RuleEnacted):
        given = _params(state, e.params)
        return (f"{_rule(e.rule)} was enacted by {e.proposal!r} (version {e.version})"
                + (f": {given}" if given else ""))
    if isinstance(e, RuleAmended):
        given = _params(state, e.params)
        version = f"version {e.version}" if e.version is not None else ""
        return (f"{_rule(e.rule)} was amended by {e.proposal!r}: "
                + "; ".join(x for x in (given, version) if x))
    if isinstance(e, RuleRepealed):
        return f"{_rule(e.rule)} was repealed by {e.proposal!r}"
    if isinstance(e, DecisionOpened):
        carried = f"; it carries {_plural(len(e.changes), 'rule change')}" if e.changes else ""
        return (f"opened decision {e.id} ({e.title}) by {e.author}: voting ends {e.closes}, "
                f"AI={e.ai}, quorum {e.quorum}{carried}")
    if isinstance(e, BallotCast):
        what = e.option if e.endorse is None else f"endorsing {e.endorse}"
        # a ballot cast when it was recorded (to the second) says no time of its own
        when = "" if e.at == rec.at.replace(microsecond=0) else \
            f" (cast {e.at.strftime('%Y-%m-%dT%H:%M:%SZ')})"
        return f"{e.player} voted on decision {e.decision}: {what}{when}"
    if isinstance(e, DecisionReminded):
        if not e.players:
            return (f"a day before decision {e.decision} closes, every active player had "
                    "voted: no one was told")
        told = "was told" if len(e.players) == 1 else "were told"
        return (f"a day before decision {e.decision} closes, "
                f"{_plural(len(e.players), 'player')} who had not voted {told}: "
                f"{_listed(list(e.players))}")
    if isinstance(e, DecisionResolved):
        # heads counted as each option, then the summed strengths (F/A), as the Assessor says
        return (f"decision {e.decision} was resolved: {e.outcome} (FOR {len(e.for_)}, "
                f"AGAINST {len(e.against)}, PRESENT {len(e.present)}; F/A {e.f}/{e.a}; "
                f"{_plural(e.ballots, 'ballot')}, quorum {e.quorum})")
    if isinstance(e, StrengthSet):
        value = "the default" if e.strength is None else str(e.strength)
        return f"{e.player}'s voting strength is {value} from now on: {e.reason}"
    if isinstance(e, ReportPublished):
        return f"published the Dealer's Report for nweek {e.nweek}"
    if isinstance(e, ReportsPosted):
        nweeks = _listed([str(k) for k in e.nweeks])
        return f"posted the Dealer's Report for nweek {nweeks} to the list"
    if isinstance(e, ReportDoubted):
        return (f"{e.player} doubted the Dealer's Report for nweek {e.nweek}: {e.claim}"
                + (f" (source {e.source})" if e.source else ""))
    if isinstance(e, ReportDenied):
        return f"the Dealer denied the claim of error of event {e.doubt}: {e.reason}"
    if isinstance(e, ReportRevised):
        return (f"the Dealer revised the report doubted by event {e.doubt}: "
                f"{e.correction}")
    if isinstance(e, ReportDoubtWithdrawn):
        return f"{e.player} withdrew eir claim of error of event {e.doubt}"
    if isinstance(e, ReportRatified):
        return (f"the Dealer's Report for nweek {e.nweek} is ratified: it stood undoubted "
                f"for {e.days} days")
    if isinstance(e, ListPosted):
        what = (f"the Dealer's Report for nweek {_listed(list(e.ids))}" if e.what == "report"
                else f"the resolution of decision {_listed(list(e.ids))}")
        where = "the list" if e.to_list else "a copy"
        return f"posted {what} to {where} ({e.to}) as {e.message_id}"
    said = e.summary(state, reveal=reveal)  # a card game's kind (and Points) describe
    if said is not None:                     # themselves
        return said
    return ", ".join(f"{k}={v}" for k, v in rec.payload.items()
                     if not isinstance(v, dict | list))


def public_sentence(seq: int, at: datetime, actor: str, kind: str, subject: str | None,
                    payload: JsonObject, state: State) -> str:
    """The event's line as the public channels carry it (the streams, an action's answer, the
    page, the feed): :func:`summary` without ``reveal``, read from the public payload alone
    (its private fields are blanks that no line without ``reveal`` may name), a hidden field
    said as :data:`HIDDEN_PUBLIC`. ``state`` names the packs of public cards (the packs are
    all it is asked for). A kind no installed code reads is named by its kind."""
    try:
        event = decode_public(kind, payload, seq)
    except EventDecodeError:
        return kind + (f" ({subject})" if subject else "")
    rec = EventRecord(seq, at, actor, subject, event, payload, {}, "", "")
    return summary(rec, state, reveal=False).replace(HIDDEN_NOTE, HIDDEN_PUBLIC)
