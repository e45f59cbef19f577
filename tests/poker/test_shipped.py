"""The precomputed tables shipped in the package: equal to the generator, in the wheel, and the
single-hand path loads them without numpy."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nomic_cards.poker import layout
from nomic_cards.poker.classes import GAMES, scale
from nomic_cards.poker.generate import DATA, to_bytes
from nomic_cards.poker.shipped import game_tables

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", GAMES)
def test_shipped_tables_equal_the_generator(game: str) -> None:
    """Byte for byte: regenerate with ``python -m nomic_cards.poker.generate`` if this fails."""
    assert (DATA / f"{game}.bin").read_bytes() == to_bytes(game)


@pytest.mark.parametrize("game", GAMES)
def test_shipped_values_equal_the_scale(game: str) -> None:
    assert game_tables(game).values() == scale(game).values


def test_the_rank_index_numbers_every_multiset_once() -> None:
    for n in layout.SIZES:
        keys = layout.all_keys(n)
        assert len(keys) == len(set(keys)) == layout.entries(n)
        assert [layout.index(k, n) for k in keys] == list(range(len(keys)))
        sizes = [layout.size_of(k) for k in keys]
        assert max(sizes) == n and min(sizes) == 0


def test_single_hands_need_no_numpy() -> None:
    code = ("import sys\n"
            "from nomic_cards.poker import evaluate\n"
            "print(evaluate([48, 12, 33, 7, 20, 51, 2]).label, evaluate('As Ks Qs Js Ts').label)\n"
            "print(sorted(m for m in ('numpy', 'nomic_cards.poker.batch') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.splitlines()
    assert out == ["Full house, nines over aces Royal flush", "[]"]


@pytest.mark.slow
def test_the_wheel_carries_the_tables(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("nomic_cards", "migrations"):
        shutil.copytree(ROOT / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-q", "-w", str(tmp_path / "dist"), str(src)], check=True,
                   capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        for game in GAMES:
            shipped = z.read(f"nomic_cards/poker/data/{game}.bin")
            assert shipped == (DATA / f"{game}.bin").read_bytes()


def test_every_public_name_resolves() -> None:
    """The package resolves most names on first use; each one listed must be there."""
    import nomic_cards.poker as poker

    for name in poker.__all__:
        assert getattr(poker, name) is not None, name
    with pytest.raises(AttributeError):
        poker.no_such_name  # type: ignore[attr-defined]  # noqa: B018
