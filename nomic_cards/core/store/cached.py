"""The live state a Game keeps between its writing units of work (docs/architecture.md, "The
Game object").

A writing unit of work needs the game's live state; loading it from the projection tables costs
a dozen queries and is the bulk of a small write's work. So each :class:`~nomic_cards.core.game.
Game` keeps the state its last committed write left, at that write's ledger head, in a
:class:`StateCache`; the next write takes it under the ledger lock and uses it if the ledger is
still at that head, or folds into it the few events another process (or another Game) recorded
meanwhile, else loads the state afresh (:func:`~nomic_cards.core.store.uow.unit_of_work`).

A state is mutated in place by the events a write appends, so the cache never lends it: a write
*takes* it out (no other thread can then see it while it changes) and puts it back only as it
commits. A write that fails puts nothing back. Nothing here reads the database (and nothing here
imports SQLAlchemy: a read command builds a Game too).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from nomic_cards.core.ledger.state import State

__all__ = ["Kept", "StateCache"]


@dataclass(frozen=True)
class Kept:
    """A live state (at its head: ``state.seq``, ``state.head_hash``) and the time of its last
    event (None: not known)."""

    state: State
    last_at: datetime | None


class StateCache:
    """At most one :class:`Kept` state, shared by a Game and its :meth:`~nomic_cards.core.game.
    Game.acting` views, safe to use from many threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: Kept | None = None

    def take(self) -> Kept | None:
        """The kept state, removed from the cache (None: there is none)."""
        with self._lock:
            kept, self._kept = self._kept, None
            return kept

    def peek(self) -> Kept | None:
        """The kept state, left in the cache (for tests: a state kept is only for a write to
        take)."""
        with self._lock:
            return self._kept

    def keep(self, kept: Kept) -> None:
        """Keep ``kept`` (the state of a write about to commit), replacing what was kept."""
        with self._lock:
            self._kept = kept

    def forget(self, state: State) -> None:
        """Drop ``state`` if it is the one kept (its write failed to commit); a state kept
        since by another write stays."""
        with self._lock:
            if self._kept is not None and self._kept.state is state:
                self._kept = None

    def clear(self) -> None:
        with self._lock:
            self._kept = None
