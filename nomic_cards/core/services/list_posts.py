"""Reports to the list: the Dealer's Report and each decision's resolution as the messages
posted to the game's list (``report --post``, ``decision post``, ``cron run`` when the list is
configured), and the ``list.posted`` event recording each one's Message-ID once it went out.

The list's address is ``NOMIC_CARDS_LIST``, the Subject's tag ``NOMIC_CARDS_LIST_TAG``
(default ``OFF: [Dealer]``). A message's body is plain text of at most :data:`WIDTH` columns:
the date of this report and of the last one, then the report exactly as published (already
72 columns) or the resolution as the Assessor posts it, its longer lines wrapped. Sending is
the mail adapter's business (:mod:`nomic_cards.mail.posting`); this module builds what to send
and records what was sent, so no transaction is open while the SMTP server is talked to.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from nomic_cards import inputs
from nomic_cards.core.ledger import events as ev
from nomic_cards.core.report import WIDTH, wrap_line
from nomic_cards.core.services.decisions import resolution_text, resolved
from nomic_cards.core.store.reads import Reads
from nomic_cards.core.store.writes import Tx
from nomic_cards.errors import InputError, NotFound, RuleViolation

LIST_VARIABLE = "NOMIC_CARDS_LIST"
TAG_VARIABLE = "NOMIC_CARDS_LIST_TAG"
DEFAULT_TAG = "OFF: [Dealer]"
REPORT = "report"
RESOLUTION = "resolution"
_EVER = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ListConfig:
    """The game's list: its address and the tag its Subjects start with."""

    address: str
    tag: str = DEFAULT_TAG


def list_config(address: str | None, tag: str | None = None) -> ListConfig | None:
    """The list from ``--list`` / ``NOMIC_CARDS_LIST`` (None: not configured) and the tag;
    :class:`InputError` for an address that is not exactly one."""
    if not address:
        return None
    a = address.strip()
    if not inputs.is_address(a):
        raise InputError(f"{LIST_VARIABLE} (--list) takes the list's e-mail address, not "
                         f"{address!r}")
    t = " ".join((tag if tag is not None else DEFAULT_TAG).split())
    if len(t) > 60:
        raise InputError(f"{TAG_VARIABLE} (--tag) is at most 60 characters, not {len(t)}")
    return ListConfig(a, t)


@dataclass(frozen=True)
class Post:
    """One message to post: what (a report or a resolution), of which nweek or decisions, its
    Subject, body and Message-ID (the same post always gets the same one)."""

    what: str
    ids: tuple[str, ...]
    subject: str
    body: str
    message_id: str


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` wrapped at its spaces, its indentation
    kept on the lines it continues on (a word longer than ``width`` stays whole)."""
    out: list[str] = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
            continue
        out += wrap_line(line, line[:len(line) - len(line.lstrip())], width)
    return "\n".join(out) + "\n"


def _message_id(what: str, ids: Sequence[str], body: str) -> str:
    digest = hashlib.sha256(body.encode()).hexdigest()[:24]
    return f"<{what}-{'-'.join(ids)}.{digest}@nomic-cards>"


def posted(tx: Reads, what: str) -> set[str]:
    """The nweeks (as text) or decisions already posted to the list."""
    return {i for r in tx.events_from(_EVER, None, (ev.ListPosted.KIND,))
            if isinstance(r.event, ev.ListPosted) and r.event.what == what and r.event.to_list
            for i in r.event.ids}


def _date(tx: Reads, seq: int) -> str:
    at = tx.event_time(seq)
    return "(unknown)" if at is None else at.strftime("%Y-%m-%d %H:%M UTC")


def report_post(tx: Reads, nweek: int, tag: str = DEFAULT_TAG) -> Post:
    """The message posting the Dealer's Report for ``nweek``, as published; refused when it is
    not published (by the game's clock)."""
    stored = tx.report(nweek)
    at = None if stored is None else tx.event_time(stored.seq)
    if stored is None or at is None or at > tx.clock.now():
        raise NotFound(f"the Dealer's Report for nweek {nweek} is not published yet")
    last = next((r for r in (tx.report(k) for k in range(nweek - 1, 0, -1)) if r is not None),
                None)
    head = [f"Date of this report: {_date(tx, stored.seq)}",
            "Date of last report: " + (f"{_date(tx, last.seq)} (nweek {last.nweek})"
                                       if last is not None else "none, this is the first"),
            ""]
    body = wrap("\n".join(head) + "\n" + stored.text)
    ids = (str(nweek),)
    return Post(REPORT, ids, f"{tag} Dealer's Report for nweek {nweek}", body,
                _message_id(REPORT, ids, body))


def resolution_post(tx: Reads, ids: Sequence[str], tag: str = DEFAULT_TAG) -> Post:
    """The message posting the resolution of the decisions ``ids`` (each resolved)."""
    if not ids:
        raise InputError("name the decisions whose resolution to post")
    details = resolved(tx, ids)
    names = tuple(d.id for d in details)
    if len(set(names)) != len(names):
        raise InputError("a decision is named twice")
    body = wrap(resolution_text(details))
    word = "decision" if len(names) == 1 else "decisions"
    return Post(RESOLUTION, names, f"{tag} Resolution of {word} {', '.join(names)}", body,
                _message_id(RESOLUTION, names, body))


def check_not_posted(tx: Reads, post: Post) -> None:
    """Refuse a post already on the list (the ``list.posted`` event says so)."""
    done = sorted(set(post.ids) & posted(tx, post.what))
    if done:
        what = "the Dealer's Report for nweek" if post.what == REPORT else \
            "the resolution of decision"
        raise RuleViolation(f"{what} {done[0]} was already posted to the list (the ledger's "
                            "list.posted event); it is posted once")


def new_report_posts(tx: Reads, tag: str = DEFAULT_TAG) -> list[Post]:
    """Every published report not yet posted to the list, by SMTP or through cron's output
    (``reports.posted``), oldest first. Reports in the form published before reports named
    their nweek's Dealers count as posted, as for ``report --new``."""
    latest = tx.latest_report()
    if latest is None:
        return []
    done = posted(tx, REPORT) | {
        str(k) for m in tx.events_from(_EVER, None, (ev.ReportsPosted.KIND,))
        if isinstance(m.event, ev.ReportsPosted) for k in m.event.nweeks}
    now = tx.clock.now()
    out = []
    for k in range(1, latest + 1):
        stored = tx.report(k)
        if stored is None or str(k) in done or "dealers" not in json.loads(stored.json):
            continue
        at = tx.event_time(stored.seq)
        if at is not None and at <= now:
            out.append(report_post(tx, k, tag))
    return out


def new_resolution_posts(tx: Reads, tag: str = DEFAULT_TAG) -> list[Post]:
    """The decisions resolved and not yet posted to the list, in the order they were resolved,
    in one message (as the Assessor posts several at once); none when there are none."""
    done = posted(tx, RESOLUTION)
    due = sorted((d.resolved_seq, d.id) for d in tx.state.decisions.values()
                 if d.resolved_seq is not None and d.id not in done)
    return [resolution_post(tx, [i for _, i in due], tag)] if due else []


def record_post(tx: Tx, post: Post, to: str, *, to_list: bool = True) -> int | None:
    """Record that ``post`` went to ``to`` (the event's number); None when another command
    recorded it on the list meanwhile (the same Message-ID, so a reader sees it once)."""
    if to_list and set(post.ids) & posted(tx, post.what):
        return None
    rec = tx.record(ev.ListPosted(post.what, post.ids, post.message_id, to, to_list))
    return rec[0].seq
