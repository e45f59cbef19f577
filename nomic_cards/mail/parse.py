"""Reading a message, bounded: the standard library's ``email`` with ``policy.default``, after the
size is checked and with the MIME structure held to :data:`MAX_DEPTH` levels and
:data:`MAX_PARTS` parts; every header read and every charset decoded under a guard, so that a
malformed message gives a reason in one line (:attr:`Parsed.refusal`), never a traceback.

What is read: the Message-ID (one, ``<...>`` of printable ASCII; a message without one is named
by the SHA-256 of its bytes), the one address of its From, its Subject and Date, and its text:
the plain-text part (``text/plain``, the first of a ``multipart/alternative``), decoded from its
charset. A message of HTML alone, of an unknown charset, nested too deep or too large is
refused with the reason. A byte string that is no message at all (empty, or not beginning with
a header) is :class:`NotAMessage`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from typing import Any

from nomic_cards.errors import InputError
from nomic_cards.inputs import MAX_FILE_BYTES, address_problem

#: the largest message read (larger: refused, only its head kept)
MAX_BYTES = MAX_FILE_BYTES
#: what is kept of a message too large to read: its first bytes (the headers)
HEAD_BYTES = 64 * 1024
#: how deep MIME parts may nest, and how many a message may hold
MAX_DEPTH = 10
MAX_PARTS = 100
#: the longest Message-ID taken as it is
MAX_MESSAGE_ID = 250
#: the longest text read (the rest of a longer one is not)
MAX_TEXT = 256 * 1024
#: the domain of the Message-IDs made for messages that have none
MADE_UP = "nomic-cards.invalid"

_HEADER_LINE = re.compile(rb"^(From |[!-9;-~]+:)")
_MESSAGE_ID = re.compile(r"<[!-;=?-~]+>")  # printable ASCII, no space, no < or > inside


class NotAMessage(InputError):
    """The bytes are no mail message at all (nothing, or no header first)."""


@dataclass(frozen=True)
class Parsed:
    """What a message says of itself. ``refusal``: why it cannot be read (None: its text is in
    ``text``); ``raw``: what is kept of it (the whole message, or the head of one too large);
    ``size``: its size in bytes."""

    message_id: str
    sender: str | None
    subject: str
    date: datetime | None
    text: str | None
    refusal: str | None
    raw: bytes
    size: int


def made_up_id(raw: bytes) -> str:
    """The Message-ID of a message without one: from the SHA-256 of its bytes."""
    return f"<sha256-{hashlib.sha256(raw).hexdigest()[:40]}@{MADE_UP}>"


def _head(raw: bytes) -> bytes:
    """The header block of ``raw`` (up to the first empty line), within :data:`HEAD_BYTES`."""
    head = raw[:HEAD_BYTES]
    for sep in (b"\r\n\r\n", b"\n\n"):
        at = head.find(sep)
        if at >= 0:
            return head[:at + len(sep)]
    return head


def check_is_message(raw: bytes) -> None:
    """Raise :class:`NotAMessage` unless ``raw`` begins with a header line (an mbox's ``From ``
    line too)."""
    if not raw.strip():
        raise NotAMessage("not a mail message: the input is empty")
    if not _HEADER_LINE.match(raw.lstrip(b"\r\n")):
        raise NotAMessage("not a mail message: it does not begin with a header "
                          "(NAME: value)")


def _one_line(text: object, limit: int = 500) -> str:
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[:limit - 1] + "\N{HORIZONTAL ELLIPSIS}"


def _header(msg: Message, name: str) -> Any:
    """The one header ``name`` parsed (None: absent), or :class:`InputError` for a header
    that is given twice or cannot be parsed."""
    try:
        values = msg.get_all(name) or []
    except Exception as exc:  # noqa: BLE001 - the header parser's own failure
        raise InputError(f"its {name} header cannot be read ({type(exc).__name__})") from None
    if len(values) > 1:
        raise InputError(f"it has {len(values)} {name} headers")
    return values[0] if values else None


def _message_id(msg: Message, raw: bytes) -> str:
    for name, value in msg.raw_items():
        if name.lower() == "message-id":
            text = "".join(str(value).split())
            if _MESSAGE_ID.fullmatch(text) and len(text) <= MAX_MESSAGE_ID:
                return text
            break
    return made_up_id(raw)


def _sender(msg: Message) -> str:
    """The From's one address, or :class:`InputError` saying what is wrong with it."""
    header = _header(msg, "From")
    if header is None:
        raise InputError("it has no From header")
    addresses = tuple(getattr(header, "addresses", ()))
    if len(addresses) != 1:
        raise InputError(f"its From header names {len(addresses)} addresses, not one")
    spec = str(addresses[0].addr_spec)
    problem = address_problem(spec)
    defects: tuple[object, ...] = tuple(getattr(header, "defects", ()))
    if problem is not None or defects:
        why = problem or _one_line(defects[0], 120)
        raise InputError(f"its From header does not hold one plain address ({why})")
    return spec


