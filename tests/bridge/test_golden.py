"""Golden deals of the deal stream docs/bridge.md specifies (``tests/data/bridge/golden``).

The file pins, for a few scripts and seeds, the exact text ``bridge run`` prints: the numpy
path, the compiled loop and worker processes (``-j 2``) must all print it, so a numpy upgrade
or a change to either path that deals differently fails here. The unconstrained cases are also
dealt by :func:`_spec_deals`, a plain-integer reading of the specification written from
docs/bridge.md (itertools and Python integers, none of the dealing code), and the stream
vectors (``stream.txt``) check the PCG64 words and Lemire integers on numpy's raw stream.
"""

from __future__ import annotations

import os
import subprocess
import sys
from itertools import combinations, product
from math import comb, prod
from pathlib import Path

import numpy as np
import pytest

from nomic_cards.bridge.deal import stream
from nomic_cards.bridge.deal.batch import below
from nomic_cards.bridge.run import fast

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "bridge" / "golden"


def _cases() -> dict[str, dict[str, str]]:
    text = (GOLDEN / "deals.txt").read_text(encoding="utf-8")
    out = {}
    for block in text.split("=== ")[1:]:
        head, rest = block.split("--- script\n", 1)
        script, output = rest.split("--- output\n", 1)
        name, seed, flags = head.splitlines()
        out[name] = {"seed": seed.split()[1], "flags": flags.removeprefix("flags").strip(),
                     "script": script, "output": output}
    return out


CASES = _cases()


