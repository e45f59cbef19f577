#!/usr/bin/env python3
"""Write tests/data/bridge/golden/deals.txt and stream.txt: the deals `bridge run` gives for a
few scripts and seeds, as docs/bridge.md's deal stream specifies them (python-chess keeps perft
numbers so).

Usage: .venv/bin/python scripts/gen_bridge_golden.py

Run it only when the specification itself changes (then say so in docs/bridge.md): the tests
(tests/bridge/test_golden.py) check the numpy path, the compiled loop and `-j 2` against the
file, and a plain-integer implementation of the specification against its unconstrained cases.
The text is produced on the numpy path (``NOMIC_CARDS_PURE_PYTHON=1``), closing statistics off;
stream.txt by the plain-integer reference of nomic_cards.bridge.deal.stream (seed words, the first
raw words of PCG64 and Lemire integers for a mix of bounds).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "bridge" / "golden" / "deals.txt"
STREAM = OUT.with_name("stream.txt")
BOUNDS = (635013559600, 8122425444, 10400600, 52, 7, 1, 2, 3 * 2**61, 2**62 + 1, 2**40)
SEEDS = ((0, 0), (1, 0), (1, 5), (2**64 - 1, 70000), (123456789, 31))

#: name, seed, extra flags, script
CASES: list[tuple[str, int, tuple[str, ...], str]] = [
    ("plain", 1, (), "produce 6\naction printoneline\n"),
    ("plain-big-seed", 2**64 - 1, (), "produce 4\naction printoneline\n"),
    ("predeal", 42, (), "predeal north SAKQ, HAK, C2\npredeal west D65432\nproduce 5\n"
                        "action printoneline\n"),
    ("south-first", 7, (), "produce 8\ncondition hcp(south) >= 12 && hcp(north) >= 10\n"
                           "action printoneline\n"),
    ("west-shape", 3, (), "produce 6\ncondition shape(west, 5xxx + x5xx) && hcp(east) <= 9\n"
                          "action printoneline\n"),
    ("chunks", 2**63 + 3, (), "produce 30\ncondition hcp(north) >= 20\naction printoneline\n"),
    ("stacked", 5, ("--stack",), "produce 8\ncondition hcp(north) >= 22 && hcp(south) >= 3\n"
                                 "action printoneline\n"),
    ("tallies", 11, (), "generate 5000\ncondition hcp(north) >= 15 && hcp(north) <= 17 && "
                        "shape(north, any 4333 + any 4432 + any 5332)\n"
                        "action average hcp(south), frequency (hcp(south), 0, 20)\n"),
]


def main() -> None:
    env = {**os.environ, "NOMIC_CARDS_PURE_PYTHON": "1"}
    parts = ["# Golden deals of docs/bridge.md's deal stream; written by "
             "scripts/gen_bridge_golden.py.\n"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, seed, flags, script in CASES:
            path = Path(tmp) / f"{name}.dl"
            path.write_text(script, encoding="utf-8")
            out = subprocess.run([str(ROOT / ".venv" / "bin" / "nomic-dealer"), "-s", str(seed),
                                  "-v", *flags, str(path)], env=env, capture_output=True,
                                 text=True, check=True).stdout
            parts.append(f"=== {name}\nseed {seed}\nflags {' '.join(flags)}\n--- script\n"
                         f"{script}--- output\n{out}")
    OUT.write_text("".join(parts), encoding="utf-8")
    import sys

    sys.path.insert(0, str(ROOT))
    from nomic_cards.bridge.deal.stream import Pcg64, lemire, seed_words

    lines = ["# seed | chunk | seed words (SeedSequence(seed, spawn_key=(chunk, 0))) | first raw "
             "PCG64 words | bounds | Lemire integers below them, drawn after a fresh seeding\n"]
    for seed, chunk in SEEDS:
        words = seed_words(seed, chunk, 0)
        g = Pcg64(words)
        raw = [g.next() for _ in range(4)]
        g = Pcg64(words)
        values = [lemire(g, b) for b in BOUNDS * 3]
        lines.append(f"{seed} | {chunk} | {' '.join(f'{w:016x}' for w in words)} | "
                     f"{' '.join(f'{w:016x}' for w in raw)} | {' '.join(map(str, BOUNDS * 3))} | "
                     f"{' '.join(map(str, values))}\n")
    STREAM.write_text("".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
