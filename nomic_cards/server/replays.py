"""The bound on ``?as_of=`` reads ("replays"), and their cache.

A hand as of an event is read from ``card_moves`` (every place each card has been), no longer a
replay of the log, but it is still several queries per player of the game where every other
request is one narrow query. So a process runs at
most ``total`` replays at once, and a player at most ``per_player`` (whatever tokens they hold);
a request past either bound is refused at once, never queued: ``429`` with ``Retry-After`` when
the player already has replays running, ``503`` with ``Retry-After`` when the process has no
replay free. What happened never changes, so each replay is kept, by event number, in a
least-recently-used cache of ``size`` entries (every player's hand at that event): the same
event asked again, by anyone, costs no replay.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from nomic_cards.core.services.public import HandsAt

RETRY_AFTER = 1


class ReplayBusy(Exception):
    """A replay refused by the bounds: the status to answer, and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Replays:
    """The per-process and per-player bounds on concurrent replays, and the cache."""

    def __init__(self, *, total: int = 2, per_player: int = 1, size: int = 64) -> None:
        self.total = total
        self.per_player = per_player
        self.size = size
        self._lock = threading.Lock()
        self._running = 0
        self._by_player: dict[str, int] = {}
        self._cache: OrderedDict[int, HandsAt] = OrderedDict()

    def cached(self, event: int) -> HandsAt | None:
        with self._lock:
            found = self._cache.get(event)
            if found is not None:
                self._cache.move_to_end(event)
            return found

    def keep(self, hands: HandsAt) -> None:
        with self._lock:
            self._cache[hands.event] = hands
            self._cache.move_to_end(hands.event)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)

    @contextmanager
    def slot(self, player: str) -> Iterator[None]:
        """Hold one replay slot for ``player``, or raise :class:`ReplayBusy` at once."""
        with self._lock:
            if self._by_player.get(player, 0) >= self.per_player:
                raise ReplayBusy(429, "a replay of yours (as_of) is already running; try again "
                                      "when it has finished")
            if self._running >= self.total:
                raise ReplayBusy(503, "the server is busy with other replays (as_of); try "
                                      "again shortly")
            self._running += 1
            self._by_player[player] = self._by_player.get(player, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                left = self._by_player[player] - 1
                if left:
                    self._by_player[player] = left
                else:
                    del self._by_player[player]
