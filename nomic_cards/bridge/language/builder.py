"""Turns the lark parse tree of a dealer script into :mod:`nomic_cards.bridge.language.nodes`.

Statements are applied in order, as dealer's parser applies them while it reads: a macro must
be defined before it is used and only once, the first ``generate``/``produce`` wins, the last
``condition``/``action``/``dealer``/``vulnerable`` wins, predealt cards accumulate, and
``shape`` lists are resolved to sets of distributions with ``+``/``-`` in the order written.
Every refusal raises :class:`ScriptError` at the offending token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nomic_cards.bridge.deck import RANKS, SEATS, SUIT_LETTERS, SUITS
from nomic_cards.bridge.errors import ScriptError
from nomic_cards.bridge.language import nodes as n
from nomic_cards.bridge.language.dealer_lalr import Token, Tree
from nomic_cards.bridge.language.lexer import pt_number
from nomic_cards.bridge.language.shapelists import expand_dpp, expand_shape

MAX_STRICT_SHAPES = 31  # dealer's check fires when the 32nd shape() is read
MAX_NUMBER = 2**31 - 1  # dealer's numbers are C ints
MAX_BINS = 100_000  # per frequency dimension


def _suit(tok: Any) -> int:
    word = str(tok).rstrip("s")
    return SUITS.index(word + "s")


def _seat(tok: Any) -> int:
    return SEATS.index(str(tok))


class Builder:
    """Applies the statements of one script; :meth:`script` returns the result."""

    def __init__(self, text: str, *, strict: bool) -> None:
        self.text = text
        self.strict = strict
        self.vars: dict[str, n.Expr] = {}
        self.order: list[str] = []
        self.fields: dict[str, Any] = {}
        self.predeal: list[list[tuple[int, int]]] = [[], [], [], []]
        self.taken: set[tuple[int, int]] = set()
        self.lengths: dict[tuple[int, int], int] = {}
        self.length_list: list[n.SuitLength] = []
        self.altcounts: dict[int, tuple[int, ...]] = {}
        self.will_print = False
        self.shapes = 0

    # ------------------------------------------------------------------ helpers
    def error(self, message: str, where: Token | Tree[Any] | int) -> ScriptError:
        if isinstance(where, int):
            pos = where
        elif isinstance(where, Token):
            pos = where.start_pos or 0
        else:
            pos = getattr(where.meta, "start_pos", 0)
        return ScriptError(message, self.text, pos)

    def span(self, tree: Tree[Any] | Token) -> n.Span:
        if isinstance(tree, Token):
            return n.Span(tree.start_pos or 0, tree.end_pos or 0, tree.line or 0,
                          tree.column or 0)
        m = tree.meta
        return n.Span(m.start_pos, m.end_pos, m.line, m.column)

    def _int(self, tok: Token) -> int:
        value = int(tok)
        if value > MAX_NUMBER:
            raise self.error(f"number {tok} is too large: expected at most {MAX_NUMBER}", tok)
        return value

    def number(self, tree: Tree[Any]) -> int:
        toks = [t for t in tree.children if isinstance(t, Token)]
        if toks[0].type == "ARMINUS":
            return -self._int(toks[1])
        return self._int(toks[0])

    # ------------------------------------------------------------------ statements
    def statement(self, tree: Tree[Any]) -> None:
        kind = str(tree.data)
        kids: list[Any] = tree.children
        if kind in ("generate", "produce"):
            value = self.number(kids[1])
            if value < 0:
                raise self.error(f"{kind} needs a number of deals, not {value}", kids[1])
            if not self.fields.get(kind):  # dealer: the first non-zero value wins
                self.fields[kind] = value or None
        elif kind == "dealer":
            self.fields["dealer"] = _seat(kids[1])
        elif kind == "vulnerable":
            side = str(kids[1])
            self.fields["vulnerable"] = {"ns": "NS", "ew": "EW"}.get(side, side)
        elif kind == "predeal":
            for arg in kids[1:]:
                self.predeal_arg(arg)
        elif kind == "pointcount":
            self.fields["pointcount"] = self.count_table(kids[1:], kids[0])
        elif kind == "altcount":
            which = self.number(kids[1])
            if not 0 <= which <= 9:
                raise self.error(f"altcount {which}: expected a count number from 0 to 9",
                                 kids[1])
            self.altcounts[which] = self.count_table(kids[2:], kids[0])
        elif kind == "condition":
            self.fields["condition"] = self.expr(kids[-1])
        elif kind == "define":
            name = str(kids[0])
            if name in self.vars:
                raise self.error(f"variable {name!r} is already defined", kids[0])
            self.vars[name] = self.expr(kids[2])
            self.order.append(name)
        elif kind == "action":
            self.fields["actions"] = self.actions(kids[1])

    def count_table(self, numbers: list[Any], keyword: Any) -> tuple[int, ...]:
        values = [self.number(t) for t in numbers]
        if len(values) > 13:
            raise self.error("too many point values: expected at most 13 (ace first)",
                             numbers[13])
        by_rank = [0] * 13
        for i, v in enumerate(values):
            by_rank[12 - i] = v
        return tuple(by_rank)

    def predeal_arg(self, arg: Tree[Any]) -> None:
        kids: list[Any] = arg.children
        if arg.data == "predeal_length":
            suit, seat, count = _suit(kids[0]), _seat(kids[2]), self._int(kids[5])
            name = SEATS[seat].capitalize()
            if (seat, suit) in self.lengths:
                raise self.error(f"{name}'s {SUITS[suit]} length is already set to "
                                 f"{self.lengths[seat, suit]}", kids[0])
            self.lengths[seat, suit] = count
            if sum(v for (p, _), v in self.lengths.items() if p == seat) > 13:
                raise self.error(f"suit lengths too long for {name}: more than 13 cards",
                                 kids[0])
            if sum(v for (_, s), v in self.lengths.items() if s == suit) > 13:
                raise self.error(f"too many {SUITS[suit]}: more than 13 predealt by length",
                                 kids[0])
            self.length_list.append(n.SuitLength(seat, suit, count))
            return
        seat = _seat(kids[0])
        for tok in kids[1:]:
            if tok.type != "HOLDING":
                continue
            suit = SUIT_LETTERS.index(str(tok)[0])
            for ch in str(tok)[1:]:
                card = (suit, RANKS.index(ch))
                if card in self.taken:
                    raise self.error(f"card {SUIT_LETTERS[suit]}{ch} is predealt twice", tok)
                if len(self.predeal[seat]) == 13:
                    raise self.error(f"more than 13 cards predealt to {SEATS[seat]}", tok)
                self.taken.add(card)
                self.predeal[seat].append(card)

    # ------------------------------------------------------------------ expressions
    def expr(self, tree: Tree[Any] | Token) -> n.Expr:
        node = self._expr(tree)
        return n.replace(node, span=self.span(tree)) if node.span is None else node

    def _expr(self, tree: Tree[Any] | Token) -> n.Expr:
        if isinstance(tree, Token):  # a bare NUMBER inlined by lark
            return n.Num(int(tree))
        kind = str(tree.data)
        kids: list[Any] = tree.children
        handler: Callable[[list[Any]], n.Expr] | None = getattr(self, f"x_{kind}", None)
        if handler is None:  # pragma: no cover - the grammar has no other rules
            raise self.error(f"unsupported construct {kind}", tree)
        return handler(kids)

    def x_literal(self, kids: list[Any]) -> n.Expr:
        return n.Num(self._int(kids[0]))

    def x_var(self, kids: list[Any]) -> n.Expr:
        name = str(kids[0])
        if name not in self.vars:
            raise self.error(f"unknown variable {name!r}: define it before use", kids[0])
        return self.vars[name]

    def x_paren(self, kids: list[Any]) -> n.Expr:
        return self.expr(kids[1])

    def x_neg(self, kids: list[Any]) -> n.Expr:
        operand = self.expr(kids[1])
        if isinstance(operand, n.Num) and isinstance(kids[1], Tree) \
                and kids[1].data == "literal":
            return n.Num(-operand.value)
        if self.strict:
            raise self.error("unary minus applies only to a number (strict mode)", kids[0])
        return n.Unary("-", operand)

    def x_not_(self, kids: list[Any]) -> n.Expr:
        return n.Unary("!", self.expr(kids[1]))

    def x_binary(self, kids: list[Any]) -> n.Expr:
        op = {"and": "&&", "or": "||"}.get(str(kids[1]), str(kids[1]))
        return n.Binary(op, self.expr(kids[0]), self.expr(kids[2]))

    def x_conditional(self, kids: list[Any]) -> n.Expr:
        return n.Conditional(self.expr(kids[0]), self.expr(kids[2]), self.expr(kids[4]))

    def x_length(self, kids: list[Any]) -> n.Expr:
        return n.Length(_seat(kids[2]), _suit(kids[0]))

    def _seat_suit(self, kids: list[Any]) -> tuple[int, int | None]:
        suits = [t for t in kids if isinstance(t, Token) and t.type == "SUIT"]
        return _seat(kids[2]), (_suit(suits[0]) if suits else None)

    def x_points(self, kids: list[Any]) -> n.Expr:
        head: Token = kids[0]
        count = {"HCP": "hcp", "CONTROL": "control"}.get(head.type)
        if count is None:
            count = f"pt{pt_number(str(head))}"
        seat, suit = self._seat_suit(kids)
        return n.Points(count, seat, suit)

    def x_losers(self, kids: list[Any]) -> n.Expr:
        return n.Losers(*self._seat_suit(kids))

    def x_cccc(self, kids: list[Any]) -> n.Expr:
        return n.Cccc(_seat(kids[2]))

    def x_quality(self, kids: list[Any]) -> n.Expr:
        return n.Quality(_seat(kids[2]), _suit(kids[4]))

    def _count_shape(self, where: Token | Tree[Any]) -> None:
        self.shapes += 1
        if self.strict and self.shapes > MAX_STRICT_SHAPES:
            raise self.error(f"too many shape() calls: dealer allows only "
                             f"{MAX_STRICT_SHAPES} (strict mode)", where)

    def x_shape(self, kids: list[Any]) -> n.Expr:
        self._count_shape(kids[0])
        elements: list[tuple[str, bool, Token]] = []
        for el in kids[4:-1]:
            toks = el.children
            sign = "-" if toks[0].type == "ARMINUS" else "+"
            elements.append((sign, any(t.type == "ANY" for t in toks), toks[-1]))
        shapes = expand_shape(elements, self.error)
        start, end = kids[4].meta.start_pos, kids[-2].meta.end_pos
        return n.Shape(_seat(kids[2]), shapes, self.text[start:end])

    def x_dpp_shape(self, kids: list[Any]) -> n.Expr:
        tok: Token = kids[0]
        if self.strict:
            raise self.error("shape{...} is dealer.dpp syntax, which dealer itself refuses "
                             "(strict mode)", tok)
        self._count_shape(tok)
        seat, shapes, text = expand_dpp(str(tok), tok.start_pos or 0, self.text)
        return n.Shape(seat, shapes, text)

    def x_hascard(self, kids: list[Any]) -> n.Expr:
        card = str(kids[4])
        return n.HasCard(_seat(kids[2]), SUIT_LETTERS.index(card[1]), RANKS.index(card[0]))

    def x_tricks(self, kids: list[Any]) -> n.Expr:
        strain = 4 if kids[4].type == "NOTRUMPS" else _suit(kids[4])
        return n.Tricks(_seat(kids[2]), strain)

    def x_score(self, kids: list[Any]) -> n.Expr:
        contract = str(kids[4])
        return n.Score(str(kids[2]) == "vul", int(contract[1]), "SHDCN".index(contract[2]),
                       self.expr(kids[6]))

    def x_imps(self, kids: list[Any]) -> n.Expr:
        return n.Imps(self.expr(kids[2]))

    def x_rnd(self, kids: list[Any]) -> n.Expr:
        return n.Rnd(self.expr(kids[2]))

    # ------------------------------------------------------------------ actions
    def actions(self, tree: Tree[Any]) -> tuple[n.Action, ...]:
        out: list[n.Action] = []
        for act in tree.children:
            if isinstance(act, Tree):
                node = self.action(act)
                if isinstance(node, n.PRINT_ACTIONS):
                    self.will_print = True
                out.append(n.replace(node, span=self.span(act)))
        return tuple(out)

    def action(self, tree: Tree[Any]) -> n.Action:
        kind = str(tree.data)
        kids: list[Any] = tree.children
        exprs = [c for c in kids if isinstance(c, Tree) and c.data != "number"]
        label = next((str(t)[1:-1] for t in kids if isinstance(t, Token)
                      and t.type == "STRING"), None)
        nums = [self.number(c) for c in kids if isinstance(c, Tree) and c.data == "number"]
        if kind == "printall":
            return n.PrintAll()
        if kind == "printew":
            return n.PrintEW()
        if kind == "printpbn":
            return n.PrintPBN()
        if kind == "evalcontract":
            return n.EvalContract()
        if kind == "print":
            return n.Print(tuple(_seat(t) for t in kids if t.type == "COMPASS"))
        if kind in ("printcompact", "printoneline"):
            inner = [c for c in kids if not isinstance(c, Token) or c.type not in
                     ("PRINTCOMPACT", "PRINTONELINE", "LPAR", "RPAR")]
            expr = self.expr(inner[0]) if inner else None
            cls = n.PrintCompact if kind == "printcompact" else n.PrintOneLine
            return cls(expr)
        if kind == "printes":
            items: list[n.Expr | str] = []
            for c in kids[2:-1]:
                if isinstance(c, Token) and c.type == "COMMA":
                    continue
                if isinstance(c, Token) and c.type == "STRING":
                    items.append(str(c)[1:-1])
                elif isinstance(c, Token) and c.type == "NEWLINE_STRING":
                    items.append("\n")
                else:
                    items.append(self.expr(c))
            return n.PrintES(tuple(items))
        if kind == "average":
            return n.Average(label, self.expr(exprs[0] if exprs else kids[-1]))
        bounds = nums
        for lo, hi, where in zip(bounds[0::2], bounds[1::2], exprs, strict=False):
            if hi < lo:
                raise self.error(f"frequency bounds {lo}, {hi}: the low bound must not "
                                 "exceed the high bound", where)
            if hi - lo > MAX_BINS:
                raise self.error(f"frequency bounds {lo}, {hi}: at most {MAX_BINS:,} values "
                                 "apart", where)
        if kind == "frequency":
            return n.Frequency(label, self.expr(exprs[0]), bounds[0], bounds[1])
        return n.Frequency2D(label, self.expr(exprs[0]), bounds[0], bounds[1],
                             self.expr(exprs[1]), bounds[2], bounds[3])

    # ------------------------------------------------------------------ result
    def script(self) -> n.Script:
        f = self.fields
        return n.Script(
            text=self.text,
            condition=f.get("condition", n.Num(1)),
            actions=f.get("actions"),
            generate=f.get("generate"),
            produce=f.get("produce"),
            dealer=f.get("dealer"),
            vulnerable=f.get("vulnerable"),
            predeal=tuple(tuple(cards) for cards in self.predeal),
            suit_lengths=tuple(self.length_list),
            pointcount=f.get("pointcount"),
            altcounts=tuple(sorted(self.altcounts.items())),
            will_print=self.will_print,
            variables=tuple((name, self.vars[name]) for name in self.order),
            strict=self.strict,
        )
