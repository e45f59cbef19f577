"""The syntax tree of a dealer script: frozen, typed node classes, public and documented.

Expressions are trees of :class:`Expr` nodes with macros (``name = expression``) already
substituted, so a node never refers to a variable. Seats are 0-3 (North, East, South, West),
suits 0-3 (Spades, Hearts, Diamonds, Clubs), ranks 0-12 (deuce ... ace); see
:mod:`nomic_cards.bridge.deck`. Every node carries a :class:`Span` (ignored by ``==``) so that
errors found while running a script can quote the expression and its line.

:class:`Script` holds everything a script says: the ``generate``/``produce`` limits, dealer,
vulnerability, predealt cards, point-count tables, the condition and the action list.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

_C = TypeVar("_C", bound=type)
_N = TypeVar("_N")
_MISSING: Any = object()


class FrozenNodeError(AttributeError):
    """Raised on assigning to or deleting a field of a node (nodes are immutable)."""


class _Field:
    __slots__ = ("name", "default", "factory", "compare", "repr", "kw_only")

    def __init__(self, default: Any = _MISSING, factory: Callable[[], Any] | None = None,
                 compare: bool = True, repr: bool = True, kw_only: bool = False) -> None:
        self.name = ""
        self.default, self.factory = default, factory
        self.compare, self.repr, self.kw_only = compare, repr, kw_only


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
          compare: bool = True, repr: bool = True, kw_only: bool = False) -> Any:
    """A field with options, as :func:`dataclasses.field`: a default or a factory of one,
    left out of ``==``/``hash`` (``compare=False``) or ``repr``, or keyword-only."""
    return _Field(default, default_factory, compare, repr, kw_only)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def node(cls: _C) -> _C:
    """Make ``cls`` a frozen record of its annotated fields, as ``@dataclass(frozen=True)``
    would (``__init__``, ``==`` and ``hash`` over the compared fields of the same class,
    ``repr``, ``__match_args__``; fields are inherited), without generating source code: the
    dataclass machinery costs about a millisecond per class when a script is parsed."""
    fields: list[_Field] = [f for base in reversed(cls.__mro__[1:])
                            for f in base.__dict__.get("__node_fields__", ())]
    for name in cls.__dict__.get("__annotations__", {}):
        spec = cls.__dict__.get(name, _MISSING)
        f = spec if isinstance(spec, _Field) else _Field(spec)
        f.name = name
        if f.default is _MISSING:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, f.default)
        fields = [g for g in fields if g.name != name] + [f]
    positional = tuple(f for f in fields if not f.kw_only)
    order = positional + tuple(f for f in fields if f.kw_only)
    names = frozenset(f.name for f in order)
    compared = tuple(f.name for f in fields if f.compare)
    shown = tuple(f.name for f in fields if f.repr)
    key: Callable[[Any], tuple[Any, ...]] = (
        attrgetter(*compared) if len(compared) > 1 else
        (lambda self: (getattr(self, compared[0]),)) if compared else (lambda self: ()))
    setter = object.__setattr__
    qualname = cls.__qualname__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(positional):
            raise TypeError(f"{qualname}.__init__() takes {len(positional) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        for f, value in zip(positional, args, strict=False):
            if f.name in kwargs:
                raise TypeError(f"{qualname}.__init__() got multiple values for argument "
                                f"{f.name!r}")
            setter(self, f.name, value)
        for f in order[len(args):]:
            if f.name in kwargs:
                setter(self, f.name, kwargs[f.name])
            elif f.factory is not None:
                setter(self, f.name, f.factory())
            elif f.default is not _MISSING:
                setter(self, f.name, f.default)
            else:
                raise TypeError(f"{qualname}.__init__() missing required argument {f.name!r}")
        for name in kwargs:
            if name not in names:
                raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument "
                                f"{name!r}")

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise FrozenNodeError(f"cannot assign to field {name!r}")

    def __delattr__(self: Any, name: str) -> None:
        raise FrozenNodeError(f"cannot delete field {name!r}")

    for method in (__init__, __eq__, __hash__, __repr__, __setattr__, __delattr__):
        method.__qualname__ = f"{qualname}.{method.__name__}"
        setattr(cls, method.__name__, method)
    setattr(cls, "__node_fields__", tuple(fields))  # noqa: B010 - a dynamic attribute
    setattr(cls, "__match_args__", tuple(f.name for f in positional))  # noqa: B010
    return cls


def replace(obj: _N, /, **changes: Any) -> _N:
    """A copy of the node ``obj`` with the fields named in ``changes`` replaced, as
    :func:`dataclasses.replace`."""
    fields: tuple[_Field, ...] = obj.__node_fields__  # type: ignore[attr-defined]
    values = {f.name: getattr(obj, f.name) for f in fields} | changes
    return type(obj)(**values)


@node
class Span:
    """Where a node was written: 0-based ``start``/``end`` offsets, 1-based line and column."""

    start: int
    end: int
    line: int
    column: int


@node
class Expr:
    """Base of every expression node."""

    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)


@node
class Num(Expr):
    """An integer literal (negative literals such as ``-2`` included)."""

    value: int


@node
class Unary(Expr):
    """``!x`` / ``not x`` (op ``"!"``) or ``-x`` (op ``"-"``)."""

    op: str
    operand: Expr


BINARY_OPS = ("*", "/", "%", "+", "-", "<", "<=", ">", ">=", "==", "!=", "&&", "||")


@node
class Binary(Expr):
    """A C binary operator; ``op`` is one of :data:`BINARY_OPS` (``and``/``or`` become
    ``&&``/``||``). Division truncates toward zero and ``%`` takes the dividend's sign, as in C."""

    op: str
    left: Expr
    right: Expr


