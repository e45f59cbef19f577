"""Generation: the documented generator, golden sequences, batch == one at a time, semantics."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.errors import InputError
from nomic_cards.randomizers import PRESETS, Randomizer, Spec, parse, rng
from nomic_cards.randomizers import generate as gen
from tests.randomizers.strategies import specs

DATA = Path(__file__).resolve().parents[1] / "data" / "randomizers"
KNOWN = json.loads((DATA / "known.json").read_text(encoding="utf-8"))
GOLDEN = json.loads((DATA / "golden.json").read_text(encoding="utf-8"))


# -- the generator ----------------------------------------------------------------------------
def test_splitmix64_reference_vectors() -> None:
    ref = KNOWN["splitmix64"]
    s = rng.Stream(1234567)
    assert [s.word() for _ in range(5)] == ref["seed_1234567"]
    assert rng.Stream(0).word() == ref["seed_0_first"]
    assert rng.words(1234567, 0, 5).tolist() == ref["seed_1234567"]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**40), st.integers(1, 50))
def test_vectorised_words_equal_scalar(seed: int, start: int, count: int) -> None:
    s = rng.Stream(seed, start)
    assert rng.words(seed, start, count).tolist() == [s.word() for _ in range(count)]


def test_below_rejects_exactly_the_incomplete_last_block() -> None:
    assert rng.max_accept(1) == 2**64 - 1
    assert rng.max_accept(2**10) == 2**64 - 1
    assert rng.max_accept(3) == 2**64 - 2  # 2**64 = 1 (mod 3): one word rejected
    assert (rng.max_accept(7) + 1) % 7 == 0


def _doc_words(seed: int):  # type: ignore[no-untyped-def]
    """The generator as docs/randomizers.md states it, written from the text alone."""
    mask = 2**64 - 1
    i = 0
    while True:
        i += 1
        z = (seed + i * 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def _doc_below(words, b: int) -> int:  # type: ignore[no-untyped-def]
    while True:
        w = next(words)
        if w < 2**64 - (2**64 % b):
            return w % b


def test_documented_generator_reimplemented() -> None:
    seed = 99
    # 7-bag: pool in list order, k-th deal takes j = below(7-k), moves pool[6-k] into slot j
    words = _doc_words(seed)
    names = "IJLOSTZ"
    out = []
    for _ in range(10):
        pool = list(range(7))
        for k in range(7):
            j = _doc_below(words, 7 - k)
            out.append(names[pool[j]])
            pool[j] = pool[6 - k]
    assert Randomizer("bag of I,J,L,O,S,T,Z", seed=seed).take(70) == out
    # TGM1: first from I,J,L,T; history Z,Z,Z,Z; up to 4 rolls of below(7)
    words = _doc_words(seed)
    first = "IJLT"[_doc_below(words, 4)]
    hist = ["Z", "Z", "Z", first]
    out = [first]
    for _ in range(500):
        for _ in range(4):
            piece = names[_doc_below(words, 7)]
            if piece not in hist:
                break
        out.append(piece)
        hist = [*hist[1:], piece]
    assert Randomizer(PRESETS["tgm1"], seed=seed).take(501) == out


@pytest.mark.parametrize("name", sorted(GOLDEN["sequences"]))
def test_golden_sequences(name: str) -> None:
    case = GOLDEN["sequences"][name]
    got = Randomizer(case["spec"], seed=GOLDEN["seed"]).take(40)
    assert " ".join(got) == case["pieces"]


# -- batch mode -------------------------------------------------------------------------------
def _one_at_a_time(spec: Spec | str, seed: int, count: int) -> list[str]:
    r = Randomizer(spec, seed=seed)
    return [next(r) for _ in range(count)]


def _names(r: Randomizer, count: int) -> list[str]:
    """The next ``count`` pieces through the batch path."""
    return [r.pieces[c] for c in r.batch(count)]


#: Pieces dealt after a mixed run to check that it left the same state as one at a time.
_TAIL = 80


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(0, 2**64 - 1), st.lists(st.integers(0, 60), min_size=1, max_size=4))
def test_batch_equals_one_at_a_time(spec: Spec, seed: int, splits: list[int]) -> None:
    total = sum(splits) + 7
    expected = _one_at_a_time(spec, seed, total + _TAIL)
    mixed = [Randomizer(spec, seed=seed), Randomizer(spec, seed=seed)]
    for r in mixed:
        got: list[str] = []
        for part in splits:
            got.extend(_names(r, part))
            got.append(next(r))  # interleave the two paths
        got.extend(_names(r, total - len(got)))
        assert got == expected[:total]
        assert r.dealt == total
    # the same state afterwards: both paths go on exactly as one at a time would
    assert _names(mixed[0], _TAIL) == expected[total:]
    assert [next(mixed[1]) for _ in range(_TAIL)] == expected[total:]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_batch_equals_one_at_a_time_on_long_preset_runs(name: str) -> None:
    expected = _one_at_a_time(PRESETS[name], 5, 20_000)
    r = Randomizer(PRESETS[name], seed=5)
    assert _names(r, 12_345) + _names(r, 7_655) == expected


def _harsh_max_accept(bound: int) -> int:
    """A still-exact rule that rejects about half of all words (to exercise rejection)."""
    return (2**63 // bound) * bound - 1


@pytest.mark.parametrize("text", [
    "I,J,L,O,S,T,Z", "bag of I,J,L,O,S,T,Z", "5 bag of I,T,J,J,L,L,O,O,S,S,S,Z,Z,Z",
    "I,J,L,O,S,T,Z with 4 history", PRESETS["tgm1"].spec, "I,I,J with 1 history 3 rolls",
    "S,Z with 1 history first Z", "A,B,C with 0 history 2 rolls",
])
def test_batch_handles_rejections_like_the_scalar_path(text: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rng, "max_accept", _harsh_max_accept)
    monkeypatch.setattr(gen, "max_accept", _harsh_max_accept)
    expected = _one_at_a_time(text, 11, 3000 + _TAIL)
    r = Randomizer(text, seed=11)
    assert _names(r, 1234) + _names(r, 1766) == expected[:3000]
    # the batch consumed exactly the words one at a time did: the next pieces agree too
    assert [next(r) for _ in range(_TAIL)] == expected[3000:]


def test_harsh_rule_really_rejects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rng, "max_accept", _harsh_max_accept)
    s = rng.Stream(3)
    for _ in range(1000):
        s.below(7)
    assert s.pos > 1500


# -- API ----------------------------------------------------------------------------------------
def test_take_iteration_and_batch_agree() -> None:
    a = Randomizer(PRESETS["tgm2"], seed=8)
    b = Randomizer(PRESETS["tgm2"], seed=8)
    c = Randomizer(parse(PRESETS["tgm2"].spec), seed=8)
    names = [next(a) for _ in range(100)]
    assert names == b.take(100)
    assert names == [c.pieces[i] for i in c.batch(100)]
    assert a.dealt == b.dealt == c.dealt == 100


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "7", True])
def test_bad_seed(seed: object) -> None:
    with pytest.raises(InputError, match="seed must be an integer"):
        Randomizer("I,J", seed=seed)  # type: ignore[arg-type]


def test_fresh_seed_is_recorded() -> None:
    r = Randomizer("bag of I,J,L,O,S,T,Z")
    assert 0 <= r.seed < 2**64
    assert Randomizer(r.spec, seed=r.seed).take(30) == r.take(30)


def test_bad_count_and_spec() -> None:
    with pytest.raises(InputError, match="count must be"):
        Randomizer("I,J", seed=1).batch(-1)
    with pytest.raises(InputError, match="not a randomizer spec"):
        Randomizer(42, seed=1)


# -- semantics ------------------------------------------------------------------------------
def test_seed_equivalences_same_sequences() -> None:
    base = Randomizer("I,I,J,L,O", seed=77).take(500)
    for text in ("1 bag of I,I,J,L,O", "I,I,J,L,O with 0 history",
                 "I,I,J,L,O with 3 history 1 rolls", "I,I,J,L,O with 9 history 1 rolls"):
        assert Randomizer(text, seed=77).take(500) == base, text
    assert (Randomizer("bag of I,J,L,O,S,T,Z", seed=3).take(100)
            == Randomizer("7 bag of I,J,L,O,S,T,Z", seed=3).take(100))


def test_bags_deal_each_entry_once_per_bag() -> None:
    pieces = Randomizer("5 bag of I,T,J,J,L,L,O,O,S,S,S,Z,Z,Z", seed=4).take(5000)
    full = Counter(["I", "T", "J", "J", "L", "L", "O", "O", "S", "S", "S", "Z", "Z", "Z"])
    for i in range(0, 5000, 5):
        assert not Counter(pieces[i:i + 5]) - full
    seven = Randomizer(PRESETS["7-bag"], seed=4).take(7000)
    assert all(sorted(seven[i:i + 7]) == list("IJLOSTZ") for i in range(0, 7000, 7))


def test_strict_history_never_deals_a_held_piece() -> None:
    pieces = Randomizer(PRESETS["move-to-back"], seed=2).take(5000)
    assert all(pieces[i] not in pieces[i - 4:i] for i in range(4, 5000))
    assert Randomizer("S,Z with 1 history", seed=9).take(6) in (list("SZSZSZ"), list("ZSZSZS"))


def test_sequence_deals_in_order() -> None:
    assert Randomizer("sequence of A,B,A,C", seed=0).take(9) == list("ABACABACA")


def test_first_piece_enters_the_history() -> None:
    for seed in range(20):
        assert Randomizer("S,Z with 1 history first S", seed=seed).take(5) == list("SZSZS")
        tgm = Randomizer(PRESETS["tgm1"], seed=seed).take(1)
        assert tgm[0] in "IJLT"
    # the first piece ignores the history: Z first although the history holds Z
    assert Randomizer("S,Z with 1 history first Z history Z", seed=1).take(3) == list("ZSZ")


def test_first_piece_precedes_a_full_bag() -> None:
    for seed in range(10):
        pieces = Randomizer("bag of I,J,L,O,S,T,Z first I,J", seed=seed).take(15)
        assert pieces[0] in "IJ"
        assert sorted(pieces[1:8]) == sorted(pieces[8:15]) == list("IJLOSTZ")
    assert Randomizer("sequence of A,B,C first C", seed=0).take(5) == list("CABCA")


def test_initial_history_blocks_its_pieces() -> None:
    for seed in range(30):
        assert Randomizer("S,Z with 1 history history Z", seed=seed).take(1) == ["S"]
        first = Randomizer("I,J,L,O,S,T,Z with 4 history history Z,S,O,I", seed=seed).take(1)
        assert first[0] in "JLT"
    # a foreign piece in the initial history blocks nothing
    seen = {Randomizer("I,J with 1 history history Q", seed=s).take(1)[0] for s in range(30)}
    assert seen == {"I", "J"}


def test_history_counts_entries_not_names() -> None:
    pieces = Randomizer("I,I,J with 1 history", seed=5).take(3000)
    pairs = Counter(zip(pieces, pieces[1:], strict=False))
    assert pairs[("I", "I")] > 0 and pairs[("J", "J")] == 0


def test_docs_example() -> None:
    spec = parse("I,J,L,O,S,T,Z with 4 history 4 rolls first I,J,L,T history Z,Z,Z,Z")
    assert Randomizer(spec, seed=2024).take(7) == ["J", "I", "O", "T", "S", "I", "Z"]
