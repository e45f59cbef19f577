"""What an exact computation must track: the analysis of a dealer condition's leaves.

A condition is computable exactly when every leaf is a function of one seat's holding suit by
suit (lengths, ``shape``, point counts, losers, ``hascard``, ``quality``, ``cccc``: all of
them, spot cards included, since every holding of a suit is looked at) or a random
``rnd(n)`` with a constant limit. At most one seat -- the *primary* seat -- may use features
that depend on suits; every other seat may only use point counts summed over the hand
(``hcp(south)``, ``controls(east)``, ``ptN(west)``), which depend only on how many cards of
each rank it holds. Anything else (``tricks``, a suit-wise feature of a second seat, ``rnd``
of a non-constant) is refused with :class:`NotExact`, one line naming the function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nomic_cards.bridge.deck import SEATS, SUITS
from nomic_cards.bridge.language import nodes as n
from nomic_cards.errors import InputError

Leaf = n.Length | n.Shape | n.Points | n.Losers | n.HasCard | n.Quality | n.Cccc | n.Rnd
LEAVES = (n.Length, n.Shape, n.Points, n.Losers, n.HasCard, n.Quality, n.Cccc, n.Rnd)
MAX_RND = 10_000


class NotExact(InputError):
    """A condition the exact computation cannot handle; the message names the function."""


@dataclass
class Plan:
    """The leaves of a condition sorted by role.

    ``primary`` is the seat with suit-wise features (or the first seat used);
    ``secondary`` maps every other seat to the point-count names it sums over the hand;
    ``rnds`` are the constant limits of the ``rnd`` calls, in the order of ``leaves``.
    """

    leaves: list[Leaf] = field(default_factory=list)
    primary: int | None = None
    secondary: dict[int, list[str]] = field(default_factory=dict)
    rnds: list[int] = field(default_factory=list)

    def primary_leaves(self) -> list[Leaf]:
        return [x for x in self.leaves if not isinstance(x, n.Rnd) and x.seat == self.primary]


def _name(node: n.Tricks) -> str:
    strain = ("spades", "hearts", "diamonds", "clubs", "notrump")[node.strain]
    return f"tricks({SEATS[node.seat]}, {strain})"


def _suitwise(leaf: Leaf) -> bool:
    if isinstance(leaf, n.Points):
        return leaf.suit is not None
    return isinstance(leaf, n.Length | n.Shape | n.Losers | n.HasCard | n.Quality | n.Cccc)


def _describe(leaf: Leaf) -> str:
    seat = SEATS[leaf.seat] if not isinstance(leaf, n.Rnd) else ""
    if isinstance(leaf, n.Length):
        return f"{SUITS[leaf.suit]}({seat})"
    if isinstance(leaf, n.Shape):
        return f"shape({seat}, ...)"
    if isinstance(leaf, n.Points | n.Losers):
        name = leaf.count if isinstance(leaf, n.Points) else "loser"
        return f"{name}({seat}, {SUITS[leaf.suit]})" if leaf.suit is not None else f"{name}({seat})"
    if isinstance(leaf, n.HasCard):
        return f"hascard({seat}, ...)"
    if isinstance(leaf, n.Quality):
        return f"quality({seat}, {SUITS[leaf.suit]})"
    if isinstance(leaf, n.Cccc):
        return f"cccc({seat})"
    return "rnd(...)"


def constant(node: n.Expr) -> int | None:
    """The value of an expression made of numbers and arithmetic only, else None."""
    if isinstance(node, n.Num):
        return node.value
    if isinstance(node, n.Unary):
        v = constant(node.operand)
        return None if v is None else (int(v == 0) if node.op == "!" else -v)
    if isinstance(node, n.Binary) and node.op in ("+", "-", "*"):
        a, b = constant(node.left), constant(node.right)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def plan(condition: n.Expr) -> Plan:
    """Sort the condition's leaves; raise :class:`NotExact` for what cannot be computed."""
    out = Plan()
    seen: set[int] = set()
    for node in n.walk(condition):
        if isinstance(node, n.Tricks):
            raise NotExact(f"exact probabilities cannot use {_name(node)}: double-dummy "
                           "tricks depend on all four hands card by card")
        if isinstance(node, LEAVES) and id(node) not in seen:
            seen.add(id(node))
            out.leaves.append(node)
    for leaf in out.leaves:
        if isinstance(leaf, n.Rnd):
            limit = constant(leaf.limit)
            if limit is None:
                raise NotExact("exact probabilities need rnd() of a constant, as in rnd(100)")
            if abs(limit) > MAX_RND:
                raise NotExact(f"exact probabilities handle rnd() up to rnd({MAX_RND}), "
                               f"not rnd({limit})")
            out.rnds.append(limit)
    seats = sorted({x.seat for x in out.leaves if not isinstance(x, n.Rnd)})
    suitwise = sorted({x.seat for x in out.leaves if not isinstance(x, n.Rnd) and _suitwise(x)})
    if len(suitwise) > 1:
        a, b = (next(_describe(x) for x in out.leaves if not isinstance(x, n.Rnd)
                     and x.seat == s and _suitwise(x)) for s in suitwise[:2])
        raise NotExact(f"exact probabilities allow suit-by-suit features for one seat only: "
                       f"this condition uses {a} and {b}")
    if seats:
        out.primary = suitwise[0] if suitwise else seats[0]
    for leaf in out.leaves:
        if isinstance(leaf, n.Points) and leaf.seat != out.primary:
            names = out.secondary.setdefault(leaf.seat, [])
            if leaf.count not in names:
                names.append(leaf.count)
    return out
