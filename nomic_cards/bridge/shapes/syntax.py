"""Parser for dealer.dpp shape specs: text to a tuple of :class:`Atom`.

Hand-written recursive descent rather than a lark grammar, because two decisions depend on
context that a grammar file cannot see: whether a ``+`` or ``-`` after a suit length means "at
least"/"at most" or joins two shapes (``5xx5+4333``), and where a condition ends (``h+s==10 +
4432``). Grammar (no spaces inside a shape; spaces and newlines are free elsewhere)::

    spec     := atom (('+' | '-') atom)*
    atom     := shape [':' condition]                 (condition: see shape_cond)
    shape    := item{4}                               regular: 5xx5, 4432, 2-xxx
              | '(' item{4} ')'                       any order: (4432), (3+3+3+2+)
              | (item SUIT)+ '(' item+ ')'            some suits fixed: 5s(431), 4+c3+d(2+2+)
              | item+ '(' item+ ')'                   the same, suits in order: 5(xxx)
    item     := DIGIT ['+' | '-'] | 'x' | '[' (DIGIT ['-' DIGIT])+ ']'
    SUIT     := s | h | d | c (either case) | M (a major) | m (a minor)

A ``+`` or ``-`` right after the fourth suit length of a regular shape joins shapes when the
next character other than a space can start a shape (a digit, ``x``, ``[`` or ``(``); anywhere
else after a digit it means at least / at most. Inside a condition, a ``+`` or ``-`` outside
brackets ends the condition when a complete shape follows it (spaces allowed) and that shape is
followed by the end of the spec, ``+``, ``-`` or ``:``. So ``h+s==10 + 4432`` is two terms;
to add a number that reads as a shape, bracket the sum: ``(h+4432)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from nomic_cards.bridge.shapes.base import ShapeError
from nomic_cards.bridge.shapes.cond import Condition, ConditionParser

DIGITS = "0123456789"
LETTERS = "shdcSHDCMm"
_STARTS = DIGITS + "x[("
_SUIT_SETS = {"s": (0,), "h": (1,), "d": (2,), "c": (3,), "M": (0, 1), "m": (2, 3)}
_SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")


@dataclass(frozen=True)
class Item:
    """One suit's length: the lengths allowed (``None`` for ``x``) and the text written."""

    allowed: frozenset[int] | None
    text: str


@dataclass(frozen=True)
class Atom:
    """One term of a spec: a shape with its sign and optional condition.

    ``kind`` is ``regular`` (``fixed`` holds the four suits in order), ``full`` (``floating``
    holds four lengths in any order) or ``partial`` (``fixed`` lengths with ``letters`` naming
    their suits -- empty when they take the first suits in order -- and ``floating`` lengths
    spread over the other suits in any order).
    """

    sign: str
    kind: str
    fixed: tuple[Item, ...]
    letters: tuple[str, ...]
    floating: tuple[Item, ...]
    condition: Condition | None
    start: int
    end: int
    source: str

    def suit_choices(self) -> tuple[tuple[int, ...], ...]:
        """For a partial shape, every assignment of suits (0 spades ... 3 clubs) to the fixed
        lengths: one for plain letters, two for each ``M`` or ``m``."""
        if not self.letters:
            return (tuple(range(len(self.fixed))),)
        choices: list[tuple[int, ...]] = [()]
        for letter in self.letters:
            options = _SUIT_SETS[letter if letter in "Mm" else letter.lower()]
            choices = [c + (s,) for c in choices for s in options if s not in c]
        return tuple(choices)