@node
class Conditional(Expr):
    """``test ? then : otherwise``."""

    test: Expr
    then: Expr
    otherwise: Expr


@node
class Length(Expr):
    """``spades(north)``: the number of cards the seat holds in the suit."""

    seat: int
    suit: int


POINT_COUNTS = ("hcp", "control") + tuple(f"pt{i}" for i in range(10))
"""Names of the per-card point tables: ``hcp`` (4-3-2-1 unless ``pointcount`` changes it),
``control`` (A=2, K=1) and the ten alternate counts ``pt0``-``pt9`` (``tens``, ``jacks``,
``queens``, ``kings``, ``aces``, ``top2``, ``top3``, ``top4``, ``top5``, ``c13`` by default,
changed by ``altcount``)."""


@node
class Points(Expr):
    """``hcp(north)``, ``hcp(north, spades)``, ``pt3(east)``, ``control(west, hearts)``...:
    the sum of a point table (one of :data:`POINT_COUNTS`) over the seat's cards, in one suit
    when ``suit`` is given."""

    count: str
    seat: int
    suit: int | None = None


@node
class Losers(Expr):
    """``loser(seat)`` or ``loser(seat, suit)``: dealer's simple losing-trick count."""

    seat: int
    suit: int | None = None


@node
class Cccc(Expr):
    """``cccc(seat)``: the Kaplan-Rubens hand evaluation times 100 (The Bridge World, 1982)."""

    seat: int


@node
class Quality(Expr):
    """``quality(seat, suit)``: the Kaplan-Rubens suit quality times 100."""

    seat: int
    suit: int


@node
class Shape(Expr):
    """``shape(seat, any 4333 + 5xxx - ...)``: true when the seat's suit lengths (spades,
    hearts, diamonds, clubs) are one of ``shapes``. The list was resolved at parse time with
    ``+`` adding and ``-`` removing distributions in the order written; ``text`` is the list
    as written (``shape{...}`` specs included), ignored by ``==``."""

    seat: int
    shapes: frozenset[tuple[int, int, int, int]]
    text: str = field(default="", compare=False)


@node
class HasCard(Expr):
    """``hascard(seat, AS)``: 1 when the seat holds the card."""

    seat: int
    suit: int
    rank: int


@node
class Tricks(Expr):
    """``tricks(seat, strain)``: double-dummy tricks for that declarer; strain 0-3 is a suit
    (spades ... clubs), 4 notrump."""

    seat: int
    strain: int


@node
class Score(Expr):
    """``score(vul, x3N, tricks)``: declarer's score for an undoubled contract."""

    vulnerable: bool
    level: int
    strain: int
    tricks: Expr


@node
class Imps(Expr):
    """``imps(score difference)`` on the WBF scale, keeping the sign."""

    value: Expr


@node
class Rnd(Expr):
    """``rnd(n)``: a random integer in ``[0, n)`` (in ``(n, 0]`` for negative ``n``)."""

    limit: Expr


# ----------------------------------------------------------------------------- actions


@node
class Action:
    """Base of every action node."""

    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)


@node
class PrintAll(Action):
    """``printall``: the four hands side by side, numbered."""


@node
class PrintEW(Action):
    """``printew``: West and East side by side."""


