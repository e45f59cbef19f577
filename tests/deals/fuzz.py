"""Generated command lines for the deals CLI that push at every size budget, and a runner that
executes one in a subprocess under a memory limit and checks the outcome.

Numbers are drawn from a pool of awkward sizes (0, small, around the degree and length limits,
2^62 and 2^64, 10^18, 10^400, 5000 digits), deals from the whole grammar (people, ranges,
stars, dots, nesting, odd spacing), plus now and then plain junk text.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: Address space of one CLI run: the deal library keeps its data within a few hundred MiB
#: (docs/deals.md, Limits), so anything near this means a budget failed.
MEMORY_LIMIT = 2 << 30
#: CPU seconds of one run, a guard against a hang (a generated request takes seconds at most).
CPU_LIMIT = 300

_SMALL = ["0", "1", "1", "2", "2", "3", "3", "4", "5", "7", "12"]
_LARGE = [
    "52", "100", "999", "1500", "4096", "65535", "100000", "1000000", "4194304", "4194305",
    "1000000000000", "1000000000000000000", "4611686018427387904", "18446744073709551616",
    "100000000000000000000", "1" + "0" * 400, "9" * 5000,
]


def _number(rng: random.Random, small: float = 0.8) -> str:
    text = rng.choice(_SMALL if rng.random() < small else _LARGE)
    return "00" + text if rng.random() < 0.05 else text


def _range(rng: random.Random) -> str:
    """``a-b``: mostly a <= b, now and then the other way round (an error)."""
    low = _number(rng).lstrip("0") or "0"
    r = rng.random()
    if r < 0.05:
        return f"{low}1-{low}"  # empty range
    if r < 0.5 and len(low) < 20:
        return f"{low}-{int(low) + int(rng.choice(_SMALL))}"
    if r < 0.7:
        return f"{low}-{low}"
    return f"{low}-{low}{rng.choice(_SMALL)}"


def _space(rng: random.Random) -> str:
    return rng.choice(["", " ", " ", " ", "  ", "\t", "\n"])


def _atom(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if depth < 3 and r < 0.3:
        return f"({_space(rng)}{_deal(rng, depth + 1)}{_space(rng)})"
    if r < 0.36:
        return "." * rng.randint(1, 4)
    return _number(rng, 0.75)


def _item(rng: random.Random, depth: int) -> str:
    atom, r = _atom(rng, depth), rng.random()
    if r < 0.45:
        return atom
    if r < 0.65:
        return f"{atom}^{_number(rng, 0.7)}"
    if r < 0.8:
        return f"{atom}^{_range(rng)}"
    # a starred part that can deal 0 cards is refused: star mostly numbers that cannot
    if not atom.startswith("(") or rng.random() < 0.6:
        atom = str(rng.randint(1, 5)) if rng.random() < 0.8 else rng.choice(_LARGE)
    if r < 0.92:
        return f"{atom}^?"
    return f"{atom}^{_number(rng)}-?"


def _deal(rng: random.Random, depth: int = 0) -> str:
    alts = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        chain = " ".join(_item(rng, depth) for _ in range(rng.choice([1, 1, 2, 3])))
        if rng.random() < 0.15:
            chain = f"{_number(rng)}{_space(rng)}*{_space(rng)}{chain}"
        alts.append(chain)
    return f"{_space(rng)}or{_space(rng)}".join(alts)


def expression(rng: random.Random) -> str:
    """A deal expression: usually well formed, sometimes junk or a near miss."""
    r = rng.random()
    if r < 0.05:
        junk = "0123456789.()^-?* or\t#x\u00a0"
        return "".join(rng.choice(junk) for _ in range(rng.randint(0, 12)))
    text = _deal(rng)
    if r < 0.1 and text:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1 :]
    return text


def command(rng: random.Random) -> list[str]:
    """One ``nomic-cards deals ...`` argument list (options first, then ``--`` and the
    expressions, which may start with '-')."""
    expr = expression(rng)
    kind = rng.choice(["terms", "terms", "term", "term", "gf", "same", "canon", "sample"])
    options: list[str] = []
    if kind == "terms":
        count = ["0", "1", "6", "6", "100", "100", "3000", "3000", "100000", "4194304"]
        options = ["--count", rng.choice(count)]
        rest = [expr]
    elif kind == "term":
        n = rng.choice(["0", "7", "1000", "65536", "100000", "1000000000000000000", "1" + "0" * 30])
        if rng.random() < 0.6:
            options = ["--mod", rng.choice(["1", "2", "1000000007", "2305843009213693951",
                                             "170141183460469231731687303715884105727"])]
        rest = [expr, n]
    elif kind == "sample":
        options = ["--seed", str(rng.randrange(1000)), "--cards", "none"]
        rest = [expr, rng.choice(["0", "1", "5", "52", "1000", "30000"])]
    elif kind == "same":
        rest = [expr, expression(rng)]
    else:
        rest = [expr]
    if rng.random() < 0.2 and kind != "same":
        options.append("--json")
    return [kind, *options, "--", *rest]


_MAIN = "from nomic_cards.cli import main; main()"


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT))


@dataclass(frozen=True)
class Outcome:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str


def run(args: list[str], *, python: list[str] | None = None) -> Outcome:
    """Run ``nomic-cards deals ARGS`` (or ``python -c ...`` when ``python`` is given) under the
    memory and CPU limits, capturing its output."""
    cmd = python or [sys.executable, "-c", _MAIN, "deals", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_limits,
                          cwd=Path(__file__).resolve().parents[2], timeout=4 * CPU_LIMIT)
    return Outcome(tuple(args), proc.returncode, proc.stdout, proc.stderr)


def problems(out: Outcome) -> list[str]:
    """What is wrong with an outcome: empty when it is a result or the language's refusal."""
    found = []
    if out.code < 0:
        found.append(f"killed by signal {-out.code}")
    elif out.code not in (0, 1):
        found.append(f"exit status {out.code}")
    if "GNU MP" in out.stderr or "Traceback" in out.stderr:
        found.append("an abort or a traceback")
    lines = out.stderr.splitlines()
    if out.code == 0 and lines:
        found.append("output on stderr although it succeeded")
    if out.code == 1:
        if not lines and not (out.args and out.args[0] == "same"):
            found.append("exit 1 without an error line")
        if lines and (not lines[0].startswith("error: ")
                      or any(line.startswith("error") for line in lines[1:])
                      or len(lines) not in (1, 3)
                      or any(not line.startswith("  ") for line in lines[1:])):
            found.append("not one 'error:' line (with at most a caret under the expression)")
    return found
