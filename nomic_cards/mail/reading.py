"""What a message says: its ballots and its actions, line by line, in the forms players write
them (docs/mail.md, "What players may write"). Hand-written matching of whole lines: each form
is one regular expression, tried in order, which is simpler than a grammar for lines that do
not nest.

- Quoted text never counts: a line starting with ``>``, a line introducing a quotation
  (``On ... wrote:``, ``ann wrote:``), and everything under the original of a top-posted reply
  (``-----Original Message-----``, a line of underscores, ``Begin forwarded message:``) or the
  signature (after a line ``--``).
- A ballot: ``9355 FOR``, ``9355: AGAINST``, ``Proposal 9355 PRESENT``, ``FOR on 9355``, ``I
  vote FOR on 9355``, ``9355 endorse ais523``, ``I endorse ais523 on 9355``; ``I vote as
  follows:`` may head a block of them. The options are FOR, AGAINST and PRESENT, in any case.
- An action named as ``nomic-cards act`` takes it: ``NAME KEY=VALUE ...`` (the words
  ``nomic-cards act`` before it may be left in), quoted as a shell quotes; and the phrasings a
  game declares for its actions (:attr:`~nomic_cards.core.actions.ActionSpec.phrases`).
- Every other line is kept with the message, not read: the officer sees each in ``--dry-run``
  and ``mail show``, and the receipt counts them.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from functools import cache

from nomic_cards.core.actions import ActionSpec, body_from_pairs, field_value
from nomic_cards.core.services.mail_in import Item, Reading
from nomic_cards.errors import InputError

#: the most items read in one message (a longer list: the rest refused)
MAX_ITEMS = 100
#: the longest line read
MAX_LINE = 2000

_OPTION = r"(?P<option>for|against|present)"
#: a decision's id (resolution.ID), read without a final '.' or '-', which ends the sentence
_ID = r"#?(?P<id>[A-Za-z0-9](?:[A-Za-z0-9._-]{0,38}[A-Za-z0-9_])?)"
_END = r"\s*[.!]?"
_BALLOTS = tuple(re.compile(p, re.IGNORECASE) for p in (
    # 9355 FOR / 9355: FOR / Proposal 9355 - AGAINST
    rf"(?P<proposal>proposal\s+)?{_ID}\s*[:=\-\u2013]?\s*{_OPTION}{_END}",
    # FOR on 9355 / I vote FOR on 9355 / I vote AGAINST proposal 9355 / FOR 9355
    rf"(?:i\s+vote\s+)?{_OPTION}\s+(?P<on>(?:on|to)\s+)?(?P<proposal>(?:the\s+)?proposal\s+)?"
    rf"{_ID}{_END}",
    # 9355 endorse ais523 / Proposal 9355: ENDORSE ais523
    rf"(?P<proposal>proposal\s+)?{_ID}\s*[:=\-\u2013]?\s*endorse\s+(?P<name>.+?){_END}",
    # I endorse ais523 on 9355 / endorse ais523 on proposal 9355
    rf"(?:i\s+(?:vote\s+to\s+)?)?endorse\s+(?P<name>.+?)\s+(?P<on>on\s+)"
    rf"(?P<proposal>(?:the\s+)?proposal\s+)?{_ID}{_END}",
))
_AS_FOLLOWS = re.compile(r"(?:.*\b)?votes?\s+(?:are\s+)?as\s+follows\b.*|"
                         r"(?:my\s+)?(?:votes?|ballots?)(?:\s+are)?\s*:", re.IGNORECASE)
#: a line under which everything is quoted (the original of a top-posted reply, a forward)
_ORIGINAL = re.compile(r"-{2,}\s*(?:original|forwarded)\s+message\s*-{2,}|_{20,}|"
                       r"begin\s+forwarded\s+message\s*:?", re.IGNORECASE)
#: a line introducing a quotation, skipped itself
_ATTRIBUTION = re.compile(r".{0,300}\bwrote\s*:", re.IGNORECASE)
_SIGNATURE = ("-- ", "--")
_ACTION_NAME = re.compile(r"[a-z][a-z0-9_-]*\.[a-z][a-z0-9_]*")
_CARDS_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def own_lines(text: str) -> tuple[list[str], int]:
    """The lines the sender wrote (quoted text, attributions and the signature left out), and
    how many lines were quoted."""
    out: list[str] = []
    quoted = 0
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line in _SIGNATURE:
            break
        stripped = line.strip()
        if _ORIGINAL.fullmatch(stripped):
            quoted += len(lines) - i
            break
        if stripped.startswith(">"):
            quoted += 1
            continue
        if _ATTRIBUTION.fullmatch(stripped):
            continue
        out.append(line)
    return out, quoted


def _ballot(line: str) -> Item | None:
    for pattern in _BALLOTS:
        m = pattern.fullmatch(line)
        if m is None:
            continue
        groups = m.groupdict()
        did = groups["id"]
        context = groups.get("proposal") or groups.get("on")
        if not context and not any(c.isdigit() for c in did):
            continue  # "I FOR": not a proposal's number
        if "name" in groups and groups["name"] is not None:
            return Item(line, "ballot", decision=did, endorse=groups["name"].strip())
        return Item(line, "ballot", decision=did, option=groups["option"].upper())
    return None


def _words(line: str) -> list[str] | None:
    """The words of an action line (``nomic-cards act`` before the name left out), or None
    when the line names no action."""
    try:
        words = shlex.split(line)
    except ValueError:
        first = line.split()
        if first and _ACTION_NAME.fullmatch(first[0].lower()):
            raise InputError("its quotes are not closed") from None
        return None
    if words[:1] == ["nomic-cards"]:
        words = words[1:]
    if words[:1] == ["act"]:
        words = words[1:]
    if not words or not _ACTION_NAME.fullmatch(words[0]):
        return None
    return words


def _action_line(line: str, actions: Mapping[str, ActionSpec]) -> Item | None:
    try:
        words = _words(line)
    except InputError as exc:
        return Item(line, "bad", reason=f"the line cannot be read: {exc}")
    if words is None:
        return None
    name, rest = words[0], words[1:]
    spec = actions.get(name)
    if spec is None:
        if name.partition(".")[0] not in {a.partition(".")[0] for a in actions}:
            return None  # "example.org is down": no game's action
        return Item(line, "bad", reason=f"there is no action named {name!r} (`nomic-cards "
                                        "actions` lists them)")
    if any(w.startswith("--") for w in rest):
        return Item(line, "bad", reason="a message acts as its sender, with the fields as "
                                        "KEY=VALUE: no --as, no --body")
    return _item(line, spec, rest)


def _item(line: str, spec: ActionSpec, pairs: list[str]) -> Item:
    if spec.scope != "player":
        return Item(line, "bad", reason=f"{spec.name} is the Dealer's: a message takes only a "
                                        "player's own actions")
    try:
        body = body_from_pairs(spec.name, pairs, {f.name: f.kind for f in spec.fields})
    except InputError as exc:
        return Item(line, "bad", reason=str(exc))
    body.pop("action", None)
    if spec.name == "cards.ballot":  # the core's own: cast with the message as its source
        return Item(line, "ballot", decision=str(body.get("decision", "")),
                    option=str(body["option"]).upper() if body.get("option") else None,
                    endorse=str(body["endorse"]) if body.get("endorse") else None)
    return Item(line, "act", action=spec.name, body=body)


@cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error:
        return None  # a game's own mistake: its phrase reads nothing


def _phrase(line: str, actions: Iterable[ActionSpec]) -> Item | None:
    for spec in actions:
        for pattern in spec.phrases:
            compiled = _compiled(pattern)
            m = compiled.fullmatch(line) if compiled is not None else None
            if m is None:
                continue
            kinds = {f.name: f.kind for f in spec.fields}
            body: dict[str, object] = {}
            try:
                for key, value in m.groupdict().items():
                    if value is None or key not in kinds:
                        continue
                    if kinds[key] in ("cards", "card-lists"):
                        value = _CARDS_AND.sub(",", value)
                    body[key] = field_value(kinds[key], [value.strip()])
            except InputError as exc:
                return Item(line, "bad", reason=f"{spec.name}: {exc}")
            if spec.scope != "player":
                return Item(line, "bad", reason=f"{spec.name} is the Dealer's: a message "
                                                "takes only a player's own actions")
            return Item(line, "act", action=spec.name, body=body)
    return None


def read(text: str, actions: Mapping[str, ActionSpec]) -> Reading:
    """What ``text`` (a message's own text) says, with ``actions`` the actions by name
    (:func:`~nomic_cards.core.services.acting.registry`)."""
    lines, quoted = own_lines(text)
    items: list[Item] = []
    unread: list[str] = []
    for raw in lines:
        line = " ".join(raw.split())
        if not line:
            continue
        if len(line) > MAX_LINE:
            unread.append(line[:200] + "\N{HORIZONTAL ELLIPSIS}")
            continue
        bare = line.rstrip(".!")
        if _AS_FOLLOWS.fullmatch(line) and _ballot(bare) is None:
            continue
        item = (_ballot(line) or _action_line(line, actions)
                or _phrase(bare, actions.values()))
        if item is None:
            unread.append(line)
        elif len(items) >= MAX_ITEMS:
            items.append(Item(line, "bad", reason=f"a message is read for at most "
                                                  f"{MAX_ITEMS} ballots and actions"))
        else:
            items.append(item)
    return Reading(tuple(items[:MAX_ITEMS + 1]), tuple(unread[:200]), quoted)
