"""The ``nomic-cards`` and ``nomic-dealer`` console scripts: a fast path for ``bridge run``
(``nomic-dealer`` is ``bridge run`` alone) and ``bridge prob``, Typer for the rest.

``bridge run`` is often run for short jobs (ten thousand deals in a fraction of a second), where
importing Typer and what it pulls in would cost more than the dealing. So a command line of the
form ``nomic-cards bridge run [options] SCRIPT`` (or ``nomic-dealer [options] SCRIPT``) whose
options are all spelled plainly and valid is parsed by
:func:`nomic_cards.bridge.run.command.parse_run_argv` -- built from the one declaration of the
options, :class:`~nomic_cards.bridge.run.command.RunArgs`, as the Typer command is -- and run
straight away (:func:`nomic_cards.bridge.run.command.run_command`);
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


def _bridge(command: str, values: Any) -> int:
    """Run ``bridge run`` (``values``: its :class:`RunArgs`) or ``bridge prob`` (its
    arguments); the exit status."""
    from nomic_cards.bridge.run.command import prob_command, run_command
    from nomic_cards.errors import NomicCardsError

    try:
        if command == "run":
            run_command(values)
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


def _fast(command: str, values: Any) -> None:
    """Run ``command`` on the fast path and end the process."""
    try:
        code = _bridge(command, values)
    except BrokenPipeError:  # the reader went away (e.g. `| head`)
        code = 1
    _finish(code)


def main() -> None:
    """The ``nomic-cards`` console script."""
    argv = sys.argv[1:]
    values: Any = None
    if argv[:2] == ["bridge", "run"]:
        from nomic_cards.bridge.run.command import parse_run_argv

        values = parse_run_argv(argv[2:])
    elif argv[:2] == ["bridge", "prob"]:
        values = parse_bridge_prob(argv[2:])
    if values is not None:
        _fast(argv[1], values)
    from nomic_cards.cli import main as full

    full()


def dealer() -> None:
    """The ``nomic-dealer`` console script: ``nomic-cards bridge run`` under a name of its own
    (as dealer is called); the same options, the same fast start."""
    from nomic_cards.bridge.run.command import parse_run_argv

    values = parse_run_argv(sys.argv[1:])
    if values is not None:
        _fast("run", values)
    from nomic_cards.cli import dealer_main

    dealer_main()
