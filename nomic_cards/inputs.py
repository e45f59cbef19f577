"""Checks of what users type, shared by the core, the adapters and the libraries.

- Numbers are written in ASCII digits ``0``-``9``: Python's ``int()`` and ``str.isdigit()``
  also take other scripts' digits (``٣`` is 3 to them) and superscripts (``²``.isdigit() is true
  but ``int('²')`` fails), so input is never parsed with them directly (:func:`ascii_int`).
- JSON from outside (an action's body) is read one way (:func:`read_json`): no key twice in an
  object, no NaN or Infinity, no whole number past :data:`MAX_SAFE_INT`, no lone surrogate, at
  most :data:`MAX_JSON_DEPTH` levels of nesting.
- Free text (a reason, a rule, a proposal, a pack's back, an address) is bounded in length, the
  same on every database, and holds no control character (:func:`check_text`): an escape
  sequence or a newline stored in the ledger would reach an officer's terminal or forge a line
  of output. Text already stored is shown with such characters escaped (:func:`escape`).
- An e-mail address is exactly one address, ``name@example.org`` (:func:`check_address`): no
  name, comment, angle brackets or second address that a header or an SMTP envelope would
  read as another recipient.

docs/cli.md, "Limits", lists the bounds.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import unicodedata
from typing import Any, BinaryIO, NoReturn

from nomic_cards.errors import InputError

#: the longest run of digits parsed as a number (Python's int() refuses more than 4300)
MAX_DIGITS = 4000

#: the largest whole number (in magnitude) an action's field or a Points amount or balance may
#: be: 2**53 - 1 = 9,007,199,254,740,991, the largest every JSON reader holds exactly
#: (JavaScript's Number.MAX_SAFE_INTEGER); docs/cli.md, "Limits"
MAX_SAFE_INT = 2**53 - 1

#: the deepest nesting of arrays and objects :func:`read_json` reads
MAX_JSON_DEPTH = 32

#: bounds on free text, in characters (docs/cli.md, "Limits")
MAX_REASON = 500  #: ``deal --reason``, ``transfer --rule``
MAX_PROPOSAL = 100  #: a proposal voted on
MAX_PACK_NAME = 100  #: a pack's name
MAX_PACK_BACK = 200  #: the description of a pack's Back
MAX_EMAIL = 254  #: an e-mail address (RFC 5321: at most 254 characters in a path)
MAX_ACTOR = 200  #: ``NOMIC_CARDS_ACTOR``

#: the largest file read as input (a vote file, a published report, a dealer script)
MAX_FILE_BYTES = 8 * 1024 * 1024

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)

#: code points refused in free text and escaped on output: the control characters (general
#: category Cc: C0, DEL, C1), surrogates, the line and paragraph separators, and the
#: bidirectional embeddings, overrides and isolates
_BAD = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def is_ascii_number(text: str) -> bool:
    """Whether ``text`` is one or more ASCII digits and nothing else."""
    return _DIGITS.fullmatch(text) is not None


def shorten(text: str, limit: int = 40) -> str:
    """``repr(text)`` for a message, cut in the middle when it is long."""
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    return f"{text[:half] + '...' + text[-half:]!r} ({len(text)} characters)"


def show_number(number: int) -> str:
    """``number`` for a message: in full up to 24 digits, else its first digits and length."""
    text = str(number)
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} digits)"


def ascii_int(text: str, what: str = "number", *, signed: bool = False) -> int | None:
    """The number ``text`` writes in ASCII digits (with ``signed``, after an optional ``+`` or
    ``-``), or None when it is anything else: other scripts' digits, spaces, ``_``. A number of
    more than :data:`MAX_DIGITS` digits is an :class:`InputError` naming ``what``."""
    if (_INT if signed else _DIGITS).fullmatch(text) is None:
        return None
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise InputError(f"{what} has {len(digits)} digits: too large (at most {MAX_DIGITS})")
    return -int(digits) if text.startswith("-") else int(digits)


def _kind(ch: str) -> str:
    return {"Cc": "a control character", "Cs": "a surrogate", "Zl": "a line separator",
            "Zp": "a paragraph separator"}.get(unicodedata.category(ch),
                                               "a bidirectional formatting character")


def check_text(text: str, what: str, limit: int) -> str:
    """``text`` unchanged, or an :class:`InputError` naming ``what`` when it is longer than
    ``limit`` characters or holds a control character (a newline, an escape, a bidirectional
    override...)."""
    if len(text) > limit:
        raise InputError(f"{what} is too long ({len(text)} characters; at most {limit})")
    found = _BAD.search(text)
    if found is not None:
        ch = found.group()
        raise InputError(f"{what} must not contain {_kind(ch)} (U+{ord(ch):04X} at character "
                         f"{found.start() + 1}): {shorten(text)}")
    return text


#: the longest local part (before the ``@``) of an address (RFC 5321)
MAX_EMAIL_LOCAL = 64
#: one label of a domain name, as the DNS writes it in ASCII (letters, digits, hyphens inside)
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?", re.ASCII)


def address_problem(text: str) -> str | None:
    """Why ``text`` is not exactly one e-mail address (an RFC 5322 ``addr-spec`` in its plain
    form, ``name@example.org``), or None when it is one.

    The standard library's parser (:class:`email.headerregistry.Address`) reads it, and must
    read all of it, without a defect, back to the very same text; on top of that the strict
    form: no display name, comment, angle brackets, quoted local part or bracketed domain,
    and a domain of DNS labels (an international one as IDNA encodes it). So nothing a
    header or an SMTP envelope could read as a second recipient gets through
    (``dan@x.test,evil@e.test``, ``a@x>,<evil@e``, ``Dan <dan@x.test>``)."""
    if len(text) > MAX_EMAIL:
        return f"it is too long ({len(text)} characters; at most {MAX_EMAIL})"
    if _BAD.search(text) is not None:
        return "it holds a control character"
    if any(c in text for c in ",;"):
        return "it holds more than one address: give one"
    if any(c in text for c in "<>()\"[]\\"):
        return "give the address alone, with no name, comment, quotes or brackets"
    if any(c.isspace() for c in text):
        return "it holds a space"
    from email.errors import HeaderParseError, MessageDefect
    from email.headerregistry import Address

    try:
        parsed = Address(addr_spec=text)
    except (ValueError, IndexError, HeaderParseError, MessageDefect):
        parsed = None
    if parsed is None or parsed.addr_spec != text or text.count("@") != 1:
        return "it is not of the form name@example.org"
    if len(parsed.username) > MAX_EMAIL_LOCAL:
        return f"its part before the @ is too long (at most {MAX_EMAIL_LOCAL} characters)"
    try:
        ascii_domain = parsed.domain.encode("idna").decode("ascii")
    except UnicodeError:
        return "its domain is not a domain name"
    if not all(_LABEL.fullmatch(label) for label in ascii_domain.split(".")):
        return "its domain is not a domain name"
    return None


def is_address(text: str) -> bool:
    """Whether ``text`` is exactly one e-mail address (:func:`address_problem`)."""
    return address_problem(text) is None


def check_address(text: str, what: str = "an e-mail address") -> str:
    """``text`` unchanged when it is exactly one e-mail address, else an :class:`InputError`
    in one line saying why (:func:`address_problem`)."""
    check_text(text, what, MAX_EMAIL)
    problem = address_problem(text)
    if problem is not None:
        raise InputError(f"not an e-mail address: {shorten(text)}: {problem}")
    return text


def escape(text: str) -> str:
    """``text`` with every character :func:`check_text` refuses written as an escape
    (``\\x1b``, ``\\n``, ``\\u202e``), for showing text stored before it was refused."""
    return _BAD.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace")
                    .decode("ascii"), text)


def escape_lines(text: str) -> str:
    """:func:`escape` on each line of ``text``, keeping its line breaks."""
    return "\n".join(escape(line) for line in text.split("\n"))


def _too_big(what: str, limit: int) -> InputError:
    return InputError(f"{what} is larger than {limit // (1024 * 1024)} MB: not read")


def read_limited(stream: BinaryIO, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """Everything left in ``stream`` (standard input, say), or an :class:`InputError` naming
    ``what`` once more than ``limit`` bytes have come: never more is read."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _too_big(what, limit)
    return data


