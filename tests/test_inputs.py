"""Input is bounded and plain: numbers in ASCII digits, free text of bounded length without
control characters (the same bounds on SQLite and PostgreSQL), files read with a cap, and
database errors in one line (docs/cli.md, "Limits")."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.rules import cards_proposal as rules
from nomic_cards.core.services.dice import make_dice
from nomic_cards.errors import InputError
from nomic_cards.inputs import (
    address_problem,
    ascii_int,
    check_address,
    check_text,
    escape,
    read_file,
    read_limited,
    shorten,
)
from tests.helpers import new_game

ROOT = Path(__file__).resolve().parent.parent


# --- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("42", 42), ("007", 7),
                                             ("0" * 5000 + "1", 1), ("9" * 4000, 10**4000 - 1)])
def test_ascii_digits_are_numbers(text: str, value: int) -> None:
    assert ascii_int(text) == value


@pytest.mark.parametrize("text", ["²", "٣", "①", "١٢", "４２", "𝟒", "4_2", " 4", "4 ", "", "+4",
                                  "-4", "0x10", "4.0", "٣3"])
def test_anything_else_is_not_a_number(text: str) -> None:
    assert ascii_int(text) is None


def test_signs_only_where_asked_and_huge_numbers_are_an_input_error() -> None:
    assert ascii_int("-4", signed=True) == -4 and ascii_int("+4", signed=True) == 4
    assert ascii_int("-٣", signed=True) is None
    with pytest.raises(InputError, match=r"^the event has 100000 digits: too large \(at most "
                                         r"4000\)$"):
        ascii_int("9" * 100_000, "the event")


# --- free text ------------------------------------------------------------------------------


@pytest.mark.parametrize(("char", "kind"), [
    ("\x00", "a control character"), ("\n", "a control character"),
    ("\r", "a control character"), ("\t", "a control character"),
    ("\x1b", "a control character"), ("\x7f", "a control character"),
    ("\x9b", "a control character"), ("\u2028", "a line separator"),
    ("\u2029", "a paragraph separator"), ("\u202e", "a bidirectional formatting character"),
    ("\u2066", "a bidirectional formatting character"), ("\ud800", "a surrogate"),
])
def test_control_characters_are_refused_naming_the_field(char: str, kind: str) -> None:
    with pytest.raises(InputError) as caught:
        check_text(f"rule{char}5", "the rule cited", 500)
    message = str(caught.value)
    assert message.startswith(f"the rule cited must not contain {kind} "
                              f"(U+{ord(char):04X} at character 5): ")
    assert "\n" not in message and char not in message


def test_ordinary_text_passes_and_the_bound_is_in_characters() -> None:
    for text in ("rule 5", "règle 5 — ♥ 🂡", "👩\u200d👩\u200d👧", "é" * 500):
        assert check_text(text, "the rule cited", 500) == text
    with pytest.raises(InputError, match=r"^the rule cited is too long \(501 characters; at "
                                         r"most 500\)$"):
        check_text("é" * 501, "the rule cited", 500)


def test_escape_writes_every_refused_character_visibly() -> None:
    assert escape("a\x1b[31mb\nc\u202ed\x9b\t") == "a\\x1b[31mb\\nc\\u202ed\\x9b\\t"
    assert escape("règle 5 ♥") == "règle 5 ♥"


# --- files ----------------------------------------------------------------------------------


def test_files_that_are_not_regular_are_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it to read would wait for a writer
    for path, why in ((str(fifo), "it is not a regular file"),
                      ("/dev/zero", "it is not a regular file"),
                      (str(tmp_path), "it is a directory"),
                      (str(tmp_path / "missing"), "No such file or directory")):
        with pytest.raises(InputError, match=f"^cannot read the file: {why}$"):
            read_file(path, "the file")


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.csv"
    with big.open("wb") as f:
        f.truncate(9 * 1024 * 1024)  # sparse: nothing to read is written
    with pytest.raises(InputError, match=r"^big.csv is larger than 8 MB: not read$"):
        read_file(str(big), "big.csv")
    small = tmp_path / "small.csv"
    small.write_bytes(b"x" * 2048)
    with pytest.raises(InputError, match=r"larger than"):
        read_file(str(small), "small.csv", limit=2047)
    assert read_file(str(small), "small.csv", limit=2048) == "x" * 2048


class _Endless(io.RawIOBase):
    """A stream that never ends (standard input from /dev/zero), counting what was read."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        n = len(buffer)
        buffer[:n] = b"\0" * n
        self.given += n
        return n


def test_a_stream_is_read_to_the_limit_and_no_further() -> None:
    stream = _Endless()
    with pytest.raises(InputError, match=r"^stdin is larger than 1 MB: not read$"):
        read_limited(io.BufferedReader(stream), "stdin", limit=1024 * 1024)
    assert stream.given <= 1024 * 1024 + 1 + io.DEFAULT_BUFFER_SIZE


# --- e-mail addresses: exactly one ------------------------------------------------------------

