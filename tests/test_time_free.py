"""No test may depend on the day it runs. CI runs the date-sensitive tests a second time under
``faketime`` a year ahead (the last command of ``.ci/run``); this checks that command names every
test module that reads the real clock, and the bad-input corpus (whose game begins the day it
runs)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_CLOCK = re.compile(r"datetime\.now\(|date\.today\(|time\.time\(\)")


def faketime_modules() -> set[str]:
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    (line,) = [x for x in text.splitlines() if x.startswith("faketime ")]
    words = shlex.split(line)
    assert words[1:3] == ["-f", "+365d"], words[:3]
    return {w for w in words if w.startswith("tests/")}


def test_ci_reruns_every_module_that_reads_the_real_clock_a_year_ahead() -> None:
    readers = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
               if p.name != "test_time_free.py" and REAL_CLOCK.search(p.read_text("utf-8"))}
    assert readers, "the pattern finds nothing: check it"
    named = faketime_modules()
    assert readers | {"tests/test_cli_bad_inputs.py"} <= named, sorted(readers - named)
    assert all((ROOT / m).is_file() for m in named)
