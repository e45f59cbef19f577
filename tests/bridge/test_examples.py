"""Dealer's shipped example scripts, run by the library's own dealing (not dealer-compatible):
their statistics agree with Debian dealer's within sampling error.

Each example runs in both programs with the same limits and fixed seeds. Acceptance rates
(produced / generated) are compared by a two-proportion z test, frequency tables by a
chi-square test of homogeneity (bins with expected counts under 5 merged), averages of 0/1
expressions by a z test; every test uses the level 1e-5 (|z| < 4.42, chi-square below the
Wilson-Hilferty quantile), so with the seeds fixed a failure means a real difference.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tests.bridge.conftest import run_dealer, run_library

Z = 4.42  # two-sided 1e-5


def _chi2_critical(df: int, z: float = 4.265) -> float:  # one-sided 1e-5
    return float(df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3)


def _counts(text: str) -> tuple[int, int]:
    gen = re.search(r"^\f?Generated (\d+) hands", text, re.M)
    prod = re.search(r"^Produced (\d+) hands", text, re.M)
    assert gen and prod, text[-500:]
    return int(gen.group(1)), int(prod.group(1))


def _frequencies(text: str) -> dict[str, dict[str, int]]:
    tables: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    for line in text.splitlines():
        head = re.match(r"^Frequency (.*):$", line)
        if head:
            current = tables.setdefault(head.group(1) + f"#{len(tables)}", {})
            continue
        row = re.match(r"^\s*(-?\d+|Low|High)\t\s*(\d+)$", line)
        if row and current is not None:
            current[row.group(1)] = int(row.group(2))
        elif current is not None and line.strip():
            current = None
    return tables


def _averages(text: str) -> dict[str, float]:
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^([^\n:]+): (-?[\d.e+-]+|-?nan)$", text, re.M)}


def _two_proportions(k1: int, n1: int, k2: int, n2: int) -> float:
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) or 1e-12
    return abs(k1 / n1 - k2 / n2) / se


def _homogeneity(a: dict[str, int], b: dict[str, int]) -> tuple[float, int]:
    keys = sorted(set(a) | set(b), key=lambda k: -1e9 if k == "Low" else 1e9 if k == "High"
                  else int(k))
    rows = [[a.get(k, 0) for k in keys], [b.get(k, 0) for k in keys]]
    na, nb = sum(rows[0]), sum(rows[1])
    bins: list[list[int]] = []
    acc = [0, 0]
    for x, y in zip(*rows, strict=True):  # merge sparse neighbours left to right
        acc = [acc[0] + x, acc[1] + y]
        if min(acc) >= 5 and (acc[0] + acc[1]) * min(na, nb) / (na + nb) >= 5:
            bins.append(acc)
            acc = [0, 0]
    if acc != [0, 0]:
        if bins:
            bins[-1] = [bins[-1][0] + acc[0], bins[-1][1] + acc[1]]
        else:
            bins.append(acc)
    stat = 0.0
    for x, y in bins:
        tot = x + y
        for obs, n in ((x, na), (y, nb)):
            exp = tot * n / (na + nb)
            stat += (obs - exp) ** 2 / exp if exp else 0.0
    return stat, len(bins) - 1


CASES = [  # example, extra flags for both programs
    ("Descr.1c", ["-p", "20000"]),
    ("Descr.controls", ["-p", "3000"]),
    ("Descr.weaktwo", ["-g", "300000"]),
    ("Descr.junkstayman", ["-g", "1000000"]),
    ("Descr.stayman", ["-g", "400000"]),
    ("Descr.6c", ["-g", "300000"]),
    ("Descr.vvga2", ["-g", "300000"]),
    ("Descr.hm1dr2d", ["-g", "1000000"]),
    ("Descr.2nt", ["-p", "300"]),
    ("Descr.you_hold", ["-p", "400", "-g", "3000000"]),
    ("Descr.blue_team", ["-p", "400"]),
    ("Descr.yarb", ["-p", "150"]),
    ("Descr.notrump", ["-p", "300"]),
    ("Test.distribution", ["-g", "200000"]),
    ("Descr.test_dealer", ["-g", "100000"]),
]


def _options(flags: list[str]) -> dict[str, int]:
    names = {"-p": "produce", "-g": "generate"}
    return {names[f]: int(v) for f, v in zip(flags[::2], flags[1::2], strict=True)}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "flags"), CASES, ids=[c[0] for c in CASES])
def test_example_statistics_agree_with_dealer(examples: Path, dealer: str, name: str,
                                              flags: list[str]) -> None:
    path = examples / name
    theirs = run_dealer(dealer, path, "-s", "1", *flags)
    ours = run_library(path, seed=1, **_options(flags))
    g1, p1 = _counts(theirs)
    g2, p2 = _counts(ours)
    assert p1 > 0 and p2 > 0
    assert _two_proportions(p1, g1, p2, g2) < Z, (p1, g1, p2, g2)
    f1, f2 = _frequencies(theirs), _frequencies(ours)
    assert list(f1) == list(f2)
    for key in f1:
        stat, df = _homogeneity(f1[key], f2[key])
        if df > 0:
            assert stat < _chi2_critical(df), (key, stat, df, f1[key], f2[key])
    a1, a2 = _averages(theirs), _averages(ours)
    assert set(a1) == set(a2)
    for key, v1 in a1.items():  # 0/1 averages: proportions; others within 4.42 sd of 13/2
        v2 = a2[key]
        if 0 <= v1 <= 1 and 0 <= v2 <= 1 and key not in ("Clubs held by W", "hearts"):
            assert _two_proportions(round(v1 * p1), p1, round(v2 * p2), p2) < Z, key
        else:
            assert abs(v1 - v2) < Z * 6.5 * math.sqrt(1 / p1 + 1 / p2), key


def test_operator_order_example_prints_dealers_answers(examples: Path, dealer: str) -> None:
    path = examples / "Descr.test_operator_order"
    assert run_library(path, seed=1) == run_dealer(dealer, path, "-s", "1")
