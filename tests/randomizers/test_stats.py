"""Exact statistics: against the brute-force oracle, closed forms, known numbers, equivalences,
and every preset against a long fixed-seed simulation."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings

from nomic_cards.randomizers import PRESETS, Randomizer, Spec, StatsError, parse, stats
from nomic_cards.randomizers import chain as chainmod
from nomic_cards.randomizers.simulate import simulate
from nomic_cards.randomizers.stats import as_dict
from tests.randomizers.oracle import MultipleClasses, oracle
from tests.randomizers.strategies import specs

DATA = Path(__file__).resolve().parents[1] / "data" / "randomizers"
KNOWN = json.loads((DATA / "known.json").read_text(encoding="utf-8"))

ORACLE_SPECS = [
    "I,J,L",
    "I,I,J",
    "bag of I,J,L,O",
    "3 bag of I,I,J,L,O",
    "bag of I,J,L first Q",
    "sequence of A,B,A,C",
    "sequence of A,B,C first B,D",
    "I,J,L,O with 2 history",
    "I,I,J,L with 2 history",
    "I,J,L,O with 2 history 2 rolls first I,J history O,O",
    "I,I,J,L with 3 history 3 rolls history J,Q",
    "A,B,C,D,E with 3 history 2 rolls first A,B",
    "S,Z with 1 history 2 rolls",
    "I,J,L,O,S with 2 history first I history S,Q",
    "4 bag of A,A,B,C,D,E first E,E,F",
    "I,J,L,O,S,T,Z with 2 history 3 rolls first I,J history Z,Z",
    "I,I,I,J with 2 history 2 rolls first J",
    "I,J,L with 2 history 1 rolls first L history J",
]


@pytest.mark.slow
@pytest.mark.parametrize("text", ORACLE_SPECS)
def test_exact_stats_match_the_brute_force_oracle(text: str) -> None:
    _check_against_oracle(text, 12)


@settings(max_examples=80, deadline=None)
@given(specs(max_pieces=4, max_history=3))
def test_exact_stats_match_the_oracle_on_random_small_specs(spec: Spec) -> None:
    try:
        _check_against_oracle(str(spec), 8)
    except MultipleClasses:
        assume(False)


def _check_against_oracle(text: str, k: int) -> None:
    ref = oracle(text, k)
    st = stats(text, gaps=k)
    assert st.repeat == ref.repeat
    assert st.all_rolls_fail == ref.all_rolls_fail
    for ps in st.per_piece:
        x = ps.piece
        assert ps.frequency == ref.frequency[x], x
        assert list(ps.first) == ref.first[x], x
        if ps.frequency:
            assert list(ps.gap) == ref.gap[x], x
            assert ps.gap_max == ref.gap_max[x], x
            assert ps.gap_mean == 1 / ps.frequency  # Kac, one closed class
        else:
            assert ps.gap == () and x not in ref.gap


CORPUS = json.loads((DATA / "corpus.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CORPUS["valid"], ids=lambda c: c["note"])
def test_every_corpus_spec_runs(case: dict[str, object]) -> None:
    """Every seed example (and every other valid corpus spec) deals and has exact stats."""
    text = str(case["text"])
    assert len(Randomizer(text, seed=1).take(200)) == 200
    st = stats(text, gaps=5)
    assert sum(ps.frequency for ps in st.per_piece) == 1


# -- closed forms and known numbers -----------------------------------------------------------
def test_seven_bag_triangular_gaps_and_at_most_twelve_between() -> None:
    known = KNOWN["random_generator"]
    ps = stats(known["spec"], gaps=20).piece(known["piece"])
    # I at position i of one bag, j of the next: gap 7 - i + j, i and j uniform on 1..7
    assert list(ps.gap) == [Fraction(7 - abs(k - 7), 49) if k <= 13 else 0
                            for k in range(1, 21)]
    assert ps.gap_max - 1 == known["most_pieces_between"]
    assert ps.gap_mean == 7 and sum(ps.gap) == 1
    assert list(ps.first[:7]) == [Fraction(1, 7)] * 7 and ps.first_max == 7
    assert ps.first_mean == 4


def test_memoryless_gaps_are_geometric() -> None:
    ps = stats("I,J,L,O,S,T,Z", gaps=30).piece("T")
    assert list(ps.gap) == [Fraction(6, 7) ** (k - 1) / 7 for k in range(1, 31)]
    assert list(ps.first) == list(ps.gap)
    assert ps.gap_max is None and ps.first_max is None and ps.first_mean == 7


def test_more_difficult_is_ten_percent_i() -> None:
    known = KNOWN["more_difficult"]
    assert stats(known["spec"]).piece(known["piece"]).frequency == Fraction(known["frequency"])


def test_szsz_alternating() -> None:
    st = stats(KNOWN["szsz_alternating"]["spec"], gaps=6)
    for name in "SZ":
        ps = st.piece(name)
        assert list(ps.gap) == [0, 1, 0, 0, 0, 0] and ps.gap_max == 2
        assert list(ps.first) == [Fraction(1, 2), Fraction(1, 2), 0, 0, 0, 0]
    assert st.repeat == 0


def test_move_to_back_never_repeats_within_four_but_has_unbounded_gaps() -> None:
    ps = stats(PRESETS["move-to-back"], gaps=8).piece("O")
    assert list(ps.gap[:4]) == [0, 0, 0, 0] and ps.gap[4] == Fraction(1, 3)
    assert ps.gap_max is None


def test_tgm_failure_rates() -> None:
    st1, st2 = stats(PRESETS["tgm1"], gaps=1), stats(PRESETS["tgm2"], gaps=1)
    assert st1.all_rolls_fail == Fraction(258832601, 2693264126)
    assert st2.all_rolls_fail == Fraction(4574196964864, 137023139315083)
    # TetrisWiki's "about 3.5 percent" is (4/7)^6, an upper bound: histories with a repeated
    # piece fail less often
    about = KNOWN["tgm_failure"]["about"]
    assert abs(float(Fraction(4, 7) ** 6) - about) < 0.001
    assert st2.all_rolls_fail < Fraction(4, 7) ** 6
    assert all(ps.frequency == Fraction(1, 7) for ps in st1.per_piece)


def test_tgm1_first_piece_is_never_s_z_or_o() -> None:
    st = stats(PRESETS["tgm1"], gaps=3)
    for name in "SZO":
        assert st.piece(name).first[0] == 0
    for name in "IJLT":
        assert st.piece(name).first[0] == Fraction(1, 4)


def test_history_counts_entries_not_names_in_stats() -> None:
    ps = stats("I,I,J with 1 history", gaps=3).piece("I")
    assert ps.frequency == Fraction(2, 3) and ps.gap[0] == Fraction(1, 2)


def test_reducible_chain_averages_over_classes() -> None:
    st = stats("I,J,L with 2 history", gaps=4)
    for ps in st.per_piece:
        assert ps.frequency == Fraction(1, 3)
        assert list(ps.gap) == [0, 0, 1, 0] and ps.gap_max == 3
        assert list(ps.first) == [Fraction(1, 3)] * 3 + [0]


def test_pieces_outside_the_list() -> None:
    st = stats("S,Z first Q", gaps=3)
    q = st.piece("Q")
    assert q.frequency == 0 and q.gap == () and q.gap_mean is None and q.repeat is None
    assert list(q.first) == [1, 0, 0] and q.first_max == 1 and q.first_mean == 1
    s = st.piece("S")
    assert list(s.first) == [0, Fraction(1, 2), Fraction(1, 4)] and s.first_mean == 3
    never = stats("I,J with 1 history history Q", gaps=2).piece("Q")
    assert never.first_never == 1 and never.first_max is None and never.first_mean is None


# -- the seed's equivalences --------------------------------------------------------------------
def _summary(text: str, k: int = 15) -> object:
    st = stats(text, gaps=k)
    return [(p.piece, p.frequency, p.gap, p.gap_max, p.first, p.first_mean)
            for p in st.per_piece], st.repeat


def test_seed_equivalences_memoryless_forms() -> None:
    base = _summary("I,I,J,L,O")
    for text in ("1 bag of I,I,J,L,O", "I,I,J,L,O with 0 history",
                 "I,I,J,L,O with 3 history 1 rolls", "I,I,J,L,O with 9 history 1 rolls"):
        assert _summary(text) == base, text
    assert parse("bag of I,J,L") == parse("3 bag of I,J,L")


def test_seed_equivalences_sequence_vs_history() -> None:
    # exact with the initial history L[1:]
    assert _summary("sequence of I,J,L,O") == _summary("I,J,L,O with 3 history history J,L,O")
    assert (_summary("sequence of I,I,J,J")
            == _summary("I,I,J,J with 3 history history I,J,J"))
    # not from the start: the history version deals a random arrangement first
    seq, hist = stats("sequence of I,J,L,O", gaps=4), stats("I,J,L,O with 3 history", gaps=4)
    assert seq.piece("I").first != hist.piece("I").first
    # the long-run figures agree without duplicates ...
    for name in "IJLO":
        a, b = seq.piece(name), hist.piece(name)
        assert (a.frequency, a.gap, a.gap_max) == (b.frequency, b.gap, b.gap_max)
    # ... and differ with them: I,J,I,J can settle in
    assert list(stats("sequence of I,I,J,J", gaps=3).piece("I").gap) == [
        Fraction(1, 2), 0, Fraction(1, 2)]
    assert list(stats("I,I,J,J with 3 history", gaps=3).piece("I").gap) == [Fraction(1, 3)] * 3


# -- presets against simulation --------------------------------------------------------------
SIM_PIECES = 1_000_000
FREQ_TOL = GAP_TOL = 0.004
RATE_TOL = 0.003
FIRST_TOL = 0.015


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_exact_stats_agree_with_simulation(name: str) -> None:
    k = 10
    st = stats(PRESETS[name], gaps=k)
    sim = simulate(PRESETS[name], SIM_PIECES, seed=20240, gaps=k)
    assert sim.runs == 20_000
    assert abs(float(st.repeat) - sim.repeat) < RATE_TOL
    if st.all_rolls_fail is not None:
        assert sim.all_rolls_fail is not None
        assert abs(float(st.all_rolls_fail) - sim.all_rolls_fail) < RATE_TOL
    for ps in st.per_piece:
        sp = sim.piece(ps.piece)
        assert abs(float(ps.frequency) - sp.frequency) < FREQ_TOL, ps.piece
        for exact, seen in zip(ps.gap, sp.gap, strict=True):
            assert abs(float(exact) - seen) < GAP_TOL, ps.piece
        for exact, seen in zip(ps.first, sp.first, strict=True):
            assert abs(float(exact) - seen) < FIRST_TOL, ps.piece
        if ps.gap_max is not None:
            assert sp.gap_max_seen is not None and sp.gap_max_seen <= ps.gap_max


# -- limits and output -------------------------------------------------------------------------
def test_too_many_states_is_a_clear_error() -> None:
    with pytest.raises(StatsError, match=r"too many states for exact statistics \(more than 10\)"):
        stats("I,J,L,O,S,T,Z with 4 history 4 rolls", max_states=10)
    assert chainmod.MAX_STATES == 20_000


@pytest.mark.parametrize("gaps", [0, 1001, True])
def test_bad_table_length(gaps: object) -> None:
    with pytest.raises(StatsError, match="table length"):
        stats("I,J", gaps=gaps)  # type: ignore[arg-type]


def test_unknown_piece() -> None:
    with pytest.raises(StatsError, match=r"unknown piece 'X' \(pieces: I, J\)"):
        stats("I,J").piece("X")


def test_json_form_gives_exact_strings_and_decimals() -> None:
    data = as_dict(stats(PRESETS["7-bag"], gaps=2), ["I"])
    (i,) = data["per_piece"]
    assert i["frequency"] == {"exact": "1/7", "decimal": 1 / 7}
    assert i["gap"][1] == {"exact": "2/49", "decimal": 2 / 49}
    assert i["gap_max"] == 13 and i["gap_bounded"] is True


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(specs(max_pieces=5, max_history=3))
def test_stats_are_probabilities_for_any_small_spec(spec: Spec) -> None:
    st = stats(spec, gaps=8)
    assert sum(ps.frequency for ps in st.per_piece) == 1
    assert 0 <= st.repeat <= 1
    for ps in st.per_piece:
        assert 0 <= ps.first_never <= 1 and sum(ps.first) + ps.first_never <= 1
        if ps.first_never == 0 and ps.first_max is not None:
            assert sum(ps.first[:ps.first_max]) == 1 or ps.first_max > 8
        if ps.recurs:
            assert sum(ps.gap) <= 1 and ps.gap_mean is not None and ps.gap_mean >= 1
            if ps.gap_max is not None and ps.gap_max <= 8:
                assert sum(ps.gap) == 1 and ps.gap[ps.gap_max - 1] > 0
    if spec.rolls:
        assert st.all_rolls_fail is not None and 0 <= st.all_rolls_fail <= 1
