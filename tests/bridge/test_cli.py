"""`nomic-cards bridge run`: flags, formats, errors and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from nomic_cards.bridge.output.formats import read_pbn
from nomic_cards.cli import app

runner = CliRunner()
DOC = (Path(__file__).resolve().parents[2] / "docs" / "bridge.md").read_text(encoding="utf-8")


def _script(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.dl"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _run(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["bridge", "run", *args], input=stdin)


def test_run_prints_like_dealer_and_is_reproducible(tmp_path: Path) -> None:
    path = _script(tmp_path, "condition hcp(north) > 15\naction printoneline\n")
    res = _run(path, "-s", "5", "-p", "4")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert len([x for x in lines if x.startswith("n ")]) == 4
    assert "Produced 4 hands" in res.output and "Initial random seed 5" in res.output
    again = _run(path, "-s", "5", "-p", "4", "-j", "2")
    assert again.output.split("Time needed")[0] == res.output.split("Time needed")[0]
    quiet = _run(path, "-s", "5", "-p", "4", "-v")
    assert "Generated" not in quiet.output


def test_script_from_stdin_and_generate_flag() -> None:
    res = _run("-", "-s", "1", "-g", "500", stdin="action average hcp(south)\n")
    assert res.exit_code == 0, res.output
    assert "Generated 500 hands\nProduced 500 hands" in res.output


def test_formats(tmp_path: Path) -> None:
    path = _script(tmp_path, "produce 3\naction average \"h\" hcp(north)\n")
    pbn = _run(path, "-s", "2", "--format", "pbn")
    assert pbn.exit_code == 0 and len(read_pbn(pbn.stdout)) == 3
    assert "h: " in pbn.stderr
    data = json.loads(_run(path, "-s", "2", "--format", "json").stdout)
    assert data["produced"] == 3 and len(data["deals"]) == 3
    assert data["reports"][0]["label"] == "h"
    lin = _run(path, "-s", "2", "--format", "lin")
    assert lin.stdout.count("md|") == 3


def test_dealer_compatible_flags(tmp_path: Path) -> None:
    path = _script(tmp_path, "produce 6\naction printoneline\n")
    two = _run(path, "-s", "3", "--dealer-compatible", "-2").output.splitlines()
    assert two[0].split(" e ")[0] == two[1].split(" e ")[0]  # North kept, E and W swapped
    assert two[0].split(" e ")[1].split(" s ")[0] == two[1].split(" w ")[1].strip()


def test_errors_are_one_line_with_exit_codes(tmp_path: Path) -> None:
    bad = _run(_script(tmp_path, "produce 3\ncondition hcp(north) >> 2\n"))
    assert bad.exit_code == 1
    assert bad.output.strip() == ("error: unexpected '>': expected an expression "
                                  "(at line 2, column 23)")
    zero = _run(_script(tmp_path, "x = hcp(north) / (hcp(east) - hcp(east))\ncondition x\n"),
                "-s", "1")
    assert zero.exit_code == 1
    assert zero.output.strip().endswith(
        "error: division by zero in 'hcp(north) / (hcp(east) - hcp(east))' (line 1)")
    assert "Traceback" not in zero.output
    missing = _run(str(tmp_path / "nope.dl"))
    assert missing.exit_code == 1 and "no such script file" in missing.output
    assert _run(_script(tmp_path, "produce 1\n"), "--format", "xml").exit_code == 2
    assert _run(_script(tmp_path, "produce 1\n"), "-2").exit_code == 2
    strict = _run(_script(tmp_path, "produce 1 # c\n"), "--strict")
    assert strict.exit_code == 1 and "strict mode" in strict.output


def test_command_and_options_are_documented() -> None:
    assert "nomic-cards bridge run" in DOC
    for option in ("-p", "-g", "-s", "-j", "--format", "--dealer-compatible", "-0", "-2", "-3",
                   "-v", "--strict", "-m", "--dd"):
        assert option in DOC, option
