"""The optional compiled accelerator: the same results as the pure-Python path (the shared
single-hand tests run both), switched off on request, and never needed to install."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nomic_cards.poker import evaluate
from nomic_cards.poker.evaluate import pure_evaluate

ROOT = Path(__file__).resolve().parents[2]
BUILT = importlib.util.find_spec("nomic_cards.poker._accel") is not None


def _run(code: str, cwd: Path = ROOT, **env: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=cwd, env={**os.environ, **env}).stdout.strip()


def test_the_public_call_is_the_accelerator_when_built() -> None:
    """CI installs a C compiler (``.ci/run``), so there the accelerator must be built and its
    results are checked against the pure-Python path by the shared single-hand tests."""
    if not BUILT:
        if os.environ.get("CI"):
            pytest.fail("the accelerator is not built: is gcc installed (.ci/run)?")
        pytest.skip("the accelerator is not built (no C compiler at install)")
    assert evaluate is not pure_evaluate
    assert evaluate.__name__ == "evaluate"
    assert "cards, wild=None, game='high'" in str(evaluate.__text_signature__)  # type: ignore[attr-defined]


def test_the_accelerator_can_be_switched_off() -> None:
    code = ("from nomic_cards.poker import evaluate\n"
            "from nomic_cards.poker.evaluate import pure_evaluate\n"
            "print(evaluate is pure_evaluate, evaluate('As Ks Qs Js Ts').label)")
    assert _run(code, NOMIC_CARDS_PURE_PYTHON="1") == "True Royal flush"


@pytest.mark.slow
def test_installs_without_a_compiler(tmp_path: Path) -> None:
    """``pip install .`` needs no compiler: with none, the wheel leaves the accelerator out and
    evaluation runs in pure Python."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("nomic_cards", "migrations"):
        shutil.copytree(ROOT / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path / "dist"), str(src)], check=True, capture_output=True,
                   env={**os.environ, "CC": "/bin/false"})
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert not [n for n in z.namelist() if n.endswith((".so", ".pyd"))]
        z.extractall(tmp_path / "site")
    site = tmp_path / "site"
    code = ("import nomic_cards.poker as p\n"
            "from nomic_cards.poker.evaluate import pure_evaluate\n"
            f"print(p.__file__.startswith({str(site)!r}), p.evaluate is pure_evaluate,\n"
            "      p.evaluate([48, 12, 33, 7, 20, 51, 2]).label)")
    out = _run(code, cwd=tmp_path, PYTHONPATH=str(site))
    assert out == "True True Full house, nines over aces"