class SpecParser:
    """Parse ``text[start:end]``; positions in errors are offsets into the whole ``text``."""

    def __init__(self, text: str, start: int = 0, end: int | None = None) -> None:
        self.text = text
        self.pos = start
        self.end = len(text) if end is None else end

    def parse(self) -> tuple[Atom, ...]:
        self._ws()
        if self.pos >= self.end:
            raise ShapeError("empty shape spec: expected a shape such as 4432, 5+xxx or (4333)",
                             self.text, self.pos)
        atoms = [self._atom("+")]
        while True:
            self._ws()
            if self.pos >= self.end:
                return tuple(atoms)
            sign = self.text[self.pos]
            if sign not in "+-":
                raise ShapeError(f"expected '+', '-' or the end of the spec after a shape, got "
                                 f"'{sign}'", self.text, self.pos)
            self.pos += 1
            self._ws()
            atoms.append(self._atom(sign))

    def starts_term(self, pos: int) -> bool:
        """Whether a complete shape starts at ``pos`` (after spaces) and is followed by the end,
        ``+``, ``-`` or ``:`` -- the test that ends a condition."""
        probe = SpecParser(self.text, pos, self.end)
        probe._ws()
        try:
            probe._shape()
        except ShapeError:
            return False
        probe._ws()
        return probe.pos >= self.end or self.text[probe.pos] in "+-:"

    # -- helpers -----------------------------------------------------------------------------
    def _ws(self) -> None:
        while self.pos < self.end and self.text[self.pos].isspace():
            self.pos += 1

    def _char(self) -> str | None:
        return self.text[self.pos] if self.pos < self.end else None

    def _got(self) -> str:
        ch = self._char()
        return "end of spec" if ch is None else f"'{ch}'"

    def _fail(self, message: str, pos: int | None = None) -> ShapeError:
        return ShapeError(message, self.text, self.pos if pos is None else pos)

    # -- grammar -----------------------------------------------------------------------------
    def _atom(self, sign: str) -> Atom:
        start = self.pos
        kind, fixed, letters, floating = self._shape()
        end = self.pos
        self._ws()
        condition = None
        if self._char() == ":":
            self.pos += 1
            condition = ConditionParser(self.text, self.pos, self.end, self.starts_term).parse()
            end = self.pos = condition.end
        else:
            self.pos = end
        return Atom(sign, kind, fixed, letters, floating, condition, start, end,
                    self.text[start:end])

    def _shape(self) -> tuple[str, tuple[Item, ...], tuple[str, ...], tuple[Item, ...]]:
        start = self.pos
        if self._char() == "(":
            floating = self._group()
            self._count(start, len(floating))
            return "full", (), (), floating
        fixed = self._items(inside=False)
        if not fixed:
            raise self._fail(f"expected a shape (a suit length 0-9, 'x', '[' or '('), "
                             f"got {self._got()}")
        letters = [(letter, pos) for _, letter, pos in fixed if letter is not None]
        items = tuple(item for item, _, _ in fixed)
        if self._char() != "(":
            if letters:
                raise self._fail(f"suit letter '{letters[0][0]}' must be followed by the "
                                 "other suits in '(...)', as in 5s(431)", letters[0][1])
            self._count(start, len(items))
            return "regular", items, (), ()
        floating = self._group()
        self._count(start, len(items) + len(floating))
        if letters and len(letters) != len(items):
            missing = next(pos for _, letter, pos in fixed if letter is None)
            raise self._fail("name the suit of every length before '(' or of none, as in "
                             "4+c3+d(2+2+)", missing)
        self._check_letters(letters)
        return "partial", items, tuple(letter for letter, _ in letters), floating

    def _count(self, start: int, n: int) -> None:
        if n != 4:
            plural = "" if n == 1 else "s"
            raise self._fail(f"'{self.text[start:self.pos]}' has {n} suit length{plural}; a "
                             "shape needs 4", start)

    def _group(self) -> tuple[Item, ...]:
        self.pos += 1
        found = self._items(inside=True)
        for _, letter, pos in found:
            if letter is not None:
                raise self._fail(f"suit letter '{letter}' inside '(...)': name suits before "
                                 "the '(', as in 5s(431)", pos)
        if self._char() != ")":
            raise self._fail(f"expected a suit length, 'x', '[' or ')' to close the '(', "
                             f"got {self._got()}")
        if not found:
            raise self._fail("empty '()': put the lengths of the other suits inside")
        self.pos += 1
        return tuple(item for item, _, _ in found)

    def _items(self, *, inside: bool) -> list[tuple[Item, str | None, int]]:
        found: list[tuple[Item, str | None, int]] = []
        while (ch := self._char()) is not None:
            start = self.pos
            allowed: frozenset[int] | None
            if ch in DIGITS:
                n = int(ch)
                allowed = frozenset({n})
                self.pos += 1
                mod = self._char()
                if mod is not None and mod in "+-" and not self._joins(inside, len(found)):
                    allowed = frozenset(range(n, 14) if mod == "+" else range(n + 1))
                    self.pos += 1
            elif ch == "x":
                allowed = None
                self.pos += 1
            elif ch == "[":
                allowed = self._range()
            else:
                break
            item = Item(allowed, self.text[start:self.pos])
            letter = self._char()
            if letter is not None and letter in LETTERS:
                found.append((item, letter, self.pos))
                self.pos += 1
            else:
                found.append((item, None, self.pos))
        return found

    def _joins(self, inside: bool, before: int) -> bool:
        """Whether the '+'/'-' at ``pos`` after a digit joins shapes (see the module doc)."""
        if inside or before < 3:
            return False
        after = self.pos + 1
        while after < self.end and self.text[after].isspace():
            after += 1
        return after < self.end and self.text[after] in _STARTS

    def _range(self) -> frozenset[int]:
        self.pos += 1
        allowed: set[int] = set()
        while True:
            ch = self._char()
            if ch == "]":
                if not allowed:
                    raise self._fail("empty range '[]': list lengths such as [013-68]")
                self.pos += 1
                return frozenset(allowed)
            if ch is None or ch not in DIGITS:
                raise self._fail(f"expected a digit or ']' in a range, got {self._got()}")
            low = int(ch)
            self.pos += 1
            if self._char() != "-":
                allowed.add(low)
                continue
            self.pos += 1
            ch = self._char()
            if ch is None or ch not in DIGITS:
                raise self._fail(f"expected a digit after '-' in a range, got {self._got()}")
            high = int(ch)
            if high < low:
                raise self._fail(f"backwards range '{low}-{high}': write '{high}-{low}'",
                                 self.pos - 2)
            allowed.update(range(low, high + 1))
            self.pos += 1

    def _check_letters(self, letters: list[tuple[str, int]]) -> None:
        seen: dict[int, str] = {}
        for letter, pos in letters:
            key = letter if letter in "Mm" else letter.lower()
            for suit in _SUIT_SETS[key]:
                if suit in seen:
                    raise self._fail(self._clash(seen[suit], key, suit), pos)
                seen[suit] = key

    @staticmethod
    def _clash(first: str, second: str, suit: int) -> str:
        if first == second and first in "Mm":
            kind = "major" if first == "M" else "minor"
            return (f"'{first}' (a {kind}) can be used once in a shape; write the two suits "
                    "as a permutation instead")
        if first in "Mm" or second in "Mm":
            mm = first if first in "Mm" else second
            pair = "s or h" if mm == "M" else "d or c"
            return f"'{mm}' cannot be used together with {pair} in one shape"
        return f"{_SUIT_WORDS[suit]} named twice"
