"""The ledger builds its own chain: :func:`seal` and :func:`append` without a database.

A short game is sealed event by event onto a fresh :class:`State`; the records must chain
(sequence, previous hash), their hashes and commitments must be those the chain's published
format gives (recomputed here from docs/ledger.md's netstrings, not with the module's own
functions), and replaying the records from scratch must give the same state."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nomic_cards.core.ledger import events as ev
from nomic_cards.core.ledger.append import Sealed, append, seal
from nomic_cards.core.ledger.events import GENESIS_HASH
from nomic_cards.core.ledger.replay import replay
from nomic_cards.core.ledger.state import CardsMoved, State
from nomic_cards.errors import RuleViolation

T0 = datetime(2026, 1, 1, 9, tzinfo=UTC)


def _net(text: str) -> bytes:
    data = text.encode()
    return f"{len(data)}:".encode() + data + b","


def _sha(*parts: str) -> str:
    return hashlib.sha256(b"".join(_net(p) for p in parts)).hexdigest()


def _game() -> list[ev.Event]:
    return [
        ev.GameCreated((ev.PackSpec("Red", "red"),), "PurpleBob",
                       {"epoch": "2026-01-01", "nweek_days": "10"}),
        ev.PlayerRegistered("ann", None),
        ev.CardDealt("ann", "dealt by the Dealer", 1,
                     ev.DiceUse("system", 52, None, None, 1), 17, (17,), "a notice"),
        ev.CardTransferred(17, "ann", None, "Proposal 1", None),
    ]


def _seal_all(state: State) -> list[Sealed]:
    out: list[Sealed] = []
    nonces = iter(f"{n:064x}" for n in range(1, 100))
    last = None
    for i, event in enumerate(_game()):
        sealed = seal(state, event, at=T0 + timedelta(minutes=i), actor="officer",
                      last_at=last, nonce=lambda: next(nonces))
        append(state, sealed)
        last = sealed.record.at
        out.append(sealed)
    return out


def test_sealed_records_chain_and_hash_as_the_format_says() -> None:
    state = State(track=True)
    sealed = _seal_all(state)
    prev = GENESIS_HASH
    for n, s in enumerate(sealed, 1):
        rec = s.record
        assert (rec.seq, rec.prev_hash) == (n, prev)
        if s.opening is not None:
            assert s.commitment == _sha("nomic-cards/private/2", s.opening.nonce,
                                        s.opening.data)
        else:
            assert s.commitment is None and rec.private == {}
        at = rec.at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert rec.hash == _sha("nomic-cards/2", str(n), at, "officer", rec.kind,
                                rec.subject or "", prev, s.commitment or "", s.text)
        prev = rec.hash
    assert state.seq == 4 and state.head_hash == prev
    dealt = sealed[2]
    assert '"card"' not in dealt.text and dealt.opening is not None
    assert '"card":17' in dealt.opening.data  # the card is in the private part only


def test_replaying_the_sealed_records_gives_the_same_state() -> None:
    state = State()
    records = [s.record for s in _seal_all(state)]
    again = replay(records)
    assert (again.seq, again.head_hash, again.owner, again.deck) == (
        state.seq, state.head_hash, state.owner, state.deck)


def test_append_returns_the_changes_for_the_projector() -> None:
    state = State(track=True)
    sealed = _seal_all(state)
    assert state.changes == []  # each append handed its changes over
    deal = seal(state, ev.CardTransferred(17, None, "ann", "Proposal 2", "n"),
                at=T0 + timedelta(hours=1), actor="officer", last_at=sealed[-1].record.at)
    changes = append(state, deal)
    assert CardsMoved((17,), "ann", 5) in changes


def test_time_order_and_a_stale_head_are_refused() -> None:
    state = State()
    sealed = _seal_all(state)
    with pytest.raises(RuleViolation, match="before the last event in the ledger"):
        seal(state, ev.PlayerRegistered("ben", None), at=T0, actor="x",
             last_at=sealed[-1].record.at)
    with pytest.raises(ValueError, match="sealed after another head"):
        append(state, sealed[1])


def test_the_store_does_no_hashing() -> None:
    store = Path(__file__).resolve().parent.parent / "nomic_cards" / "core" / "store"
    for path in store.glob("*.py"):
        text = path.read_text()
        for word in ("hashlib", "event_hash(", "commitment(", "new_nonce"):
            assert word not in text, (path.name, word)
