"""What the server benchmarks share: running one benchmark on SQLite and on PostgreSQL."""

from __future__ import annotations

import tempfile
from collections.abc import Callable

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