def _run(case: dict[str, str], tmp_path: Path, *extra: str, **env: str) -> str:
    path = tmp_path / "golden.dl"
    path.write_text(case["script"], encoding="utf-8")
    code = ("import sys\nfrom nomic_cards.launch import dealer\n"
            f"sys.argv = ['nomic-dealer', *{[*case['flags'].split(), *extra]!r}, "
            f"'-s', {case['seed']!r}, '-v', {str(path)!r}]\n"
            "dealer()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **env}, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_golden_file_has_its_cases() -> None:
    assert {"plain", "predeal", "south-first", "stacked", "chunks", "tallies"} <= set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_numpy_path_deals_the_golden_deals(name: str, tmp_path: Path) -> None:
    assert _run(CASES[name], tmp_path, NOMIC_CARDS_PURE_PYTHON="1") == CASES[name]["output"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_compiled_loop_deals_the_golden_deals(name: str, tmp_path: Path) -> None:
    if fast.extension() is None:
        if os.environ.get("CI"):
            pytest.fail("nomic_cards.bridge.run._fast is not built: is gcc installed (.ci/run)?")
        pytest.skip("nomic_cards.bridge.run._fast is not built (no C compiler at install)")
    assert _run(CASES[name], tmp_path) == CASES[name]["output"]


@pytest.mark.parametrize("name", ["chunks", "tallies", "south-first"])
@pytest.mark.parametrize("pure", ["", "1"])
def test_worker_processes_deal_the_golden_deals(name: str, pure: str, tmp_path: Path) -> None:
    env = {"NOMIC_CARDS_PURE_PYTHON": pure} if pure else {}
    assert _run(CASES[name], tmp_path, "-j", "2", **env) == CASES[name]["output"]


# ------------------------------------------------------------------ the specification, plainly
_RANKS = "23456789TJQKA"
_SEATS = "nesw"


def _subset(rank: int, free: int, k: int) -> list[int]:
    """The ``k``-subset of positions ``0 .. free-1`` of ``rank`` (docs/bridge.md: blocks of 13
    positions, patterns of cards per block in lexicographic order, then per block a subset in
    colex order -- by mixed radix, the first block least significant)."""
    blocks = [min(13, free - b) for b in range(0, free, 13)]
    for pattern in product(*(range(b + 1) for b in blocks)):
        if sum(pattern) != k:
            continue
        size = prod(comb(b, a) for a, b in zip(pattern, blocks, strict=True))
        if rank >= size:
            rank -= size
            continue
        chosen = []
        for b, (a, width) in enumerate(zip(pattern, blocks, strict=True)):
            rank, sub = divmod(rank, comb(width, a))
            colex = sorted(combinations(range(width), a), key=lambda c: sum(1 << i for i in c))
            chosen += [13 * b + i for i in colex[sub]]
        return chosen
    raise AssertionError("rank out of range")


def _spec_deals(seed: int, chunk: int, size: int, predeal: dict[int, set[int]],
                order: tuple[int, ...], count: int) -> list[dict[int, set[int]]]:
    """The first ``count`` deals of a chunk of ``size`` with no condition: cards are
    ``13 * suit + rank`` (spades 0)."""
    words = stream.Pcg64(stream.seed_words(seed, chunk, 0))
    held = set().union(*predeal.values()) if predeal else set()
    free = {s: 13 - len(predeal.get(s, ())) for s in range(4)}
    ranks = []
    for q, seat in enumerate(order):
        left = sum(free[s] for s in order[q:])
        ranks.append([stream.lemire(words, comb(left, free[seat])) for _ in range(size)])
    deals = []
    for row in range(count):
        hands = {s: set(predeal.get(s, ())) for s in range(4)}
        left_cards = [c for c in range(52) if c not in held]  # spades first, deuce first
        for q, seat in enumerate(order):
            chosen = {left_cards[i] for i in _subset(ranks[q][row], len(left_cards), free[seat])}
            hands[seat] |= chosen
            left_cards = [c for c in left_cards if c not in chosen]
        deals.append(hands)
    return deals


def _oneline(deal: dict[int, set[int]]) -> str:
    def hand(cards: set[int]) -> str:
        return ".".join("".join(_RANKS[c % 13] for c in sorted(cards, reverse=True)
                                if c // 13 == suit) for suit in range(4))
    return " ".join(f"{_SEATS[s]} {hand(deal[s])}" for s in range(4)) + " \n"


def _card(text: str) -> int:
    return "SHDC".index(text[0]) * 13 + _RANKS.index(text[1])


@pytest.mark.parametrize(("name", "predeal"), [
    ("plain", {}), ("plain-big-seed", {}),
    ("predeal", {0: {_card(c) for c in ("SA", "SK", "SQ", "HA", "HK", "C2")},
                 3: {_card(c) for c in ("D6", "D5", "D4", "D3", "D2")}}),
])
def test_the_specification_read_plainly_deals_the_golden_deals(
        name: str, predeal: dict[int, set[int]]) -> None:
    case = CASES[name]
    lines = case["output"].splitlines(keepends=True)
    deals = _spec_deals(int(case["seed"]), 0, 1024, predeal, (0, 1, 2, 3), len(lines))
    assert "".join(_oneline(d) for d in deals) == case["output"]


def test_the_seat_order_follows_the_condition() -> None:
    from nomic_cards.bridge.language.script import parse_script

    def order(text: str, first: int | None = None) -> tuple[int, ...]:
        return stream.seat_order(parse_script(f"condition {text}\n").condition, first)

    assert order("hcp(south) >= 12 && hcp(north) >= 10") == (2, 0, 1, 3)
    assert order("shape(west, 5xxx) || (spades(east) > 3 ? hascard(west, AS) : 1)") == (3, 1, 0, 2)
    assert order("1") == (0, 1, 2, 3)
    assert order("hcp(east) > 3", first=2) == (2, 1, 0, 3)


# ------------------------------------------------------------------ the stream's words
def _stream_vectors() -> list[tuple[int, int, list[int], list[int], list[int]]]:
    """(seed, chunk, words, first raw outputs, bounds..., Lemire values...) per line."""
    out = []
    for line in (GOLDEN / "stream.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        seed, chunk, words, raw, bounds, values = line.split(" | ")
        out.append((int(seed), int(chunk), [int(w, 16) for w in words.split()],
                    [int(w, 16) for w in raw.split()],
                    [int(b) for b in bounds.split()] + [int(v) for v in values.split()]))
    return out


def test_stream_vectors_hold_for_numpy_the_reference_and_the_compiled_loop() -> None:
    vectors = _stream_vectors()
    assert len(vectors) >= 4
    ext = fast.extension()
    for seed, chunk, words, raw, rest in vectors:
        bounds, values = rest[:len(rest) // 2], rest[len(rest) // 2:]
        seq = np.random.SeedSequence(seed, spawn_key=(chunk, 0))
        assert [int(w) for w in seq.generate_state(4, np.uint64)] == words
        assert stream.seed_words(seed, chunk, 0) == tuple(words)
        assert [int(w) for w in np.random.PCG64(seq).random_raw(len(raw))] == raw
        ref = stream.Pcg64(stream.seed_words(seed, chunk, 0))
        assert [stream.lemire(ref, b) for b in bounds] == values
        bits = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(chunk, 0)))
        assert below(bits, np.array(bounds, dtype=np.int64)).tolist() == values
        if ext is not None:
            assert ext.integers(tuple(words), bounds) == values
