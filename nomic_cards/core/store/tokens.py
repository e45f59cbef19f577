"""The ``player_tokens`` table: insert and revoke tokens (SQL only; the rules for them are in
``core/services/tokens.py``; the reads are in :class:`.reads.Reads`)."""

from __future__ import annotations

from datetime import datetime
from types import MappingProxyType

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from nomic_cards.core.ledger.events import utc
from nomic_cards.core.store import models as m

_NO_SYNC = MappingProxyType({"synchronize_session": False})


def add(s: Session, *, player_id: int, selector: str, verifier_sha256: str,
        at: datetime, scope: str | None = None) -> None:
    s.execute(insert(m.PlayerToken).values(player_id=player_id, selector=selector,
                                           verifier_sha256=verifier_sha256, issued_at=at,
                                           scope=scope))


def revoke(s: Session, *, at: datetime, player_id: int | None = None,
           selector: str | None = None) -> int:
    """Revoke the live tokens of a player, or the one with ``selector``; how many."""
    t = m.PlayerToken
    q = update(t).where(t.revoked_at.is_(None)).values(revoked_at=at)
    q = q.where(t.player_id == player_id) if player_id is not None else \
        q.where(t.selector == selector)
    result = s.execute(q, execution_options=_NO_SYNC)
    return int(getattr(result, "rowcount", 0) or 0)


def selector_state(s: Session, selector: str) -> str | None:
    """When the token with ``selector`` was revoked (ISO time), ``"live"``, or None when no
    token has that selector."""
    t = m.PlayerToken
    row = s.execute(select(t.revoked_at).where(t.selector == selector)).first()
    if row is None:
        return None
    return "live" if row[0] is None else f"at {utc(row[0]).isoformat()}"
