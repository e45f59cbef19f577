"""Dice sources for dealing: committed seed (default), manual (an external dice server's
results typed in), and system (the OS CSPRNG).

Committed-seed algorithm (stated byte for byte in docs/dice.md): a period has a secret 32-byte
seed; its commitment is ``SHA-256(seed)`` in lowercase hex. Roll number ``i`` (0, 1, 2, ... within
the period) of a die with ``n`` sides computes, for attempt ``j = 0, 1, ...``::

    msg = i.to_bytes(8, "big") + j.to_bytes(4, "big")
    x = int.from_bytes(HMAC-SHA256(key=seed, msg=msg), "big")

and accepts the first ``x < 2**256 - (2**256 % n)``, giving the face ``x % n + 1``. Every face is
exactly equally likely.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from nomic_cards.errors import InputError

_SPACE = 1 << 256

COMMITTED = "committed"
MANUAL = "manual"
SYSTEM = "system"
SOURCES = (COMMITTED, MANUAL, SYSTEM)


@dataclass(frozen=True)
class Roll:
    value: int
    sides: int
    source: str
    period: int | None = None
    index: int | None = None



class DiceSource(Protocol):
    name: str

    def roll(self, sides: int) -> Roll: ...


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: SHA-256 of its 32 bytes, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def committed_face(seed: bytes, index: int, sides: int) -> int:
    """Face 1..sides of roll ``index`` from ``seed`` by exact rejection sampling."""
    if sides < 1:
        raise InputError(f"a die needs at least one side, not {sides}")
    limit = _SPACE - (_SPACE % sides)
    attempt = 0
    while True:
        msg = index.to_bytes(8, "big") + attempt.to_bytes(4, "big")
        x = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest(), "big")
        if x < limit:
            return x % sides + 1
        attempt += 1


class CommittedDice:
    """Rolls from a committed secret seed, continuing at ``next_index``."""

    name = COMMITTED

    def __init__(self, seed: bytes, period: int, next_index: int = 0) -> None:
        self.seed = seed
        self.period = period
        self.next_index = next_index

    def roll(self, sides: int) -> Roll:
        index = self.next_index
        self.next_index += 1
        return Roll(committed_face(self.seed, index, sides), sides, self.name, self.period, index)


class SystemDice:
    """Rolls from the operating system's CSPRNG (``secrets``)."""

    name = SYSTEM

    def roll(self, sides: int) -> Roll:
        return Roll(secrets.randbelow(sides) + 1, sides, self.name)


class ManualDice:
    """Results typed in by the Dealer from an external dice server.

    ``ask(sides)`` returns the next typed value (or raises to abandon the deal); values out of
    range are refused through ``reject(message)`` and asked for again.
    """

    name = MANUAL

    def __init__(self, ask: Callable[[int], int], reject: Callable[[str], None]) -> None:
        self._ask = ask
        self._reject = reject

    def roll(self, sides: int) -> Roll:
        while True:
            value = self._ask(sides)
            if 1 <= value <= sides:
                return Roll(value, sides, self.name)
            self._reject(f"a d{sides} shows 1..{sides}, not {value}; enter the result again")
