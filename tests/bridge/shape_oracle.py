"""Random dealer.dpp shape specs with their meaning worked out by brute force.

Independent of the library's parser and expansion: a spec is built as a structure, rendered to
text (with or without spaces, over one or several lines, conditions with C precedence and as
few brackets as C needs), and its meaning is computed by testing each of the 560 shapes
against the structure directly -- each suit's allowed lengths, every permutation, every suit a
letter can stand for, the condition evaluated with C's integer arithmetic.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from itertools import permutations

SHAPES = [(s, h, d, 13 - s - h - d) for s in range(14) for h in range(14 - s)
          for d in range(14 - s - h)]
ALL = frozenset(range(14))
LETTER_SUITS = {"s": (0,), "h": (1,), "d": (2,), "c": (3,), "M": (0, 1), "m": (2, 3)}

# ---------------------------------------------------------------- conditions (C semantics)
# precedence levels: or 0, and/',' 1, ?: 2, || 3, && 4, | 5, ^ 6, & 7, == 8, < 9, << 10,
# + 11, * 12, unary 13, leaf 14
BINARY = {"||": 3, "&&": 4, "|": 5, "^": 6, "&": 7, "==": 8, "!=": 8, "<": 9, "<=": 9,
          ">": 9, ">=": 9, "<<": 10, ">>": 10, "+": 11, "-": 11, "*": 12, "/": 12, "%": 12,
          " or ": 0, " and ": 1, ", ": 1, ",": 1}


def _cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@dataclass
class Expr:
    op: str  # 'num', 'var', 'un', 'bin', 'tern'
    args: list = field(default_factory=list)

    def level(self) -> int:
        if self.op in ("num", "var"):
            return 14
        if self.op == "un":
            return 13
        if self.op == "tern":
            return 2
        return BINARY[self.args[0]]

    def value(self, lengths: tuple[int, ...]) -> int:
        if self.op == "num":
            return self.args[0]
        if self.op == "var":
            return lengths["shdc".index(self.args[0].lower())]
        if self.op == "un":
            v = self.args[1].value(lengths)
            return {"!": int(not v), "-": -v, "~": ~v, "+": v}[self.args[0]]
        if self.op == "tern":
            test, a, b = self.args
            return a.value(lengths) if test.value(lengths) else b.value(lengths)
        op, left, right = self.args
        x = left.value(lengths)
        if op.strip() in ("or", "||"):
            return int(bool(x) or bool(right.value(lengths)))
        if op.strip() in ("and", ",", "&&"):
            return int(bool(x) and bool(right.value(lengths)))
        y = right.value(lengths)
        return {"|": x | y, "^": x ^ y, "&": x & y, "==": int(x == y), "!=": int(x != y),
                "<": int(x < y), "<=": int(x <= y), ">": int(x > y), ">=": int(x >= y),
                "<<": x << y if 0 <= y < 64 else 0, ">>": x >> y if 0 <= y < 64 else 0,
                "+": x + y, "-": x - y, "*": x * y,
                "/": _cdiv(x, y) if y else 0, "%": x - y * _cdiv(x, y) if y else 0}[op]

    def render(self, spaces: bool) -> str:
        sp = " " if spaces else ""
        if self.op == "num":
            return str(self.args[0])
        if self.op == "var":
            return self.args[0]
        if self.op == "un":
            inner = self.args[1].render(spaces)
            if self.args[1].level() < 13:
                inner = f"({inner})"
            return f"{self.args[0]} {inner}" if inner[0] in "-+" else f"{self.args[0]}{inner}"
        if self.op == "tern":
            test, a, b = self.args
            t = test.render(spaces)
            t = f"({t})" if test.level() <= 2 else t
            ra = a.render(spaces)
            ra = f"({ra})" if a.level() < 2 else ra
            rb = b.render(spaces)
            rb = f"({rb})" if b.level() < 2 else rb
            return f"{t}{sp}?{sp}{ra}{sp}:{sp}{rb}"
        op, left, right = self.args
        lv = BINARY[op]
        rl = left.render(spaces)
        rl = f"({rl})" if left.level() < lv else rl
        rr = right.render(spaces)
        rr = f"({rr})" if right.level() <= lv else rr
        if op.strip() in ("or", "and"):
            return f"{rl}{op}{rr}"
        if rr[0] in "-+" and op in "+-":
            rr = " " + rr
        return f"{rl}{sp}{op.strip() if op.strip() else op}{sp}{rr}"


def random_expr(rng: random.Random, depth: int = 0) -> Expr:
    r = rng.random()
    if depth >= 3 or r < 0.3:
        if rng.random() < 0.6:
            return Expr("var", [rng.choice("shdcSHDC" if rng.random() < 0.1 else "shdc")])
        return Expr("num", [rng.randint(0, 13)])
    if r < 0.4:
        return Expr("un", [rng.choice("!-~+"), random_expr(rng, depth + 1)])
    if r < 0.47:
        return Expr("tern", [random_expr(rng, depth + 1), random_expr(rng, depth + 1),
                             random_expr(rng, depth + 1)])
    op = rng.choice(["||", "&&", "|", "^", "&", "==", "!=", "<", "<=", ">", ">=", "<<", ">>",
                     "+", "-", "*", "/", "%", "+", "-", ">", "<", ">=", "=="])
    left = random_expr(rng, depth + 1)
    if op in ("/", "%"):
        right = Expr("num", [rng.choice([1, 2, 3, 4, 5])])
    elif op in ("<<", ">>"):
        right = Expr("num", [rng.randint(0, 3)])
    else:
        right = random_expr(rng, depth + 1)
    return Expr("bin", [op, left, right])


_DIGIT_RUN = re.compile(r"[+-]\s*[(0-9][0-9+\-()]*")


def ambiguous(text: str) -> bool:
    """Whether a '+' or '-' in a condition is followed by four digits joined only by signs and
    brackets, which the language reads as the next shape (e.g. h+1+2+3+7)."""
    return any(sum(ch.isdigit() for ch in m.group()) >= 4 for m in _DIGIT_RUN.finditer(text))


def random_condition(rng: random.Random) -> Expr:
    """Comparisons joined by ',', 'and', 'or' (the seed's words) and C operators."""
    while True:
        cond = _random_condition(rng)
        if not (ambiguous(cond.render(True)) or ambiguous(cond.render(False))):
            return cond


def _random_condition(rng: random.Random) -> Expr:
    def comparison() -> Expr:
        return Expr("bin", [rng.choice(["<", "<=", ">", ">=", "==", "!="]),
                            random_expr(rng, 1), random_expr(rng, 1)])
    cond = comparison()
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 4])):
        cond = Expr("bin", [rng.choice([", ", ",", " and ", " or ", "&&", "||"]), cond,
                            comparison() if rng.random() < 0.8 else random_expr(rng, 1)])
    return cond


