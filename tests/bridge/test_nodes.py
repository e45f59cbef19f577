"""The syntax-tree nodes behave as the frozen dataclasses they replace, and parsing a script
loads neither numpy nor lark (the fast path of ``bridge run`` depends on it)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from nomic_cards.bridge.language import nodes as n


@dataclasses.dataclass(frozen=True)
class _Expr:
    span: n.Span | None = dataclasses.field(default=None, compare=False, repr=False,
                                            kw_only=True)


@dataclasses.dataclass(frozen=True)
class Shape(_Expr):
    seat: int
    shapes: frozenset[tuple[int, int, int, int]]
    text: str = dataclasses.field(default="", compare=False)


def test_nodes_compare_hash_and_print_as_frozen_dataclasses() -> None:
    span = n.Span(3, 9, 1, 4)
    shapes = frozenset({(4, 3, 3, 3)})
    ours = n.Shape(2, shapes, "4333", span=span)
    theirs = Shape(2, shapes, "4333", span=span)
    assert repr(ours) == repr(theirs) == "Shape(seat=2, shapes=frozenset({(4, 3, 3, 3)}), " \
                                         "text='4333')"
    assert ours == n.Shape(2, shapes) and ours != n.Shape(1, shapes)
    assert hash(ours) == hash(n.Shape(2, shapes, "other")) == hash((2, shapes))
    assert ours != theirs and n.Num(1) != n.Points("hcp", 1)  # other classes never equal
    assert n.Shape.__match_args__ == Shape.__match_args__ == ("seat", "shapes", "text")
    assert ours.span == span and n.Shape(2, shapes).span is None
    with pytest.raises(AttributeError, match="cannot assign to field 'seat'"):
        ours.seat = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del ours.text  # type: ignore[misc]


def test_node_defaults_replace_and_bad_calls() -> None:
    num = n.Num(7)
    moved = n.replace(num, span=n.Span(0, 1, 1, 1))
    assert moved == num and moved.span == n.Span(0, 1, 1, 1) and num.span is None
    assert n.replace(n.Num(7), value=8) == n.Num(8)
    assert n.Script("x").condition == n.Num(1) and n.Script("x").predeal == ((), (), (), ())
    assert n.Points("hcp", 0).suit is None and n.PrintAll() == n.PrintAll()
    assert n.Binary("+", num, num).left is num
    with pytest.raises(TypeError, match="positional"):
        n.Num(1, n.Span(0, 0, 0, 0))  # type: ignore[misc]
    with pytest.raises(TypeError, match="missing required argument 'value'"):
        n.Num()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'valu'"):
        n.Num(1, valu=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values"):
        n.Num(1, value=2)  # type: ignore[misc]


PROBE = """
import json, sys
from nomic_cards.bridge.language.script import parse_script
{also}
parse_script("produce 10\\ncondition hcp(north) >= 15 && shape(north, any 4333 + 5xxx)\\n"
             "action printoneline, average hcp(south)\\n")
loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'lark'))
print(json.dumps(loaded))
"""


def test_parsing_loads_neither_numpy_nor_lark() -> None:
    def loaded(also: str) -> list[str]:
        done = subprocess.run([sys.executable, "-c", PROBE.format(also=also)],
                              capture_output=True, text=True, timeout=120, check=True)
        return list(json.loads(done.stdout))

    assert loaded("") == []
    seen = loaded("import nomic_cards.bridge.run.loop, lark")  # the probe can see them
    assert {"numpy", "lark"} <= set(seen)
