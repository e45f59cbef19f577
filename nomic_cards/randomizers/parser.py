"""Parser for Blackjack specs: hand-written tokenizer and recursive descent.

Hand-written rather than lark because the language is flat (no nesting, no precedence) and
context-sensitive in a way a grammar file makes awkward: a digits-only token is a count before
``bag``/``history``/``rolls`` but a piece name inside a list, and piece names are any printable
run of characters other than whitespace and commas. Writing it by hand also gives every error its
own exact message. Grammar (keywords are case-insensitive and reserved)::

    spec    := base clause* END
    base    := [NUMBER] 'bag' 'of' list
             | 'sequence' 'of' list
             | list [ 'with' NUMBER 'history' [ NUMBER ('rolls' | 'roll') ] ]
    clause  := 'first' list            (at most once)
             | 'history' list          (at most once; only after 'with N history')
    list    := NAME (',' NAME)*

Semantic checks (a bag dealing more than it holds, a strict history that leaves nothing to
choose, an initial history longer than the history, zero rolls) happen here too, so that every
spec :func:`parse` returns can be generated and analysed without hanging.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nomic_cards.randomizers.spec import BlackjackError, Kind, Spec

KEYWORDS = frozenset({"bag", "of", "sequence", "with", "history", "rolls", "roll", "first"})
MAX_NUMBER = 10_000
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "comma", "end"
    text: str
    pos: int

    @property
    def keyword(self) -> str | None:
        low = self.text.lower()
        return low if self.kind == "word" and low in KEYWORDS else None

    @property
    def is_number(self) -> bool:
        return self.kind == "word" and _DIGITS.fullmatch(self.text) is not None

    def describe(self) -> str:
        if self.kind == "end":
            return "end of spec"
        return f"'{self.text}'"


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == ",":
            tokens.append(_Token("comma", ",", i))
            i += 1
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] != ",":
            if not text[i].isprintable():
                raise BlackjackError(f"unexpected character {text[i]!r}", text, i)
            i += 1
        tokens.append(_Token("word", text[start:i], start))
    tokens.append(_Token("end", "", n))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    # -- helpers ---------------------------------------------------------------------------
    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> _Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def error(self, message: str, tok: _Token | None = None) -> BlackjackError:
        return BlackjackError(message, self.text, (tok or self.tok).pos)

    def expect_keyword(self, word: str, after: str) -> None:
        if self.tok.keyword != word:
            raise self.error(f"expected '{word}' after {after}, found {self.tok.describe()}")
        self.i += 1

    def number(self, what: str) -> int:
        tok = self.tok
        if not tok.is_number:
            raise self.error(f"expected {what}, found {tok.describe()}")
        value = int(tok.text)
        if value > MAX_NUMBER:
            raise self.error(f"number too large: {tok.text}; the most is {MAX_NUMBER}")
        self.i += 1
        return value

    def name(self) -> str:
        tok = self.tok
        if tok.kind == "word" and tok.keyword is None:
            self.i += 1
            return tok.text
        if tok.keyword is not None:
            raise self.error(f"expected a piece name, found keyword '{tok.text}'")
        raise self.error(f"expected a piece name, found {tok.describe()}")

    def piece_list(self) -> tuple[str, ...]:
        names = [self.name()]
        while self.tok.kind == "comma":
            self.i += 1
            names.append(self.name())
        return tuple(names)

    # -- grammar ---------------------------------------------------------------------------
    def spec(self) -> Spec:
        if self.tok.kind == "end":
            raise self.error("empty spec")
        kind, pieces, deal, history, rolls = self.base()
        first: tuple[str, ...] = ()
        initial: tuple[str, ...] = ()
        initial_tok: _Token | None = None
        seen: set[str] = set()
        while self.tok.kind != "end":
            tok = self.tok
            word = tok.keyword
            if word not in ("first", "history"):
                if word == "with" and kind in ("bag", "sequence"):
                    raise self.error(f"a history applies to a plain list, not to a {kind}")
                before = self.tokens[self.i - 1]
                if tok.kind == "word" and word is None:
                    if kind == "history" and not rolls and before.keyword == "history":
                        raise self.error("expected a number of rolls or a clause after "
                                         f"'history', found {tok.describe()}")
                    if before.kind == "word" and before.keyword is None:
                        raise self.error(
                            f"unexpected {tok.describe()}; separate piece names with commas")
                raise self.error(f"unexpected {tok.describe()}")
            if word in seen:
                raise self.error(f"duplicate '{word}' clause")
            seen.add(word)
            if word == "history" and kind != "history":
                raise self.error("an initial history needs a spec 'L with N history'")
            self.i += 1
            if word == "first":
                first = self.piece_list()
            else:
                initial_tok = self.tok
                initial = self.piece_list()
        if initial and len(initial) > history:
            assert initial_tok is not None
            raise self.error(
                f"initial history has {len(initial)} pieces but the history keeps {history}",
                initial_tok)
        return Spec(kind=kind, pieces=pieces, deal=deal, history=history, rolls=rolls,
                    first=first, initial=initial)

    def base(self) -> tuple[Kind, tuple[str, ...], int, int, int]:
        tok = self.tok
        if tok.keyword == "bag" or (tok.is_number and self.peek().keyword == "bag"):
            count_tok = tok
            count = self.number("a number") if tok.is_number else None
            self.i += 1  # 'bag'
            self.expect_keyword("of", "'bag'")
            pieces = self.piece_list()
            if count is None:
                count = len(pieces)
            elif count == 0:
                raise self.error("a bag must deal at least 1 piece", count_tok)
            elif count > len(pieces):
                raise self.error(
                    f"cannot deal {count} pieces from a bag of {len(pieces)}", count_tok)
            return "bag", pieces, count, 0, 0
        if tok.keyword == "sequence":
            self.i += 1
            self.expect_keyword("of", "'sequence'")
            return "sequence", self.piece_list(), 0, 0, 0
        pieces = self.piece_list()
        if self.tok.keyword != "with":
            return "list", pieces, 0, 0, 0
        self.i += 1
        hist_tok = self.tok
        history = self.number("the history length after 'with'")
        self.expect_keyword("history", f"'with {history}'")
        rolls = 0
        if self.tok.is_number:
            rolls_tok = self.tok
            rolls = self.number("a number of rolls")
            if self.tok.keyword not in ("rolls", "roll"):
                raise self.error(f"expected 'rolls' after '{rolls_tok.text}', "
                                 f"found {self.tok.describe()}")
            self.i += 1
            if rolls == 0:
                raise self.error("rolls must be at least 1", rolls_tok)
        if not rolls and history >= len(pieces):
            raise self.error(
                f"a history of {history} leaves no piece to choose from a list of "
                f"{len(pieces)}; add rolls or shorten the history", hist_tok)
        return "history", pieces, 0, history, rolls


def parse(text: str) -> Spec:
    """Parse Blackjack text into a :class:`Spec`; raise :class:`BlackjackError` if it is bad."""
    if not isinstance(text, str):
        raise BlackjackError(f"a spec must be text, not {type(text).__name__}", "", 0)
    return _Parser(text).spec()
