"""Fixtures for the bridge tests: Debian's dealer binary (skipped without it, failing under CI)
and helpers that run a script through dealer and through the library."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.run.loop import RunOptions, run

EXAMPLES = Path("/usr/share/doc/dealer/examples")
_TIME = re.compile(r"^Time needed .*$", re.M)


def dealer_path() -> str | None:
    return shutil.which("dealer") or shutil.which("/usr/games/dealer")


@pytest.fixture(scope="session")
def dealer() -> str:
    path = dealer_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's dealer is not installed under CI (apt-get install dealer)")
        pytest.skip("Debian's dealer is not installed (apt-get install dealer)")
    return path


@pytest.fixture(scope="session")
def examples(dealer: str) -> Path:
    if not EXAMPLES.exists():  # pragma: no cover - shipped with the package
        pytest.fail(f"{EXAMPLES} is missing although dealer is installed")
    return EXAMPLES


def run_dealer(dealer: str, path: Path, *args: str) -> str:
    """dealer's standard output for a script file, the timing line blanked."""
    done = subprocess.run([dealer, *args, str(path)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr
    return _TIME.sub("Time needed", done.stdout)


def run_library(path: Path, **options: object) -> str:
    """The library's text output for a script file, the timing line blanked."""
    out: list[str] = []
    script = parse_script(path.read_text(encoding="utf-8"))
    run(script, RunOptions(event_file=str(path), **options), out.append)  # type: ignore[arg-type]
    return _TIME.sub("Time needed", "".join(out))