# ---------------------------------------------------------------- shapes
@dataclass
class Item:
    text: str
    allowed: frozenset[int]


def random_item(rng: random.Random) -> Item:
    r = rng.random()
    if r < 0.3:
        return Item("x", ALL)
    d = rng.choice([0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7, 8, 9])
    if r < 0.55:
        return Item(str(d), frozenset({d}))
    if r < 0.72:
        return Item(f"{d}+", frozenset(range(d, 14)))
    if r < 0.85:
        return Item(f"{d}-", frozenset(range(d + 1)))
    parts, allowed = [], set()
    for _ in range(rng.randint(1, 3)):
        lo = rng.randint(0, 9)
        hi = rng.randint(lo, min(9, lo + 4))
        parts.append(f"{lo}-{hi}" if hi > lo or rng.random() < 0.2 else str(lo))
        allowed.update(range(lo, hi + 1))
    return Item(f"[{''.join(parts)}]", frozenset(allowed))


@dataclass
class Atom:
    kind: str
    fixed: list[Item]
    letters: list[str]
    floating: list[Item]
    cond: Expr | None

    def render(self, spaces: bool) -> str:
        if self.kind == "regular":
            text = "".join(i.text for i in self.fixed)
        elif self.kind == "full":
            text = "(" + "".join(i.text for i in self.floating) + ")"
        else:
            letters = self.letters or [""] * len(self.fixed)
            text = "".join(i.text + a for i, a in zip(self.fixed, letters, strict=True))
            text += "(" + "".join(i.text for i in self.floating) + ")"
        if self.cond is not None:
            sp = " " if spaces else ""
            text += f"{sp}:{sp}{self.cond.render(spaces)}"
        return text

    def matches(self, shape: tuple[int, ...]) -> bool:
        if self.cond is not None and not self.cond.value(shape):
            return False
        if self.kind == "regular":
            return all(n in i.allowed for n, i in zip(shape, self.fixed, strict=True))
        if self.kind == "full":
            return any(all(n in i.allowed for n, i in zip(order, self.floating, strict=True))
                       for order in permutations(shape))
        for suits in self.suit_choices():
            if not all(shape[s] in i.allowed for s, i in zip(suits, self.fixed, strict=True)):
                continue
            rest = [shape[s] for s in range(4) if s not in suits]
            if any(all(n in i.allowed for n, i in zip(order, self.floating, strict=True))
                   for order in permutations(rest)):
                return True
        return False

    def suit_choices(self) -> list[tuple[int, ...]]:
        if not self.letters:
            return [tuple(range(len(self.fixed)))]
        choices: list[tuple[int, ...]] = [()]
        for a in self.letters:
            suits = LETTER_SUITS[a if a in "Mm" else a.lower()]
            choices = [c + (s,) for c in choices for s in suits if s not in c]
        return choices

    def shapes(self) -> frozenset[tuple[int, ...]]:
        return frozenset(s for s in SHAPES if self.matches(s))


