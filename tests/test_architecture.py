"""Layering rules from DESIGN.md, checked by walking every module's imports.

Every module of the package is assigned to a layer by the allow-list ``LAYERS`` below; a module
the list does not place fails :func:`test_every_module_has_a_layer`, so a new module must be
placed deliberately. A layer may import only the layers ``MAY_IMPORT`` names for it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "nomic_cards"

#: Module or package name -> layer. A package entry covers every module inside it.
LAYERS: dict[str, str] = {
    "nomic_cards": "foundation",
    "nomic_cards.errors": "foundation",
    "nomic_cards.plain": "foundation",
    "nomic_cards.inputs": "foundation",
    # libraries for the games played with the cards: usable alone, never import the core
    "nomic_cards.cards": "library",
    "nomic_cards.poker": "library",
    "nomic_cards.deals": "library",
    "nomic_cards.randomizers": "library",
    "nomic_cards.bridge": "library",
    "nomic_cards.bridge.deal": "library",
    "nomic_cards.bridge.exact": "library",
    "nomic_cards.bridge.language": "library",
    "nomic_cards.bridge.output": "library",
    "nomic_cards.bridge.run": "library",
    "nomic_cards.bridge.shapes": "library",
    # the game core, bottom to top
    "nomic_cards.core": "core.api",
    "nomic_cards.core.api": "core.api",
    "nomic_cards.core.clock": "core.base",
    "nomic_cards.core.dice": "core.base",
    "nomic_cards.core.calendar": "core.base",
    "nomic_cards.core.settings": "core.base",
    "nomic_cards.core.ruleset": "core.base",
    "nomic_cards.core.resolution": "core.base",
    "nomic_cards.core.actions": "core.engine",
    "nomic_cards.core.engine": "core.engine",
    "nomic_cards.core.installed": "core.base",
    "nomic_cards.core.ledger": "core.ledger",
    "nomic_cards.core.rules": "core.rules",
    "nomic_cards.core.report": "core.rules",
    "nomic_cards.core.store": "core.store",
    "nomic_cards.core.mail": "core.services",
    "nomic_cards.core.nomic": "core.services",
    "nomic_cards.core.services": "core.services",
    # the card games: the SDK a game imports (the engine and Points are the core's), and each
    # game's package (its commands are an adapter's)
    "nomic_cards.cardgames": "sdk",
    "nomic_cards.cardgames.sdk": "sdk",
    "nomic_cards.cardgames.pooker": "cardgame",
    "nomic_cards.cardgames.pooker.commands": "adapter.cli",
    # adapters on top
    "nomic_cards.cli": "adapter.cli",
    "nomic_cards.launch": "adapter.cli",
    "nomic_cards.__main__": "adapter.cli",
    "nomic_cards.server": "adapter.server",
    "nomic_cards.mail": "adapter.mail",
}

_BELOW_SERVICES = {"core.base", "core.ledger", "core.rules", "core.store", "core.engine"}
MAY_IMPORT: dict[str, set[str]] = {
    "foundation": {"foundation"},
    "library": {"foundation", "library"},
    "core.base": {"foundation", "library", "core.base"},
    "core.ledger": {"foundation", "library", "core.base", "core.ledger"},
    "core.rules": {"foundation", "library", "core.base", "core.ledger", "core.rules"},
    "core.store": {"foundation", "library", "core.base", "core.ledger", "core.store"},
    # what a card game declares, and the engine that runs the installed games
    "core.engine": {"foundation", "library", "core.base", "core.ledger", "core.store",
                    "core.engine"},
    "core.services": {"foundation", "library", "core.services", *_BELOW_SERVICES},
    "sdk": {"foundation", "library", "core.services", *_BELOW_SERVICES},
    # a card game: the SDK, the libraries and itself -- never the core directly
    "cardgame": {"foundation", "library", "sdk", "cardgame"},
    "core.api": {"foundation", "library", "core.api", "core.services", *_BELOW_SERVICES},
    "adapter.cli": {"foundation", "library", "core.api", "core.services", "sdk", "cardgame",
                    "adapter.cli", "adapter.mail", *_BELOW_SERVICES},
    "adapter.server": {"foundation", "library", "core.api", "core.services",
                       "adapter.server", *_BELOW_SERVICES},
    # the mailing list's adapter: read by the command line's `mail` commands
    "adapter.mail": {"foundation", "library", "core.services", "adapter.mail",
                     *_BELOW_SERVICES},
}

#: Third-party packages that only these places may import.
OWNED_IMPORTS = {
    "sqlalchemy": ("nomic_cards.core.store", "nomic_cards.migrations"),
    "alembic": ("nomic_cards.core.store", "nomic_cards.migrations"),
    "typer": ("nomic_cards.cli", "nomic_cards.cardgames.pooker.commands"),
    "click": ("nomic_cards.cli",),
    "starlette": ("nomic_cards.server",),
    "fastapi": ("nomic_cards.server",),
    "uvicorn": ("nomic_cards.server", "nomic_cards.cli"),
    "pydantic": ("nomic_cards.server",),
}


def _module_name(path: Path) -> str:
    if path.is_relative_to(ROOT / "migrations"):
        parts = ["nomic_cards", "migrations",
                 *path.relative_to(ROOT / "migrations").with_suffix("").parts]
    else:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = sorted(PKG.rglob("*.py"))
MIGRATIONS = sorted((ROOT / "migrations").rglob("*.py"))
KNOWN = {_module_name(p) for p in MODULES}


def _imports(path: Path, *, runtime: bool = False) -> set[str]:
    """The modules ``path`` imports; with ``runtime``, not those under ``if TYPE_CHECKING:``
    (annotations only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if runtime:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                node.body = [ast.Pass()]
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
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # ``from nomic_cards.core import services`` imports the submodule, not the package
            subs = [f"{module}.{a.name}" for a in node.names]
            modules = [m for m in subs if m in KNOWN]
            found.update(modules)
            if len(modules) < len(subs):
                found.add(module)
    return found


def layer_of(module: str) -> str | None:
    """The layer of a module: the entry of its longest listed prefix (the package's root entry
    ``nomic_cards`` covers only ``nomic_cards/__init__.py``)."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name == "nomic_cards" and n != len(parts):
            return None
        if name in LAYERS:
            return LAYERS[name]
    return None


def _target_layer(imported: str) -> str | None:
    """The layer of an imported name (``pkg.module.function`` counts as ``pkg.module``)."""
    parts = imported.split(".")
    for n in range(len(parts), 0, -1):
        layer = layer_of(".".join(parts[:n]))
        if layer is not None:
            return layer
    return None


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_every_module_has_a_layer(path: Path) -> None:
    mod = _module_name(path)
    assert layer_of(mod) is not None, (
        f"{mod} is in no layer: add it to LAYERS in tests/test_architecture.py and to the "
        "layer table in docs/architecture.md")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_layering(path: Path) -> None:
    mod = _module_name(path)
    own = layer_of(mod)
    assert own is not None
    bad = []
    for imp in sorted(_imports(path)):
        if not imp.startswith("nomic_cards"):
            continue
        if imp.startswith("nomic_cards.migrations"):
            bad.append(imp)
            continue
        target = _target_layer(imp)
        if target is not None and target not in MAY_IMPORT[own]:
            bad.append(f"{imp} ({target})")
    assert not bad, f"{mod} ({own}) imports what its layer may not: {bad}"


def test_the_rules_catch_a_violation() -> None:
    """The checker itself: a library importing the store, the ledger importing a service."""
    assert _target_layer("nomic_cards.core.store.models") not in MAY_IMPORT["library"]
    assert _target_layer("nomic_cards.core.services.deal") not in MAY_IMPORT["core.ledger"]
    assert layer_of("nomic_cards.newthing") is None
    assert layer_of("nomic_cards.core.newthing") == "core.api"  # inside the package: covered


@pytest.mark.parametrize("path", MODULES + MIGRATIONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_third_party_imports_stay_in_their_place(path: Path) -> None:
    mod = _module_name(path)
    for imp in _imports(path):
        owners = OWNED_IMPORTS.get(imp.split(".")[0])
        if owners is not None:
            assert mod.startswith(owners), f"{mod} imports {imp}, which only {owners} may"


def test_the_layer_table_names_real_modules() -> None:
    """An entry for a module that does not exist is a stale rule."""
    stale = [name for name in LAYERS if name not in KNOWN]
    assert not stale, f"LAYERS names modules that do not exist: {stale}"


def test_libraries_import_without_the_core() -> None:
    """Importing the libraries loads no module of the core, SQLAlchemy or Typer."""
    code = (
        "import sys\n"
        "import nomic_cards.poker, nomic_cards.deals, nomic_cards.randomizers, "
        "nomic_cards.bridge, nomic_cards.cards\n"
        "print(sorted(m for m in sys.modules if m.startswith(('nomic_cards.core', "
        "'nomic_cards.cli', 'sqlalchemy', 'typer', 'alembic'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("library", ["poker", "deals", "randomizers", "bridge"])
def test_no_library_module_imports_one_that_imports_it_back(library: str) -> None:
    """Within a library, imports (at the top or inside functions, package ``__init__`` files
    aside) form no cycle: a cycle works only by the order modules happen to load in."""
    prefix = f"nomic_cards.{library}."
    graph = {_module_name(p): {i for i in _imports(p) if i.startswith(prefix) and i in KNOWN}
             for p in MODULES if _module_name(p).startswith(prefix)
             and p.name != "__init__.py"}
    cycles = [(a, b) for a, deps in graph.items() for b in deps
              if a in graph.get(b, set())]
    assert cycles == []


#: The bridge library's own levels, bottom to top: a module imports (at run time) only modules of
#: its own level or below. Every module of nomic_cards.bridge is in one of these.
BRIDGE_LEVELS: dict[str, int] = {
    "nomic_cards.bridge": 0,  # the package's docstring
    "nomic_cards.bridge.deck": 0,  # seats, suits, ranks
    "nomic_cards.bridge.errors": 0,
    "nomic_cards.bridge.shapes": 1,  # dealer.dpp shape specs
    "nomic_cards.bridge.language": 2,  # the dealer language, its parser and syntax tree
    "nomic_cards.bridge.output": 3,  # dealer's layouts, PBN/LIN/JSON
    "nomic_cards.bridge.deal": 3,  # the deal stream, batches, tables, the evaluator
    "nomic_cards.bridge.exact": 4,  # exact probabilities, smart stacking
    "nomic_cards.bridge.run": 5,  # the run loop, the command, the compiled loop
}


def _bridge_level(module: str) -> int | None:
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        level = BRIDGE_LEVELS.get(".".join(parts[:n]))
        if level is not None:
            return level
    return None


BRIDGE_MODULES = [p for p in MODULES if _module_name(p).startswith("nomic_cards.bridge")]


@pytest.mark.parametrize("path", BRIDGE_MODULES, ids=lambda p: str(p.relative_to(PKG)))
def test_the_bridge_library_is_layered(path: Path) -> None:
    """language above shapes, deal and output above language, exact above deal, run on top."""
    mod = _module_name(path)
    own = _bridge_level(mod)
    assert own is not None, f"{mod}: place it in BRIDGE_LEVELS (tests/test_architecture.py)"
    up = [i for i in sorted(_imports(path, runtime=True)) if i.startswith("nomic_cards.bridge.")
          and (_bridge_level(i) or 0) > own]
    assert not up, f"{mod} (level {own}) imports from a higher level: {up}"


def test_the_generated_parser_imports_no_sibling_module() -> None:
    """lark's stand-alone parser imports nothing from beside it (``from .lexer import Token``
    would find the bridge's own ``lexer`` module, which only works because the names match)."""
    text = (PKG / "bridge" / "language" / "dealer_lalr.py").read_text(encoding="utf-8")
    assert "from .lexer" not in text and "import nomic_cards" not in text


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_one_that_imports_it_back() -> None:
    """The whole package's imports (at the top, inside functions, for annotations; a package's
    ``__init__`` aside) form no circle: each module can be read, and loaded, after what it
    imports."""
    graph = {_module_name(p): {i for i in _imports(p) if i in KNOWN}
             for p in MODULES if p.name != "__init__.py"}
    for deps in graph.values():
        deps.difference_update(n for n in list(deps) if n not in graph)
    assert _cycles(graph) == []


SEAMS = ("nomic_cards.core", "nomic_cards.cardgames", "nomic_cards.cli", "nomic_cards.server",
         "nomic_cards.mail", "nomic_cards.launch")


@pytest.mark.parametrize("path", [p for p in MODULES if _module_name(p).startswith(SEAMS)],
                         ids=lambda p: str(p.relative_to(PKG)))
def test_no_module_of_the_core_games_or_adapters_imports_a_private_name(path: Path) -> None:
    """What the core, the card games and the adapters share across files is public: no
    ``from module import _name`` (a name another module keeps to itself)."""
    private = [f"{node.module}.{alias.name}" for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.ImportFrom) and node.module != "__future__"
               for alias in node.names if alias.name.startswith("_")]
    assert private == [], f"{_module_name(path)} imports private names: {private}"
