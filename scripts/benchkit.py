"""What the server benchmarks share: running one benchmark on SQLite and on PostgreSQL, and
waiting for a started server to answer."""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_unreachable_reason


def on_each_backend(bench: Callable[[str, str], list[str]], *, skip_pg: bool) -> list[str]:
    """The table rows ``bench(name, url)`` gives on a fresh SQLite file and, unless skipped or
    unreachable, on a fresh PostgreSQL schema (dropped afterwards)."""
    rows: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        rows += bench("SQLite", f"sqlite:///{d}/bench.db")
    if not skip_pg and pg_unreachable_reason() is None:
        url, schema = new_pg_schema_url()
        try:
            rows += bench("PostgreSQL", url)
        finally:
            drop_pg_schema(schema)
    return rows


def wait_healthy(proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
    """Wait up to about 30 s for ``base/healthz`` to answer 200; otherwise kill ``proc`` and
    exit with the end of its log."""
    for _ in range(300):
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")
