"""Players' tokens on the command line: issued once, stored only as a hash, revoked by a new
issue, by ``token revoke`` and by retiring; mailed through a real SMTP server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from email import message_from_bytes, policy
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.services import public
from tests.helpers import sql

runner = CliRunner()


#: the server's URL as players reach it, which a token's mail names
BASE = "https://cards.example.org"


def run(db: str, *args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, ["--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


def _player(game: Nomic, token: str) -> str | None:
    with game.read() as r:
        return public.player_for_token(r, token)


def test_issue_prints_the_token_once_and_stores_only_a_hash(game: Nomic) -> None:
    code, out, err = run(game.url, "token", "issue", "alice")
    assert code == 0
    token = out.splitlines()[-1]
    selector, verifier = token.split(".")
    assert len(selector) == 16 and len(verifier) == 43
    stored = " ".join(str(v) for row in sql(game, "select * from player_tokens") for v in row)
    assert verifier not in stored and token not in stored and selector in stored
    assert _player(game, token) == "alice"
    code, out, _ = run(game.url, "token", "list", "--json")
    assert code == 0 and verifier not in out and json.loads(out)[0]["selector"] == selector


def test_a_new_token_revokes_the_old_unless_asked(game: Nomic) -> None:
    first = json.loads(run(game.url, "token", "issue", "alice", "--json")[1])["token"]
    second = json.loads(run(game.url, "token", "issue", "alice", "--json")[1])
    assert second["revoked"] == 1
    assert _player(game, first) is None
    third = json.loads(run(game.url, "token", "issue", "alice", "--keep-others", "--json")[1])
    assert third["revoked"] == 0
    assert _player(game, second["token"]) == "alice"
    assert _player(game, third["token"]) == "alice"
    assert run(game.url, "token", "revoke", "--selector", third["selector"])[1].startswith("1 ")
    assert _player(game, third["token"]) is None
    assert _player(game, second["token"]) == "alice"
    with game.write() as tx:
        api.retire_player(tx, "alice")
    assert _player(game, second["token"]) is None


def test_revoking_a_selector_that_matches_nothing_is_an_error(game: Nomic) -> None:
    issued = json.loads(run(game.url, "token", "issue", "alice", "--json")[1])
    before = _tokens(game)
    code, out, err = run(game.url, "token", "revoke", "--selector", "x" * 16)
    assert (code, out) == (1, "")
    assert err == "error: no token has the selector 'xxxxxxxxxxxxxxxx' (see `nomic-cards " \
        "token list`); nothing was revoked\n"
    assert _tokens(game) == before
    assert run(game.url, "token", "revoke", "--selector", issued["selector"])[0] == 0
    code, out, err = run(game.url, "token", "revoke", "--selector", issued["selector"])
    assert code == 1 and len(err.splitlines()) == 1
    assert err.startswith(f"error: the token with the selector '{issued['selector']}' was "
                          "already revoked (at ")


@pytest.mark.parametrize(("args", "message"), [
    (("token", "issue", "zed"), "error: no player named 'zed'"),
    (("token", "revoke"), "error: give a PLAYER or --selector SELECTOR (one of them)"),
    (("token", "issue", "alice", "--mail"), "error: --mail needs --smtp HOST:PORT"),
    (("token", "issue", "alice", "--mail", "--smtp", "127.0.0.1:25"),
     "error: --mail needs --base-url URL (or NOMIC_CARDS_BASE_URL): the mail says where to use "
     "the token"),
])
def test_bad_token_commands_are_one_line(game: Nomic, args: tuple[str, ...],
                                         message: str) -> None:
    code, out, err = run(game.url, *args)
    assert code == 1 and err.startswith(message) and len(err.strip().splitlines()) == 1


class Inbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, str]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, f"127.0.0.1:{port}"
    finally:
        controller.stop()


def test_mail_sends_the_token_to_the_player(game: Nomic, smtp: tuple[Inbox, str]) -> None:
    inbox, where = smtp
    with game.write() as tx:
        api.set_email(tx, "alice", "alice@example.org")
    code, out, err = run(game.url, "token", "issue", "alice", "--mail", "--smtp", where,
                         "--base-url", BASE)
    assert code == 0, err
    token = out.splitlines()[-1]
    [msg] = inbox.messages
    assert msg["To"] == "alice <alice@example.org>" and token in msg.get_content()
    code, _, err = run(game.url, "token", "issue", "bob", "--mail", "--smtp", where,
                       "--base-url", BASE)
    assert code == 1 and "bob has no e-mail address" in err


class Picky(Inbox):
    """Refuses one recipient for good (at RCPT), accepts the rest."""

    def __init__(self, refused: str) -> None:
        super().__init__()
        self.refused = refused

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: Any) -> str:
        if address == self.refused:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"


def _tokens(game: Nomic) -> list[tuple[object, ...]]:
    return sorted(sql(game, "select * from player_tokens"), key=repr)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_a_failed_mail_leaves_the_tokens_as_they_were(game: Nomic) -> None:
    with game.write() as tx:
        api.set_email(tx, "alice", "alice@example.org")
        api.set_email(tx, "carol", "carol@example.org")
    for p in ("alice", "bob", "carol"):  # each holds a token that a new issue would revoke
        assert run(game.url, "token", "issue", p)[0] == 0
    inbox = Picky("carol@example.org")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    where = f"127.0.0.1:{port}"
    try:
        before = _tokens(game)
        for args, message in [
            (("bob", "--smtp", where), "error: bob has no e-mail address"),
            (("alice", "--smtp", where, "--from", "nobody"),
             "error: --from takes an e-mail address, not 'nobody'"),
            (("alice", "--smtp", where, "--base-url", "ftp://cards.example.org"),
             "error: --base-url (NOMIC_CARDS_BASE_URL) takes the server's URL"),
            (("alice", "--smtp", f"127.0.0.1:{_free_port()}"),
             "error: cannot reach the SMTP server at 127.0.0.1:"),
            (("carol", "--smtp", where), f"error: the SMTP server at {where} refused the mail "
                                         "to carol@example.org: 550 5.1.1 no such user"),
        ]:
            base = () if "--base-url" in args else ("--base-url", BASE)
            code, out, err = run(game.url, "token", "issue", *args[:1], "--mail", *args[1:],
                                 *base)
            assert code == 1 and out == "", (args, out)
            assert err.startswith(message), (args, err)
            if "--from" not in args and "--base-url" not in args:  # (bad options say so)
                assert err.rstrip("\n").endswith("; no token was issued or revoked"), err
            assert len(err.strip().splitlines()) == 1, err
            assert _tokens(game) == before, args
        # an address that cannot head a message (written before addresses were checked)
        sql(game, "update players set email = 'alice at example.org' where name = 'alice'")
        code, _, err = run(game.url, "token", "issue", "alice", "--mail", "--smtp", where,
                           "--base-url", BASE)
        assert code == 1 and "'alice at example.org' cannot be mailed to" in err, err
        assert _tokens(game) == before
        assert inbox.messages == []
    finally:
        controller.stop()


def test_the_mail_names_the_server(game: Nomic, smtp: tuple[Inbox, str]) -> None:
    inbox, where = smtp
    with game.write() as tx:
        api.set_email(tx, "alice", "alice@example.org")
    code, out, err = run(game.url, "token", "issue", "alice", "--mail", "--smtp", where,
                         "--base-url", "https://cards.example.org/spoon/")
    assert code == 0, err
    body = inbox.messages[-1].get_content()
    assert "Your token for the Cards server at https://cards.example.org/spoon/:" in body
    assert "Paste it into the page at https://cards.example.org/spoon/ " in body
    assert out.splitlines()[-1] in body
    r = runner.invoke(app, ["--db", game.url, "token", "issue", "alice", "--mail", "--smtp",
                            where], env={"NOMIC_CARDS_BASE_URL": "http://10.0.0.5:8000"})
    assert r.exit_code == 0, r.stderr
    assert "at http://10.0.0.5:8000/:" in inbox.messages[-1].get_content()
    r = runner.invoke(app, ["--db", game.url, "token", "issue", "alice", "--mail", "--smtp",
                            where], env={"NOMIC_CARDS_BASE_URL": ""})
    assert r.exit_code == 1 and r.stderr == (
        "error: --mail needs --base-url URL (or NOMIC_CARDS_BASE_URL): the mail says where to "
        "use the token\n")
    assert len(inbox.messages) == 2


def test_the_mail_says_what_the_token_lets_its_holder_do(game: Nomic,
                                                          smtp: tuple[Inbox, str]) -> None:
    from nomic_cards.core.settings import PROPOSAL_DEALER

    inbox, where = smtp
    with game.write() as tx:
        api.set_email(tx, "alice", "alice@example.org")
        api.set_email(tx, PROPOSAL_DEALER, "dealer@example.org")
    assert run(game.url, "token", "issue", "alice", "--mail", "--smtp", where,
               "--base-url", BASE)[0] == 0
    assert run(game.url, "token", "issue", PROPOSAL_DEALER, "--scope", "dealer", "--mail",
               "--smtp", where, "--base-url", BASE)[0] == 0
    player, officer = (" ".join(m.get_content().split()) for m in inbox.messages)
    assert "It lets whoever holds it read your Hand, your notices and your Points, and act " \
           "as you: trade, show, make and vote on Motions" in player
    assert "can read your hand." not in player
    assert inbox.messages[1]["Subject"] == "Spoon Nomic Cards: your officer token"
    assert "act as the Dealer through the server: deal, transfer cards, record votes, tick " \
           "and open Showdowns" in officer


def test_an_officer_token_is_issued_to_the_dealer_with_its_scope(game: Nomic) -> None:
    from nomic_cards.core.services.live import viewer_for_token
    from nomic_cards.core.settings import PROPOSAL_DEALER

    code, out, err = run(game.url, "token", "issue", PROPOSAL_DEALER, "--scope", "dealer",
                         "--json")
    assert code == 0, err
    issued = json.loads(out)
    assert issued["scope"] == "dealer"
    with game.read() as tx:
        viewer = viewer_for_token(tx, issued["token"])
    assert viewer is not None and (viewer.player, viewer.scope) == (PROPOSAL_DEALER, "dealer")
    plain = json.loads(run(game.url, "token", "issue", "alice", "--json")[1])
    assert plain["scope"] is None
    with game.read() as tx:
        assert viewer_for_token(tx, plain["token"]).scope is None  # type: ignore[union-attr]
    listed = {t["selector"]: t["scope"] for t in json.loads(
        run(game.url, "token", "list", "--json")[1])}
    assert listed == {issued["selector"]: "dealer", plain["selector"]: None}
    code, out, _ = run(game.url, "token", "list")
    assert f"{issued['selector']}" in out and "scope dealer" in out
    before = _tokens(game)
    code, _, err = run(game.url, "token", "issue", "alice", "--scope", "dealer")
    assert code == 1 and err.strip() == ("error: a token with the dealer scope is for the "
                                         "Dealer, and "
                                         f"alice is not the Dealer ({PROPOSAL_DEALER} is)")
    assert _tokens(game) == before


def test_the_readmes_token_mail_works_as_written(game: Nomic, smtp: tuple[Inbox, str]) -> None:
    """The README's two lines -- the mail settings exported, then ``token issue Ienne --mail``
    -- with only the relay's address replaced by this test's server."""
    import shlex
    from pathlib import Path

    inbox, where = smtp
    readme = (Path(__file__).parents[2] / "README.md").read_text().splitlines()
    (export,) = [x for x in readme if x.startswith("export NOMIC_CARDS_SMTP=")]
    (issue,) = [x for x in readme if x.startswith("nomic-cards token issue Ienne --mail")]
    env = dict(a.split("=", 1) for a in shlex.split(export.split("#")[0])[1:])
    env["NOMIC_CARDS_SMTP"] = where
    with game.write() as tx:
        api.add_player(tx, "Ienne", email="ienne@example.org")
    args = shlex.split(issue.split("#")[0])[1:]
    r = runner.invoke(app, ["--db", game.url, *args], env=env)
    assert r.exit_code == 0, r.stderr
    [msg] = inbox.messages
    body = " ".join(msg.get_content().split())
    assert f"Paste it into the page at {env['NOMIC_CARDS_BASE_URL']}/ to sign in." in body
    assert r.stdout.splitlines()[-1] in body
