"""What the server benchmarks share: running one benchmark on SQLite and on PostgreSQL, waiting
for a started server to answer, fresh PostgreSQL schemas and databases, percentiles, and the
resident memory of processes."""

from __future__ import annotations

import math
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from tests.conftest import drop_pg_schema, new_pg_schema_url, pg_base_url, pg_unreachable_reason


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


def wait_healthy(proc: subprocess.Popen[bytes], base: str, log: Path, *,
                 path: str = "/healthz", what: str = "the server") -> None:
    """Wait up to about 30 s for ``base`` + ``path`` to answer 200; otherwise kill ``proc``
    and exit saying ``what`` did not start, with the end of its log."""
    for _ in range(300):
        try:
            if httpx.get(f"{base}{path}", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"{what} did not start: {log.read_text()[-2000:]}")


def pg_reason() -> str | None:
    """None when the PostgreSQL server of the tests answers, else why not."""
    return pg_unreachable_reason()


@contextmanager
def pg_schema() -> Iterator[str]:
    """The URL of a fresh PostgreSQL schema (its search_path), dropped afterwards."""
    url, schema = new_pg_schema_url()
    try:
        yield url
    finally:
        drop_pg_schema(schema)


@contextmanager
def pg_database(prefix: str) -> Iterator[str]:
    """A fresh PostgreSQL database on the tests' server, as a plain ``postgresql://`` URL
    (for a program that is not ours); dropped afterwards, its connections ended."""
    import psycopg

    base = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'create database "{name}"')
    parts = urlsplit(base)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'drop database if exists "{name}" with (force)')


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0 to 100) of ``values`` by nearest rank; NaN for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def rss_kib(pids: Sequence[int]) -> int:
    """The resident memory of the processes ``pids``, added up, in KiB."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total
