"""The deal stream of ``bridge run``, as docs/bridge.md specifies it (numpy-free).

Both dealing paths -- numpy's (:mod:`nomic_cards.bridge.deal.batch`) and the compiled loop
(``_fast.c``) -- follow this one specification, built on PCG64's raw 64-bit output (a stream
numpy keeps stable across versions, unlike its ``Generator`` methods):

- chunk ``k`` of a run with seed ``s`` draws from PCG64 seeded by :func:`seed_words`
  (``numpy.random.SeedSequence(s, spawn_key=(k, 0))``'s four state words), ``rnd()`` from
  ``spawn_key=(k, 1)``;
- a uniform integer below ``bound`` is :func:`lemire` on the raw words (nothing is drawn
  when ``bound`` is 1);
- the seats are dealt in :func:`seat_order`: all of a chunk's ranks for the first seat, then
  the second's, then the third's, each rank decoded into the seat's cards among those left.

The functions here are the plain-integer reference (used by the fast path's set-up and by
the tests); the dealing code does the same on arrays.
"""

from __future__ import annotations

from nomic_cards.bridge.language import nodes as n

# numpy.random.SeedSequence's constants (pool of four 32-bit words)
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_POOL = 4
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645


def _uint32_words(x: int) -> list[int]:
    """An entropy integer as 32-bit words, least significant first (``[0]`` for 0)."""
    if x < 0:
        raise ValueError("seeds are non-negative")
    words = [x & _M32] if x == 0 else []
    while x > 0:
        words.append(x & _M32)
        x >>= 32
    return words


def seed_words(seed: int, *spawn_key: int) -> tuple[int, int, int, int]:
    """``numpy.random.SeedSequence(seed, spawn_key=spawn_key).generate_state(4, uint64)``:
    the four words that seed PCG64 (computed without numpy)."""
    entropy = _uint32_words(seed)
    spawn = [w for k in spawn_key for w in _uint32_words(k)]
    if spawn and len(entropy) < _POOL:
        entropy += [0] * (_POOL - len(entropy))
    entropy += spawn
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value ^= hash_const
        hash_const = hash_const * _MULT_A & _M32
        value = value * hash_const & _M32
        return value ^ value >> 16

    def mix(x: int, y: int) -> int:
        result = (_MIX_L * x - _MIX_R * y) & _M32
        return result ^ result >> 16

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(entropy)):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(entropy[src]))
    const = _INIT_B
    state = []
    for i in range(8):
        value = pool[i % _POOL] ^ const
        const = const * _MULT_B & _M32
        value = value * const & _M32
        state.append(value ^ value >> 16)
    w = [state[2 * i] | state[2 * i + 1] << 32 for i in range(4)]
    return w[0], w[1], w[2], w[3]


class Pcg64:
    """PCG64 (XSL-RR 128/64) as numpy's ``PCG64`` seeds and steps it: :meth:`next` is
    ``PCG64.random_raw()``."""

    def __init__(self, words: tuple[int, int, int, int]) -> None:
        initstate = words[0] << 64 | words[1]
        self.inc = ((words[2] << 64 | words[3]) << 1 | 1) & ((1 << 128) - 1)
        self.state = 0
        self._step()
        self.state = (self.state + initstate) & ((1 << 128) - 1)
        self._step()

    def _step(self) -> None:
        self.state = (self.state * _PCG_MULT + self.inc) & ((1 << 128) - 1)

    def next(self) -> int:
        """The next raw 64-bit word."""
        self._step()
        v = (self.state >> 64 ^ self.state) & _M64
        rot = self.state >> 122
        return (v >> rot | v << (-rot & 63)) & _M64


def lemire(words: Pcg64, bound: int) -> int:
    """A uniform integer in ``[0, bound)`` (``1 <= bound < 2**63``): Lemire's method on raw
    64-bit words -- ``x * bound`` as a 128-bit product, its high word the result, a word
    rejected (and the next drawn) while the low word is below ``2**64 mod bound``. A bound of
    1 draws nothing."""
    if bound <= 1:
        return 0
    threshold = (1 << 64) % bound
    while True:
        m = words.next() * bound
        if m & _M64 >= threshold:
            return m >> 64


def seat_order(condition: n.Expr, first: int | None = None) -> tuple[int, int, int, int]:
    """The order a run deals the seats in: ``first`` (a smart-stacked seat), then the seats
    as the condition first names them, reading it left to right, then the others North,
    East, South, West."""
    order = [] if first is None else [first]
    for x in n.walk(condition):
        seat = getattr(x, "seat", None)
        if isinstance(seat, int) and seat not in order:
            order.append(seat)
    order += [s for s in range(4) if s not in order]
    return order[0], order[1], order[2], order[3]
