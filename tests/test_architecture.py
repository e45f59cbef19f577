"""Layering rules from DESIGN.md, checked by walking every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "nomic_cards"
LIBRARIES = ("cards", "poker", "deals", "randomizers", "bridge")
CORE = ("ledger", "rules", "store", "services", "cli", "clock", "dice")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    mod = _module_name(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                found.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                found.add(node.module)
    return found


MODULES = sorted(PKG.rglob("*.py"))


def _top(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "nomic_cards" else ""


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_layering(path: Path) -> None:
    mod = _module_name(path)
    imports = _imports(path)
    own = _top(mod)
    if own in LIBRARIES:
        bad = sorted(i for i in imports if _top(i) in CORE)
        assert not bad, f"library module {mod} imports the core: {bad}"
    if own != "store" and not mod.startswith("nomic_cards.migrations"):
        leaked = sorted(i for i in imports if i.split(".")[0] in ("sqlalchemy", "alembic"))
        assert not leaked, f"{mod} imports SQLAlchemy/Alembic outside store: {leaked}"
    if own != "cli":
        leaked = sorted(i for i in imports if i.split(".")[0] in ("typer", "click"))
        assert not leaked, f"{mod} imports Typer outside cli: {leaked}"
