"""Messages from mailbox files and folders (``mail import``): an mbox file (a list's archive, a
mail program's export), a Maildir folder (``cur/``, ``new/``, ``tmp/``), or a file holding one
message. Each message is read from the file as it is needed, at most
:data:`~nomic_cards.mail.parse.MAX_BYTES` of it (the size of a larger one is counted, its head
kept), so a large archive is never held in memory whole.
"""

from __future__ import annotations

import mailbox
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from nomic_cards.errors import InputError
from nomic_cards.mail.parse import HEAD_BYTES, MAX_BYTES

_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Stored:
    """One message of a mailbox: where it is (``FILE#N``), its bytes (its head only when it
    is larger than the limit) and its whole size."""

    where: str
    raw: bytes
    size: int


def read_bounded(stream: IO[bytes]) -> tuple[bytes, int]:
    """At most :data:`MAX_BYTES` of ``stream`` (just its head when there is more), and how
    many bytes it held: the rest is read and dropped, so a writer on the other end of a pipe
    is never cut off."""
    data = stream.read(MAX_BYTES + 1)
    size = len(data)
    if size <= MAX_BYTES:
        return data, size
    head = data[:HEAD_BYTES]
    del data
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return head, size
        size += len(chunk)


def _delivered(key: object) -> list[str | int]:
    """A box's key as the order of delivery sorts it: an mbox's are numbers; a Maildir's names
    hold the time and its microseconds, not padded (``1767225600.M99999P7Q1.host`` came before
    ``1767225600.M123456P7Q2.host``), so each run of digits counts as a number."""
    return [int(part) if i % 2 else part for i, part in enumerate(re.split(r"(\d+)", str(key)))]


def _messages_of(box: Any, name: str) -> Iterator[Stored]:
    keys = sorted(box.iterkeys(), key=_delivered)
    for number, key in enumerate(keys, 1):
        stream = box.get_file(key)
        try:
            raw, size = read_bounded(stream)
        finally:
            stream.close()
        yield Stored(f"{name}#{number}", raw, size)


def messages(path: str) -> Iterator[Stored]:
    """Every message of the mbox file, Maildir folder or one-message file ``path``, in order;
    :class:`~nomic_cards.errors.InputError` for a path that is none of them."""
    p = Path(path)
    try:
        if p.is_dir():
            if not all((p / sub).is_dir() for sub in ("cur", "new")):
                raise InputError(f"{path} is a folder but not a Maildir (no cur/ and new/ in "
                                 "it)")
            yield from _messages_of(mailbox.Maildir(str(p), factory=None, create=False), path)
            return
        if not p.is_file():
            raise InputError(f"{path} is not an mbox file or a Maildir folder "
                             f"({'no such file' if not p.exists() else 'not a regular file'})")
        with p.open("rb") as f:
            first = f.read(5)
        if first != b"From ":
            with p.open("rb") as f:
                raw, size = read_bounded(f)
            yield Stored(f"{path}#1", raw, size)
            return
        box = mailbox.mbox(str(p), factory=None, create=False)
        try:
            yield from _messages_of(box, path)
        finally:
            box.close()
    except OSError as exc:
        raise InputError(f"{path} cannot be read: {exc.strerror or exc}") from None
