"""The deal language's syntax: corpus of valid and invalid inputs, round trips, fuzzing."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nomic_cards.deals import DealError, generating_function, parse, terms
from nomic_cards.deals.parser import tokenize
from nomic_cards.deals.syntax import (
    Alternative,
    Chain,
    Dots,
    Group,
    Node,
    Number,
    Repeat,
)
from nomic_cards.errors import InputError, LanguageError
from tests.deals.gen import random_deal
from tests.deals.oracle import all_ways

DATA = Path(__file__).resolve().parent.parent / "data" / "deals"
VALID = json.loads((DATA / "valid.json").read_text(encoding="utf-8"))["cases"]
INVALID = json.loads((DATA / "invalid.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", VALID, ids=lambda c: repr(c["deal"]))
def test_valid_corpus(case: dict) -> None:
    deal = parse(case["deal"])
    assert str(deal) == case["normal"]
    assert terms(deal, len(case["terms"])) == case["terms"]
    # the normal form means the same deal
    assert generating_function(case["normal"]) == generating_function(deal)


@pytest.mark.parametrize("case", INVALID, ids=lambda c: repr(c["deal"]))
def test_invalid_corpus(case: dict) -> None:
    with pytest.raises(DealError) as info:
        parse(case["deal"])
    assert str(info.value) == case["error"]


def test_error_is_a_language_error_with_caret() -> None:
    with pytest.raises(DealError) as info:
        parse("(0 or 1)^?")
    err = info.value
    assert isinstance(err, LanguageError) and isinstance(err, InputError)
    assert isinstance(err, ValueError)
    assert err.column == 9
    assert err.context() == "(0 or 1)^?\n        ^"


def test_nesting_limit() -> None:
    assert terms("(" * 100 + "1" + ")" * 100, 3) == [0, 1, 0]
    with pytest.raises(DealError, match=r"brackets nested more than 100 deep \(at column 101\)"):
        parse("(" * 101 + "1" + ")" * 101)


def test_spaces_only_matter_between_numbers() -> None:
    assert str(parse("...1...")) == str(parse("... 1 ..."))
    assert str(parse("5 10 1")) == "5 10 1"
    assert str(parse("5101")) == "5101"
    assert str(parse("(1)(2)")) == "(1) (2)"
    assert str(parse("5^2 3")) == "5^2 3"
    assert str(parse("5^23")) == "5^23"
    assert str(parse("1or2OR3")) == "1 or 2 or 3"
    assert str(parse(" 2 *\t5 ")) == "2 * 5"


def test_whitespace_is_space_tab_and_newline() -> None:
    for sep in (" ", "\t", "\n", "\r\n", " \t\r\n "):
        deal = parse(f"{sep}5{sep}10{sep}or{sep}2{sep}*{sep}(1{sep}1){sep}")
        assert str(deal) == "5 10 or 2 * (1 1)"
    with pytest.raises(DealError) as info:
        parse("5 or\n 5\u00a05")
    assert str(info.value) == (
        "unexpected character U+00A0 NO-BREAK SPACE (only spaces, tabs and newlines may "
        "separate the parts of a deal) (at line 2, column 3)"
    )


_OTHER_SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) not in " \t\n\r"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789. or()", max_size=8), st.sampled_from(_OTHER_SPACES),
       st.text(alphabet="0123456789. or()", max_size=8))
def test_every_other_unicode_space_is_refused_where_it_stands(
    before: str, space: str, after: str
) -> None:
    try:
        tokenize(before)
    except DealError:
        assume(False)  # a lexical fault before the space is reported first
    with pytest.raises(DealError) as info:
        parse(before + space + after)
    err = info.value
    assert err.pos == len(before)
    assert err.reason == (
        f"unexpected character U+{ord(space):04X} {unicodedata.name(space, '')}".rstrip()
        + " (only spaces, tabs and newlines may separate the parts of a deal)"
    )


def test_parse_accepts_a_parsed_deal_and_refuses_non_text() -> None:
    deal = parse("5 or 5")
    assert parse(deal) is deal
    with pytest.raises(TypeError):
        parse(5)  # type: ignore[arg-type]


def test_reprinted_random_deals_parse_to_the_same_tree_shape() -> None:
    rng = random.Random(20240601)
    for _ in range(200):
        deal = random_deal(rng)
        again = parse(str(deal))
        assert str(again) == str(deal)
        assert generating_function(again) == generating_function(deal)


def _shape(node: Node) -> object:
    """A syntax tree without its positions: what the deal says, not where it was written."""
    if isinstance(node, Number):
        return ("number", node.value)
    if isinstance(node, Dots):
        return ("dots",)
    if isinstance(node, Group):
        return ("group", _shape(node.body))
    if isinstance(node, Repeat):
        return ("repeat", _shape(node.item), node.low, node.high)
    if isinstance(node, Chain):
        return ("chain", *(_shape(i) for i in node.items))
    if isinstance(node, Alternative):
        return ("people", node.times, _shape(node.chain))
    return ("or", *(_shape(a) for a in node.alternatives))


def test_shape_tells_trees_apart() -> None:
    shapes = [_shape(parse(t).root) for t in
              ("5", "(5)", "5^2", "5^2-3", "5^?", "5^2-?", "5 5", "5 or 5", "2 * 5", "...", "6")]
    assert len(set(map(repr, shapes))) == len(shapes)
    assert _shape(parse(" 007 ^ 2 - 3 ").root) == _shape(parse("7^2-3").root)


_ALPHABET = "0123456789.()^-?* orOR\n\t*x#²"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=30))
def test_any_text_parses_or_raises_the_language_error(text: str) -> None:
    try:
        deal = parse(text)
    except DealError:
        return
    # the normal form is a deal with the same syntax tree, and re-printing it changes nothing
    again = parse(str(deal))
    assert _shape(again.root) == _shape(deal.root)
    assert str(again) == str(deal)


_SPACE = st.text(alphabet=" \t\n\r", min_size=1, max_size=2)


@st.composite
def _deal_text(draw: st.DrawFn, depth: int = 0) -> str:
    """A deal written with random spacing, leading zeros, case of 'or' and dot runs."""
    def number(limit: int) -> str:
        return "0" * draw(st.integers(0, 2)) + str(draw(st.integers(0, limit)))

    def item() -> str:
        kind = draw(st.integers(0, 5 if depth < 2 else 3))
        if kind < 3:
            atom = number(12)
        elif kind == 3:
            atom = "." * draw(st.integers(1, 4))
        else:
            atom = f"({draw(_deal_text(depth + 1))})"
        rep = draw(st.integers(0, 4))
        if rep == 0:
            return atom
        sp = draw(_SPACE)
        if rep == 1:
            return f"{atom}{sp}^{sp}?"
        low = draw(st.integers(0, 3))
        if rep == 2:
            return f"{atom}^{number(3)}"
        high = "?" if rep == 3 else str(low + draw(st.integers(0, 3)))
        return f"{atom}{sp}^{sp}{low}{sp}-{sp}{high}"

    alts = []
    for _ in range(draw(st.integers(1, 3))):
        chain = draw(_SPACE).join(item() for _ in range(draw(st.integers(1, 3))))
        if draw(st.booleans()):
            chain = f"{number(4)}{draw(_SPACE)}*{draw(_SPACE)}{chain}"
        alts.append(chain)
    word = draw(st.sampled_from(["or", "OR", "Or", "oR"]))
    return f"{draw(_SPACE)}{word}{draw(_SPACE)}".join(alts)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_deal_text())
def test_written_deals_round_trip_through_their_normal_form(text: str) -> None:
    try:
        deal = parse(text)
    except DealError as err:  # only the refusal of an unbounded repeat of a 0-card deal
        assert "can deal 0 cards" in err.reason, err.reason
        return
    again = parse(str(deal))
    assert _shape(again.root) == _shape(deal.root), (text, str(deal))
    assert str(again) == str(deal)
    assert terms(again, 8) == terms(deal, 8)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.()^-? or*", max_size=24))
def test_any_accepted_text_has_a_generating_function_or_a_language_error(text: str) -> None:
    try:
        gf = generating_function(text)
    except DealError:
        return
    assert gf.denominator[0] == 1
    assert terms(text, 6) == gf.terms(6)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20))
def test_arbitrary_unicode_parses_or_raises_the_language_error(text: str) -> None:
    try:
        parse(text)
    except DealError as err:
        assert err.reason


# -- the refusal of unbounded repeats counts the ways to deal nothing ------------------------


def _zero_able(rng: random.Random, depth: int) -> str:
    """A small random deal in which zeros, ranges and people are common."""
    def atom() -> str:
        r = rng.random()
        if depth < 2 and r < 0.3:
            return f"({_zero_able(rng, depth + 1)})"
        if r < 0.4:
            return "..."
        return str(rng.choice([0, 0, 0, 1, 2]))

    def item() -> str:
        a, r = atom(), rng.random()
        if r < 0.4:
            return a
        if r < 0.6:
            return f"{a}^{rng.randint(0, 3)}"
        if r < 0.9:
            low = rng.randint(0, 2)
            return f"{a}^{low}-{rng.randint(low, 4)}"
        return f"{a}^?"

    alts = []
    for _ in range(rng.choice([1, 2, 2, 3])):
        chain = " ".join(item() for _ in range(rng.choice([1, 1, 2])))
        if rng.random() < 0.2:
            chain = f"{rng.randint(0, 3)} * {chain}"
        alts.append(chain)
    return " or ".join(alts)


_REFUSAL = re.compile(
    r"^'(?P<body>.*)'(?: \(\d+ characters\))? can deal 0 cards "
    r"\((?P<ways>1 way|\d+ ways|more than 10\^18 ways)\), "
    r"so repeating it with no upper bound would give infinitely many ways \(at column \d+\)$"
)


def test_refused_star_counts_the_ways_its_body_deals_nothing_like_brute_force() -> None:
    rng = random.Random(20250112)
    checked = 0
    while checked < 150:
        body = _zero_able(rng, 0)
        try:
            inner = parse(body)
        except DealError:
            continue
        if terms(inner, 1)[0] > 3000:  # keep the enumeration small
            continue
        brute = len(all_ways(inner, 0))
        if brute == 0:
            assert terms(f"({body})^?", 1) == [1]
            continue
        checked += 1
        for star in ("^?", "^1-?", "^3-?"):
            with pytest.raises(DealError) as info:
                parse(f"({body}){star}")
            match = _REFUSAL.match(str(info.value))
            assert match is not None, str(info.value)
            if len(body) <= 58:  # longer texts are shortened in the middle
                assert match["body"] == f"({body})"
            want = "1 way" if brute == 1 else f"{brute} ways"
            assert match["ways"] == want, (body, brute)


@pytest.mark.parametrize(("deal", "ways"), [
    ("((0 or 0)^1-2)^?", "6 ways"),  # 2 + 2^2 (one round or two)
    ("((0 or 0)^33)^?", "8589934592 ways"),  # 2^33
    ("((0 or 0)^59)^?", "576460752303423488 ways"),  # 2^59, the largest power of 2 <= 10^18
    ("((0 or 0)^60)^?", "more than 10^18 ways"),  # 2^60
    ("(0 * 0 or (0 or 0 or 0)^0-2 0^7)^1-?", "13 ways"),  # 0 + (1 + 3 + 9) * 1
    ("(1000000000000000000 * 0)^?", "1000000000000000000 ways"),
    ("(1000000000000000001 * 0 0^0-100000000000000000000)^?", "more than 10^18 ways"),
])
def test_refused_star_counts_exactly_up_to_ten_to_the_eighteen(deal: str, ways: str) -> None:
    with pytest.raises(DealError) as info:
        parse(deal)
    match = _REFUSAL.match(str(info.value))
    assert match is not None and match["ways"] == ways
