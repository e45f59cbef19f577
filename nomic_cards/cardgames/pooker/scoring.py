"""Pooker's Scores, by the poker library (imported here only: dealing a card, or replaying
anything but a Showdown's close, loads no poker module), and a Player's best arrangement.

The best arrangement of a Hand into Poker Hands (the poker library's exact
``best_arrangement``) is a pure function of what the Hand holds -- the faces of its PCards, as
a multiset -- and of the score table in force, so it is kept once found
(:data:`ARRANGEMENTS_KEPT` of them, the least recently used forgotten first): nothing kept can
go stale -- a Hand or a table that changes is another key -- and each process (each server
worker) keeps its own.

The exact arrangement of many PCards takes seconds (an integer program), and every trade makes
a new Hand: so a Player's view asks for it under a budget (:func:`arranged_for`). A Hand of at
most :data:`AT_ONCE` PCards is arranged at once (it costs less than the rest of the read);
a larger one is handed to the process's one arranging thread, and the view waits for it at
most :data:`WAIT` seconds. If it is not done by then, the view shows the best arrangement
found so far -- a valid arrangement of eir cards made in a few milliseconds (:func:`quick`),
said to be not exact -- and the thread goes on: a later read shows the exact one, kept. The
thread arranges one Hand at a time, the earliest asked among the Players whose budget allows:
each Player's arrangements may take :data:`RATE` of its time over time, after a first
:data:`BURST` (a token bucket of seconds, charged with the time each one took), and only eir
latest Hand waits. So two Players trading back and forth make the thread work at most ``2 x
RATE`` of a core (after their bursts), and a Player whose Hand is unchanged reads the kept
arrangement, whatever the others do (``scripts/bench_pooker_trading.py`` measures both).
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from nomic_cards.cardgames.sdk import ParamValue
from nomic_cards.cards import ness_code, spoon_card
from nomic_cards.errors import NomicCardsError
from nomic_cards.poker.pookerhands import (
    CATEGORIES,
    STRAIGHTS,
    Arrangement,
    best_arrangement,
    category,
    hand_score,
)

#: how many Hands' best arrangements a process keeps (each about 4 KiB for 103 PCards, key
#: included: scripts/bench_games_view.py measures it)
ARRANGEMENTS_KEPT = 1024
#: a Hand of at most this many PCards is arranged exactly at once, by the read (a few
#: milliseconds at most); a larger one by the arranging thread
AT_ONCE = 8
#: how long a view waits for the arranging thread before it shows the best found so far
WAIT = 0.1
#: each Player's share of the arranging thread's time over time, and the time e may take at
#: once before that share applies (seconds)
RATE = 0.05
BURST = 3.0


def code(card: int) -> int:
    """A card's Ness code (the poker library's numbering; the pack is forgotten)."""
    return ness_code(spoon_card(card)[1])


def scores(values: Mapping[str, ParamValue]) -> dict[str, int]:
    """The score table in force: category -> Score."""
    return {key.removeprefix("score-"): int(v) for key, v in values.items()
            if key.startswith("score-")}


def score_of(table: Mapping[str, int], hands: Sequence[Sequence[int]]) -> int:
    """The total Score of Poker Hands (each a list of card numbers) under ``table``."""
    return sum(int(hand_score([code(c) for c in hand], dict(table))) for hand in hands)


@dataclass(frozen=True)
class BestHands:
    """The highest total Score of a Hand and Poker Hands that reach it (card numbers, each
    hand in ascending order, the hands by their first card); cards in no hand stay unshown.
    ``exact`` False: the best arrangement found so far, valid but maybe not the highest (the
    exact one is being computed)."""

    score: int
    hands: tuple[tuple[int, ...], ...]
    exact: bool = True


#: a Hand's content and a score table: the key of its arrangement
Key = tuple[tuple[int, ...], tuple[tuple[str, int], ...]]


def seconds() -> float:
    """Real time in seconds, for the budget: the monotonic clock, read so that a test's frozen
    clock (freezegun's, which replaces ``time.monotonic``) leaves it running."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def _exact(key: Key) -> Arrangement:
    """The exact best arrangement (the poker library's, looked up when called)."""
    codes, table = key
    return best_arrangement(codes, dict(table))


# --- the best found so far ----------------------------------------------------------------

_SIZE = {"five-of-a-kind": 5, "royal-flush": 5, "straight-flush": 5, "four-of-a-kind": 4,
         "full-house": 5, "flush": 5, "straight": 5, "three-of-a-kind": 3, "two-pair": 4,
         "one-pair": 2, "high-card": 1}


def _of_rank(left: list[int], rank: int, k: int, suits: list[int]) -> list[int]:
    """``k`` faces of ``rank``, from the suits holding fewest cards first (flushes keep)."""
    out: list[int] = []
    for s in sorted(range(4), key=lambda s: suits[s]):
        f = rank + 13 * s
        out += [f] * min(left[f], k - len(out))
    return out


def _find(name: str, left: list[int]) -> list[int] | None:
    """A Poker Hand of category ``name`` (or one that outranks it) of the faces ``left``."""
    ranks = [sum(left[r + 13 * s] for s in range(4)) for r in range(13)]
    suits = [sum(left[q + 13 * s] for q in range(13)) for s in range(4)]

    def fewest(k: int, other_than: int = -1) -> int | None:
        found = [r for r in range(13) if ranks[r] >= k and r != other_than]
        return min(found, key=lambda r: ranks[r]) if found else None

    size = _SIZE[name]
    if name in ("five-of-a-kind", "four-of-a-kind", "three-of-a-kind", "one-pair"):
        r = fewest(size)
        return None if r is None else _of_rank(left, r, size, suits)
    if name in ("full-house", "two-pair"):
        a = fewest(3 if name == "full-house" else 2)
        b = None if a is None else fewest(2, a)
        if a is None or b is None:
            return None
        return _of_rank(left, a, 3 if name == "full-house" else 2, suits) + \
            _of_rank(left, b, 2, suits)
    if name in ("royal-flush", "straight-flush"):
        runs = STRAIGHTS[-1:] if name == "royal-flush" else STRAIGHTS[:-1]
        return next(([q + 13 * s for q in run] for run in runs for s in range(4)
                     if all(left[q + 13 * s] for q in run)), None)
    if name == "flush":
        for s in sorted(range(4), key=lambda s: -suits[s]):
            faces = sorted((q + 13 * s for q in range(13) for _ in range(left[q + 13 * s])),
                           key=lambda f: (ranks[f % 13], f))
            if len(faces) >= 5:
                return faces[:5]
        return None
    if name == "straight":
        run = next((run for run in reversed(STRAIGHTS) if all(ranks[q] for q in run)), None)
        return None if run is None else [
            max((q + 13 * s for s in range(4) if left[q + 13 * s]), key=lambda f: left[f])
            for q in run]
    return next(([f] for f in range(52) if left[f]), None)


def quick(codes: Sequence[int], table: Mapping[str, int]) -> Arrangement:
    """A valid arrangement of ``codes`` found in a few milliseconds, not always the best: the
    hands of the categories worth most per card first, as many as the cards left make (two
    orders tried, the better kept). The poker library's ``Arrangement``: hands as indices."""
    positive = [n for n in CATEGORIES if table[n] > 0]
    orders = (sorted(positive, key=lambda n: (-table[n] / _SIZE[n], -table[n])),
              sorted(positive, key=lambda n: -table[n]))
    best: tuple[int, list[list[int]]] = (0, [])
    for order in orders:
        left = [0] * 52
        for c in codes:
            left[c] += 1
        hands, total = [], 0
        for name in order:
            while (hand := _find(name, left)) is not None and table[category(hand)] > 0:
                for f in hand:
                    left[f] -= 1
                hands.append(hand)
                total += table[category(hand)]
        if total > best[0]:
            best = (total, hands)
    where: dict[int, list[int]] = {}
    for i, c in enumerate(codes):
        where.setdefault(c, []).append(i)
    return Arrangement(best[0], tuple(sorted(
        tuple(sorted(where[f].pop() for f in hand)) for hand in best[1])))


# --- the arrangements kept, and the arranging thread ----------------------------------------


@dataclass(eq=False)
class _Job:
    key: Key
    player: str
    asked: float
    done: threading.Event = field(default_factory=threading.Event)


class Arranger:
    """The exact arrangements a process keeps, and its one thread computing those the views
    ask for, each Player's within eir budget (module docstring). ``clock``, ``exact`` and
    ``thread`` (False: no thread; the caller runs each job with :meth:`step`) are the tests'."""

    def __init__(self, *, rate: float = RATE, burst: float = BURST,
                 kept: int = ARRANGEMENTS_KEPT, clock: Callable[[], float] = seconds,
                 exact: Callable[[Key], Arrangement] = _exact, thread: bool = True) -> None:
        self.rate, self.burst, self.size = rate, burst, kept
        self.clock, self.exact, self.threaded = clock, exact, thread
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Condition()
        self._kept: OrderedDict[Key, Arrangement | None] = OrderedDict()  # None: cannot be
        self._waiting: dict[str, _Job] = {}  # each Player's latest Hand not started
        self._running: _Job | None = None
        self._credit: dict[str, tuple[float, float]] = {}  # Player -> (seconds, as of)
        self._thread: threading.Thread | None = None
        self._closing = False
        #: seconds the thread spent for each Player (what the budget charged)
        self.spent: dict[str, float] = {}

    def close(self, timeout: float = 60.0) -> None:
        """Stop the thread once the arrangement under way is done (at the process's exit: a
        thread left inside the integer program when the interpreter ends aborts the
        process)."""
        with self._lock:
            self._closing = True
            self._waiting.clear()
            self._lock.notify_all()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def kept(self) -> int:
        """How many Hands' arrangements are kept now."""
        with self._lock:
            return len(self._kept)

    def forget(self) -> None:
        """Forget every arrangement kept (the tests')."""
        with self._lock:
            self._kept.clear()

    def _keep(self, key: Key, found: Arrangement | None) -> None:
        self._kept[key] = found
        self._kept.move_to_end(key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def _look(self, key: Key) -> tuple[bool, Arrangement | None]:
        if key not in self._kept:
            return False, None
        self._kept.move_to_end(key)
        return True, self._kept[key]

    def now(self, key: Key) -> Arrangement:
        """The exact arrangement, computed by the caller if it is not kept (the command
        line's ``pooker advise``: it waits for it)."""
        with self._lock:
            found = self._look(key)[1]
        if found is None:
            found = self.exact(key)
            with self._lock:
                self._keep(key, found)
        return found

    def ask(self, player: str, key: Key, wait: float = WAIT) -> Arrangement | None:
        """The exact arrangement if it is kept or found within ``wait`` seconds (None: not
        yet, or it cannot be computed; the thread goes on, for ``player``)."""
        with self._lock:
            known, found = self._look(key)
            if known:
                return found
            running = self._running
            job = running if running is not None and running.key == key else next(
                (j for j in self._waiting.values() if j.key == key), None)
            if job is None:
                job = _Job(key, player, self.clock())
                self._waiting[player] = job  # eir Hand before, not started: no longer asked
                if self._thread is None and self.threaded:
                    self._thread = threading.Thread(target=self._work, name="pooker-arranger",
                                                    daemon=True)
                    self._thread.start()
                    atexit.register(self.close)
                self._lock.notify_all()
        job.done.wait(wait)
        with self._lock:
            return self._look(key)[1]

    def settle(self, timeout: float = 60.0) -> None:
        """Wait until the thread has arranged every Hand asked (the tests')."""
        with self._lock:
            for _ in range(int(timeout * 100)):
                if not (self._waiting or self._running):
                    return
                self._lock.wait(0.01)

    def _balance(self, player: str, now: float) -> float:
        seconds, then = self._credit.get(player, (self.burst, now))
        return min(self.burst, seconds + (now - then) * self.rate)

    def _next(self) -> tuple[_Job | None, float | None]:
        """The job to run now (the earliest asked of a Player in credit), else how long until
        the first Player waiting is in credit again (None: nobody waits)."""
        now = self.clock()
        ready = [j for j in self._waiting.values() if self._balance(j.player, now) >= 0]
        if ready:
            return min(ready, key=lambda j: j.asked), None
        owed = [-self._balance(j.player, now) / self.rate for j in self._waiting.values()]
        return None, min(owed) if owed else None

    def _take(self) -> tuple[_Job | None, float | None]:
        job, pause = self._next()
        if job is not None:
            del self._waiting[job.player]
            self._running = job
        return job, pause

    def _run(self, job: _Job) -> None:
        start = self.clock()
        try:
            found: Arrangement | None = self.exact(job.key)
        except NomicCardsError:  # too many cards for any exact method: the quick one stays
            found = None
        took = self.clock() - start
        with self._lock:
            now = self.clock()
            self._credit[job.player] = (self._balance(job.player, now) - took, now)
            self.spent[job.player] = self.spent.get(job.player, 0.0) + took
            self._keep(job.key, found)
            self._running = None
            self._lock.notify_all()
        job.done.set()

    def step(self) -> str | None:
        """Run the next job due now, if any (without the thread): whose it was."""
        with self._lock:
            job = self._take()[0]
        if job is None:
            return None
        self._run(job)
        return job.player

    def _work(self) -> None:
        while True:
            with self._lock:
                job, pause = self._take()
                while job is None:
                    if self._closing:
                        return
                    self._lock.wait(pause)
                    job, pause = self._take()
            self._run(job)


#: the process's arranger (each server worker has its own; a forked child starts afresh)
ARRANGER = Arranger()
os.register_at_fork(after_in_child=ARRANGER._reset)


def _key(cards: Sequence[int], table: Mapping[str, int]) -> tuple[list[int], Key]:
    ordered = sorted(cards, key=lambda c: (code(c), c))
    return ordered, (tuple(code(c) for c in ordered), tuple(sorted(table.items())))


def _hands(ordered: Sequence[int], found: Arrangement, exact: bool) -> BestHands:
    hands = sorted(tuple(sorted(ordered[i] for i in hand)) for hand in found.hands)
    return BestHands(int(found.score), tuple(hands), exact)


def best_hands(cards: Sequence[int], table: Mapping[str, int]) -> BestHands:
    """The exact best arrangement of ``cards`` (card numbers) under the score table
    ``table``, however long it takes: computed once per content of the Hand and table, then
    kept (the command line's ``pooker advise``)."""
    ordered, key = _key(cards, table)
    return _hands(ordered, ARRANGER.now(key), True)


def arranged_for(player: str, cards: Sequence[int], table: Mapping[str, int], *,
                 wait: float = WAIT) -> BestHands:
    """``player``'s best arrangement of ``cards`` for eir view, within ``wait`` seconds: the
    exact one if it is kept or found in time, else the best found so far, said to be not
    exact (module docstring)."""
    ordered, key = _key(cards, table)
    if len(ordered) <= AT_ONCE:
        return _hands(ordered, ARRANGER.now(key), True)
    found = ARRANGER.ask(player, key, wait)
    if found is not None:
        return _hands(ordered, found, True)
    return _hands(ordered, quick(key[0], dict(key[1])), False)


def arrangements_kept() -> int:
    """How many Hands' arrangements this process keeps now."""
    return ARRANGER.kept()