ONE_ADDRESS = ["alice@example.org", "a+tag@x.test", "o'brien@example.ie", "a.b-c_d@mail-1.co.uk",
               "dealer@localhost", "a@bücher.de", "a@xn--bcher-kva.de", "x@1.2.3.4",
               "!#$%&'*+-/=?^_`{|}~@example.org", "a" * 64 + "@example.org"]

NOT_ONE = {
    "dan@x.test,evil@e.test": "it holds more than one address: give one",
    "a@x>,<evil@e": "it holds more than one address: give one",
    "a@x;b@y": "it holds more than one address: give one",
    "Dan <dan@x.test>": "give the address alone, with no name, comment, quotes or brackets",
    "<dan@x.test>": "give the address alone, with no name, comment, quotes or brackets",
    "dan@x.test (Dan)": "give the address alone, with no name, comment, quotes or brackets",
    "a(b)@x.test": "give the address alone, with no name, comment, quotes or brackets",
    '"a b"@x.test': "give the address alone, with no name, comment, quotes or brackets",
    "a@[127.0.0.1]": "give the address alone, with no name, comment, quotes or brackets",
    "dan @x.test": "it holds a space",
    "dan@x.test\r\nBcc: evil@e.test": "it holds a control character",
    "not-an-address": "it is not of the form name@example.org",
    "a@b@c": "it is not of the form name@example.org",
    "a..b@x.test": "it is not of the form name@example.org",
    ".a@x.test": "it is not of the form name@example.org",
    "a@x.test.": "it is not of the form name@example.org",
    "a@": "it is not of the form name@example.org",
    "@x.test": "it is not of the form name@example.org",
    "é@x.test": "it is not of the form name@example.org",
    "=?utf-8?q?evil?=@x.test": "it is not of the form name@example.org",
    "a@x.test:25": "it is not of the form name@example.org",
    "a@-x.test": "its domain is not a domain name",
    "a@x_y.test": "its domain is not a domain name",
    "a@" + "b" * 64 + ".test": "its domain is not a domain name",
    "a" * 65 + "@x.test": "its part before the @ is too long (at most 64 characters)",
}


@pytest.mark.parametrize("text", ONE_ADDRESS)
def test_one_address_is_taken(text: str) -> None:
    assert address_problem(text) is None and check_address(text) == text


@pytest.mark.parametrize(("text", "why"), NOT_ONE.items())
def test_anything_but_one_address_is_refused_in_one_line(text: str, why: str) -> None:
    assert address_problem(text) == why
    with pytest.raises(InputError) as refused:
        check_address(text)
    message = str(refused.value)
    assert "\n" not in message and "\r" not in message
    if why != "it holds a control character":  # check_text says it first, naming the character
        assert message == f"not an e-mail address: {shorten(text)}: {why}"


# --- the same bounds on both databases --------------------------------------------------------


