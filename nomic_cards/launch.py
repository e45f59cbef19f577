"""The ``nomic-cards`` console script: a fast path for ``bridge run`` and ``bridge prob``, Typer
for the rest.

``bridge run`` is often run for short jobs (ten thousand deals in a fraction of a second), where
importing Typer and what it pulls in would cost more than the dealing. So a command line of the
form ``nomic-cards bridge run [options] SCRIPT`` whose options are all spelled plainly and
valid is parsed here and run straight away (:func:`nomic_cards.bridge.command.run_command`);
likewise ``bridge prob EXPR`` and ``bridge prob --script FILE`` (with or without ``--json``).
Anything else -- ``--help``, an unknown or misspelt option, a value out of range, a bad
option combination, root options such as ``--db``, every other command -- goes to the Typer
application (:func:`nomic_cards.cli.main`), which gives the usual help and usage errors. Both
paths run the same code, so they behave alike; the fast one ends the process as soon as the
output is flushed.
"""

from __future__ import annotations

import os
import sys
from typing import Any

# bridge run's options: name -> (field, kind, low, high); kind "int", "str" or a flag value
_VALUE_OPTIONS: dict[str, tuple[str, str, int, int]] = {
    "-p": ("produce", "int", 0, 2**63), "--produce": ("produce", "int", 0, 2**63),
    "-g": ("generate", "int", 0, 2**63), "--generate": ("generate", "int", 0, 2**63),
    "-s": ("seed", "int", 0, 2**64 - 1), "--seed": ("seed", "int", 0, 2**64 - 1),
    "-j": ("jobs", "int", 1, 64), "--jobs": ("jobs", "int", 1, 64),
    "-f": ("fmt", "str", 0, 0), "--format": ("fmt", "str", 0, 0),
}
_FLAGS: dict[str, tuple[str, bool]] = {
    "--dealer-compatible": ("dealer_compatible", True), "-2": ("swap2", True),
    "-3": ("swap3", True), "-0": ("no_swap", True), "-v": ("toggle_verbose", True),
    "--strict": ("strict", True), "-m": ("meter", True), "--progress": ("meter", True),
    "-M": ("meter", False), "--no-progress": ("meter", False), "--dd": ("dd", True),
    "--stack": ("stack", True), "--exact": ("exact_rate", True),
}


def parse_bridge_run(argv: list[str]) -> dict[str, Any] | None:
    """The options of ``bridge run`` given ``argv`` after ``bridge run``, or ``None`` when the
    command line is anything but plain and valid (the Typer application then handles it)."""
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional.extend(argv[i:])
            break
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        if arg in _FLAGS:
            name, flag = _FLAGS[arg]
            values[name] = flag
            continue
        opt, value = arg, None
        if arg.startswith("--") and "=" in arg:
            opt, value = arg.split("=", 1)
        elif not arg.startswith("--") and len(arg) > 2:
            opt, value = arg[:2], arg[2:]
        if opt not in _VALUE_OPTIONS:
            return None
        if value is None:
            if i == len(argv):
                return None
            value = argv[i]
            i += 1
        name, kind, low, high = _VALUE_OPTIONS[opt]
        if kind == "int":
            # ASCII digits only (int() takes other scripts' too); anything else goes to Typer
            if not (value.isascii() and value.isdigit() and len(value) <= 30):
                return None
            number = int(value)
            if not low <= number <= high:
                return None
            values[name] = number
        else:
            values[name] = value
    if len(positional) != 1:
        return None
    values["script"] = positional[0]
    return values


def parse_bridge_prob(argv: list[str]) -> dict[str, Any] | None:
    """``bridge prob``'s arguments (``expr``, ``script``, ``as_json``) given ``argv`` after
    ``bridge prob``, or ``None`` unless the command line is plain and valid."""
    values: dict[str, Any] = {"expr": None, "script": None, "as_json": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--json":
            values["as_json"] = True
        elif arg in ("--script", "-f") and i < len(argv) and values["script"] is None:
            values["script"] = argv[i]
            i += 1
        elif not arg.startswith("-") and values["expr"] is None:
            values["expr"] = arg
        else:
            return None
    if (values["expr"] is None) == (values["script"] is None):
        return None
    return values


def _bridge(command: str, values: dict[str, Any]) -> int:
    """Run ``bridge run`` or ``bridge prob``; the exit status."""
    from nomic_cards.bridge.command import RunArgs, prob_command, run_command
    from nomic_cards.errors import NomicCardsError

    try:
        if command == "run":
            run_command(RunArgs(**values))
        else:
            prob_command(**values)
    except NomicCardsError as exc:
        sys.stdout.flush()
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\nAborted!\n")
        return 1
    return 0


def _finish(code: int) -> None:
    """Flush the output and end the process without the interpreter's teardown (nothing is
    left running: worker pools are shut down when the run ends)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or 1
    sys.stderr.flush()
    os._exit(code)


def main() -> None:
    """Console-script entry point."""
    argv = sys.argv[1:]
    values = None
    if argv[:2] == ["bridge", "run"]:
        values = parse_bridge_run(argv[2:])
        if values is not None:
            from nomic_cards.bridge.command import RunArgs, UsageProblem, check_usage

            try:
                check_usage(RunArgs(**values))
            except UsageProblem:
                values = None  # Typer reports it
    elif argv[:2] == ["bridge", "prob"]:
        values = parse_bridge_prob(argv[2:])
    if values is not None:
        try:
            code = _bridge(argv[1], values)
        except BrokenPipeError:  # the reader went away (e.g. `| head`)
            code = 1
        _finish(code)
    from nomic_cards.cli import main as full

    full()
