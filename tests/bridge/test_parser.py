"""The dealer language as dealer parses it: examples, scanner ties, statements, errors."""

from __future__ import annotations

import contextlib
import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nomic_cards.bridge.errors import ScriptError
from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.language.lexer import Lexer
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.errors import LanguageError

DATA = Path(__file__).resolve().parents[1] / "data" / "bridge"
EXAMPLES = Path("/usr/share/doc/dealer/examples")
BAD = json.loads((DATA / "bad_scripts.json").read_text(encoding="utf-8"))["cases"]


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(t.type, str(t)) for t in Lexer(text).tokens()]


@pytest.mark.parametrize(("text", "kinds"), [
    ("AS", ["CARD"]), ("SA", ["HOLDING"]), ("SAK", ["HOLDING"]), ("SAKE", ["IDENT"]),
    ("S", ["HOLDING"]), ("TC", ["CARD"]), ("CT", ["HOLDING"]), ("S24", ["IDENT"]),
    ("4333", ["DISTR_OR_NUMBER"]), ("5xxx", ["DISTR"]), ("xxxx", ["DISTR"]),
    ("xxxxx", ["IDENT"]), ("12345", ["NUMBER"]), ("x3N", ["CONTRACT"]), ("x3NT", ["IDENT"]),
    ("2C3", ["CARD", "NUMBER"]), ("4x", ["NUMBER", "IDENT"]), ("north2d", ["IDENT"]),
    ("spade", ["SUIT"]), ("spades", ["SUIT"]), ("spadesx", ["IDENT"]), ("king", ["PT"]),
    ("top5", ["PT"]), ("c13", ["PT"]), ("all", ["SIDE"]), ("NS", ["SIDE"]), ("Ns", ["IDENT"]),
    ("<=", ["CMPLE"]), ("!=", ["CMPNE"]), ("! =", ["NOT", "EQUAL"]), ("\\n", ["NEWLINE_STRING"]),
    ('"a\nb"', ["STRING"]), ("shape {north, 5+xxx}", ["DPP_SHAPE"]),
])
def test_scanner_takes_the_longest_match_and_the_earlier_rule_on_ties(
        text: str, kinds: list[str]) -> None:
    assert [k for k, _ in _kinds(text)] == kinds


def test_comments_and_line_numbers() -> None:
    text = "# one\n/* two\nthree */ produce // four\n 7\n"
    toks = list(Lexer(text).tokens())
    assert [(t.type, t.line, t.column) for t in toks] == [("PRODUCE", 3, 10), ("NUMBER", 4, 2)]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("Descr.*")) if EXAMPLES.exists() else [],
                         ids=lambda p: p.name)
def test_dealer_examples_parse(path: Path) -> None:
    script = parse_script(path.read_text(encoding="utf-8"))
    assert script.actions is not None


def test_statements_follow_dealer_first_and_last_wins() -> None:
    s = parse_script("generate 5 generate 9 produce 0 produce 3 produce 4\n"
                     "dealer east dealer west vulnerable NS vulnerable ew\n"
                     "condition hcp(north) > 1\nhcp(south) > 2\n"
                     "action printall\naction average hcp(east)\n")
    assert (s.generate, s.produce, s.dealer, s.vulnerable) == (5, 3, 3, "EW")
    assert s.condition == n.Binary(">", n.Points("hcp", 2), n.Num(2))
    assert s.actions == (n.Average(None, n.Points("hcp", 1)),)
    assert s.will_print  # dealer counts the overridden printall too


def test_macros_are_substituted_and_spans_point_at_the_definition() -> None:
    s = parse_script("a = hcp(west)\nb = a / 2\ncondition b > a\n")
    div = n.Binary("/", n.Points("hcp", 3), n.Num(2))
    assert s.condition == n.Binary(">", div, n.Points("hcp", 3))
    assert isinstance(s.condition, n.Binary) and s.condition.left.span is not None
    assert s.condition.left.span.line == 2
    assert [name for name, _ in s.variables] == ["a", "b"]


def test_precedence_is_c_precedence() -> None:
    cond = parse_script("condition 1 || 0 && !0 * 2 + 3 < 4 == 1 ? 5 : 6 ? 7 : 8").condition
    mul = n.Binary("*", n.Unary("!", n.Num(0)), n.Num(2))
    rel = n.Binary("==", n.Binary("<", n.Binary("+", mul, n.Num(3)), n.Num(4)), n.Num(1))
    test = n.Binary("||", n.Num(1), n.Binary("&&", n.Num(0), rel))
    assert cond == n.Conditional(test, n.Num(5), n.Conditional(n.Num(6), n.Num(7), n.Num(8)))
    assert parse_script("condition 2 - -1").condition == n.Binary("-", n.Num(2), n.Num(-1))


