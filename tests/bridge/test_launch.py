"""The console scripts' fast path for `bridge run` (no Typer), against the Typer command; the one
declaration of `bridge run`'s options drives both."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from nomic_cards import launch
from nomic_cards.bridge.run.command import RunArgs, parse_run_argv, run_options
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


@pytest.mark.slow
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
    parse = parse_run_argv
    assert parse(["s.dl", "-s", "3", "--jobs=2", "-fpbn", "-m", "--no-progress"]) == RunArgs(
        "s.dl", seed=3, jobs=2, fmt="pbn", meter=False)
    assert parse(["--", "-weird-name.dl"]) == RunArgs("-weird-name.dl")
    assert parse(["-"]) == RunArgs("-")
    for argv in (["s.dl", "--help"], [], ["a.dl", "b.dl"], ["s.dl", "-s"], ["s.dl", "-s", "x"],
                 ["s.dl", "-s", "-1"], ["s.dl", "-j", "65"], ["s.dl", "-2v"],
                 ["s.dl", "--seed", str(2**64)], ["s.dl", "--produce"], ["s.dl", "-f", "xml"],
                 ["s.dl", "-2"], ["s.dl", "--stack", "--dealer-compatible"], ["s.dl", "-s", "٣"]):
        assert parse(argv) is None, argv


# The options of `bridge run` as documented in docs/cli.md (written out here, not read from the
# code): every spelling, a value it takes and the field it sets to what.
DOCUMENTED: list[tuple[str, str | None, str, object]] = [
    ("-p", "7", "produce", 7), ("--produce", "7", "produce", 7),
    ("-g", "70", "generate", 70), ("--generate", "70", "generate", 70),
    ("-s", "5", "seed", 5), ("--seed", "5", "seed", 5),
    ("-j", "3", "jobs", 3), ("--jobs", "3", "jobs", 3),
    ("-f", "lin", "fmt", "lin"), ("--format", "json", "fmt", "json"),
    ("--dealer-compatible", None, "dealer_compatible", True),
    ("-0", None, "no_swap", True), ("-v", None, "toggle_verbose", True),
    ("--strict", None, "strict", True), ("-m", None, "meter", True),
    ("--progress", None, "meter", True), ("-M", None, "meter", False),
    ("--no-progress", None, "meter", False), ("--dd", None, "dd", True),
    ("--stack", None, "stack", True), ("--exact", None, "exact_rate", True),
]
DEFAULTS = {"produce": None, "generate": None, "seed": None, "jobs": 1, "fmt": "text",
            "dealer_compatible": False, "swap2": False, "swap3": False, "no_swap": False,
            "toggle_verbose": False, "strict": False, "meter": None, "dd": False,
            "stack": False, "exact_rate": False}


def _typer_run_command() -> Any:
    return typer.main.get_command(app).commands["bridge"].commands["run"]  # type: ignore[attr-defined]


def _typer_parse(argv: list[str]) -> dict[str, Any]:
    command = _typer_run_command()
    ctx = command.make_context("run", argv, resilient_parsing=False)
    return dict(ctx.params)


@pytest.mark.parametrize(("option", "value", "name", "expected"), DOCUMENTED)
def test_every_option_is_accepted_by_both_command_lines_alike(
        option: str, value: str | None, name: str, expected: object) -> None:
    argv = ["s.dl", option] + ([] if value is None else [value])
    fast = parse_run_argv(argv)
    assert fast is not None and getattr(fast, name) == expected
    typer_values = _typer_parse(argv)
    assert typer_values[name] == expected
    assert RunArgs(**typer_values) == fast


def test_swapping_options_are_accepted_by_both() -> None:
    for option, name in (("-2", "swap2"), ("-3", "swap3")):
        argv = ["s.dl", "--dealer-compatible", option]
        fast = parse_run_argv(argv)
        assert fast is not None and getattr(fast, name) is True
        assert RunArgs(**_typer_parse(argv)) == fast


def test_both_command_lines_have_the_same_defaults_help_and_options() -> None:
    assert parse_run_argv(["s.dl"]) == RunArgs("s.dl", **DEFAULTS)
    typer_values = _typer_parse(["s.dl"])
    assert typer_values == {"script": "s.dl", **DEFAULTS}
    declared = {name: opt for name, opt, _ in run_options()}
    params = {p.name: p for p in _typer_run_command().params}
    assert set(params) == set(declared) == {"script", *DEFAULTS}
    for name, opt in declared.items():
        assert " ".join(params[name].help.split()) == " ".join(opt.help.split()), name
        assert set(params[name].opts) | set(params[name].secondary_opts) == (
            set(opt.names) | set(opt.off) if opt.names else {"script"}), name
    spelt = {o for o, *_ in DOCUMENTED} | {"-2", "-3"}
    assert spelt == {n for opt in declared.values() for n in (*opt.names, *opt.off)}


@pytest.mark.parametrize("command", [["nomic-cards", "bridge", "run"], ["nomic-dealer"]])
def test_help_of_both_scripts_lists_every_option(command: list[str]) -> None:
    binary = Path(sys.executable).with_name(command[0])
    helped = subprocess.run([str(binary), *command[1:], "--help"], capture_output=True,
                            text=True, timeout=120, check=False,
                            env={**os.environ, "COLUMNS": "200"})
    assert helped.returncode == 0, helped.stderr
    assert f"Usage: {' '.join(command)} [OPTIONS] SCRIPT" in helped.stdout
    for option, *_ in [*DOCUMENTED, ("-2",), ("-3",)]:
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", helped.stdout), option


def test_nomic_dealer_runs_a_script_as_bridge_run_does(tmp_path: Path) -> None:
    path = _script(tmp_path, "condition hcp(north) >= 20\naction printoneline\n")
    binary = Path(sys.executable).with_name("nomic-dealer")
    dealt = subprocess.run([str(binary), "-s", "4", "-p", "5", path], capture_output=True,
                           text=True, timeout=120, check=False)
    assert dealt.returncode == 0, dealt.stderr
    assert _untimed(dealt.stdout) == _untimed(_typer("bridge", "run", path, "-s", "4", "-p", "5"))
    assert dealt.stdout.count("\n") == 5 + 4
    usage = subprocess.run([str(binary), path, "-j", "0"], capture_output=True, text=True,
                           timeout=120, check=False)
    assert usage.returncode == 2 and usage.stdout == ""
    assert usage.stderr.startswith("usage error: ") and "nomic-dealer --help" in usage.stderr


def test_other_commands_go_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[list[str]] = []
    monkeypatch.setattr("nomic_cards.cli.main", lambda: called.append(sys.argv[1:]))
    for argv in (["bridge", "shape", "4333"], ["--db", "x.db", "bridge", "run", "s.dl"],
                 ["bridge", "run", "s.dl", "--format", "xml"]):
        monkeypatch.setattr(sys, "argv", ["nomic-cards", *argv])
        launch.main()
    assert called == [["bridge", "shape", "4333"], ["--db", "x.db", "bridge", "run", "s.dl"],
                      ["bridge", "run", "s.dl", "--format", "xml"]]


@pytest.mark.slow
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
