"""Parse dealer scripts: :func:`parse_script` and the syntax tree it returns.

The entry point of the dealer language (Hans van Staveren's ``dealer``, as Debian's 20211121
package parses it). Three modules do the work:

- :mod:`nomic_cards.bridge.lexer` — a hand-written scanner reproducing dealer's flex rules
  (longest match, ties to the earlier rule), because lark's terminal priorities cannot;
- ``dealer.lark`` — the grammar, parsed by lark's LALR parser, which like dealer's yacc
  resolves its few shift/reduce conflicts by shifting;
- :mod:`nomic_cards.bridge.builder` — applies the statements in order and builds the frozen
  dataclasses of :mod:`nomic_cards.bridge.nodes` (re-exported here), macros substituted.

Every syntax error raises :class:`~nomic_cards.bridge.errors.ScriptError` naming the line and
column and what was expected there. ``strict=True`` refuses what dealer (and so the online
bridge site's dealer) refuses but this parser otherwise accepts: ``#`` comments that do not
start a line, comments without a final newline, unary minus before anything but a number,
more than 31 ``shape()`` calls, and dealer.dpp's ``shape{...}``.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from importlib.resources import files
from typing import Any

from lark import Lark, Token, Tree, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer as LarkLexer

from nomic_cards.bridge.builder import Builder
from nomic_cards.bridge.errors import ScriptError
from nomic_cards.bridge.lexer import Lexer
from nomic_cards.bridge.nodes import *  # noqa: F403 - re-export the public tree
from nomic_cards.bridge.nodes import Script

__all__ = ["Script", "ScriptError", "parse_script"]  # plus every node class


class _TokenFeed(LarkLexer):
    """Hands lark the tokens our scanner already made."""

    def __init__(self, conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Any:  # type: ignore[override]
        return iter(data)


def _cache_file() -> str | bool:
    """Where lark keeps the analysed grammar between runs: a file in the user's own cache
    directory (``$XDG_CACHE_HOME/nomic-cards``, else ``~/.cache/nomic-cards``, made private),
    or ``False`` (build the parser every time) when that directory cannot be made or is not
    the user's alone. Lark writes the file with pickle and reloads it only when the grammar
    and options hash recorded in it match; a shared temporary directory would let another
    user plant a file there, so lark's default location is not used."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "nomic-cards")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (info.st_uid != getuid() or info.st_mode & 0o022):
        return False
    return os.path.join(folder, f"dealer-grammar-py{sys.version_info[0]}{sys.version_info[1]}"
                                ".lark-cache")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = files("nomic_cards.bridge").joinpath("dealer.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer=_TokenFeed, propagate_positions=True,
                cache=_cache_file())


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
    try:
        tree = _parser().parse(tokens)  # type: ignore[arg-type,unused-ignore]
    except UnexpectedToken as err:
        tok = err.token
        pos = len(text) if tok.type == "$END" else (tok.start_pos or 0)
        raise ScriptError(f"unexpected {_describe(tok)}: expected {_expected(set(err.expected))}",
                          text, pos) from None
    except UnexpectedInput as err:  # pragma: no cover - our feed yields no other kind
        raise ScriptError("syntax error", text, getattr(err, "pos_in_stream", 0) or 0) from None
    builder = Builder(text, strict=strict)
    for stmt in tree.children:
        if isinstance(stmt, Tree):
            builder.statement(stmt)
    return builder.script()
