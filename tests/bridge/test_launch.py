"""The console script's fast path for `bridge run` (no Typer), against the Typer command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nomic_cards import launch
from nomic_cards.cli import app

LAUNCH = ["-c", "import sys; sys.argv[0] = 'nomic-cards'; from nomic_cards.launch import main; "
                "main()"]


def _script(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.dl"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _launch(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *LAUNCH, *args], capture_output=True, text=True,
                          input=stdin, timeout=120, check=False)


def _typer(*args: str) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def _untimed(text: str) -> str:
    return text.split("Time needed")[0]


@pytest.mark.parametrize("args", [
    ("-s", "5", "-p", "7"),
    ("--seed=5", "--produce", "7", "-v"),
    ("-s5", "-p7", "--dealer-compatible", "-2"),
    ("-s", "9", "-p", "3", "--format", "pbn"),
    ("-s", "9", "-p", "300", "--stack", "-j", "2"),
])
def test_fast_path_prints_what_the_typer_command_prints(tmp_path: Path,
                                                       args: tuple[str, ...]) -> None:
    path = _script(tmp_path, "condition hcp(north) >= 20\naction printoneline, "
                             "printcompact(hcp(south)), average hcp(east)\n")
    fast = _launch("bridge", "run", path, *args)
    assert fast.returncode == 0, fast.stderr
    assert _untimed(fast.stdout) == _untimed(_typer("bridge", "run", path, *args))
    assert fast.stdout.count("\n") > 7


def test_fast_path_errors_and_usage_problems(tmp_path: Path) -> None:
    bad = _launch("bridge", "run", _script(tmp_path, "produce 3\ncondition hcp(north) >> 2\n"))
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr == ("error: unexpected '>': expected an expression (at line 2, "
                          "column 23)\n")
    zero = _launch("bridge", "run", "-", "-s", "1",
                   stdin="x = hcp(north) / (hcp(east) - hcp(east))\ncondition x\n")
    assert zero.returncode == 1
    assert zero.stderr.endswith("error: division by zero in 'hcp(north) / (hcp(east) - "
                                "hcp(east))' (line 1)\n")
    path = _script(tmp_path, "produce 1\n")
    for args in (("--format", "xml"), ("-2",), ("--stack", "--dealer-compatible"),
                 ("-j", "0"), ("--nope",), ("-p",)):
        usage = _launch("bridge", "run", path, *args)
        assert usage.returncode == 2, args
        assert usage.stderr.startswith("usage error: ") and usage.stderr.count("\n") == 1, args
    helped = _launch("bridge", "run", "--help")
    assert helped.returncode == 0 and "Usage: nomic-cards bridge run" in helped.stdout


def test_only_plain_valid_command_lines_take_the_fast_path() -> None:
    parse = launch.parse_bridge_run
    assert parse(["s.dl", "-s", "3", "--jobs=2", "-fpbn", "-m", "--no-progress"]) == {
        "script": "s.dl", "seed": 3, "jobs": 2, "fmt": "pbn", "meter": False}
    assert parse(["--", "-weird-name.dl"]) == {"script": "-weird-name.dl"}
    assert parse(["-"]) == {"script": "-"}
    for argv in (["s.dl", "--help"], [], ["a.dl", "b.dl"], ["s.dl", "-s"], ["s.dl", "-s", "x"],
                 ["s.dl", "-s", "-1"], ["s.dl", "-j", "65"], ["s.dl", "-2v"],
                 ["s.dl", "--seed", str(2**64)], ["s.dl", "--produce"]):
        assert parse(argv) is None, argv


def test_other_commands_go_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[list[str]] = []
    monkeypatch.setattr("nomic_cards.cli.main", lambda: called.append(sys.argv[1:]))
    for argv in (["bridge", "shape", "4333"], ["--db", "x.db", "bridge", "run", "s.dl"],
                 ["bridge", "run", "s.dl", "--format", "xml"]):
        monkeypatch.setattr(sys, "argv", ["nomic-cards", *argv])
        launch.main()
    assert called == [["bridge", "shape", "4333"], ["--db", "x.db", "bridge", "run", "s.dl"],
                      ["bridge", "run", "s.dl", "--format", "xml"]]


def test_prob_fast_path_prints_what_the_typer_command_prints(tmp_path: Path) -> None:
    path = _script(tmp_path, "condition hcp(north) >= 20 || shape(south, 5xxx + x5xx)\n")
    for args in (("hcp(north) >= 22",), ("hcp(north) >= 22", "--json"), ("--script", path),
                 ("-f", path, "--json"), ("shape(north, any 4333) || hcp(north) > 20",)):
        fast = _launch("bridge", "prob", *args)
        assert fast.returncode == 0, fast.stderr
        assert fast.stdout == _typer("bridge", "prob", *args), args
    assert "probability     0.0042" in _launch("bridge", "prob", "hcp(north) >= 22").stdout
    bad = _launch("bridge", "prob", "hcp(north) >> 2")
    assert bad.returncode == 1
    assert bad.stderr == ("error: unexpected '>': expected an expression (at column 13)\n"
                          "  hcp(north) >> 2\n" + " " * 14 + "^\n")
    assert _launch("bridge", "prob", "hcp(north) > 2", "-f", path).returncode == 2
    assert launch.parse_bridge_prob(["x > 1", "--json"]) == {
        "expr": "x > 1", "script": None, "as_json": True}
    for argv in ([], ["a", "b"], ["-f"], ["a", "--help"], ["--script=s.dl"]):
        assert launch.parse_bridge_prob(argv) is None, argv
