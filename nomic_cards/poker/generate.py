"""The generator of the shipped tables (``nomic_cards/poker/data/<game>.bin``).

The evaluators read precomputed tables instead of building them in every process (building
takes about half a second per game with numpy; reading takes well under a millisecond). This
module computes them from first principles -- the scales of :mod:`nomic_cards.poker.classes` and
the dynamic programs of :mod:`nomic_cards.poker.tables` -- and writes them; a test checks that
the shipped files equal its output byte for byte. Regenerate with::

    python -m nomic_cards.poker.generate

File layout (all little-endian): a header of eight ``uint32`` -- the magic ``NCPK``, the number
of values, the lengths of ``G5``, ``G6``, ``G7``, ``FLK``, ``FL5`` and the format version -- then
the CV of every value (6 bytes each: ``T`` and ``I1 ... I5``, padded to an even length), then
the ``int16`` arrays:

``G5``, ``G6``, ``G7``
    the best non-flush value of ``N`` cards holding a multiset of naturals (the rest wild), in
    the order of :mod:`nomic_cards.poker.layout`;
``FLK``
    six rows of 8192 (high games): row ``k``, column a 13-bit set of one suit's ranks -> the best
    flush from ``k`` of those ranks and ``5 - k`` wild cards (-1 if none);
``FL5``
    8192 entries: the value of five ranks of one suit as a natural flush (-1 for other sets).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from nomic_cards.poker import layout
from nomic_cards.poker.classes import GAMES, scale
from nomic_cards.poker.tables import g_table, multiset_index, tables

MAGIC = 0x4B50434E  # b"NCPK" read as a little-endian uint32
VERSION = 1
HEADER = struct.Struct("<8I")
DATA = Path(__file__).resolve().parent / "data"


def game_arrays(game: str) -> dict[str, NDArray[np.int16] | NDArray[np.uint8]]:
    """The tables of one game, computed from scratch."""
    sc = scale(game)
    t = tables(game)
    ix = multiset_index()
    out: dict[str, NDArray[np.int16] | NDArray[np.uint8]] = {
        "cv": np.array([hv.cv for hv in sc.values], dtype=np.uint8),
    }
    for n in layout.SIZES:
        keys = np.array(layout.all_keys(n), dtype=np.int64)
        packed = (keys & 0xFFFFFF) | ((keys >> layout.C_SHIFT) << 24)  # sum 8**D
        out[f"g{n}"] = g_table(game, n)[ix.index(packed)].astype(np.int16)
    empty = np.zeros(0, dtype=np.int16)
    out["flk"] = t.flk.astype(np.int16) if t.flk is not None else empty
    out["fl5"] = t.fl5.astype(np.int16) if t.fl5 is not None else empty
    return out


def to_bytes(game: str) -> bytes:
    """The shipped file of one game."""
    arr = game_arrays(game)
    cv = arr["cv"].astype("<u1").tobytes()
    if len(cv) % 2:
        cv += b"\0"
    names = ("g5", "g6", "g7", "flk", "fl5")
    head = HEADER.pack(MAGIC, len(arr["cv"]), *(len(arr[n]) for n in names), VERSION)
    return head + cv + b"".join(arr[n].astype("<i2").tobytes() for n in names)


def write(directory: Path = DATA) -> list[Path]:
    """Write every game's file into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for game in GAMES:
        path = directory / f"{game}.bin"
        path.write_bytes(to_bytes(game))
        paths.append(path)
    return paths


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    for p in write(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA):
        print(p)
