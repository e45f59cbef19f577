"""Parse dealer scripts: :func:`parse_script` and the syntax tree it returns.

The entry point of the dealer language (Hans van Staveren's ``dealer``, as Debian's 20211121
package parses it). Three modules do the work:

- :mod:`nomic_cards.bridge.language.lexer` — a hand-written scanner reproducing dealer's flex rules
  (longest match, ties to the earlier rule), because lark's terminal priorities cannot;
- ``dealer.lark`` — the grammar, parsed by lark's LALR parser, which like dealer's yacc
  resolves its few shift/reduce conflicts by shifting (lark's stand-alone parser generated
  from it, :mod:`nomic_cards.bridge.language.dealer_lalr`, so that parsing imports no ``lark``);
- :mod:`nomic_cards.bridge.language.builder` — applies the statements in order and builds the frozen
  dataclasses of :mod:`nomic_cards.bridge.language.nodes` (re-exported here), macros substituted.

Every syntax error raises :class:`~nomic_cards.bridge.errors.ScriptError` naming the line and
column and what was expected there. ``strict=True`` refuses what dealer (and so the online
bridge site's dealer) refuses but this parser otherwise accepts: ``#`` comments that do not
start a line, comments without a final newline, unary minus before anything but a number,
more than 31 ``shape()`` calls, and dealer.dpp's ``shape{...}``.
"""

from __future__ import annotations

from functools import lru_cache

from nomic_cards.bridge.errors import ScriptError
from nomic_cards.bridge.language.builder import Builder
from nomic_cards.bridge.language.dealer_lalr import (
    Lark,
    Lark_StandAlone,
    Token,
    Tree,
    UnexpectedToken,
)
from nomic_cards.bridge.language.lexer import Lexer
from nomic_cards.bridge.language.nodes import *  # noqa: F403 - re-export the public tree
from nomic_cards.bridge.language.nodes import Script

__all__ = ["Script", "ScriptError", "parse_script"]  # plus every node class


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The grammar's LALR parser, loaded from the tables of :mod:`dealer_lalr`."""
    parser: Lark = Lark_StandAlone(propagate_positions=True)  # type: ignore[no-untyped-call]
    return parser


_EXPRESSION_STARTS = {
    "NUMBER", "DISTR_OR_NUMBER", "IDENT", "SUIT", "HCP", "PT", "CONTROL", "LOSER", "CCCC",
    "QUALITY", "SHAPE", "DPP_SHAPE", "HASCARD", "TRICKS", "SCORE", "IMPS", "RND", "LPAR",
    "NOT", "ARMINUS",
}
_STATEMENT_STARTS = {"GENERATE", "PRODUCE", "DEALER", "VULNERABLE", "PREDEAL", "POINTCOUNT",
                     "ALTCOUNT", "CONDITION", "ACTION"}
_ACTION_STARTS = {"PRINTALL", "PRINTEW", "PRINT", "PRINTCOMPACT", "PRINTONELINE", "PRINTPBN",
                  "PRINTES", "EVALCONTRACT", "AVERAGE", "FREQUENCY"}
_OPERATOR_NAMES = {
    "AND2": "'&&'", "OR2": "'||'", "NOT": "'!'", "CMPEQ": "'=='", "CMPNE": "'!='",
    "CMPLT": "'<'", "CMPLE": "'<='", "CMPGT": "'>'", "CMPGE": "'>='", "ARPLUS": "'+'",
    "ARMINUS": "'-'", "ARTIMES": "'*'", "ARDIVIDE": "'/'", "ARMOD": "'%'",
}
_NAMES = {
    "NUMBER": "a number", "DISTR_OR_NUMBER": "a number", "IDENT": "a name",
    "COMPASS": "a seat (north, east, south, west)", "SUIT": "a suit (spades, hearts, ...)",
    "NOTRUMPS": "notrumps", "HOLDING": "a holding such as SAQ2",
    "CARD": "a card such as AS", "CONTRACT": "a contract such as x3N",
    "STRING": "a string", "NEWLINE_STRING": "\\n", "DISTR": "a shape such as 4333 or 5xxx",
    "SIDE": "none, NS, EW or all", "VULN": "nv or vul", "ANY": "any",
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "EQUAL": "'='", "COLON": "':'",
    "QUERY": "'?'", "$END": "the end of the script", **_OPERATOR_NAMES,
}


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "end of the script"
    kind = _NAMES.get(tok.type, "")
    if tok.type in ("NUMBER", "DISTR_OR_NUMBER"):
        return f"number {tok}"
    if tok.type == "IDENT":
        return f"name {str(tok)!r}"
    if tok.type == "STRING":
        return f"string {tok}"
    if kind.startswith("a "):
        return f"{kind[2:].split(' such')[0].split(' (')[0]} {str(tok)!r}"
    return repr(str(tok))


def _expected(names: set[str]) -> str:
    words: list[str] = []
    if _EXPRESSION_STARTS & names and len(_EXPRESSION_STARTS & names) > 3:
        words.append("an expression")
        names = names - _EXPRESSION_STARTS
    if len(_STATEMENT_STARTS & names) > 3:
        words.append("a statement")
        names = names - _STATEMENT_STARTS
    if len(_ACTION_STARTS & names) > 3:
        words.append("an action (printall, average, frequency, ...)")
        names = names - _ACTION_STARTS
    operators = set(_OPERATOR_NAMES) - {"NOT"}
    if len(operators & names) > 4:
        words.append("an operator")
        names = names - operators
    if "NUMBER" in names and "an expression" not in words:
        names = names - {"ARMINUS"}
    for name in sorted(names):
        word = _NAMES.get(name) or f"'{name.lower()}'"
        if word not in words:
            words.append(word)
    if len(words) > 1:
        return ", ".join(words[:-1]) + " or " + words[-1]
    return words[0] if words else "something else"


def parse_script(text: str, *, strict: bool = False) -> Script:
    """Parse a dealer script; raise :class:`ScriptError` (line, column, what was expected)."""
    tokens = list(Lexer(text, strict=strict).tokens())
    feed = _parser().parse_interactive()
    try:
        for tok in tokens:
            feed.feed_token(tok)
        tree = feed.feed_eof(tokens[-1] if tokens else None)  # type: ignore[no-untyped-call]
    except UnexpectedToken as err:
        tok = err.token
        pos = len(text) if tok.type == "$END" else (tok.start_pos or 0)
        raise ScriptError(f"unexpected {_describe(tok)}: expected {_expected(set(err.expected))}",
                          text, pos) from None
    builder = Builder(text, strict=strict)
    for stmt in tree.children:
        if isinstance(stmt, Tree):
            try:
                builder.statement(stmt)
            except RecursionError:
                start = getattr(stmt.meta, "start_pos", 0) if hasattr(stmt, "meta") else 0
                raise ScriptError("expression nested too deeply",
                                  text, start or 0) from None
    return builder.script()