def _depth(msg: Message) -> tuple[int, int]:
    """How deep the message's parts nest, and how many there are (counted without
    recursion)."""
    deepest, parts = 0, 0
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        parts += 1
        deepest = max(deepest, depth)
        if parts > MAX_PARTS or deepest > MAX_DEPTH:
            break
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                stack.extend((p, depth + 1) for p in payload if isinstance(p, Message))
    return deepest, parts


def _text(msg: EmailMessage) -> str:
    """The message's plain text, or :class:`InputError` saying why there is none to read."""
    depth, parts = _depth(msg)
    if depth > MAX_DEPTH:
        raise InputError(f"its MIME parts nest more than {MAX_DEPTH} deep")
    if parts > MAX_PARTS:
        raise InputError(f"it has more than {MAX_PARTS} MIME parts")
    try:
        body = msg.get_body(preferencelist=("plain",))
    except Exception as exc:  # noqa: BLE001 - a structure the library cannot walk
        raise InputError(f"its MIME structure cannot be read ({type(exc).__name__})") from None
    if body is None:
        kinds = {p.get_content_type() for p in msg.walk()}
        if "text/html" in kinds:
            raise InputError("it has no plain-text part (HTML only): write it as plain text")
        raise InputError("it has no plain-text part")
    charset = body.get_content_charset() or "us-ascii"
    try:
        content = body.get_content()
    except LookupError:
        raise InputError(f"its text is in an unknown charset ({_one_line(charset, 60)!r})") \
            from None
    except Exception as exc:  # noqa: BLE001 - a malformed transfer encoding
        raise InputError(f"its text cannot be decoded ({type(exc).__name__})") from None
    if not isinstance(content, str):
        raise InputError("its text part holds no text")
    return content[:MAX_TEXT]


def parse(raw: bytes, *, size: int | None = None) -> Parsed:
    """Read ``raw`` (``size``: its whole size when only its head was kept). Never raises but
    :class:`NotAMessage`; what cannot be read is the :attr:`Parsed.refusal`."""
    check_is_message(raw)
    whole = len(raw) if size is None else size
    parser = BytesParser(policy=policy.default)
    too_large = whole > MAX_BYTES
    kept = _head(raw) if too_large else raw
    refusal: str | None = None
    if too_large:
        refusal = (f"it is {whole:,} bytes, more than the {MAX_BYTES:,} a message to the game "
                   "may be")
    elif raw.lower().count(b"multipart/") > MAX_PARTS:
        refusal = f"it has more than {MAX_PARTS} MIME parts"
        kept = raw
    try:
        msg = parser.parsebytes(_head(raw) if refusal else raw)
    except Exception as exc:  # noqa: BLE001 - the parser's own failure
        return Parsed(made_up_id(raw), None, "", None, None,
                      f"it cannot be parsed as a message ({type(exc).__name__})", kept, whole)
    assert isinstance(msg, EmailMessage)
    message_id = _message_id(msg, raw)
    sender: str | None = None
    subject, date = "", None
    try:
        sender = _sender(msg)
    except InputError as exc:
        refusal = refusal or str(exc)
    try:
        header = _header(msg, "Subject")
        subject = _one_line(header or "", 200)
    except InputError as exc:
        refusal = refusal or str(exc)
    try:
        header = _header(msg, "Date")
        date = getattr(header, "datetime", None) if header is not None else None
        if date is not None and date.tzinfo is None:
            date = None
    except InputError as exc:
        refusal = refusal or str(exc)
    text: str | None = None
    if refusal is None:
        try:
            text = _text(msg)
        except InputError as exc:
            refusal = str(exc)
    return Parsed(message_id, sender, subject, date, text, refusal, kept, whole)