@node
class Print(Action):
    """``print(north, south)``: each listed seat's hands on pages of their own, at the end."""

    seats: tuple[int, ...]


@node
class PrintCompact(Action):
    """``printcompact`` or ``printcompact(expr)``: four lines per deal."""

    expr: Expr | None = None


@node
class PrintOneLine(Action):
    """``printoneline`` or ``printoneline(expr)``: one line per deal."""

    expr: Expr | None = None


@node
class PrintPBN(Action):
    """``printpbn``: one PBN game per deal."""


@node
class PrintES(Action):
    """``printes("text", expr, \\n, ...)``: strings and expression values, no separators."""

    items: tuple[Expr | str, ...]


@node
class EvalContract(Action):
    """``evalcontract``: average double-dummy scores per contract (needs double dummy)."""


@node
class Average(Action):
    """``average "label" expr``: the mean of ``expr`` over the produced deals."""

    label: str | None
    expr: Expr


@node
class Frequency(Action):
    """``frequency "label" (expr, low, high)``: a histogram with Low/High overflow rows."""

    label: str | None
    expr: Expr
    low: int
    high: int


@node
class Frequency2D(Action):
    """``frequency "label" (e1, low1, high1, e2, low2, high2)``: a joint histogram."""

    label: str | None
    expr1: Expr
    low1: int
    high1: int
    expr2: Expr
    low2: int
    high2: int


PRINT_ACTIONS = (PrintAll, PrintEW, Print, PrintCompact, PrintOneLine, PrintPBN, PrintES,
                 EvalContract)
"""The actions that count as printing for dealer's default ``produce`` (40 instead of all)."""


@node
class SuitLength:
    """A ``predeal spades(north) == 1`` request: the seat gets exactly ``count`` cards of the
    suit, any of them."""

    seat: int
    suit: int
    count: int


@node
class Script:
    """A parsed dealer script.

    ``generate``/``produce`` are ``None`` when the script does not set them (the first
    occurrence wins, as in dealer; the command line overrides both). ``predeal`` lists each
    seat's predealt cards as ``(suit, rank)`` pairs. ``pointcount`` is the ``hcp`` table by
    rank (deuce first) when the script sets it; ``altcounts`` maps an alternate count number
    0-9 to its table. ``actions`` is ``None`` when the script has no ``action`` statement
    (dealer then prints every deal with ``printall``). ``will_print`` is true when any print
    action was written anywhere in the script (dealer's rule for the default ``produce``).
    ``variables`` keeps the macros in the order defined, for tools that want to show them.
    """

    text: str
    condition: Expr = field(default_factory=lambda: Num(1))
    actions: tuple[Action, ...] | None = None
    generate: int | None = None
    produce: int | None = None
    dealer: int | None = None
    vulnerable: str | None = None
    predeal: tuple[tuple[tuple[int, int], ...], ...] = ((), (), (), ())
    suit_lengths: tuple[SuitLength, ...] = ()
    pointcount: tuple[int, ...] | None = None
    altcounts: tuple[tuple[int, tuple[int, ...]], ...] = ()
    will_print: bool = False
    variables: tuple[tuple[str, Expr], ...] = ()
    strict: bool = False


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of an expression node."""
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Conditional):
        return (node.test, node.then, node.otherwise)
    if isinstance(node, Score):
        return (node.tricks,)
    if isinstance(node, Imps):
        return (node.value,)
    if isinstance(node, Rnd):
        return (node.limit,)
    return ()


def walk(node: Expr) -> list[Expr]:
    """The node and all its sub-expressions, parents first."""
    out, stack = [], [node]
    while stack:
        cur = stack.pop()
        out.append(cur)
        stack.extend(reversed(children(cur)))
    return out


def action_expressions(action: Action) -> tuple[Expr, ...]:
    """The expressions an action evaluates for each produced deal."""
    if isinstance(action, PrintCompact | PrintOneLine):
        return () if action.expr is None else (action.expr,)
    if isinstance(action, PrintES):
        return tuple(x for x in action.items if isinstance(x, Expr))
    if isinstance(action, Average | Frequency):
        return (action.expr,)
    if isinstance(action, Frequency2D):
        return (action.expr1, action.expr2)
    return ()


def script_uses(script: Script, kind: type[Expr]) -> bool:
    """Whether the condition or any action uses a node of ``kind`` (e.g. :class:`Rnd`)."""
    roots = [script.condition] + [e for a in script.actions or () for e in action_expressions(a)]
    return any(isinstance(x, kind) for r in roots for x in walk(r))
