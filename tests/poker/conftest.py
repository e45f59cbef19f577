"""Shared helpers for the poker tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "poker"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def corpus(name: str) -> list[tuple[str, str]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").split("\n"):
        if line.startswith("#") or "\t" not in line:
            continue
        text, expected = line.split("\t", 1)
        rows.append((text, expected))
    return rows