def test_functions_and_aliases() -> None:
    s = parse_script("condition kings(east, hearts) + top5(west) + c13(north) + pt0(south)"
                     " + loser(north) + control(east, clubs) + cccc(west) + quality(south, spades)"
                     " + hascard(east, TC) + tricks(north, notrumps) + score(vul, x4S, 10)"
                     " + imps(420) + rnd(10)")
    text = repr(s.condition)
    for part in ("Points(count='pt3', seat=1, suit=1)", "Points(count='pt8', seat=3",
                 "Points(count='pt9', seat=0", "Points(count='pt0', seat=2",
                 "Losers(seat=0", "Points(count='control', seat=1, suit=3)", "Cccc(seat=3)",
                 "HasCard(seat=1, suit=3, rank=8)", "Tricks(seat=0, strain=4)",
                 "Score(vulnerable=True, level=4, strain=0", "Imps(", "Rnd("):
        assert part in text, part
    assert "quality(south, spades)" not in text  # 's' is no suit: the Quality node needs one


def test_shape_lists_apply_plus_and_minus_in_order() -> None:
    shape = parse_script("condition shape(north, any 4333 - 3433 + 3433 - 4333 "
                         "any 5xxx -any 55xx)").condition
    assert isinstance(shape, n.Shape)
    assert (3, 4, 3, 3) in shape.shapes and (4, 3, 3, 3) not in shape.shapes
    assert (3, 3, 4, 3) in shape.shapes
    assert (5, 4, 2, 2) in shape.shapes and (5, 5, 2, 1) not in shape.shapes
    assert (5, 8, 0, 0) in shape.shapes and (8, 5, 0, 0) in shape.shapes
    big = parse_script("condition shape(north, x0xx - xx0x)").condition
    assert isinstance(big, n.Shape) and (13, 0, 0, 0) not in big.shapes
    assert (0, 0, 13, 0) in big.shapes and (1, 0, 1, 11) in big.shapes
    assert parse_script("condition shape(north, 0xxx)").condition == n.Shape(0, frozenset(
        (0, h, d, 13 - h - d) for h in range(14) for d in range(14 - h)))


def test_predeal_pointcount_altcount() -> None:
    s = parse_script("predeal north SAQ542, HKJ87, D32, CAK\npredeal west DQ5 east DKJ\n"
                     "predeal spades(south) == 1\npointcount 1 1 1 1 1\naltcount 3 7 6\n")
    assert len(s.predeal[0]) == 13 and s.predeal[3] == ((2, 10), (2, 3))
    assert s.suit_lengths == (n.SuitLength(2, 0, 1),)
    assert s.pointcount == (0,) * 8 + (1,) * 5
    assert s.altcounts == ((3, (0,) * 11 + (6, 7)),)


def test_actions() -> None:
    s = parse_script('action printall, printew, print(east, west), printcompact(hcp(north)),\n'
                     'printoneline, printpbn, printes("a", hcp(west), \\n),\n'
                     'average "x" hcp(north), frequency (hcp(north), 0, 5),\n'
                     'frequency "y" (hcp(north), 0, 5, spades(south), 2, 3),')
    kinds = [type(a).__name__ for a in s.actions or ()]
    assert kinds == ["PrintAll", "PrintEW", "Print", "PrintCompact", "PrintOneLine",
                     "PrintPBN", "PrintES", "Average", "Frequency", "Frequency2D"]
    es = (s.actions or ())[6]
    assert isinstance(es, n.PrintES) and es.items == ("a", n.Points("hcp", 3), "\n")
    assert parse_script("action").actions == ()


@pytest.mark.parametrize("case", BAD, ids=lambda c: c["script"][:40])
def test_bad_scripts_give_exact_messages(case: dict[str, object]) -> None:
    text, strict = str(case["script"]), bool(case["strict"])
    with pytest.raises(ScriptError) as info:
        parse_script(text, strict=strict)
    assert str(info.value) == case["error"]
    assert isinstance(info.value, LanguageError) and info.value.line >= 1
    if strict and not ("shape{" in text and find_spec("nomic_cards.bridge.shapes.spec") is None):
        parse_script(text)  # strict-only refusals are accepted otherwise


def test_error_context_has_a_caret() -> None:
    with pytest.raises(ScriptError) as info:
        parse_script("produce 3\ncondition hcp(north) >> 2\n")
    assert str(info.value) == "unexpected '>': expected an expression (at line 2, column 23)"
    assert info.value.context() == "condition hcp(north) >> 2\n" + " " * 22 + "^"


