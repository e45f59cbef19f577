"""Parser for deal expressions (hand-written: a tokenizer and a recursive-descent parser).

Hand-written rather than lark because the language is tiny (four precedence levels, no
ambiguity) and its few lexical quirks are easier to state directly than in a grammar: ``or`` is
a keyword in any case that needs no spaces around it (``5or5``), runs of dots are one token, and
whitespace matters only in that it separates two numbers (``5 10 1`` versus ``5101``). Doing it
by hand also lets each error say exactly what was expected, with the column, in the words of
this language.

Grammar (``NUMBER`` is a run of ASCII digits; ``DOTS`` a run of one or more '.'; tokens may be
separated by :data:`WHITESPACE`, ASCII space, tab, LF and CR, and no other character)::

    deal        := alternative ("or" alternative)*
    alternative := NUMBER "*" chain | chain
    chain       := item item*
    item        := atom ("^" repeat)?
    atom        := NUMBER | DOTS | "(" deal ")"
    repeat      := "?" | NUMBER ("-" (NUMBER | "?"))?

After parsing, :func:`parse` refuses any unbounded repetition (``^?`` or ``^a-?``) of a
sub-deal that can deal 0 cards: it would have infinitely many ways.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from nomic_cards.deals.errors import DealError
from nomic_cards.deals.syntax import (
    Alternative,
    Atom,
    Chain,
    Deal,
    Dots,
    Group,
    Item,
    Node,
    Number,
    Options,
    Repeat,
    quote,
    read_int,
)

#: Brackets nested deeper than this are refused (the parser is recursive).
MAX_DEPTH = 100

_DIGITS = "0123456789"
_PUNCT = "()^-?*"
#: The only whitespace between tokens: space, tab, line feed and carriage return (for CR LF).
#: Other Unicode spaces (no-break, ideographic, line separator, ...) and control characters are
#: refused by name: they are invisible or look like a space, and line/column count only LF.
WHITESPACE = " \t\n\r"


@dataclass(frozen=True)
class _Token:
    kind: str  # "num", "dots", "or", one of _PUNCT, or "end"
    text: str
    pos: int
    end: int
    value: int = 0


def _describe(tok: _Token) -> str:
    return "the end" if tok.kind == "end" else repr(tok.text)


def describe_char(c: str) -> str:
    """``'#'`` for a visible character; ``U+00A0 NO-BREAK SPACE`` for a space or invisible one."""
    if c.isprintable() and not c.isspace():
        return repr(c)
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X} {name}".rstrip()


def tokenize(text: str) -> list[_Token]:
    """Split ``text`` into tokens, ending with an ``end`` token; raise :class:`DealError`."""
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in WHITESPACE:
            i += 1
        elif c in _DIGITS:
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
            tokens.append(_Token("num", text[i:j], i, j, read_int(text[i:j])))
            i = j
        elif c == ".":
            j = i
            while j < n and text[j] == ".":
                j += 1
            tokens.append(_Token("dots", text[i:j], i, j))
            i = j
        elif c in _PUNCT:
            tokens.append(_Token(c, c, i, i + 1))
            i += 1
        elif c.isalpha():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            word = text[i:j]
            if word.lower() != "or":
                raise DealError(
                    f"unknown word {quote(word)} (the only word in a deal is 'or')", text, i)
            tokens.append(_Token("or", word, i, j))
            i = j
        elif c.isspace():
            raise DealError(
                f"unexpected character {describe_char(c)} "
                "(only spaces, tabs and newlines may separate the parts of a deal)",
                text,
                i,
            )
        else:
            raise DealError(f"unexpected character {describe_char(c)}", text, i)
    tokens.append(_Token("end", "", n, n))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def _advance(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def _fail(self, message: str, pos: int) -> DealError:
        return DealError(message, self.text, pos)

    def parse(self) -> Options:
        if self.tok.kind == "end":
            raise self._fail("empty deal: expected a number, dots or '('", 0)
        root = self.options()
        if self.tok.kind != "end":
            raise self._unexpected(self.tok)
        return root

    def _unexpected(self, tok: _Token) -> DealError:
        if tok.kind == ")":
            return self._fail("unexpected ')' with no '(' to close", tok.pos)
        if tok.kind == "*":
            return self._fail(
                "unexpected '*': a number of people goes first, as in '2 * 5'", tok.pos
            )
        if tok.kind == "^":
            return self._fail(
                "a repeated deal cannot be repeated again without brackets, as in '(5^2)^3'",
                tok.pos,
            )
        return self._fail(f"unexpected {_describe(tok)}", tok.pos)

    def options(self) -> Options:
        alts = [self.alternative()]
        while self.tok.kind == "or":
            self._advance()
            alts.append(self.alternative())
        return Options(tuple(alts), alts[0].pos, alts[-1].end)

    def alternative(self) -> Alternative:
        tok = self.tok
        if tok.kind == "num" and self.tokens[self.i + 1].kind == "*":
            self._advance()
            self._advance()
            chain = self.chain()
            return Alternative(tok.value, chain, tok.pos, chain.end)
        chain = self.chain()
        return Alternative(None, chain, chain.pos, chain.end)

    def chain(self) -> Chain:
        items = [self.item()]
        while self.tok.kind in ("num", "dots", "("):
            items.append(self.item())
        return Chain(tuple(items), items[0].pos, items[-1].end)

    def item(self) -> Item:
        atom = self.atom()
        if self.tok.kind != "^":
            return atom
        caret = self._advance()
        tok = self._advance()
        if tok.kind == "?":
            return Repeat(atom, 0, None, caret.pos, atom.pos, tok.end)
        if tok.kind != "num":
            raise self._fail(f"expected a number or '?' after '^' but found {_describe(tok)}",
                             tok.pos)
        low, high, end = tok.value, tok.value, tok.end
        high_opt: int | None = high
        if self.tok.kind == "-":
            self._advance()
            bound = self._advance()
            if bound.kind == "?":
                high_opt = None
            elif bound.kind == "num":
                high_opt = bound.value
                if bound.value < low:
                    raise self._fail(
                        f"empty range {tok.text}-{bound.text}: "
                        "the first number must not exceed the second",
                        tok.pos,
                    )
            else:
                raise self._fail(
                    f"expected a number or '?' after '-' but found {_describe(bound)}", bound.pos
                )
            end = bound.end
        return Repeat(atom, low, high_opt, caret.pos, atom.pos, end)

    def atom(self) -> Atom:
        tok = self.tok
        if tok.kind == "num":
            self._advance()
            return Number(tok.value, tok.pos, tok.end)
        if tok.kind == "dots":
            self._advance()
            return Dots(tok.pos, tok.end)
        if tok.kind == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self._fail(f"brackets nested more than {MAX_DEPTH} deep", tok.pos)
            self._advance()
            body = self.options()
            close = self.tok
            if close.kind != ")":
                col = tok.pos + 1
                raise self._fail(
                    f"expected ')' to close the '(' at column {col} but found {_describe(close)}",
                    close.pos,
                )
            self._advance()
            self.depth -= 1
            return Group(body, tok.pos, close.end)
        raise self._fail(f"expected a number, dots or '(' but found {_describe(tok)}", tok.pos)


# -- the refusal of unbounded repetitions of deals that can deal nothing ----------------------

#: Counts of the ways to deal 0 cards are exact up to 10^18; ``_CAP`` stands for any larger one.
_CAP = 10**18 + 1


def _sat_geometric(base: int, low: int, high: int) -> int:
    """``base^low + base^(low+1) + ... + base^high``, saturating at :data:`_CAP`.

    ``base`` may itself be saturated (``_CAP`` standing for any count at least that large): the
    sum is then at least ``base`` whenever ``high >= 1``, so it saturates too.
    """
    if base == 0:
        return 1 if low == 0 else 0
    if base == 1:
        return min(high - low + 1, _CAP)
    if high >= 60:  # the last term alone is at least 2^60 > 10^18
        return _CAP
    total, power = 0, 1
    for k in range(high + 1):
        if k >= low:
            total += power
        power *= base
    return min(total, _CAP)


def _zero_ways(node: Node, text: str) -> int:
    """Ways ``node`` deals 0 cards (``_CAP`` for more than 10^18); raises on a refused repetition.

    Sums and products saturate with ``min(..., _CAP)``, which stays exact below the cap (a
    product with a zero factor is zero even when another factor is saturated).
    """
    if isinstance(node, Number):
        return 1 if node.value == 0 else 0
    if isinstance(node, Dots):
        return 1
    if isinstance(node, Group):
        return _zero_ways(node.body, text)
    if isinstance(node, Chain):
        out = 1
        for item in node.items:
            out = min(out * _zero_ways(item, text), _CAP)
        return out
    if isinstance(node, Alternative):
        inner = _zero_ways(node.chain, text)
        return inner if node.times is None else min(node.times * inner, _CAP)
    if isinstance(node, Options):
        return min(sum(_zero_ways(a, text) for a in node.alternatives), _CAP)
    base = _zero_ways(node.item, text)
    if node.high is None:
        if base:
            many = "more than 10^18 ways" if base >= _CAP else (
                "1 way" if base == 1 else f"{base} ways")  # base <= 10^18: a short number
            sub = text[node.item.pos : node.item.end]
            raise DealError(
                f"{quote(sub)} can deal 0 cards ({many}), so repeating it with no upper bound "
                "would give infinitely many ways",
                text,
                node.caret,
            )
        return 1 if node.low == 0 else 0
    # each of the rounds low..high deals 0 cards: base^k ways for k rounds
    return _sat_geometric(base, node.low, node.high)


def parse(text: str | Deal) -> Deal:
    """Parse a deal expression; raise :class:`DealError` naming the position of any fault."""
    if isinstance(text, Deal):
        return text
    if not isinstance(text, str):
        raise TypeError(f"a deal is text, not {type(text).__name__}")
    root = _Parser(text).parse()
    _zero_ways(root, text)
    return Deal(text, root)
