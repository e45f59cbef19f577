"""The wheel must carry every package, the migrations included."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "nomic_cards").rglob("__init__.py")
    }
    found |= {"nomic_cards.migrations", "nomic_cards.migrations.versions"}
    missing = sorted(found - listed)
    assert not missing, f"add these packages to [tool.setuptools] packages: {missing}"
