"""Use cases of mail in: a message received, kept once by its Message-ID and, when it is
authenticated and from a player, applied -- its ballots cast and its acts taken as the
player, each citing the message -- and the officer's review of the messages that were not.

The mail adapter (:mod:`nomic_cards.mail`) reads a message -- its headers, its DKIM signature,
its text -- into an :class:`Incoming` and hands it to :func:`take_message` inside ONE writing
transaction. What happens then:

- The same Message-ID already kept: nothing (a duplicate is applied once).
- The From address is matched to the registered address of a player (without regard to case).
  No player has it: the message is kept as ``unmatched`` and listed, never applied. A retired
  player, or several players sharing it: ``refused``.
- A message that could not be read (too large, malformed, no plain text, ...): ``refused``
  with the reason.
- A message from a player that no DKIM signature of the From's own domain authenticates:
  ``pending``, until the officer accepts it (:func:`accept_message`, which applies it then) or
  rejects it (:func:`reject_message`). Nothing it says acts by itself.
- Otherwise ``applied``: each item in turn, each in a savepoint of the transaction, so that a
  refused item (a ballot after the close, a trade of a card not held) is undone alone and
  reported, and the items the rules take stay recorded. A message is read as a player reads
  it: several commands, each done or refused on its own, as if typed one by one; refusing a
  good ballot because a later line was mistyped would make the player send everything again.

Ballots cite the message in their public ``source`` (its Message-ID, or its digest when the
Message-ID holds the sender's address, with the archive's address when there is one) and keep
the line as written (``as_cast``, the sender's address blanked); an act's events name
``PLAYER (by mail <Message-ID>)``, or ``PLAYER (by mail)`` for a private act (a notification
for the Dealer alone), whose message stays with the Dealer; an act that keeps a ``source`` (a
claim of error) cites the message there as a ballot does. The sender's address is kept only in
``mail_messages``, which is the Dealer's alone.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from nomic_cards.core.services.common import iso, parse_when
from nomic_cards.core.store import messages
from nomic_cards.core.store.reads import MailRow, Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NomicCardsError, NotFound, RuleViolation
from nomic_cards.inputs import MAX_ACTOR, MAX_REASON, check_text

__all__ = [
    "Incoming",
    "Item",
    "ItemResult",
    "MessageOutcome",
    "MessageView",
    "Reading",
    "accept_message",
    "citation",
    "mail_message",
    "mail_messages",
    "match_sender",
    "preview_message",
    "receipt_done",
    "receipts_due",
    "reject_message",
    "take_message",
]

#: what became of a message
STATUSES = ("applied", "pending", "rejected", "refused", "unmatched")
#: the ways a message comes in
VIAS = ("receive", "import", "poll")
#: the longest Message-ID cited as it is (a longer one is cited by its digest)
MAX_CITED = 150
MAX_SUBJECT = 200
_BLANK = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Item:
    """One thing a message says: a ballot on a decision (an option, or an endorsement), an
    action with its body (as ``nomic-cards act`` takes it), or a line that names one but cannot
    be read (``bad``, with the reason), which is refused."""

    line: str
    kind: Literal["ballot", "act", "bad"]
    decision: str | None = None
    option: str | None = None
    endorse: str | None = None
    action: str | None = None
    body: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "kind": self.kind}
        for key in ("decision", "option", "endorse", "action"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.kind == "act":
            out["body"] = dict(self.body)
        if self.reason:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Item:
        return cls(str(d["line"]), d["kind"], d.get("decision"), d.get("option"),
                   d.get("endorse"), d.get("action"), dict(d.get("body") or {}),
                   str(d.get("reason", "")))


@dataclass(frozen=True)
class Reading:
    """What a message says: the items read in its own text, in order, and the lines that were
    not read (kept with the message, never acted on); ``quoted``: the lines of quoted text
    skipped (``>`` lines, the original under a reply)."""

    items: tuple[Item, ...] = ()
    unread: tuple[str, ...] = ()
    quoted: int = 0


@dataclass(frozen=True)
class Incoming:
    """A message as the mail adapter read it. ``refusal``: why it cannot be read at all (the
    rest is then what could be read of its headers); ``authenticated``: how its From was
    authenticated (a DKIM signature of the From's domain), else None and ``unauthenticated``
    says why not; ``cast_at``: when its ballots count as cast (when it reached the game, or an
    archive's Date); ``archive``: its address in the list's archive, if one is configured."""

    message_id: str
    via: str
    sender: str | None
    subject: str
    raw: bytes
    size: int
    reading: Reading
    refusal: str | None = None
    authenticated: str | None = None
    unauthenticated: str = ""
    cast_at: datetime | None = None
    archive: str | None = None


@dataclass(frozen=True)
class ItemResult:
    """What became of one item: recorded (its events) or refused, in one sentence."""

    line: str
    recorded: bool
    text: str
    events: tuple[int, ...] = ()
    private: bool = False


@dataclass(frozen=True)
class MessageOutcome:
    """What became of a message: its number in ``mail_messages`` (None for a duplicate), its
    status, the player its From names, the reason (refused, pending, rejected), each item's
    result, the lines not read, and whether a receipt is due. ``duplicate_of``: the number of
    the copy kept before."""

    id: int | None
    message_id: str
    status: str
    player: str | None
    reason: str
    results: tuple[ItemResult, ...] = ()
    unread: tuple[str, ...] = ()
    receipt: str | None = None
    duplicate_of: int | None = None


@dataclass(frozen=True)
class MessageView:
    """A message kept, for the officer: what ``mail list`` and ``mail show`` print."""

    id: int
    message_id: str
    received_at: str
    via: str
    sender: str | None
    player: str | None
    subject: str
    status: str
    reason: str
    auth: str
    items: tuple[dict[str, Any], ...]
    unread: tuple[str, ...]
    results: tuple[dict[str, Any], ...]
    events: tuple[int, ...]
    private: bool
    size: int
    receipt: str | None
    receipt_note: str | None
    decided_at: str | None
    decided_by: str | None


def _players_with(tx: Reads, address: str) -> list[tuple[str, bool]]:
    """(name, active) of each player whose registered address is ``address`` (its case
    aside)."""
    wanted = address.casefold()
    return [(p.name, p.active) for p in tx.state.players.values()
            if p.email is not None and p.email.casefold() == wanted]


def match_sender(tx: Reads, sender: str | None) -> tuple[str | None, str | None]:
    """The active player whose registered address the From gives, and None; or None and why
    the message cannot be a player's (a retired player, an address two players share); or
    (None, None) when no player has it."""
    if sender is None:
        return None, None
    found = _players_with(tx, sender)
    active = [name for name, live in found if live]
    if len(active) > 1:
        return None, (f"its From address is registered to {len(active)} players "
                      f"({', '.join(sorted(active))}): the officer must tell them apart")
    if active:
        return active[0], None
    if found:
        return None, f"its From address is {found[0][0]}'s, who has retired"
    return None, None


def citation(message_id: str, sender: str | None) -> str:
    """How the public record cites a message: its Message-ID, or, when that is longer than
    :data:`MAX_CITED` characters or holds the sender's address (some mail programs put it
    there), ``Message-ID sha256:<32 hex digits>``, which anyone holding the message can check
    and which says nothing of its sender."""
    hidden = sender is not None and sender.casefold() in message_id.casefold()
    if len(message_id) <= MAX_CITED and not hidden:
        return message_id
    digest = hashlib.sha256(message_id.encode("utf-8", "surrogateescape")).hexdigest()
    return f"Message-ID sha256:{digest[:32]}"


def _blank_address(text: str, sender: str | None) -> str:
    """``text`` on one line, as the public record may keep it: the sender's address blanked,
    white space made single spaces and control characters dropped."""
    one = " ".join(_BLANK.sub(" ", text).split())
    if sender:
        one = re.sub(re.escape(sender), "(address)", one, flags=re.IGNORECASE)
    return one


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _reading_json(incoming: Incoming) -> str:
    return json.dumps({"items": [i.as_dict() for i in incoming.reading.items],
                       "unread": list(incoming.reading.unread),
                       "quoted": incoming.reading.quoted,
                       "cast_at": iso(incoming.cast_at) if incoming.cast_at else None,
                       "archive": incoming.archive}, ensure_ascii=False)


def _results_json(results: Sequence[ItemResult]) -> str:
    return json.dumps([{"line": r.line, "recorded": r.recorded, "text": r.text,
                        "events": list(r.events), "private": r.private} for r in results],
                      ensure_ascii=False)


def _subject(text: str) -> str:
    one = _blank_address(text, None)
    return one if len(one) <= MAX_SUBJECT else one[:MAX_SUBJECT - 1] + "\N{HORIZONTAL ELLIPSIS}"


def _judge(tx: Reads, incoming: Incoming) -> tuple[MailRow | None, str | None, str, str]:
    """The copy kept before (a duplicate), the player, the status and the reason."""
    if incoming.via not in VIAS:
        raise InputError(f"a message comes by one of {', '.join(VIAS)}, not {incoming.via!r}")
    kept = tx.mail_message(message_id=incoming.message_id)
    if kept is not None:
        return kept, kept.player, kept.status, (
            f"the same message (Message-ID {incoming.message_id}) was received before, as "
            f"message {kept.id}: not applied again")
    player, why_not = match_sender(tx, incoming.sender)
    if incoming.refusal is not None:
        return None, player, "refused", incoming.refusal
    if why_not is not None:
        return None, None, "refused", why_not
    if player is None:
        return None, None, "unmatched", ("its From address is no player's" if incoming.sender
                                         else "its From names no one address")
    if incoming.authenticated is None:
        return None, player, "pending", (f"not authenticated ({incoming.unauthenticated}): "
                                         "it waits for the officer's acceptance")
    return None, player, "applied", ""


def preview_message(tx: Reads, incoming: Incoming) -> MessageOutcome:
    """What :func:`take_message` would do with ``incoming``, without doing it (``--dry-run``):
    the status and the reason, nothing applied or kept."""
    kept, player, status, reason = _judge(tx, incoming)
    return MessageOutcome(None, incoming.message_id, status, player, reason, (),
                          incoming.reading.unread, None, kept.id if kept else None)


def take_message(tx: Tx, incoming: Incoming, *, receipts: bool = True) -> MessageOutcome:
    """Keep ``incoming`` and, when it is authenticated and from a player, apply what it says
    (see the module docstring), in ``tx``. ``receipts``: whether the player is to be answered
    (a receipt is then due: the adapter sends it once ``tx`` is committed)."""
    kept, player, status, reason = _judge(tx, incoming)
    if kept is not None:
        return MessageOutcome(None, incoming.message_id, kept.status, kept.player, reason,
                              duplicate_of=kept.id)
    state = tx.state
    answered = receipts and player is not None
    auth = incoming.authenticated or incoming.unauthenticated
    number = messages.add(
        tx, message_id=incoming.message_id, at=tx.clock.now(), via=incoming.via,
        sender=incoming.sender, player_id=state.players[player].id if player else None,
        subject=_subject(incoming.subject), status=status, reason=reason, auth=auth,
        reading=_reading_json(incoming), size=incoming.size, raw=incoming.raw,
        raw_sha256=hashlib.sha256(incoming.raw).hexdigest(),
        receipt="due" if answered else None)
    results: tuple[ItemResult, ...] = ()
    if status == "applied":
        assert player is not None
        results = _apply(tx, player, incoming.message_id, incoming.sender,
                         incoming.reading.items, incoming.cast_at, incoming.archive)
        messages.applied(tx, number, outcome=_results_json(results),
                         seqs=json.dumps(sorted({s for r in results for s in r.events})),
                         private=any(r.private and r.recorded for r in results),
                         receipt="due" if answered else None)
    return MessageOutcome(number, incoming.message_id, status, player, reason, results,
                          incoming.reading.unread, "due" if answered else None)


def _apply(tx: Tx, player: str, message_id: str, sender: str | None,
           items: Sequence[Item], cast_at: datetime | None,
           archive: str | None) -> tuple[ItemResult, ...]:
    """Each item in turn, as ``player``, each in a savepoint: a refused one is undone alone."""
    from nomic_cards.core.services.acting import check_body, registry
    from nomic_cards.core.services.decisions import cast_ballot

    cited = citation(message_id, sender)
    source = cited if archive is None else f"{cited} {archive}"
    if len(source) > 500:
        source = cited
    actions = registry()
    saved = tx.actor
    out: list[ItemResult] = []
    try:
        for item in items:
            if item.kind == "bad":
                out.append(ItemResult(item.line, False, item.reason))
                continue
            try:
                if item.kind == "ballot":
                    tx.actor = _actor(player, cited)
                    with tx.savepoint():
                        view = cast_ballot(
                            tx, player, item.decision or "", option=item.option,
                            endorse=item.endorse, as_cast=_blank_address(item.line, sender),
                            source=source, at=iso(cast_at) if cast_at is not None else None)
                    what = view.option if view.endorse is None else f"an endorsement of " \
                                                                    f"{view.endorse}"
                    again = " (replacing your earlier one)" if view.replaced else ""
                    seqs = (view.event, *(late.event for late in view.late
                                          if late.event is not None))
                    out.append(ItemResult(item.line, True, f"your ballot on decision "
                                          f"{view.decision} is {what}{again} (event "
                                          f"{view.event})", seqs))
                    continue
                spec = actions.get(item.action or "")
                if spec is None:
                    raise InputError(f"there is no action named {item.action!r} now (the "
                                     "card game may have left)")
                if spec.scope != "player":
                    raise RuleViolation(f"{spec.name} is the Dealer's: a message takes only "
                                        "a player's own actions")
                checked = check_body(spec, {**item.body, "action": spec.name})
                if sender and any(isinstance(v, str) and sender.casefold() in v.casefold()
                                  for v in checked.values()):
                    raise InputError("it holds your address, which would then be public: "
                                     "write it without")
                if not spec.private and any(f.name == "source" for f in spec.fields):
                    # the message is the act's source, as it is a ballot's, whatever the
                    # line says
                    checked["source"] = source
                tx.actor = _actor(player, None if spec.private else cited)
                with tx.savepoint():
                    done = spec.run(tx, player, checked)
                seqs = tuple(sorted(set(done.seqs)))
                state = "; it waits for its match" if done.waiting and "wait" not in \
                    done.summary else ""
                shown = ", ".join(f"event {s}" for s in seqs) or "no event"
                out.append(ItemResult(item.line, not done.refused,
                                      f"{spec.name}: {done.summary}{state} ({shown})",
                                      seqs, spec.private))
            except NomicCardsError as exc:
                out.append(ItemResult(item.line, False, _first_line(exc)))
    finally:
        tx.actor = saved
    return tuple(out)


def _actor(player: str, cited: str | None) -> str:
    """Who the events name: ``ann (by mail <id@example.org>)``; ``ann (by mail)`` for a
    private act, or when the citation would not fit."""
    named = f"{player} (by mail {cited})" if cited else f"{player} (by mail)"
    return named if len(named) <= MAX_ACTOR else f"{player[:MAX_ACTOR - 10]} (by mail)"


def _row(tx: Reads, id: int) -> MailRow:
    if isinstance(id, bool) or not isinstance(id, int) or id < 1:
        raise InputError("a message's number is a whole number from 1 (see `nomic-cards mail "
                         "list`)")
    row = tx.mail_message(id=id)
    if row is None:
        raise NotFound(f"there is no message {id} (see `nomic-cards mail list`)")
    return row


def _stored_reading(row: MailRow) -> dict[str, Any]:
    try:
        found = json.loads(row.reading)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise RuleViolation(f"message {row.id}'s stored reading is not JSON: it was edited "
                            "outside nomic-cards")
    return found


def accept_message(tx: Tx, id: int) -> MessageOutcome:
    """The officer accepts pending message ``id`` as its player's: what it says is applied now,
    as :func:`take_message` applies an authenticated message (its ballots count as cast when it
    was received), and a receipt is due."""
    row = _row(tx, id)
    if row.status != "pending":
        raise RuleViolation(f"message {row.id} is {row.status}, not pending: only a pending "
                            "message is accepted")
    if row.player is None or row.player not in tx.state.players \
            or not tx.state.players[row.player].active:
        raise RuleViolation(f"message {row.id}'s player {row.player or '(none)'} is no longer "
                            "an active player: reject it")
    stored = _stored_reading(row)
    items = tuple(Item.from_dict(d) for d in stored.get("items", ()))
    cast_at = (parse_when(str(stored["cast_at"])) if stored.get("cast_at")
               else row.received_at)
    results = _apply(tx, row.player, row.message_id, row.sender, items, cast_at,
                     stored.get("archive"))
    who = tx.actor
    messages.settle(tx, row.id, status="applied", reason="",
                    auth=f"accepted by {who}", outcome=_results_json(results),
                    seqs=json.dumps(sorted({s for r in results for s in r.events})),
                    private=any(r.private and r.recorded for r in results), receipt="due",
                    at=tx.clock.now(), by=who)
    return MessageOutcome(row.id, row.message_id, "applied", row.player, "", results,
                          tuple(stored.get("unread", ())), "due")


def reject_message(tx: Tx, id: int, *, reason: str) -> MessageOutcome:
    """The officer rejects pending message ``id``, saying why: nothing it says is applied; its
    player is answered."""
    row = _row(tx, id)
    if row.status != "pending":
        raise RuleViolation(f"message {row.id} is {row.status}, not pending: only a pending "
                            "message is rejected")
    why = check_text(" ".join(reason.split()), "--reason", MAX_REASON)
    if not why:
        raise InputError("--reason must say why the message is rejected")
    due = "due" if row.player is not None else None
    messages.settle(tx, row.id, status="rejected", reason=why, auth=row.auth, outcome=None,
                    seqs="[]", private=False, receipt=due, at=tx.clock.now(), by=tx.actor)
    return MessageOutcome(row.id, row.message_id, "rejected", row.player, why, (),
                          (), due)


def _view(row: MailRow) -> MessageView:
    try:
        stored = json.loads(row.reading)
        results = json.loads(row.outcome) if row.outcome else []
        events = json.loads(row.seqs)
    except ValueError:
        stored, results, events = {}, [], []
    stored = stored if isinstance(stored, dict) else {}
    return MessageView(
        row.id, row.message_id, iso(row.received_at) or "", row.via, row.sender, row.player,
        row.subject, row.status, row.reason, row.auth, tuple(stored.get("items", ())),
        tuple(stored.get("unread", ())), tuple(results if isinstance(results, list) else ()),
        tuple(int(s) for s in events if isinstance(s, int)) if isinstance(events, list)
        else (), row.private, row.size, row.receipt, row.receipt_note, iso(row.decided_at),
        row.decided_by)


def mail_messages(tx: Reads, status: str | None = None, *,
                  limit: int = 1000) -> list[MessageView]:
    """The messages kept: those of ``status`` oldest first (``pending``: the review queue), or
    every one, newest first."""
    if status is not None and status not in STATUSES:
        raise InputError(f"a message's status is one of {', '.join(STATUSES)}, not "
                         f"{status!r}")
    return [_view(r) for r in tx.mail_messages(status, limit=limit)]


def mail_message(tx: Reads, id: int, *, raw: bool = False) -> tuple[MessageView, bytes | None]:
    """Message ``id`` as kept (and, with ``raw``, the message itself, as received)."""
    row = _row(tx, id)
    return _view(row), (tx.mail_raw(row.id) if raw else None)


def receipts_due(tx: Reads) -> list[MessageView]:
    """The messages whose receipt is due, oldest first."""
    return [_view(r) for r in tx.mail_receipts("due")]


def receipt_done(tx: Tx, id: int, *, sent: bool, note: str) -> None:
    """Record what became of message ``id``'s receipt: ``sent`` (``note``: when), or refused
    for good by the mail server (``note``: its reply). One refused for now stays due."""
    messages.receipt(tx, _row(tx, id).id, state="sent" if sent else "failed",
                     note=note[:500])