def read_file(path: str, what: str, limit: int = MAX_FILE_BYTES,
              encoding: str = "utf-8") -> str:
    """The text of the regular file at ``path``, or an :class:`InputError` naming ``what``:
    missing, unreadable, not a regular file (a directory, a device such as ``/dev/zero``, a
    pipe), larger than ``limit`` bytes (at most ``limit + 1`` bytes are read, whatever the
    file claims), or not text in ``encoding``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise InputError(f"cannot read {what}: it is {kind}")
        if info.st_size > limit:
            raise _too_big(what, limit)
        with os.fdopen(os.dup(fd), "rb") as f:
            data = read_limited(f, what, limit)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {what}: not a UTF-8 text file (bad byte at offset "
                         f"{exc.start})") from None


class _JsonRefused(ValueError):
    """Why :func:`read_json` refuses a text that :mod:`json` alone would read."""


def _refuse(text: str) -> NoReturn:
    raise _JsonRefused(text)


def _no_key_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            _refuse(f"gives the key {shorten(key)} twice in one object")
        out[key] = value
    return out


def _whole(text: str) -> int:
    digits = text.lstrip("-").lstrip("0")
    if len(digits) > len(str(MAX_SAFE_INT)) or abs(int(text)) > MAX_SAFE_INT:
        shown = text if len(text) <= 24 else f"{text[:12]}... ({len(digits)} digits)"
        _refuse(f"holds the number {shown}, past {MAX_SAFE_INT} (2^53 - 1, what every JSON "
                "reader holds exactly)")
    return int(text)


def _fraction(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _refuse(f"holds the number {text[:24]}, too large for a JSON reader")
    return value


def _constant(name: str) -> NoReturn:
    _refuse(f"holds {name}, which JSON does not have")


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings left out), counted up to
    one past :data:`MAX_JSON_DEPTH`."""
    depth = deepest = 0
    for ch in _STRING.sub("", text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
        elif ch in "]}":
            depth -= 1
    return deepest


def _lone_surrogate(value: object) -> str | None:
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        return None if found is None else f"\\u{ord(found.group()):04x}"
    items: list[Any] = []
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    return next((s for s in map(_lone_surrogate, items) if s is not None), None)


def read_json(raw: bytes | str, what: str) -> object:
    """The JSON text ``raw`` (bytes: UTF-8) read one way, or an :class:`InputError` in one line
    naming ``what`` and what is wrong: not UTF-8, not JSON (with the line and column), nested
    more than :data:`MAX_JSON_DEPTH` deep, a key given twice in one object, ``NaN`` or
    ``Infinity``, a whole number past :data:`MAX_SAFE_INT` either way (or a fraction too large
    for a float), a lone surrogate (``"\\ud800"``, which no UTF-8 text can hold)."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{what} is not UTF-8 text (bad byte at offset {exc.start})") \
                from None
    if _depth(raw) > MAX_JSON_DEPTH:
        raise InputError(f"{what} nests too deeply (at most {MAX_JSON_DEPTH} levels of arrays "
                         "and objects)")
    try:
        value = json.loads(raw, object_pairs_hook=_no_key_twice, parse_int=_whole,
                           parse_float=_fraction, parse_constant=_constant)
    except _JsonRefused as exc:
        raise InputError(f"{what} {exc}") from None
    except RecursionError:
        raise InputError(f"{what} nests too deeply (at most {MAX_JSON_DEPTH} levels of arrays "
                         "and objects)") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column "
                         f"{exc.colno})") from None
    surrogate = _lone_surrogate(value)
    if surrogate is not None:
        raise InputError(f"{what} holds a lone surrogate ({surrogate}), which is no character")
    return value