def random_atom(rng: random.Random, cond_rate: float = 0.3) -> Atom:
    kind = rng.choice(["regular", "regular", "full", "partial", "partial"])
    cond = random_condition(rng) if rng.random() < cond_rate else None
    if kind == "regular":
        return Atom(kind, [random_item(rng) for _ in range(4)], [], [], cond)
    if kind == "full":
        return Atom(kind, [], [], [random_item(rng) for _ in range(4)], cond)
    k = rng.randint(1, 3)
    if rng.random() < 0.25:
        letters: list[str] = []
    else:
        pool = rng.choice([["s", "h", "d", "c"], ["M", "d", "c"], ["s", "h", "m"], ["M", "m"]])
        pool = [a.upper() if a in "shdc" and rng.random() < 0.1 else a for a in pool]
        rng.shuffle(pool)
        if k > len(pool):
            k = len(pool)
        letters = pool[:k]
    fixed = [random_item(rng) for _ in range(k)]
    return Atom(kind, fixed, letters, [random_item(rng) for _ in range(4 - k)], cond)


@dataclass
class Spec:
    atoms: list[Atom]
    signs: list[str]
    text: str

    def shapes(self) -> frozenset[tuple[int, ...]]:
        found: set[tuple[int, ...]] = set()
        for sign, atom in zip(self.signs, self.atoms, strict=True):
            if sign == "+":
                found |= atom.shapes()
            else:
                found -= atom.shapes()
        return frozenset(found)


def random_spec(rng: random.Random, *, max_atoms: int = 3, cond_rate: float = 0.3) -> Spec:
    """A spec whose every term matches at least one shape."""
    atoms, signs = [], []
    for k in range(rng.randint(1, max_atoms)):
        while True:
            atom = random_atom(rng, cond_rate)
            if atom.shapes():
                break
        atoms.append(atom)
        signs.append("+" if k == 0 or rng.random() < 0.7 else "-")
    parts: list[str] = []
    for k, (sign, atom) in enumerate(zip(signs, atoms, strict=True)):
        spaces = rng.random() < 0.5
        if k:
            join = rng.choice([f" {sign} ", sign, f"\n  {sign} ", f" {sign}\n", sign + " "])
            if atoms[k - 1].cond is not None and parts[-1][-1].isdigit():
                join = " " + join  # '1+93-2-x' would read as a shape after '1' (documented)
            parts.append(join)
        parts.append(atom.render(spaces))
    return Spec(atoms, signs, "".join(parts))
