"""The tokenizer of the dealer language, matching dealer's flex scanner rule for rule.

A hand-written scanner, not lark's: dealer's scanner picks the longest match at each spot and,
between matches of equal length, the rule written first — so ``AS`` is a card, ``SAK`` a
holding, ``SAKE`` a name, ``4333`` a shape that may also be a number, ``x3N`` a contract and
``xxxx`` a shape. Lark's lexer orders terminals by priority instead, which cannot express these
ties without a grammar of special cases. The tokens feed the lark grammar in ``dealer.lark``.

In strict mode the scanner refuses what dealer refuses: ``#`` comments must start a line and
``//``/``#`` comments must end with a newline. Otherwise ``#`` starts a comment anywhere and a
comment may end the file. ``shape{...}`` (dealer.dpp's shape specs) comes out as one token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nomic_cards.bridge.errors import ScriptError
from nomic_cards.bridge.language.dealer_lalr import Token

_OPERATORS = {
    "&&": "AND2", "||": "OR2", "!": "NOT", "==": "CMPEQ", "!=": "CMPNE", "<": "CMPLT",
    "<=": "CMPLE", ">": "CMPGT", ">=": "CMPGE", "+": "ARPLUS", "-": "ARMINUS", "*": "ARTIMES",
    "/": "ARDIVIDE", "%": "ARMOD", "?": "QUERY", ":": "COLON",
    "(": "LPAR", ")": "RPAR", ",": "COMMA", "=": "EQUAL",
}

# Keyword rules in dealer's order; each maps a word, whose last letter is optional when followed
# by ``?`` (``clubs?``), to a token type. Kept as (word, optional letter, type) for matching.
_KEYWORDS: list[tuple[str, str, str]] = [
    (p[:-2], p[-2], t) if p.endswith("?") else (p, "", t) for p, t in [
        ("and", "AND2"), ("or", "OR2"), ("not", "NOT"),
        ("generate", "GENERATE"), ("produce", "PRODUCE"), ("dealer", "DEALER"),
        ("vulnerable", "VULNERABLE"), ("predeal", "PREDEAL"), ("pointcount", "POINTCOUNT"),
        ("altcount", "ALTCOUNT"), ("condition", "CONDITION"), ("action", "ACTION"),
        ("print", "PRINT"), ("printall", "PRINTALL"), ("printpbn", "PRINTPBN"),
        ("printew", "PRINTEW"), ("printcompact", "PRINTCOMPACT"),
        ("printoneline", "PRINTONELINE"), ("printes", "PRINTES"),
        ("evalcontract", "EVALCONTRACT"), ("nv", "VULN"), ("vul", "VULN"),
        ("ns", "SIDE"), ("NS", "SIDE"), ("ew", "SIDE"), ("EW", "SIDE"), ("all", "SIDE"),
        ("none", "SIDE"), ("average", "AVERAGE"), ("frequency", "FREQUENCY"),
        ("north", "COMPASS"), ("east", "COMPASS"), ("south", "COMPASS"), ("west", "COMPASS"),
        ("clubs?", "SUIT"), ("diamonds?", "SUIT"), ("hearts?", "SUIT"), ("spades?", "SUIT"),
        ("notrumps?", "NOTRUMPS"), ("hcps?", "HCP"),
        ("pt0", "PT"), ("tens?", "PT"), ("pt1", "PT"), ("jacks?", "PT"), ("pt2", "PT"),
        ("queens?", "PT"), ("pt3", "PT"), ("kings?", "PT"), ("pt4", "PT"), ("aces?", "PT"),
        ("pt5", "PT"), ("top2", "PT"), ("pt6", "PT"), ("top3", "PT"), ("pt7", "PT"),
        ("top4", "PT"), ("pt8", "PT"), ("top5", "PT"), ("pt9", "PT"), ("c13", "PT"),
        ("losers?", "LOSER"), ("controls?", "CONTROL"), ("quality", "QUALITY"),
        ("cccc", "CCCC"), ("tricks?", "TRICKS"), ("score", "SCORE"), ("imps?", "IMPS"),
        ("hascard", "HASCARD"), ("shape", "SHAPE"), ("any", "ANY"), ("rnd", "RND"),
    ]
]

_HOLDING = re.compile(r"[CDHS]A?K?Q?J?T?9?8?7?6?5?4?3?2?")
_CARD = re.compile(r"[2-9TJQKA][CDHS]")
_CONTRACT = re.compile(r"x[1-7][CDHSN]")
_DISTR = re.compile(r"[0-9x]{4}")
_NUMBER = re.compile(r"[0-9]+")
_IDENT = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
_DPP = re.compile(r"shape[ \t\r\n]*\{")

# After the keywords, in dealer's order (ties of equal length go to the earlier rule).
_WORD_RULES: list[tuple[re.Pattern[str], str]] = [
    (_HOLDING, "HOLDING"), (_CARD, "CARD"), (_CONTRACT, "CONTRACT"), (_DISTR, "DISTR"),
    (_NUMBER, "NUMBER"), (_IDENT, "IDENT"),
]

PT_NAMES = {
    "tens": 0, "jacks": 1, "queens": 2, "kings": 3, "aces": 4,
    "top2": 5, "top3": 6, "top4": 7, "top5": 8, "c13": 9,
}


def pt_number(word: str) -> int:
    """The alternate count a ``PT`` token names: ``pt3``, ``king`` and ``kings`` are all 3."""
    if word.startswith("pt"):
        return int(word[2:])
    return PT_NAMES[word if word.endswith("s") or word[-1].isdigit() else word + "s"]


class Lexer:
    """Splits a script into lark tokens; :meth:`tokens` raises :class:`ScriptError`."""

    def __init__(self, text: str, *, strict: bool = False) -> None:
        self.text = text
        self.strict = strict
        self.pos = 0
        self.line = 1
        self.line_start = 0

    def _error(self, message: str, pos: int) -> ScriptError:
        return ScriptError(message, self.text, pos)

    def _token(self, kind: str, value: str, start: int) -> Token:
        end = start + len(value)
        line, col = self.line, start - self.line_start + 1
        # Tokens may span lines (strings, shape{...}): track line starts inside them.
        newlines = value.count("\n")
        tok = Token(kind, value, start_pos=start, line=line, column=col, end_pos=end,
                    end_line=line + newlines, end_column=0)
        if newlines:
            self.line += newlines
            self.line_start = start + value.rfind("\n") + 1
        self.pos = end
        return tok

    def _skip_to_eol(self, start: int) -> bool:
        """Skip a comment running to the end of the line; False when strict refuses it."""
        nl = self.text.find("\n", start)
        if nl < 0:
            if self.strict:
                return False
            self.pos = len(self.text)
            return True
        self.pos = nl
        return True

    def tokens(self) -> Iterator[Token]:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch, start = text[self.pos], self.pos
            if ch in " \t":
                self.pos += 1
                continue
            if ch == "\r":
                run = len(text) - len(text[start:].lstrip("\r")) - start
                if not text.startswith("\n", start + run) and self.strict:
                    raise self._error("a carriage return must be followed by a newline "
                                      "(strict mode)", start)
                self.pos = start + run
                continue
            if ch == "\n":
                self.pos = start + 1
                self.line += 1
                self.line_start = self.pos
                continue
            if ch == "#":
                if self.strict and start != self.line_start:
                    raise self._error("a '#' comment must start its line (strict mode)", start)
                if not self._skip_to_eol(start):
                    raise self._error("a '#' comment must end with a newline (strict mode)",
                                      start)
                continue
            if text.startswith("//", start):
                if not self._skip_to_eol(start):
                    raise self._error("a '//' comment must end with a newline (strict mode)",
                                      start)
                continue
            if text.startswith("/*", start):
                close = text.find("*/", start + 2)
                if close < 0:
                    raise self._error("comment not closed: expected '*/' before the end", start)
                body = text[start:close + 2]
                self.line += body.count("\n")
                if "\n" in body:
                    self.line_start = start + body.rfind("\n") + 1
                self.pos = close + 2
                continue
            if ch == '"':
                close = text.find('"', start + 1)
                if close < 0:
                    raise self._error("string not closed: expected '\"'", start)
                yield self._token("STRING", text[start:close + 1], start)
                continue
            if text.startswith("\\n", start):
                yield self._token("NEWLINE_STRING", "\\n", start)
                continue
            dpp = _DPP.match(text, start)
            if dpp:
                yield self._dpp_shape(start, dpp.end())
                continue
            if ch.isascii() and ch.isalnum():
                yield self._word(start)
                continue
            two = text[start:start + 2]
            if two in _OPERATORS:
                yield self._token(_OPERATORS[two], two, start)
                continue
            if ch in _OPERATORS:
                yield self._token(_OPERATORS[ch], ch, start)
                continue
            raise self._error(f"unexpected character {ch!r}", start)

    def _word(self, start: int) -> Token:
        text = self.text
        best_len, best_kind = 0, ""
        for word, optional, kind in _KEYWORDS:
            if text.startswith(word, start):
                size = len(word) + (1 if optional and text.startswith(optional,
                                                                       start + len(word)) else 0)
                if size > best_len:
                    best_len, best_kind = size, kind
        for pattern, kind in _WORD_RULES:
            m = pattern.match(text, start)
            if m and m.end() - start > best_len:
                best_len, best_kind = m.end() - start, kind
        value = text[start:start + best_len]
        if best_kind == "DISTR" and "x" not in value:
            best_kind = "DISTR_OR_NUMBER"
        return self._token(best_kind, value, start)

    def _dpp_shape(self, start: int, brace: int) -> Token:
        close = self.text.find("}", brace)
        if close < 0:
            raise self._error("shape{ not closed: expected '}'", start)
        return self._token("DPP_SHAPE", self.text[start:close + 1], start)