def test_free_text_bounds_are_the_same_on_sqlite_and_postgresql(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with freeze_time("2026-01-01 09:00:00"):
        game = new_game(db_url, players=("ann",))
        with game:
            # 254 characters: a local part of 64, a domain of 189
            address = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 57 + ".org"
            assert len(address) == 254
            with game.write() as tx:
                assert api.set_email(tx, "ann", address).email == address
            for too_long in ("a" * 243 + "@example.org", "a" * 400 + "@example.org"):
                with (
                    pytest.raises(InputError, match=r"^an e-mail address is too long"),
                    game.write() as tx,
                ):
                    api.set_email(tx, "ann", too_long)
            with game.write() as tx:
                api.add_pack(tx, "P" * 100, "b" * 200)
            with (
                pytest.raises(InputError, match=r"^pack name is too long \(101 characters"),
                game.write() as tx,
            ):
                api.add_pack(tx, "Q" * 101, "plain")
            with (
                pytest.raises(InputError, match=r"is too long \(201 characters"),
                game.write() as tx,
            ):
                api.add_pack(tx, "Green", "b" * 201)
            with game.write() as tx:
                api.deal(tx, "ann", source="system", reason="r" * 500)
            with (
                pytest.raises(InputError, match=r"too long \(501 characters"),
                game.write() as tx,
            ):
                api.deal(tx, "ann", source="system", reason="r" * 501)
            with game.write() as tx:
                api.record_vote(tx, "ann", "p" * 100)
            with (
                pytest.raises(InputError, match=r"too long \(101 characters"),
                game.write() as tx,
            ):
                api.record_vote(tx, "ann", "p" * 101)
        monkeypatch.setenv("NOMIC_CARDS_ACTOR", "x" * 200)
        with Nomic(db_url) as as_actor, as_actor.write() as tx:
            api.clock_stop(tx)
        monkeypatch.setenv("NOMIC_CARDS_ACTOR", "x" * 201)
        with pytest.raises(InputError, match=r"^NOMIC_CARDS_ACTOR is too long"):
            Nomic(db_url)


# --- text stored before these checks is shown escaped ---------------------------------------


def test_log_prints_old_control_characters_escaped(tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    forged = "\x1b[31mred\n#99    2026-01-01T00:00:00  card.transferred   forged"
    with freeze_time("2026-01-01 09:00:00"), new_game(db, players=("ann",)) as game, \
            game.write() as tx:  # as an older version recorded it, unchecked
        dice, _opened = make_dice(tx, "system", None, None)
        tx.record(rules.deal(tx.state, "ann", dice, reason=forged, nweek=1,
                             at="2026-01-01T09:00:00Z"))
    with freeze_time("2026-01-01 10:00:00"):
        result = CliRunner().invoke(app, ["--db", db, "log"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    deal_line = next(line for line in result.output.splitlines() if "card.dealt" in line)
    assert deal_line.endswith("reason: \\x1b[31mred\\n#99    2026-01-01T00:00:00  "
                              "card.transferred   forged")
    assert not any(line.startswith("#99") for line in result.output.splitlines())


# --- database errors --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_database_error_the_store_did_not_translate_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    from nomic_cards.core.services import tokens

    monkeypatch.setattr(tokens, "list_tokens", refuse)
    with freeze_time("2026-01-01 09:00:00"):
        new_game(str(tmp_path / "g.db")).close()
        result = CliRunner().invoke(app, ["--db", str(tmp_path / "g.db"), "token", "list"])
    assert result.exit_code == 1
    assert result.stderr == "error: database error: attempt to write a readonly database\n"


def _grants_sql(schema: str, role: str) -> str:
    text = (ROOT / "docs" / "dice.md").read_text(encoding="utf-8")
    # the superuser's block (the players' role), then the owner's (the grants)
    block = "".join(b.split("```", 1)[0] for b in text.split("```sql\n")[1:3])
    return block.replace("SCHEMA public", f'SCHEMA "{schema}"').replace("nomic_player", role)


@pytest.mark.pg
@pytest.mark.slow
def test_a_role_without_the_rights_gets_one_line(tmp_path: Path) -> None:
    """The players' PostgreSQL role (docs/dice.md) running officer commands: a refused
    permission is one line, not a trace."""
    import psycopg

    from tests.conftest import _require_pg, drop_pg_schema, new_pg_schema_url, pg_base_url

    _require_pg()
    url, schema = new_pg_schema_url()
    role = f"player_{uuid.uuid4().hex[:8]}"
    admin = pg_base_url().replace("postgresql+psycopg://", "postgresql://")
    try:
        with freeze_time("2026-01-01 09:00:00"), new_game(url, players=("ann",)):
            pass
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute(f'SET search_path TO "{schema}"')
            con.execute(_grants_sql(schema, role))
            con.execute(f"ALTER ROLE {role} LOGIN")
        host = pg_base_url().rsplit("@", 1)[1]
        player_url = f"postgresql+psycopg://{role}@{host}?options=-csearch_path%3D{schema}"
        env = {**os.environ, "NOMIC_CARDS_DB": player_url, "NOMIC_CARDS_ACTOR": "tester"}
        for args in (["token", "list"], ["player", "list"], ["deal", "ann"]):
            done = subprocess.run([sys.executable, "-m", "nomic_cards", *args], env=env,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 1, (args, done.stderr)
            assert done.stderr.count("\n") == 1 and "permission denied" in done.stderr, \
                (args, done.stderr)
    finally:
        drop_pg_schema(schema)
        with psycopg.connect(admin, autocommit=True) as con:
            con.execute(f"DROP OWNED BY {role}")
            con.execute(f"DROP ROLE {role}")


#: a pipeline whose first statement fails and whose error has arrived before the next is sent
#: (the socket waited on until it is readable): what a refused statement in a batch does when
#: the server answers fast, as it did for the role above once on a loaded machine
_PIPELINE_REFUSED = """
import select, sys, psycopg
if sys.argv[2] == "nomic-cards":
    from nomic_cards.core.store.connect import Database
    Database(sys.argv[1])
conn = psycopg.connect(sys.argv[1].replace("+psycopg", ""), autocommit=True)
try:
    with conn.pipeline():
        conn.cursor().execute("SELECT 1/0")
        select.select([conn.fileno()], [], [], 30)
        conn.cursor().execute("SELECT 1")
except psycopg.Error as exc:
    print(type(exc).__name__)
"""


@pytest.mark.pg
def test_a_statement_refused_in_a_pipeline_leaves_one_error_not_two() -> None:
    """psycopg warns, on stderr when the program has no logging of its own, that ending such a
    pipeline failed too; once the store is loaded the error that was raised is all there is."""
    from tests.conftest import _require_pg, pg_base_url

    _require_pg()
    runs = {who: subprocess.run([sys.executable, "-c", _PIPELINE_REFUSED, pg_base_url(), who],
                                capture_output=True, text=True, timeout=60)
            for who in ("psycopg", "nomic-cards")}
    assert runs["psycopg"].stdout == runs["nomic-cards"].stdout == "DivisionByZero\n"
    assert "error ignored terminating" in runs["psycopg"].stderr  # the warning is real
    assert runs["nomic-cards"].stderr == ""
