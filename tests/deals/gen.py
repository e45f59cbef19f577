"""Random deal expressions for the oracle tests (small numbers, shallow nesting)."""

from __future__ import annotations

import random

from nomic_cards.deals import DealError, parse
from nomic_cards.deals.syntax import Deal


def _atom(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if depth < 2 and r < 0.3:
        return f"({_deal(rng, depth + 1)})"
    if r < 0.4:
        return "." * rng.randint(1, 3)
    return str(rng.choice([0, 1, 1, 1, 2, 2, 3, 4]))


def _item(rng: random.Random, depth: int) -> str:
    atom = _atom(rng, depth)
    r = rng.random()
    if r < 0.55:
        return atom
    if r < 0.7:
        return f"{atom}^{rng.randint(0, 3)}"
    if r < 0.8:
        a = rng.randint(0, 2)
        return f"{atom}^{a}-{rng.randint(a, 3)}"
    if r < 0.9:
        return f"{atom}^?"
    return f"{atom}^{rng.randint(0, 2)}-?"


def _deal(rng: random.Random, depth: int) -> str:
    alts = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        chain = " ".join(_item(rng, depth) for _ in range(rng.choice([1, 1, 2, 3])))
        if rng.random() < 0.15:
            chain = f"{rng.randint(0, 3)} * {chain}"
        alts.append(chain)
    return " or ".join(alts)


def random_deal(rng: random.Random) -> Deal:
    """A random deal that the language accepts (refused ones are drawn again)."""
    while True:
        try:
            return parse(_deal(rng, 0))
        except DealError:
            continue
