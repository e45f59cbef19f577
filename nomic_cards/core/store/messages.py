"""The ``mail_messages`` table: a message received by mail is added once, with what it said, and
later updated with what became of it (applied, accepted or rejected by the officer) and of its
receipt (SQL only; the rules are in ``core/services/mail_in.py``; the reads are
:meth:`.reads.Reads.mail_message` and its neighbours)."""

from __future__ import annotations

from datetime import datetime

from nomic_cards.core.store.writes import Tx

_ADD = ("INSERT INTO mail_messages (message_id, received_at, via, sender, player_id, subject, "
        "status, reason, auth, reading, outcome, seqs, private, size, raw, raw_sha256, "
        "receipt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")
_SETTLE = ("UPDATE mail_messages SET status = ?, reason = ?, auth = ?, outcome = ?, seqs = ?, "
           "private = ?, receipt = ?, decided_at = ?, decided_by = ? WHERE id = ?")
_APPLIED = ("UPDATE mail_messages SET outcome = ?, seqs = ?, private = ?, receipt = ? "
            "WHERE id = ?")
_RECEIPT = "UPDATE mail_messages SET receipt = ?, receipt_note = ? WHERE id = ?"


def add(tx: Tx, *, message_id: str, at: datetime, via: str, sender: str | None,
        player_id: int | None, subject: str, status: str, reason: str, auth: str,
        reading: str, size: int, raw: bytes, raw_sha256: str, receipt: str | None) -> int:
    """Keep a message received; its number."""
    row = tx.db.one(_ADD, (message_id, tx.time_param(at), via, sender, player_id, subject,
                           status, reason, auth, reading, None, "[]", False, size, raw,
                           raw_sha256, receipt))
    return int(row[0])


def applied(tx: Tx, id: int, *, outcome: str, seqs: str, private: bool,
            receipt: str | None) -> None:
    """What became of each item of message ``id`` as it was applied."""
    tx.execute(_APPLIED, (outcome, seqs, private, receipt, id))


def settle(tx: Tx, id: int, *, status: str, reason: str, auth: str, outcome: str | None,
           seqs: str, private: bool, receipt: str | None, at: datetime, by: str) -> None:
    """The officer's decision on a pending message: accepted (and applied) or rejected."""
    tx.execute(_SETTLE, (status, reason, auth, outcome, seqs, private, receipt,
                         tx.time_param(at), by, id))


def receipt(tx: Tx, id: int, *, state: str, note: str) -> None:
    """What became of message ``id``'s receipt: sent (``note``: when) or failed (why)."""
    tx.execute(_RECEIPT, (state, note, id))
