"""The hash chain: SHA-256 over a canonical encoding of each event and its predecessor's hash.

Canonical encoding (UTF-8 bytes of compact JSON with sorted keys)::

    {"actor":..., "at":"2026-11-22T06:51:00.000000Z", "kind":..., "payload":{...},
     "prev":"<64 hex>", "seq":N, "subject":... or null}
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from nomic_cards.core.ledger.events import utc


def canonical_json(obj: Any) -> str:
    """Compact, key-sorted JSON: the one encoding that is hashed and stored."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def format_time(at: datetime) -> str:
    return utc(at).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_hash(
    *, seq: int, at: datetime, actor: str, kind: str, subject: str | None,
    payload: dict[str, Any], prev_hash: str,
) -> str:
    body = canonical_json({
        "seq": seq, "at": format_time(at), "actor": actor, "kind": kind,
        "subject": subject, "payload": payload, "prev": prev_hash,
    })
    return hashlib.sha256(body.encode("utf-8")).hexdigest()
