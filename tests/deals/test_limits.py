"""Deal requests never abort the process: each runs the CLI (or the Python API) in a subprocess
under a memory limit (``RLIMIT_AS``, tests/deals/fuzz.py) and may only give a result or the
language's one-line refusal — never a signal, "GNU MP: Cannot allocate memory", or a traceback.

Results are checked against independent oracles (GMP's Fibonacci numbers and powers, through
python-flint), refusals against the corpus tests/data/deals/limits.json.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest
from flint import fmpz

from tests.deals import fuzz

DATA = Path(__file__).resolve().parent.parent / "data" / "deals"
LIMITS = json.loads((DATA / "limits.json").read_text(encoding="utf-8"))["cases"]


def deals(*args: str) -> fuzz.Outcome:
    out = fuzz.run(list(args))
    assert fuzz.problems(out) == [], (args, out.code, out.stderr[-2000:])
    return out


def api(code: str) -> fuzz.Outcome:
    """Run Python ``code`` (the deal library's API) under the same limits."""
    out = fuzz.run([], python=[sys.executable, "-c", code])
    assert out.code >= 0, f"killed by signal {-out.code}: {out.stderr[-2000:]}"
    assert "GNU MP" not in out.stderr and "Traceback" not in out.stderr, out.stderr[-2000:]
    return out


# -- the reported aborts --------------------------------------------------------------------


@pytest.mark.slow
def test_one_to_the_millionth_no_longer_aborts() -> None:
    # was: "GNU MP: Cannot reallocate memory", SIGABRT (FLINT powered x by the binomial theorem)
    assert deals("term", "1^1000000", "5").stdout == "0\n"
    assert deals("term", "1^1000000", "1000000").stdout == "1\n"
    out = deals("gf", "1^1000000")
    assert out.stdout.splitlines()[0] == "generating function: x^1000000"
    assert out.stdout.splitlines()[-1] == "canonical form:      1000000"
    assert deals("canon", "1^1000000").stdout == "1000000\n"
    assert deals("terms", "1^1000000", "--count", "3").stdout == "0, 0, 0\n"
    assert deals("same", "1^1000000", "1000 1^999000").code == 0


def test_one_to_the_millionth_through_the_python_api() -> None:
    out = api("from nomic_cards.deals import term, generating_function as g\n"
              "print(term('1^1000000', 5), term('1^1000000', 1000000), g('1^1000000'))")
    assert out.code == 0 and out.stdout == "0 1 x^1000000\n"


def test_api_refusals_are_the_language_errors() -> None:
    out = api("from nomic_cards.deals import DealTooLarge, generating_function\n"
              "try:\n"
              "    generating_function('(1 or 1 or 1)^100000000')\n"
              "except DealTooLarge as err:\n"
              "    print(type(err).__name__, err.column)\n")
    assert out.code == 0 and out.stdout == "DealTooLarge 1\n"


# -- results of any size, printed exactly ---------------------------------------------------


@pytest.mark.slow
def test_huge_results_are_printed_exactly() -> None:
    out = deals("term", "(1 or 2)^?", "100000")  # F(100001), 20,899 digits
    assert out.stdout.strip() == str(fmpz.fib_ui(100001))
    out = deals("term", "(1 or 2)^?", "100000", "--json")
    value = json.loads(out.stdout, parse_int=str)["value"]
    assert value == str(fmpz.fib_ui(100001))
    out = deals("gf", "(1 or 1)^120000")  # (2x)^120000
    assert out.stdout.splitlines()[0] == f"generating function: {fmpz(2) ** 120000}x^120000"
    out = deals("terms", "(1 or 1)^?", "--count", "20000")  # 2^n
    values = out.stdout.strip().split(", ")
    assert values[0] == "1" and values[-1] == str(fmpz(2) ** 19999)
    out = deals("sample", "(1 or 2)^?", "30000", "--cards", "none", "--seed", "1")
    assert out.stdout.splitlines()[0] == (
        f"'(1 or 2)^?' on 30000 cards: one of {fmpz.fib_ui(30001)} ways (seed 1)")


def test_numbers_of_any_length() -> None:
    huge = "1" + "0" * 5000
    assert deals("terms", huge, "--count", "3").stdout == "0, 0, 0\n"
    assert deals("terms", f"0^{huge}", "--count", "2").stdout == "1, 0\n"
    out = deals("terms", f"({huge} * 1)^?", "--count", "3", "--json")
    data = json.loads(out.stdout, parse_int=str)
    assert data["normal"] == f"({huge} * 1)^?"
    assert data["terms"] == ["1", huge, str(fmpz(10) ** 10000)]


@pytest.mark.slow
def test_near_the_budget_a_result_fits_the_memory_limit() -> None:
    # about 85 MiB of kept series and 480 MiB of working memory for the last product
    out = deals("terms", "(1 or 2)^? (1 or 2)^?", "--count", "20000")
    values = out.stdout.strip().split(", ")
    assert len(values) == 20000 and values[:6] == ["1", "2", "5", "10", "20", "38"]


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("case", LIMITS, ids=lambda c: " ".join(c["args"])[:60])
def test_over_the_budget_is_one_line(case: dict) -> None:
    out = deals(*case["args"])
    assert out.code == 1 and out.stdout == ""
    assert re.match(case["error"], out.stderr.splitlines()[0]), out.stderr


# -- fuzzing --------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_generated_requests_give_results_or_refusals(seed: int) -> None:
    args = fuzz.command(random.Random(f"deals-fuzz-{seed}"))
    out = fuzz.run(args)
    assert fuzz.problems(out) == [], (args, out.code, out.stderr[-2000:])
