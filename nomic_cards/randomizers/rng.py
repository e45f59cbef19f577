"""The random source: SplitMix64 words and exact uniform integers, scalar and vectorised.

Why our own generator: :class:`random.Random` keeps its Mersenne Twister stream but not the
algorithms of ``randrange``/``shuffle``/``choice``, and numpy documents that its integer
sampling may change between versions. A randomizer seeded the same must deal the same pieces
everywhere, so the bits and the way they become integers are both defined here.

* **Words.** Word ``i`` (``i = 0, 1, 2, ...``) of seed ``s`` is SplitMix64's output
  ``mix(s + (i+1)*0x9E3779B97F4A7C15 mod 2**64)`` with
  ``mix(z) = z ^ z>>31`` after ``z = (z ^ z>>30) * 0xBF58476D1CE4E5B9`` and
  ``z = (z ^ z>>27) * 0x94D049BB133111EB`` (all mod ``2**64``) — exactly the stream of
  Vigna's ``splitmix64.c`` started from state ``s``. Being counter-based, any word can be
  computed directly, which is what makes the vectorised batch path possible.
* **Uniform integers.** ``below(b)`` for ``b >= 1`` takes the next word ``w``; if
  ``w < 2**64 - (2**64 mod b)`` it returns ``w mod b``, otherwise it rejects ``w`` and takes the
  next word. The result is exactly uniform; a rejection happens with probability below
  ``b / 2**64``.

:class:`Stream` is the scalar form; :func:`words` computes a block of words with numpy
(identical values), and :func:`max_accept` gives the largest accepted word for a bound.
"""

from __future__ import annotations

import numpy as np

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
_C1 = 0xBF58476D1CE4E5B9
_C2 = 0x94D049BB133111EB


def mix64(z: int) -> int:
    """SplitMix64's output function on a 64-bit integer."""
    z = ((z ^ (z >> 30)) * _C1) & MASK
    z = ((z ^ (z >> 27)) * _C2) & MASK
    return z ^ (z >> 31)


def max_accept(bound: int) -> int:
    """The largest word ``below(bound)`` accepts (``2**64 - (2**64 mod bound) - 1``)."""
    return (1 << 64) - ((1 << 64) % bound) - 1


def words(seed: int, start: int, count: int) -> np.ndarray:
    """Words ``start .. start+count-1`` of the stream of ``seed``, as a ``uint64`` array."""
    i = np.arange(count, dtype=np.uint64)
    i += np.uint64((start + 1) & MASK)
    z = i * np.uint64(GAMMA)
    z += np.uint64(seed)
    z ^= z >> np.uint64(30)
    z *= np.uint64(_C1)
    z ^= z >> np.uint64(27)
    z *= np.uint64(_C2)
    z ^= z >> np.uint64(31)
    return z


class Stream:
    """A position in the word stream of one seed (the scalar path)."""

    __slots__ = ("seed", "pos")

    def __init__(self, seed: int, pos: int = 0) -> None:
        self.seed = seed
        self.pos = pos

    def word(self) -> int:
        """The next word."""
        self.pos += 1
        return mix64((self.seed + self.pos * GAMMA) & MASK)

    def below(self, bound: int) -> int:
        """An exactly uniform integer in ``range(bound)`` (rejection sampling, see module)."""
        limit = max_accept(bound)
        while True:
            w = self.word()
            if w <= limit:
                return w % bound