_PIECES = ["produce", "generate", "condition", "action", "predeal", "north", "spades", "hcp",
           "(", ")", ",", "+", "-", "*", "/", "?", ":", "==", "&&", "!", "4333", "5xxx", "any",
           "shape", "SAK", "AS", "x3N", "12", "-3", "x", "=", "printall", "average", '"s"',
           "\\n", "#", "//", "/*", "*/", "\n", " ", "shape{", "}", "frequency", "altcount",
           "pointcount", "score", "vul", "imps", "rnd", "@", "\r"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.booleans())
def test_parser_raises_only_script_errors(pieces: list[str], strict: bool) -> None:
    text = " ".join(pieces)
    with contextlib.suppress(ScriptError):  # anything else fails the property
        parse_script(text, strict=strict)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.booleans())
def test_parser_raises_only_script_errors_on_any_text(text: str, strict: bool) -> None:
    with contextlib.suppress(ScriptError):  # anything else fails the property
        parse_script(text, strict=strict)


def test_dpp_shapes_inline() -> None:
    # The seed's own expansions (dealer.dpp's manual page).
    s = parse_script("condition shape{north, 5+xx5+} && shape{south, x[3-5]x[13]}\n")
    assert isinstance(s.condition, n.Binary)
    plain = parse_script("condition shape(north, 5xx5 + 5xx6 + 6xx5 + 5xx7 + 6xx6 + 7xx5 + "
                         "5008 + 6007 + 7006 + 8005) && shape(south, x3x1 + x4x1 + x3x3 + "
                         "x5x1 + x4x3 + x5x3)\n")
    assert s.condition == plain.condition
    nt = parse_script("hn = hcp(north)\n"
                      "n1NT = (hn > 14 and hn < 18 and shape{north, 5m(332) + 5m2s(42)} )\n"
                      "    or (hn > 15 and hn < 19 and shape{north, (4432) +\n (4333)})\n"
                      "condition n1NT\n")
    shapes = {x.shapes for x in n.walk(nt.condition) if isinstance(x, n.Shape)}
    assert {d for sh in shapes for d in sh} >= {(4, 4, 3, 2), (3, 3, 3, 4), (2, 3, 3, 5)}


def _automaton(table: Any) -> list[tuple[tuple[str, str, Any], ...]]:
    """An LALR parse table with its states numbered in the order a walk from the start state
    meets them, so that two builds of one grammar compare equal."""
    number = {table.start_states["start"]: 0}
    order = [table.start_states["start"]]
    rows = []
    for state in order:  # grows while walking
        row = []
        for sym, (action, arg) in sorted(table.states[state].items()):
            if str(action) in ("0", "Shift"):
                if arg not in number:
                    number[arg] = len(order)
                    order.append(arg)
                row.append((sym, "shift", number[arg]))
            else:
                row.append((sym, "reduce", (arg.origin.name, tuple(x.name for x in arg.expansion),
                                            arg.alias, arg.options.expand1)))
        rows.append(tuple(row))
    assert len(order) == len(table.states)
    return rows


def test_generated_parser_is_the_grammar_s() -> None:
    """``dealer_lalr.py`` is what ``scripts/gen_dealer_parser.py`` makes of ``dealer.lark`` now:
    the grammar's hash in its first line, lark's runtime code unchanged and the same LALR
    automaton (lark numbers the states differently from one build to the next, so the file is
    not compared byte for byte). After editing the grammar, run the script."""
    import lark

    from nomic_cards.bridge.language import dealer_lalr
    from scripts.gen_dealer_parser import GRAMMAR, MODULE, OPTIONS, generate, header

    grammar = GRAMMAR.read_text(encoding="utf-8")
    committed = MODULE.read_text(encoding="utf-8")
    assert committed.startswith(header(grammar)), "dealer.lark changed: regenerate dealer_lalr"
    fresh = generate(grammar)
    assert committed.split("\nDATA = (")[0] == fresh.split("\nDATA = (")[0]
    built = lark.Lark(grammar, **OPTIONS).parser.parser._parse_table
    loaded = dealer_lalr.Lark_StandAlone().parser.parser._parse_table
    assert _automaton(loaded) == _automaton(built)
    other = lark.Lark(grammar.replace("| ARMINUS unary ", "| ARPLUS unary "), **OPTIONS)
    assert _automaton(other.parser.parser._parse_table) != _automaton(built)  # it can tell


def test_too_deep_an_expression_is_a_script_error_not_a_crash() -> None:
    def nested(depth: int) -> str:
        return f"condition {'(' * depth}hcp(north){' + 1)' * depth} > 10\n"

    parsed = parse_script(nested(100))
    assert parsed.condition is not None
    for depth in (400, 5000):
        with pytest.raises(ScriptError, match="expression nested too deeply") as err:
            parse_script("produce 3\n" + nested(depth))
        assert "line 2, column 1" in str(err.value)
