"""The hash chain (format 2): what is hashed, byte for byte.

Every value is written as a *netstring* -- the decimal length of its UTF-8 bytes, ``:``, the
bytes, ``,`` -- so the message is unambiguous whatever the values contain. An event's hash is
the lowercase hex SHA-256 of the netstrings of, in order::

    "nomic-cards/2", seq (decimal), at ("YYYY-MM-DDTHH:MM:SS.ffffffZ", UTC), actor, kind,
    subject ("" for none), prev (the previous event's hash; 64 zeros before event 1),
    private (the commitment, "" for none), payload (the stored text of the public fields)

The payload is hashed exactly as stored; the program stores compact JSON with sorted keys
(:func:`canonical_json`). The private fields of an event are stored apart; the chain holds only
their commitment, the hex SHA-256 of the netstrings of ``"nomic-cards/private/2"``, a nonce of 32
random bytes in hex, and the private fields' canonical JSON. Without the nonce, trying every
card against a published commitment or hash tells nothing.

A card that enters a card game's Hand (a PCard dealt, transferred or traded) also gets a
commitment of its own, published in the event's public fields: the hex SHA-256 of the
netstrings of ``"nomic-cards/card/1"``, a salt of 32 random bytes in hex (a private field), and
the card's number in decimal. Opening it (the card and its salt) at a Showdown proves that the
event put that card there and tells nothing about any other card of the same event.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import datetime
from typing import Any

from nomic_cards.core.ledger.events import utc

FORMAT = "nomic-cards/2"
PRIVATE_FORMAT = "nomic-cards/private/2"
CARD_FORMAT = "nomic-cards/card/1"
NONCE_BYTES = 32


def canonical_json(obj: Any) -> str:
    """Compact, key-sorted JSON: the one encoding the program stores and hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def format_time(at: datetime) -> str:
    return utc(at).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def netstring(text: str) -> bytes:
    data = text.encode("utf-8")
    return str(len(data)).encode("ascii") + b":" + data + b","


def event_hash(*, seq: int, at: datetime, actor: str, kind: str, subject: str | None,
               prev_hash: str, private: str | None, payload: str) -> str:
    """The hash of an event whose public payload is stored as the text ``payload``."""
    parts = (FORMAT, str(seq), format_time(at), actor, kind, subject or "", prev_hash,
             private or "", payload)
    return hashlib.sha256(b"".join(netstring(p) for p in parts)).hexdigest()


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def commitment(nonce: str, data: str) -> str:
    """The commitment to an event's private fields (``data``: their canonical JSON)."""
    parts = (PRIVATE_FORMAT, nonce, data)
    return hashlib.sha256(b"".join(netstring(p) for p in parts)).hexdigest()


def card_commitment(salt: str, card: int) -> str:
    """The commitment to one card that an event put in a Hand (see the module's doc)."""
    parts = (CARD_FORMAT, salt, str(card))
    return hashlib.sha256(b"".join(netstring(p) for p in parts)).hexdigest()
