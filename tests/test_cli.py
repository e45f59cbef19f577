"""The command line end to end: output, --json, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nomic_cards.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def run(db: str, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", db, *args], input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def cli_game(tmp_path: Path) -> str:
    db = str(tmp_path / "g.db")
    code, out, _ = run(db, "init")
    assert code == 0 and "Dice period 1 commitment" in out
    for name in ("alice", "bob"):
        assert run(db, "player", "add", name)[0] == 0
    return db


def test_deal_shows_rolls_and_json(cli_game: str) -> None:
    code, out, _ = run(cli_game, "deal", "alice")
    assert code == 0 and "roll 1: d208" in out and "private notice to alice" in out
    code, out, _ = run(cli_game, "deal", "bob", "--json")
    data = json.loads(out)
    assert code == 0 and data["player"] == "bob" and data["rolls"][-1]["value"] == \
        data["card_number"]


def test_manual_dice_reask_out_of_range(cli_game: str) -> None:
    code, out, err = run(cli_game, "deal", "alice", "--dice", "manual", input="0\n300\n42\n")
    assert code == 0, err
    assert "a d208 shows 1..208, not 0" in err and "not 300" in err
    assert "(card 42)" in out


def test_manual_dice_end_of_input_writes_nothing(cli_game: str) -> None:
    before = json.loads(run(cli_game, "log", "--json", "-n", "1")[1])[0]["event"]
    code, _, err = run(cli_game, "deal", "alice", "--dice", "manual", input="")
    assert code == 1 and "nothing was recorded" in err
    assert json.loads(run(cli_game, "log", "--json", "-n", "1")[1])[0]["event"] == before


def test_hand_deck_log_json(cli_game: str) -> None:
    run(cli_game, "deal", "alice")
    hand = json.loads(run(cli_game, "hand", "alice", "--json")[1])
    assert len(hand["cards"]) == 1
    deck = json.loads(run(cli_game, "deck", "--json")[1])
    assert deck["total"] == 207 and deck["cards"] is None
    deck = json.loads(run(cli_game, "deck", "--cards", "--json")[1])
    assert len(deck["cards"]) == 207
    log = json.loads(run(cli_game, "log", "--player", "alice", "--json")[1])
    assert log[-1]["payload"]["card"] == "(hidden: use --reveal)"
    log = json.loads(run(cli_game, "log", "--player", "alice", "--reveal", "--json")[1])
    assert log[-1]["payload"]["card"] == hand["cards"][0]["number"]


def test_transfer_from_where_the_card_is_moves_it(cli_game: str) -> None:
    card = str(json.loads(run(cli_game, "deal", "alice", "--json")[1])["card_number"])
    code, out, err = run(cli_game, "transfer", card, "--from", "alice", "--to", "bob",
                         "--rule", "P1", "--json")
    assert code == 0, err
    assert (json.loads(out)["from"], json.loads(out)["to"]) == ("alice", "bob")
    code, _, err = run(cli_game, "transfer", card, "--from", "alice", "--to", "deck",
                       "--rule", "P2")
    assert code == 1 and f"card {card} is in bob's hand, not in alice's hand" in err


@pytest.mark.slow
def test_log_prints_one_line_per_event_and_names_the_deck(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    steps: list[tuple[str, ...]] = [
        ("--at", "2026-01-01T00:00:00Z", "init", "--epoch", "2026-01-01"),
        ("--at", "2026-01-01T01:00:00Z", "player", "add", "alice", "--email", "a@example.org"),
        ("--at", "2026-01-01T01:00:00Z", "player", "add", "bob"),
        ("--at", "2026-01-01T02:00:00Z", "transfer", "Red 5d", "--to", "alice", "--rule", "P1"),
        ("--at", "2026-01-01T03:00:00Z", "transfer", "5", "--to", "deck", "--rule", "P2"),
        ("--at", "2026-01-01T04:00:00Z", "vote", "cast", "bob", "--proposal", "301"),
        ("--at", "2026-01-12T00:00:00Z", "tick"),  # nweek 1 ends: its Report is published
        ("--at", "2026-01-12T01:00:00Z", "pack", "add", "Gold", "--back", "gold backs"),
        ("--at", "2026-01-12T02:00:00Z", "dice", "reveal", "--force"),
        ("--at", "2026-01-12T03:00:00Z", "clock", "stop"),
        ("--at", "2026-01-12T04:00:00Z", "clock", "start"),
        ("--at", "2026-01-12T05:00:00Z", "player", "retire", "alice"),
        ("--at", "2026-01-12T06:00:00Z", "dealer", "elect", "bob"),
        ("--at", "2026-01-12T07:00:00Z", "player", "add", "alice"),
    ]
    for args in steps:
        code, _, err = run(db, *args)
        assert code == 0, (args, err)
    events = json.loads(run(db, "log", "-n", "100", "--json")[1])
    kinds = [e["kind"] for e in events]
    assert "report.published" in kinds and "card.dealt" in kinds  # bob's Card for Votes
    code, out, _ = run(db, "log", "-n", "100")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == len(events)
    assert all(re.match(r"#\d+ +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d  [a-z_.]+ +\S", x)
               for x in lines), out
    assert "None" not in out and "Dealer's Report for nweek 1\n\n" not in out
    assert any(x.endswith("report.published   published the Dealer's Report for nweek 1")
               for x in lines), out
    assert any(x.endswith("a card: Deck -> alice under 'P1'") for x in lines), out
    assert any(x.endswith("a card: alice -> Deck under 'P2'") for x in lines), out
    assert any(x.endswith("recorded 1 vote: bob on proposal 301") for x in lines), out
    assert "a@example.org" not in out
    for end in ("put pack 4, Gold, in play", "switched the Clock Off", "switched the Clock On",
                "alice rejoined the game with an empty hand",
                "alice retired; their hand returned to the Deck (hidden: use --reveal)",
                "bob was elected Dealer after PurpleBob; their hand joined the Deck (hidden: "
                "use --reveal)"):
        assert any(x.endswith(end) for x in lines), (end, out)
    revealed = run(db, "log", "-n", "100", "--reveal")[1]
    assert "Red 5d: Deck -> alice under 'P1'" in revealed
    assert "Red 5d: alice -> Deck under 'P2'" in revealed
    assert "set alice's e-mail address to <a@example.org>" in revealed
    assert len(revealed.splitlines()) == len(events) and "None" not in revealed


def test_ledger_verify_exit_codes(cli_game: str) -> None:
    code, out, _ = run(cli_game, "ledger", "verify")
    assert code == 0 and out.startswith("ledger OK")
    from tests.helpers import sql

    sql(f"sqlite:///{cli_game}", "update ownership set holder_id = 2 where card = 5")
    code, out, _ = run(cli_game, "ledger", "verify")
    assert code == 1 and "card 5" in out


def test_ledger_verify_against_a_hash_not_in_the_chain(cli_game: str) -> None:
    head = json.loads(run(cli_game, "log", "--json", "-n", "1")[1])[0]
    code, out, _ = run(cli_game, "ledger", "verify", "--against", head["hash"])
    assert code == 0 and "1 published head(s) found in the chain" in out
    stranger = "0123456789abcdef" * 4
    code, out, _ = run(cli_game, "ledger", "verify", "--against", stranger)
    assert code == 1
    assert ("  ledger: the published ledger head 0123456789abcdef... was not found: check the "
            "hash, or the chain was rewritten after it was published\n") in out, out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("deal", "zed"), "error: no player named 'zed'"),
        (("player", "add", "alice"), "error: a player named 'alice' already exists"),
        (("deal", "PurpleBob"), "error: PurpleBob is the Dealer"),
        (("transfer", "999", "--to", "bob", "--rule", "P1"), "error: no card numbered 999"),
        (("transfer", "Green 4c", "--to", "bob", "--rule", "P1"), "error: unknown pack 'Green'"),
        (("transfer", "5", "--to", "bob", "--rule", " "), "error: Cards are only transferrable"),
        (("transfer", "5", "--from", "alice", "--to", "bob", "--rule", "P1"),
         "error: card 5 is in the Deck, not in alice's hand: check the card number"),
        (("hand", "alice", "--as-of", "soon"), "error: an as-of point is an event number"),
        (("init", "--pack", "Red"), "error: --pack takes NAME=BACK"),
    ],
)
def test_bad_input_is_one_line_exit_1_nothing_written(cli_game: str, args: tuple[str, ...],
                                                      message: str) -> None:
    before = run(cli_game, "log", "--json", "-n", "1")[1]
    code, out, err = run(cli_game, *args)
    assert code == 1
    assert err.startswith(message), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert run(cli_game, "log", "--json", "-n", "1")[1] == before


def test_missing_database_and_bad_url(tmp_path: Path) -> None:
    code, _, err = run(str(tmp_path / "none.db"), "deck")
    assert code == 1 and "run `nomic-cards init`" in err and err.count("\n") == 1
    assert not (tmp_path / "none.db").exists()
    code, _, err = run("mysql://x@y/z", "deck")
    assert code == 1 and err.startswith("error: unsupported database URL")
    code, _, err = run("postgresql://nobody@127.0.0.1:1/none", "deck")
    assert code == 1 and err.startswith("error: cannot reach database")


def test_messages_show_the_database_as_typed(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    code, out, _ = run("games/g.db", "init")
    assert code == 0 and out.startswith("Created a game in games/g.db: "), out
    code, out, _ = run("games/g.db", "init")
    assert code == 0 and out.startswith("games/g.db already holds a game"), out
    code, _, err = run("../there/none.db", "deck")
    assert code == 1 and err.startswith("error: no database at ../there/none.db: "), err
    code, _, err = run("./none.db", "hand", "alice")
    assert code == 1 and err.startswith("error: no database at ./none.db: "), err
    absolute = str(tmp_path / "there" / "none.db")
    code, _, err = run(absolute, "deck")
    assert code == 1 and err.startswith(f"error: no database at {absolute}: "), err
    (tmp_path / "here" / "text.db").write_text("not a database\n")
    code, _, err = run("text.db", "deck")
    assert code == 1 and "database text.db" in err and str(tmp_path) not in err, err
    code, _, err = run("postgresql://nobody:secret@127.0.0.1:1/none", "deck")
    assert code == 1
    assert err.startswith("error: cannot reach database postgresql://nobody:***@127.0.0.1:1/none"
                          ), err
    # libpq takes the password in the query too: masked there as well
    code, _, err = run("postgresql://nobody@127.0.0.1:1/none?password=secret&sslmode=disable",
                       "deck")
    assert code == 1 and "secret" not in err, err
    assert "/none?password=***&sslmode=disable" in err, err


def test_usage_lines_name_arguments_in_capitals() -> None:
    for args, usage in [
        (("transfer",), "Usage: nomic-cards transfer [OPTIONS] CARD"),
        (("hand",), "Usage: nomic-cards hand [OPTIONS] PLAYER"),
        (("player", "email"), "Usage: nomic-cards player email [OPTIONS] NAME [EMAIL]"),
        (("poker", "showdown"), "Usage: nomic-cards poker showdown [OPTIONS] [PLAYERS...]"),
    ]:
        result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0
        assert usage in result.stdout, result.stdout
        assert "{" not in result.stdout.splitlines()[1]


def test_help_paragraphs_are_not_broken_mid_sentence() -> None:
    """Help is wrapped at the terminal's width, never where the source line ended: each
    command's listed help, at a width wider than any paragraph, is on one line."""
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    rows = [line.strip() for line in result.stdout.splitlines()]
    init = next(line for line in rows if line.startswith("init "))
    assert "create the game: every card of every pack in the Deck, the Dealer, and the" in init
    assert "(nothing is changed)." in init  # the whole paragraph on the command's own line
    result = runner.invoke(app, ["tick", "--help"], env={"COLUMNS": "400"})
    text = " ".join(result.stdout.split())
    assert "close the card games' windows that ended. All in one transaction, printed once " \
        "committed." in text
    line = next(x for x in result.stdout.splitlines() if "Do everything due" in x)
    assert line.rstrip().endswith("printed once committed."), line


