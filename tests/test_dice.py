"""Dice sources: the committed-seed algorithm as docs/dice.md states it, fairness, manual input."""

from __future__ import annotations

import hashlib
import hmac
import math

import pytest

from nomic_cards.core import dice
from nomic_cards.errors import InputError

SEED = bytes(range(32))


def reference_face(seed: bytes, i: int, sides: int) -> int:
    """The docs/dice.md re-implementation, written from the text, independent of dice.py."""
    j = 0
    while True:
        x = int.from_bytes(hmac.new(seed, i.to_bytes(8, "big") + j.to_bytes(4, "big"),
                                    hashlib.sha256).digest(), "big")
        if x < 2**256 - 2**256 % sides:
            return x % sides + 1
        j += 1


def test_commitment_is_sha256_of_seed() -> None:
    assert dice.commitment(SEED) == hashlib.sha256(SEED).hexdigest()


@pytest.mark.parametrize("sides", [1, 2, 6, 52, 208, 1040, 2**255 + 1])
def test_committed_face_matches_the_documented_algorithm(sides: int) -> None:
    for i in range(200):
        assert dice.committed_face(SEED, i, sides) == reference_face(SEED, i, sides)


def test_committed_dice_count_rolls_and_record_them() -> None:
    d = dice.CommittedDice(SEED, period=3, next_index=5)
    r1, r2 = d.roll(208), d.roll(208)
    assert (r1.period, r1.index, r2.index) == (3, 5, 6)
    assert r1.value == reference_face(SEED, 5, 208)
    assert r1.source == "committed"


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile (z = 3.09: p = 0.001)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("sides", [6, 52, 208, 1040])
def test_committed_die_passes_chi_square_over_100k_rolls(sides: int) -> None:
    n = 100_000
    counts = [0] * sides
    seed = hashlib.sha256(f"chi-square {sides}".encode()).digest()
    for i in range(n):
        counts[dice.committed_face(seed, i, sides) - 1] += 1
    expected = n / sides
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < _chi_square_critical(sides - 1), (sides, chi2)


def test_system_dice_in_range() -> None:
    d = dice.SystemDice()
    assert all(1 <= d.roll(7).value <= 7 for _ in range(500))


def test_manual_dice_reasks_out_of_range() -> None:
    typed = iter([0, 209, 17])
    rejected: list[str] = []
    d = dice.ManualDice(lambda sides: next(typed), rejected.append)
    roll = d.roll(208)
    assert roll.value == 17 and roll.source == "manual"
    assert rejected == ["a d208 shows 1..208, not 0; enter the result again",
                        "a d208 shows 1..208, not 209; enter the result again"]


def test_zero_sided_die_is_an_input_error() -> None:
    with pytest.raises(InputError):
        dice.committed_face(SEED, 0, 0)
