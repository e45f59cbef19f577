"""The test run says what it skipped: without Chromium, Debian's dealer or PostgreSQL, one line
at the end names each group skipped and how to install what it needs; under ``CI`` those tests
fail instead of skipping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import skipped_summary

ROOT = Path(__file__).resolve().parent.parent


def test_the_line_names_each_group_and_how_to_install_it() -> None:
    reasons = [
        "headless Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
        "headless Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
        "Debian's dealer is not installed (apt-get install dealer)",
        "PostgreSQL unreachable: OperationalError: connection refused",
        "the dd extra (endplay) is not installed",
    ]
    assert skipped_summary(reasons) == (
        "skipped the page's tests (2: apt-get install chromium, and pip install -e '.[test]'); "
        "the bridge tests against Debian's dealer (1: apt-get install dealer); the PostgreSQL "
        "tests (1: apt-get install postgresql and start it, or point NOMIC_CARDS_TEST_PG at a "
        "server)")
    assert skipped_summary(["the dd extra (endplay) is not installed"]) is None
    assert skipped_summary([]) is None


def _run(ci: bool) -> subprocess.CompletedProcess[str]:
    """A run of the PostgreSQL variants of a few tests, against a server that is not there."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER")}
    env["NOMIC_CARDS_TEST_PG"] = "postgresql+psycopg://postgres@127.0.0.1:9/test"
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "pg",
                           "-p", "no:xdist", "tests/test_points_bounds.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_run_without_postgresql_says_so_and_fails_under_ci() -> None:
    quiet = _run(ci=False)
    assert quiet.returncode == 0, quiet.stdout[-2000:]
    lines = [ln for ln in quiet.stdout.splitlines() if ln.startswith("skipped ")]
    assert lines == ["skipped the PostgreSQL tests (2: apt-get install postgresql and start it, "
                     "or point NOMIC_CARDS_TEST_PG at a server)"], quiet.stdout[-2000:]
    under_ci = _run(ci=True)
    assert under_ci.returncode == 1, under_ci.stdout[-2000:]
    assert "2 errors" in under_ci.stdout and "is unreachable under CI" in under_ci.stdout
    assert "skipped the" not in under_ci.stdout
