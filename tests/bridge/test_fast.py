"""The compiled fast path of ``bridge run`` (``fast.py``, ``_fast.c``): the specified stream
(``stream.py``) drawn alike in C and numpy, and for every script it takes the same deals and
text as the numpy path, for any seed; it never loads numpy; anything it does not handle goes to
the numpy path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nomic_cards.bridge.deal import stream
from nomic_cards.bridge.deal.batch import below
from nomic_cards.bridge.errors import ScriptRuntimeError
from nomic_cards.bridge.language.script import parse_script
from nomic_cards.bridge.run import fast
from nomic_cards.bridge.run.loop import RunOptions, run

ROOT = Path(__file__).resolve().parents[2]
_TIME = re.compile(r"^Time needed .*$", re.M)


@pytest.fixture(scope="module")
def ext() -> object:
    """The extension; CI installs gcc (``.ci/run``), so there it must be built."""
    module = fast.extension()
    if module is None:
        if os.environ.get("CI"):
            pytest.fail("nomic_cards.bridge.run._fast is not built: is gcc installed (.ci/run)?")
        pytest.skip("nomic_cards.bridge.run._fast is not built (no C compiler at install)")
    return module


@pytest.mark.parametrize(("seed", "key"), [(0, ()), (1, (0, 0)), (0, (5, 0)), (12, (70000, 1)),
                                           (2**63 + 12345, (3, 1)), (2**100 + 7, (1, 2, 3))])
def test_seed_words_are_numpys_seed_sequence(seed: int, key: tuple[int, ...]) -> None:
    expected = np.random.SeedSequence(seed, spawn_key=key).generate_state(4, np.uint64)
    assert stream.seed_words(seed, *key) == tuple(int(x) for x in expected)


def test_the_reference_pcg64_is_numpys_raw_stream() -> None:
    for seed in (0, 7, 2**70 + 1):
        words = stream.seed_words(seed, 3, 0)
        raw = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(3, 0))).random_raw(50)
        ref = stream.Pcg64(words)
        assert [ref.next() for _ in range(50)] == [int(x) for x in raw]


# bounds that reject a word often (3 * 2**61: five times in eight) test the rejection path
BOUNDS = [635013559600, 8122425444, 10400600, 7, 1, 2**32, 2**32 - 1, 2**33 + 5, 52, 1,
          3 * 2**61, 2**62 + 1] * 40


def _reference(seed: int, bounds: list[int]) -> list[int]:
    g = stream.Pcg64(stream.seed_words(seed, 4, 0))
    return [stream.lemire(g, b) for b in bounds]


def test_bounded_integers_alike_in_c_and_numpy(ext: object) -> None:
    """The compiled loop's and the numpy path's bounded integers are the reference's (plain
    integers), in any mix of bounds, rejections included."""
    for seed in (1, 2, 3):
        expected = _reference(seed, BOUNDS)
        assert ext.integers(stream.seed_words(seed, 4, 0), BOUNDS) == expected  # type: ignore[attr-defined]
        bits = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(4, 0)))
        assert below(bits, np.array(BOUNDS, dtype=np.int64)).tolist() == expected


def test_compiled_compact_layouts_are_print_flats(ext: object) -> None:
    """The compiled loop's printcompact and printoneline text is layouts.print_flat's, with
    and without values (int64 at both ends), voids and long suits included."""
    import random
    from array import array

    from nomic_cards.bridge.language import nodes as n
    from nomic_cards.bridge.output import layouts

    rng = random.Random(3)
    masks = array("H", [rng.choice((0, 8191, rng.randrange(8192))) for _ in range(16 * 300)])
    values = array("q", [rng.choice((-(2**63), 2**63 - 1, rng.randrange(-99, 99)))
                         for _ in range(300)])
    for kind in (n.PrintOneLine, n.PrintCompact):
        for at in (-1, 0):
            for count in (0, 1, 300):
                want = layouts.print_flat(masks, count, [(kind, at)], [values], 1)
                assert ext.compact(masks.tobytes(), count, kind is n.PrintOneLine,  # type: ignore[attr-defined]
                                   None if at < 0 else values[:count].tobytes()) == want


def test_bounded_integers_of_one_bound_are_the_references() -> None:
    bound = 3 * 2**61
    expected = _reference(9, [bound] * 300)
    bits = np.random.PCG64(np.random.SeedSequence(9, spawn_key=(4, 0)))
    assert below(bits, bound, 100).tolist() + below(bits, bound, 200).tolist() == expected


SCRIPTS = {
    "1NT": "produce 300\ncondition hcp(north) >= 15 && hcp(north) <= 17 && "
           "shape(north, any 4333 + any 4432 + any 5332)\naction printoneline\n",
    "strong": "produce 40\ncondition hcp(north) >= 22\naction printall\n",
    "count": "generate 50000\nproduce 50000\naction "
             + ", ".join(f'frequency "{s}" (hcp({s}), 0, 37)'
                         for s in ("north", "east", "south", "west")) + "\n",
    "branches": "produce 200\ncondition (hcp(east) > 11 || hcp(south) > 12) && "
                "(spades(west) >= 5 ? hascard(west, AS) : loser(north) < 7)\n"
                "action printcompact(hcp(north) - hcp(south)), average \"w\" hcp(west) / 3, "
                "frequency (loser(east), 3, 9, shape(north, any 4333), 0, 1)\n",
    "predeal": "predeal north SAKQ, HAK\npredeal west C5432\nproduce 100\n"
               "condition hcp(east) >= 10 && clubs(south) < 2\n"
               "action printoneline(control(north)), printall\n",
    "pointcount": "pointcount 1 1 1 1 1 1 1 1 1 1 1 1 1\naltcount 5 0 0 0 0 0 0 0 0 0 0 1 2\n"
                  "produce 100\ncondition hcp(south) - spades(south) > 10 && pt5(south) >= 2\n"
                  "action printoneline(hcp(south) % 4 + -7 * pt5(south)), "
                  "frequency (pt5(east), 0, 3)\n",
    "default": "produce 12\n",
    "generate-limit": "generate 3000\nproduce 1000\ncondition hcp(west) > 15\n"
                      "action printoneline\n",
    "negatives": "produce 60\ncondition !(hcp(north) > 9) and not hascard(south, KH)\n"
                 "action printoneline((hcp(east) - 20) / 3 * -1 + (hcp(west) - 11) % 4), "
                 "average (hcp(north) - 10) % 3\n",
}


def _both(text: str, seed: int, **options: int) -> tuple[str, str]:
    """What the numpy path and the fast path write for ``text`` (time lines removed)."""
    script = parse_script(text)
    numpy_out: list[str] = []
    run(script, RunOptions(seed=seed, **options), numpy_out.append)  # type: ignore[arg-type]
    ext = fast.extension()
    prog = fast.compile_script(script, ext)
    assert prog is not None
    fast_out: list[str] = []
    fast.run(script, prog, ext, fast_out.append, generate=options.get("generate"),
             produce=options.get("produce"), seed=seed)
    return _TIME.sub("", "".join(numpy_out)), _TIME.sub("", "".join(fast_out))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize("seed", [1, 99, 2**40 + 3])
def test_the_same_text_as_the_numpy_path(ext: object, name: str, seed: int) -> None:
    numpy_text, fast_text = _both(SCRIPTS[name], seed)
    assert "Generated" in fast_text
    assert fast_text == numpy_text


def test_the_command_line_limits_apply_alike(ext: object) -> None:
    numpy_text, fast_text = _both(SCRIPTS["1NT"], 5, produce=7, generate=100000)
    assert fast_text.count("\nn ") == 7 - 1 and "Produced 7 hands" in fast_text
    assert fast_text == numpy_text
    numpy_text, fast_text = _both(SCRIPTS["1NT"], 5, generate=500)
    assert fast_text == numpy_text


def test_worker_processes_give_the_same_deals(ext: object) -> None:
    script = parse_script(SCRIPTS["count"].replace("50000", "300000"))
    prog = fast.compile_script(script, ext)
    assert prog is not None
    texts = []
    for jobs in (1, 3):
        out: list[str] = []
        summary = fast.run(script, prog, ext, out.append, generate=None, produce=None, seed=8,
                           jobs=jobs)
        assert summary["generated"] == summary["produced"] == 300000
        texts.append(_TIME.sub("", "".join(out)))
    numpy_out: list[str] = []
    run(script, RunOptions(seed=8, jobs=2), numpy_out.append)
    assert texts[0] == texts[1] == _TIME.sub("", "".join(numpy_out))


def test_division_by_zero_is_the_same_error(ext: object) -> None:
    script = parse_script("produce 10\ncondition hcp(north) / (spades(east) - 3) > 2\n")
    prog = fast.compile_script(script, ext)
    assert prog is not None
    with pytest.raises(ScriptRuntimeError) as fast_err:
        fast.run(script, prog, ext, lambda s: None, generate=None, produce=None, seed=1)
    with pytest.raises(ScriptRuntimeError) as numpy_err:
        run(script, RunOptions(seed=1), lambda s: None)
    assert str(fast_err.value) == str(numpy_err.value)
    assert str(fast_err.value) == "division by zero in 'hcp(north) / (spades(east) - 3)' (line 2)"


@pytest.mark.parametrize("text", [
    "condition rnd(3) == 1\n",
    "condition quality(north, spades) > 500\n",
    "condition cccc(north) > 1500\n",
    "condition hcp(north) > 10\naction printpbn\n",
    "condition hcp(north) > 10\naction printew\n",
    "condition hcp(north) > 10\naction print(north)\n",
    "condition imps(hcp(north) * 10) > 1\n",
    "predeal spades(north) == 1\ncondition hcp(north) > 10\n",
])
def test_what_it_does_not_handle_goes_to_the_numpy_path(ext: object, text: str) -> None:
    assert fast.compile_script(parse_script(text), ext) is None


# random conditions: the rows each part is evaluated on decide which seats are dealt when, so
# the fast path must short-circuit exactly as the numpy evaluator does
_LEAVES = st.one_of(
    st.integers(-3, 25).map(str),
    st.sampled_from(["north", "east", "south", "west"]).map(lambda s: f"hcp({s})"),
    st.sampled_from(["spades(east)", "clubs(west)", "hearts(south)", "loser(north)",
                     "hascard(west, AS)", "shape(south, any 4432 + 5xxx)", "control(east)"]),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    ops = st.sampled_from(["+", "-", "*", "/", "%", "<", ">=", "==", "!=", "&&", "||"])
    binary = st.tuples(children, ops, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    cond = st.tuples(children, children, children).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})")
    return st.one_of(binary, cond, children.map(lambda c: f"!{c}"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(condition=st.recursive(_LEAVES, _combine, max_leaves=8), seed=st.integers(0, 2**64 - 1))
def test_random_conditions_give_the_same_deals(condition: str, seed: int) -> None:
    if fast.extension() is None:
        pytest.skip("nomic_cards.bridge.run._fast is not built")
    text = f"generate 4000\nproduce 30\ncondition {condition}\naction printoneline\n"
    try:
        numpy_text, fast_text = _both(text, seed)
    except ScriptRuntimeError as err:  # a division by zero: both must say so, alike
        script = parse_script(text)
        prog = fast.compile_script(script, fast.extension())
        assert prog is not None
        with pytest.raises(ScriptRuntimeError) as fast_err:
            fast.run(script, prog, fast.extension(), lambda s: None, generate=None,
                     produce=None, seed=seed)
        assert str(fast_err.value) == str(err)
        return
    assert fast_text == numpy_text


def _command(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    code = ("import sys\nfrom nomic_cards.launch import main\n"
            f"sys.argv = ['nomic-cards', *{list(args)!r}]\n"
            "import atexit\n"
            "def report():\n"
            "    sys.stderr.write('numpy loaded: %s\\n' % ('numpy' in sys.modules))\n"
            "main.__globals__['_finish'] = lambda code: (report(), sys.stdout.flush(), "
            "sys.exit(code))\n"
            "main()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **env}, check=False)


def test_the_command_runs_without_numpy_and_agrees_with_the_numpy_path(
        ext: object, tmp_path: Path) -> None:
    script = tmp_path / "nt.dl"
    script.write_text(SCRIPTS["1NT"])
    quick = _command("bridge", "run", "-s", "3", "-p", "50", str(script))
    slow = _command("bridge", "run", "-s", "3", "-p", "50", str(script),
                    NOMIC_CARDS_PURE_PYTHON="1")
    assert quick.returncode == slow.returncode == 0, quick.stderr + slow.stderr
    assert "numpy loaded: False" in quick.stderr
    assert "numpy loaded: True" in slow.stderr
    assert _TIME.sub("", quick.stdout) == _TIME.sub("", slow.stdout)
    assert quick.stdout.count("\nn ") == 50 - 1 and "Produced 50 hands" in quick.stdout


@pytest.mark.slow
def test_options_it_does_not_handle_take_the_numpy_path(ext: object, tmp_path: Path) -> None:
    script = tmp_path / "nt.dl"
    script.write_text(SCRIPTS["1NT"])
    for extra in (["--dealer-compatible"], ["--format", "pbn"], ["--exact"]):
        done = _command("bridge", "run", "-s", "3", "-p", "5", *extra, str(script))
        assert done.returncode == 0, done.stderr
        assert "numpy loaded: True" in done.stderr


STACKED = {
    "strong": "produce 300\ncondition hcp(north) >= 22\naction printoneline\n",
    "shape": "produce 200\ncondition hcp(south) >= 20 && shape(south, any 4432 + any 5431) "
             "&& hcp(north) > 3\naction printoneline\n",
    "length": "produce 150\ncondition spades(east) >= 7 && hcp(east) <= 9 && hcp(west) > 8\n"
              "action printall\n",
    "mixed": "produce 100\ncondition hcp(west) >= 19 && loser(west) <= 5 && hearts(west) >= 4 "
             "&& hcp(east) + hcp(west) > 25\naction printoneline, frequency (hcp(east), 0, 20)\n",
    "controls": "produce 100\ncondition control(north) >= 8 && hascard(north, AS) && "
                "hcp(north) <= 20\naction printcompact\n",
}


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "nomic-cards"


@pytest.mark.parametrize("name", sorted(STACKED))
def test_stacked_runs_deal_as_the_numpy_stacker(ext: object, cache_home: Path,
                                                name: str) -> None:
    from nomic_cards.bridge.exact.stack import stacker_for

    script = parse_script(STACKED[name])
    found = stacker_for(script)
    assert found is not None
    prog = fast.compile_script(script, ext)
    assert prog is not None
    for round_ in ("built", "loaded"):
        stack = fast.stacker(script, ext)
        assert stack is not None and stack.seat == found[1].seat, round_
        p = found[1].probability
        assert stack.probability == (p.numerator, p.denominator)
        for seed in (1, 2**50 + 9):
            numpy_out: list[str] = []
            run(script, RunOptions(seed=seed, stacker=found[0]), numpy_out.append)
            fast_out: list[str] = []
            fast.run(script, prog, ext, fast_out.append, generate=None, produce=None,
                     seed=seed, stack=stack)
            assert _TIME.sub("", "".join(fast_out)) == _TIME.sub("", "".join(numpy_out))
    assert len(list(cache_home.glob("stack-*.marshal"))) == 1


def test_a_condition_not_worth_stacking_is_remembered_too(ext: object,
                                                          cache_home: Path) -> None:
    script = parse_script("condition hcp(north) >= 5\n")
    assert fast.stacker(script, ext) is None
    assert fast.stacker(script, ext) is None
    assert len(list(cache_home.glob("stack-*.marshal"))) == 1


def test_a_damaged_cache_file_is_rebuilt(ext: object, cache_home: Path) -> None:
    script = parse_script(STACKED["strong"])
    first = fast.stacker(script, ext)
    (path,) = cache_home.glob("stack-*.marshal")
    path.write_bytes(b"\x00garbage")
    again = fast.stacker(script, ext)
    assert first is not None and again is not None
    assert again.probability == first.probability
    assert path.read_bytes() != b"\x00garbage"


def test_inconsistent_stacker_tables_are_refused(ext: object, cache_home: Path) -> None:
    from nomic_cards.bridge.exact.stack import stacker_for

    found = stacker_for(parse_script(STACKED["strong"]))
    assert found is not None
    spec = found[1].export()
    args = [spec[k] for k in ("seat", "cumulative", "cells", "row_cells", "cell_add", "sizes",
                              "part", "suits")]
    ext.stacker(*args)  # type: ignore[attr-defined]
    bad_cells = list(args)
    bad_cells[2] = (10**9).to_bytes(8, "little") * (len(spec["cells"]) // 8)
    with pytest.raises(ValueError, match="stacker"):
        ext.stacker(*bad_cells)  # type: ignore[attr-defined]
    bad_seat = list(args)
    bad_seat[0] = 4
    with pytest.raises(ValueError, match="stacker"):
        ext.stacker(*bad_seat)  # type: ignore[attr-defined]


def test_a_stacked_command_with_its_tables_kept_runs_without_numpy(
        ext: object, tmp_path: Path) -> None:
    script = tmp_path / "strong.dl"
    script.write_text(STACKED["strong"])
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ("bridge", "run", "--stack", "-s", "4", "-p", "40", str(script))
    first = _command(*args, **env)
    second = _command(*args, **env)
    slow = _command(*args, NOMIC_CARDS_PURE_PYTHON="1", **env)
    assert first.returncode == second.returncode == slow.returncode == 0, first.stderr
    assert "numpy loaded: False" in second.stderr
    assert _TIME.sub("", first.stdout) == _TIME.sub("", second.stdout)
    assert _TIME.sub("", second.stdout) == _TIME.sub("", slow.stdout)
    said = re.findall(r"^stacking .*$", second.stderr, re.M)
    assert said == re.findall(r"^stacking .*$", slow.stderr, re.M)
    assert said and said[0].startswith("stacking north: its constraint holds with probability")


def test_progress_is_reported_after_each_chunk(ext: object) -> None:
    script = parse_script("generate 20000\nproduce 100000\naction average hcp(north)\n")
    prog = fast.compile_script(script, ext)
    assert prog is not None
    seen: list[float] = []
    fast.run(script, prog, ext, lambda s: None, generate=None, produce=None, seed=1,
             progress=lambda done, total: seen.append(done / total))
    # chunks of 1,024, 2,048, 4,096, 8,192, then the 4,640 deals left of 20,000
    assert seen == [1024 / 20000, 3072 / 20000, 7168 / 20000, 15360 / 20000, 1.0]


def test_the_cache_directory_is_used_only_when_private(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from nomic_cards.bridge.run.cache import private_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = private_cache_dir()
    assert folder == str(tmp_path / "nomic-cards")
    assert (tmp_path / "nomic-cards").stat().st_mode & 0o777 == 0o700
    (tmp_path / "nomic-cards").chmod(0o777)  # others could plant tables there
    assert private_cache_dir() is None
    (tmp_path / "nomic-cards").chmod(0o700)
    (tmp_path / "blocked").write_text("a file, not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "blocked"))
    assert private_cache_dir() is None


def test_kept_tables_that_do_not_fit_are_built_again(ext: object, cache_home: Path) -> None:
    import marshal

    script = parse_script(STACKED["strong"])
    first = fast.stacker(script, ext)
    (path,) = cache_home.glob("stack-*.marshal")
    kept = marshal.loads(path.read_bytes())
    kept["spec"]["cells"] = b"\xff" * 8  # a key that matches, tables that do not
    path.write_bytes(marshal.dumps(kept))
    again = fast.stacker(script, ext)
    assert first is not None and again is not None and again.seat == first.seat
    assert marshal.loads(path.read_bytes())["spec"]["cells"] != b"\xff" * 8