def test_usage_error_exits_2(cli_game: str) -> None:
    assert run(cli_game, "deal")[0] == 2


def _commands() -> list[str]:
    """Every command path, e.g. 'deal', 'dice verify', 'poker eval'."""
    from typer.main import get_command

    out: list[str] = []

    def walk(cmd: object, prefix: str) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{prefix} {name}".strip())
        else:
            out.append(prefix)

    walk(get_command(app), "")
    return out


def _doc_spots(markdown: str) -> list[str]:
    """Where a command counts as documented: headings, lines of fenced code blocks and inline
    code spans (prose that merely mentions a command does not count)."""
    spots: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("#"):
            spots.append(line)
        if not fenced:
            spots.extend(re.findall(r"`([^`\n]+)`", line))
    return spots


def _documented(command: str, markdown: str) -> bool:
    """The command's full path begins a heading's or a code line's mention of nomic-cards:
    ``nomic-cards deals terms EXPR`` documents 'deals terms', not 'deals term'."""
    pattern = re.compile(rf"(?:^|[\s$#(])nomic-cards (?:--db \S+ )?{re.escape(command)}"
                         r"(?:$|[\s\]|`)])")
    return any(pattern.search(spot) for spot in _doc_spots(markdown))


def test_documented_needs_a_heading_or_code_with_the_full_path() -> None:
    assert _documented("dice verify", "| `nomic-cards dice verify [--period N]` | checks |")
    assert _documented("dice verify", "## nomic-cards dice verify")
    assert _documented("dice verify", "```\n$ nomic-cards dice verify\n```")
    assert not _documented("dice verify", "Run nomic-cards dice verify now and then.")
    assert not _documented("dice verify", "`nomic-cards dice` lists the periods")
    assert not _documented("deals term", "`nomic-cards deals terms EXPR`")
    assert not _documented("dice verify", "`nomic-cards dice verifyx`")


def test_every_command_has_help_and_is_documented() -> None:
    docs = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
    missing = [c for c in _commands() if not _documented(c, docs)]
    assert missing == [], f"document these commands in docs/ (heading or code): {missing}"
    from typer.main import get_command

    root = get_command(app)

    def helps(cmd: object, path: str) -> None:
        assert getattr(cmd, "help", None) or getattr(cmd, "short_help", None), path
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            helps(sub, f"{path} {name}")

    helps(root, "nomic-cards")
