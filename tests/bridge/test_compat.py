"""--dealer-compatible: deal for deal and byte for byte what Debian's dealer prints."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

import numpy as np
import pytest

from nomic_cards.bridge.deal.compat import GlibcBulk, GlibcRandom, glibc_state
from tests.bridge.conftest import run_dealer, run_library

SEATS = ("north", "east", "south", "west")
SUITS = ("spades", "hearts", "diamonds", "clubs")


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None or "libc.so.6" not in name:
        return None
    return ctypes.CDLL(name)


@pytest.mark.parametrize("seed", [0, 1, 7, 123456789, 2**31 - 1, 2**31, 2**32 - 1, 2**32 + 5])
def test_glibc_generator_matches_libc(seed: int) -> None:
    libc = _libc()
    if libc is None:
        pytest.skip("not a glibc system")
    libc.srand(ctypes.c_uint(seed & 0xFFFFFFFF))
    expected = [libc.rand() for _ in range(20000)]
    one = GlibcRandom(seed)
    assert [one.next() for _ in range(20000)] == expected
    bulk = GlibcBulk(seed)
    got = np.concatenate([bulk.take(5), bulk.take(9000), bulk.take(10995)])
    assert got.tolist() == [v & 0xFFFF for v in expected]


def test_glibc_state_first_words_are_the_park_miller_sequence() -> None:
    state = glibc_state(1)
    assert state[:3] == [1, 16807, 282475249]  # 16807**k mod (2**31 - 1)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("seed", "swap"), [(1, "-0"), (42, "-2"), (99, "-3"), (2**40 + 3, "-0")])
def test_deals_are_dealers_deal_for_deal(dealer: str, tmp_path: Path, seed: int,
                                         swap: str) -> None:
    script = _write(tmp_path, "s.dl", "produce 3000\npredeal north SAKQ, HA\n"
                                      "action printoneline\n")
    swapping = {"-0": 0, "-2": 2, "-3": 3}[swap]
    ours = run_library(script, seed=seed, dealer_compatible=True, swapping=swapping)
    assert ours == run_dealer(dealer, script, "-s", str(seed), swap)


def _functions_script() -> str:
    items: list[str] = []
    for seat in SEATS:
        items += [f"hcp({seat})", f"loser({seat})", f"control({seat})", f"cccc({seat})",
                  f"pt3({seat})", f"c13({seat})", f"top2({seat})"]
        for suit in SUITS:
            items += [f"{suit}({seat})", f"hcp({seat}, {suit})", f"loser({seat}, {suit})",
                      f"control({seat}, {suit})", f"quality({seat}, {suit})",
                      f"tens({seat}, {suit})", f"top4({seat}, {suit})"]
        items += [f"shape({seat}, any 4333 + any 5332 - 5xxx)", f"hascard({seat}, QH)"]
    items += ["score(nv, x3N, tricks9)", "score(vul, x6C, 11)", "imps(hcp(north) * 10)",
              "(hcp(north) - 20) / 3", "(hcp(north) - 20) % 3", "-7 / 2", "-7 % 2"]
    body = ', " ", '.join(items).replace("tricks9", "9")
    return ("produce 400\naltcount 5 2 1\npointcount 4 3 2 1 1\n"
            "condition hcp(north) >= 8 || hcp(south) > 15\n"
            f'action printes({body}, \\n),\n'
            "printoneline(pt5(north) + pt0(south)), printcompact(hcp(west)),\n"
            "average \"hcp\" hcp(north), frequency \"sp\" (spades(north), 2, 6),\n"
            "frequency \"2d\" (hcp(east), 3, 12, losers(west), 5, 9),\n"
            "print(east, south), printall, printew\n")


def test_every_function_and_layout_prints_like_dealer(dealer: str, tmp_path: Path) -> None:
    script = _write(tmp_path, "f.dl", _functions_script())
    for seed in (5, 77):
        ours = run_library(script, seed=seed, dealer_compatible=True)
        assert ours == run_dealer(dealer, script, "-s", str(seed))


def test_printpbn_and_its_verbose_toggle_like_dealer(dealer: str, tmp_path: Path) -> None:
    for produce in (3, 4):  # dealer's printpbn flips its statistics flag every time
        script = _write(tmp_path, "p.dl", f"produce {produce}\ndealer east\n"
                                          "action printpbn\n")
        ours = run_library(script, seed=11, dealer_compatible=True)
        assert ours == run_dealer(dealer, script, "-s", "11")
    script = _write(tmp_path, "v.dl", "produce 20\nvulnerable EW\naction printpbn\n")
    assert run_library(script, seed=3, dealer_compatible=True) == \
        run_dealer(dealer, script, "-s", "3")


SHIPPED = [("Descr.2nt", []), ("Descr.blue_team", []), ("Descr.yarb", []),
           ("Descr.you_hold", []), ("Descr.test_operator_order", []), ("Descr.evaluation", []),
           ("Descr.pbn", []), ("Descr.6c", ["-g", "100000"]), ("Descr.controls", ["-p", "500"]),
           ("Descr.notrump", []), ("Descr.weaktwo", ["-g", "50000"])]


@pytest.mark.parametrize(("name", "flags"), SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_examples_print_like_dealer(examples: Path, dealer: str, name: str,
                                            flags: list[str]) -> None:
    path = examples / name
    limits = {{"-g": "generate", "-p": "produce"}[f]: int(v) for f, v in zip(flags[::2],
                                                                               flags[1::2],
                                                                               strict=True)}
    ours = run_library(path, seed=17, dealer_compatible=True, **limits)
    assert ours == run_dealer(dealer, path, "-s", "17", *flags)


def test_rnd_draws_from_dealers_stream(dealer: str, tmp_path: Path) -> None:
    script = _write(tmp_path, "r.dl", "produce 60\ncondition rnd(3) == 1 && hcp(north) > rnd(15)\n"
                                      'action printes("x ", rnd(100), " ", hcp(north), \\n),\n'
                                      "printoneline(rnd(1000))\n")
    for seed, swap in ((8, 0), (9, 3)):
        ours = run_library(script, seed=seed, dealer_compatible=True, swapping=swap)
        assert ours == run_dealer(dealer, script, "-s", str(seed), f"-{swap}")


def test_fully_predealt_pack(dealer: str, tmp_path: Path) -> None:
    script = _write(tmp_path, "full.dl", "".join(
        f"predeal {seat} {suit}AKQJT98765432\n" for seat, suit in zip(SEATS, "SHDC",
                                                                       strict=True))
        + "produce 3\naction printoneline\n")
    assert run_library(script, seed=1, dealer_compatible=True) == \
        run_dealer(dealer, script, "-s", "1")
    assert "n AKQJT98765432... e .AKQJT98765432.." in run_library(script, seed=1)
