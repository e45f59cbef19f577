"""Conditions on suit lengths: the part after ``:`` in a dealer.dpp shape spec.

A condition is an integer expression in C syntax over the variables ``s``, ``h``, ``d`` and
``c`` (the suit lengths, either case), true when non-zero. Precedence, lowest first::

    cond    := conj ('or' conj)*
    conj    := ternary ((',' | 'and') ternary)*
    ternary := binary ['?' ternary ':' ternary]
    binary  := C binary operators with C precedence:
               ||   &&   |   ^   &   == !=   < <= > >=   << >>   + -   * / %
    unary   := ('!' | '-' | '+' | '~') unary | NUMBER | SUIT | '(' cond ')'

``,`` and ``and`` are logical and, ``or`` logical or (the seed's words). Arithmetic is C's:
integer division truncates toward zero, ``%`` takes the sign of the dividend, ``&&``, ``||``,
``,``, ``and``, ``or`` and ``?:`` evaluate lazily. Division by zero and shifts by less than 0
or more than 63 are errors naming the expression. Hand-written recursive descent: the end of a
condition is decided by looking ahead into the enclosing spec (see :mod:`shape_syntax`), which a
grammar file cannot express.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from nomic_cards.bridge.shapes.base import SUITS, ShapeError

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+")
_OPS = ("||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "|", "^", "&", "<", ">", "+", "-", "*",
        "/", "%", "!", "~", "?", ":", "(", ")", ",")
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
)
MAX_DIGITS = 18
MAX_DEPTH = 40  # brackets, unary operators and '?:' inside each other
MAX_HEIGHT = 250  # operations inside each other, counting chains like s+s+s


@dataclass(frozen=True)
class Num:
    value: int
    start: int  # source span
    end: int


@dataclass(frozen=True)
class Var:
    suit: int  # 0 spades ... 3 clubs
    start: int
    end: int


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node
    start: int
    end: int
    height: int


@dataclass(frozen=True)
class Binary:
    op: str  # a C operator; 'or' is stored as '||', ',' and 'and' as '&&'
    left: Node
    right: Node
    pos: int  # offset of the operator
    start: int
    end: int
    height: int


@dataclass(frozen=True)
class Ternary:
    test: Node
    then: Node
    other: Node
    start: int
    end: int
    height: int


Node = Num | Var | Unary | Binary | Ternary


def _height(*nodes: Node) -> int:
    return 1 + max(n.height if isinstance(n, Unary | Binary | Ternary) else 1 for n in nodes)


def _suits_of(node: Node) -> frozenset[int]:
    if isinstance(node, Var):
        return frozenset({node.suit})
    if isinstance(node, Unary):
        return _suits_of(node.operand)
    if isinstance(node, Binary):
        return _suits_of(node.left) | _suits_of(node.right)
    if isinstance(node, Ternary):
        return _suits_of(node.test) | _suits_of(node.then) | _suits_of(node.other)
    return frozenset()


Lengths = Sequence[int | None]
Evaluator = Callable[[Lengths], int]

_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
    "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "&": lambda x, y: x & y,
    "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
    "<": lambda x, y: int(x < y), "<=": lambda x, y: int(x <= y),
    ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y),
}


def shape_label(lengths: Lengths) -> str:
    """``5x0x`` or, with a suit of ten or more, ``10-x-0-x``."""
    parts = ["x" if n is None else str(n) for n in lengths]
    big = any(n is not None and n >= 10 for n in lengths)
    return "-".join(parts) if big else "".join(parts)


@dataclass(frozen=True)
class Condition:
    """A parsed condition; ``text[start:end]`` is its source."""

    node: Node
    text: str
    start: int
    end: int

    @property
    def suits(self) -> frozenset[int]:
        """The suits (0 spades ... 3 clubs) the condition reads."""
        return _suits_of(self.node)

    def holds(self, lengths: Lengths) -> bool:
        """Evaluate on suit lengths (``None`` only for suits the condition does not read).

        Division by zero and out-of-range shifts raise :class:`ShapeError` naming the
        expression and the shape.
        """
        return self.evaluate(lengths) != 0

    @cached_property
    def evaluate(self) -> Evaluator:
        """The condition compiled to a function of the suit lengths returning its C value."""
        return _compile(self.node, self.text)


def _compile(node: Node, text: str) -> Evaluator:
    if isinstance(node, Num):
        value = node.value
        return lambda _: value
    if isinstance(node, Var):
        suit = node.suit

        def var(lengths: Lengths) -> int:
            n = lengths[suit]
            assert n is not None, "a condition read a suit it does not declare"
            return n
        return var
    if isinstance(node, Unary):
        f = _compile(node.operand, text)
        return {"!": lambda x: int(f(x) == 0), "-": lambda x: -f(x), "+": f,
                "~": lambda x: ~f(x)}[node.op]
    if isinstance(node, Ternary):
        t, a, b = (_compile(n, text) for n in (node.test, node.then, node.other))
        return lambda x: a(x) if t(x) else b(x)
    f, g = _compile(node.left, text), _compile(node.right, text)
    if node.op == "&&":
        return lambda x: int(f(x) != 0 and g(x) != 0)
    if node.op == "||":
        return lambda x: int(f(x) != 0 or g(x) != 0)
    if node.op in ("/", "%", "<<", ">>"):
        return _checked(node, text, f, g)
    op = _ARITH[node.op]
    return lambda x: op(f(x), g(x))


def _checked(node: Binary, text: str, f: Evaluator, g: Evaluator) -> Evaluator:
    source = text[node.start:node.end]

    def run(x: Lengths) -> int:
        a, b = f(x), g(x)
        if node.op in ("/", "%"):
            if b == 0:
                raise ShapeError(f"division by zero in '{source}' for shape {shape_label(x)}",
                                 text, node.pos)
            q = abs(a) // abs(b)
            q = q if (a >= 0) == (b >= 0) else -q
            return q if node.op == "/" else a - b * q
        if not 0 <= b <= 63:
            raise ShapeError(f"shift by {b} in '{source}' for shape {shape_label(x)}: the "
                             "count must be 0 to 63", text, node.pos)
        return a << b if node.op == "<<" else a >> b
    return run


class ConditionParser:
    """Parse one condition starting at ``pos``; ``ends_at(i)`` says whether a ``+`` or ``-``
    whose next character is at ``i`` starts the spec's next term instead of adding."""

    def __init__(self, text: str, pos: int, end: int, ends_at: Callable[[int], bool]) -> None:
        self.text = text
        self.pos = pos
        self.end = end
        self.ends_at = ends_at
        self.depth = 0  # open brackets
        self.nesting = 0  # open brackets and unary operators (recursion guard)

    def parse(self) -> Condition:
        self._ws()
        start = self.pos
        node = self._cond()
        tok = self._peek()
        if tok is not None and not (tok in "+-" and self._separator()):
            raise self._error("expected an operator, ',', 'or' or the end of the condition")
        return Condition(node, self.text, start, self.pos)

    # -- tokens ------------------------------------------------------------------------------
    def _ws(self) -> None:
        while self.pos < self.end and self.text[self.pos].isspace():
            self.pos += 1

    def _peek(self) -> str | None:
        """The next token's text (operator, word or number), or None at the end."""
        self._ws()
        if self.pos >= self.end:
            return None
        for regex in (_WORD, _NUMBER):
            m = regex.match(self.text, self.pos, self.end)
            if m:
                return m.group()
        for op in _OPS:
            if self.text.startswith(op, self.pos) and self.pos + len(op) <= self.end:
                return op
        return self.text[self.pos]

    def _separator(self) -> bool:
        return self.depth == 0 and self.ends_at(self.pos + 1)

    def _error(self, expected: str) -> ShapeError:
        tok = self._peek()
        got = "end of spec" if tok is None else f"'{tok}'"
        return ShapeError(f"{expected}, got {got}", self.text, self.pos)

    # -- grammar -----------------------------------------------------------------------------
    def _cond(self) -> Node:
        left = self._conj()
        while self._peek() == "or":
            pos = self.pos
            self.pos += 2
            left = self._binary_node("||", left, self._conj(), pos)
        return left

    def _conj(self) -> Node:
        left = self._ternary()
        while (tok := self._peek()) in (",", "and"):
            pos = self.pos
            self.pos += len(tok or "")
            left = self._binary_node("&&", left, self._ternary(), pos)
        return left

    def _ternary(self) -> Node:
        test = self._binary(0)
        if self._peek() != "?":
            return test
        self._enter(self.pos)
        self.pos += 1
        then = self._ternary()
        if self._peek() != ":":
            raise self._error("expected ':' for the '?' before it")
        self.pos += 1
        other = self._ternary()
        self.nesting -= 1
        return Ternary(test, then, other, test.start, other.end, _height(test, then, other))

    def _binary(self, level: int) -> Node:
        if level == len(_LEVELS):
            return self._unary()
        left = self._binary(level + 1)
        while (tok := self._peek()) in _LEVELS[level]:
            assert tok is not None
            if tok in "+-" and self._separator():
                break
            pos = self.pos
            self.pos += len(tok)
            left = self._binary_node(tok, left, self._binary(level + 1), pos)
        return left

    def _binary_node(self, op: str, left: Node, right: Node, pos: int) -> Binary:
        height = _height(left, right)
        if height > MAX_HEIGHT:
            raise ShapeError(f"condition too long: more than {MAX_HEIGHT} operations inside "
                             "each other", self.text, pos)
        return Binary(op, left, right, pos, left.start, right.end, height)

    def _unary(self) -> Node:
        tok = self._peek()
        start = self.pos
        if tok in ("!", "-", "+", "~"):
            assert tok is not None
            self.pos += 1
            self._enter(start)
            operand = self._unary()
            self.nesting -= 1
            return Unary(tok, operand, start, operand.end, _height(operand))
        if tok == "(":
            self.pos += 1
            self._enter(start)
            self.depth += 1
            node = self._cond()
            if self._peek() != ")":
                raise self._error("expected ')' to close the '('")
            self.pos += 1
            self.depth -= 1
            self.nesting -= 1
            return dataclasses.replace(node, start=start, end=self.pos)
        if tok is not None and _NUMBER.fullmatch(tok):
            return self._number(tok)
        if tok is not None and _WORD.fullmatch(tok):
            if tok.lower() in SUITS and len(tok) == 1:
                self.pos += 1
                return Var(SUITS.index(tok.lower()), start, self.pos)
            raise ShapeError(f"unknown name '{tok}' in a condition: the suit lengths are "
                             "s, h, d and c", self.text, self.pos)
        raise self._error("expected a number, a suit letter (s, h, d, c), '(' or '!'")

    def _number(self, tok: str) -> Node:
        if len(tok) > 1 and tok[0] == "0":
            raise ShapeError(f"write '{tok}' without leading zeros (C reads it as octal)",
                             self.text, self.pos)
        if len(tok) > MAX_DIGITS:
            raise ShapeError(f"number '{tok[:20]}...' is too large", self.text, self.pos)
        start = self.pos
        self.pos += len(tok)
        return Num(int(tok), start, self.pos)

    def _enter(self, pos: int) -> None:
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise ShapeError(f"condition nested more than {MAX_DEPTH} deep (brackets, unary "
                             "operators and '?:')", self.text, pos)
