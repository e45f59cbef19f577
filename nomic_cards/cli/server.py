"""``nomic-cards serve`` (the game-state server) and ``nomic-cards token`` (players' tokens).

The server's heavy imports (uvicorn, Starlette, pydantic) happen only inside ``serve``.
"""

from __future__ import annotations

import typer

from nomic_cards.cli._common import (
    CA_FILE_OPTION,
    JSON_OPTION,
    TLS_OPTION,
    Tls,
    call,
    echo,
    emit_json,
    open_game,
)
from nomic_cards.errors import InputError

token_app = typer.Typer(help="Players' tokens for the server: issue, revoke, list.",
                        no_args_is_help=True)


@token_app.command("issue")
def token_issue(
    ctx: typer.Context,
    player: str = typer.Argument(..., help="The player the token is for."),
    keep_others: bool = typer.Option(False, "--keep-others",
                                     help="Keep the player's earlier tokens (default: revoke)."),
    scope: str = typer.Option(None, "--scope", metavar="SCOPE",
                              help="An officer token: 'dealer' lets the Dealer deal, transfer, "
                                   "record votes and tick through the server."),
    mail: bool = typer.Option(False, "--mail", help="Also e-mail it to the player (--smtp)."),
    smtp: str = typer.Option(None, "--smtp", metavar="HOST:PORT", envvar="NOMIC_CARDS_SMTP",
                             help="The SMTP server for --mail."),
    tls: Tls = TLS_OPTION,
    cafile: str = CA_FILE_OPTION,
    sender: str = typer.Option(None, "--from", metavar="ADDR", help="From address for --mail."),
    base_url: str = typer.Option(None, "--base-url", metavar="URL",
                                 envvar="NOMIC_CARDS_BASE_URL",
                                 help="The server's URL as players reach it (e.g. "
                                      "https://cards.example.org): the mail says where to "
                                      "use the token."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Issue a new token for a player and print it once (alone on the last line): only a hash
    of it is kept. Issuing revokes the player's earlier tokens unless --keep-others. With
    --mail, the player's address, the mail settings and the SMTP server are checked first, and
    the token is kept only once the server has accepted the mail: a failure leaves the player's
    tokens as they were. The mail login, if any, comes from NOMIC_CARDS_SMTP_USER and
    NOMIC_CARDS_SMTP_PASSWORD."""
    import os

    from nomic_cards.core.services.tokens import issue_token, mail_token

    address = None
    if mail:
        if not smtp:
            raise InputError("--mail needs --smtp HOST:PORT (or NOMIC_CARDS_SMTP)")
        from nomic_cards.core.mail import smtp_config

        config = smtp_config(smtp, tls=tls.value, cafile=cafile, environ=os.environ)
        mailed = call(ctx, mail_token, player, smtp=config, keep_others=keep_others,
                      sender=sender, base_url=base_url or None, scope=scope)
        issued, address = mailed.issued, mailed.address
    else:
        issued = call(ctx, issue_token, player, keep_others=keep_others, scope=scope)
    if as_json:
        emit_json({"player": issued.player, "selector": issued.selector, "scope": issued.scope,
                   "revoked": issued.revoked, "mailed_to": address, "token": issued.token})
        return
    if issued.revoked:
        echo(f"Revoked {issued.revoked} earlier token(s) of {issued.player}.", err=True)
    if address:
        echo(f"Mailed to {address}.", err=True)
    echo(f"Token for {issued.player} (shown once; keep it secret):", err=True)
    echo(issued.token)


@token_app.command("revoke")
def token_revoke(
    ctx: typer.Context,
    player: str = typer.Argument(None, help="Revoke every token of this player."),
    selector: str = typer.Option(None, "--selector", help="Revoke the one token with this "
                                                          "selector (see `token list`)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Revoke a player's tokens (or one token by its selector)."""
    from nomic_cards.core.services.tokens import revoke_tokens

    if (player is None) == (selector is None):
        raise InputError("give a PLAYER or --selector SELECTOR (one of them)")
    count = call(ctx, revoke_tokens, player=player, selector=selector)
    if as_json:
        emit_json({"revoked": count})
    else:
        echo(f"{count} token(s) revoked.")


@token_app.command("list")
def token_list(
    ctx: typer.Context,
    player: str = typer.Argument(None, help="Only this player's tokens."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List tokens: player, selector, when issued and revoked (never the secret)."""
    from nomic_cards.core.services.tokens import list_tokens

    rows = call(ctx, list_tokens, player)
    if as_json:
        emit_json(rows)
        return
    for t in rows:
        state = f"revoked {t.revoked_at[:19]}" if t.revoked_at else "live"
        scope = f"  scope {t.scope}" if t.scope else ""
        echo(f"{t.player:<20} {t.selector}  issued {t.issued_at[:19]}  {state}{scope}")
    if not rows:
        echo("No tokens.")


def serve(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port to listen on."),
    workers: int = typer.Option(1, "--workers", min=1, max=64,
                                help="Worker processes (each opens its own database pool)."),
    forwarded_allow_ips: str = typer.Option(
        None, "--forwarded-allow-ips", metavar="IPS",
        help="Proxies trusted for X-Forwarded-For/-Proto (comma-separated; see "
             "docs/server.md)."),
    access_log: bool = typer.Option(True, "--access-log/--no-access-log",
                                    help="Log each request (method, path, status)."),
    base_url: str = typer.Option(None, "--base-url", metavar="URL",
                                 envvar="NOMIC_CARDS_BASE_URL",
                                 help="The server's public URL as players reach it (e.g. "
                                      "https://cards.example.org): the Atom feed's links and "
                                      "ids and the redirects are made from it, never from a "
                                      "request's Host header."),
    worker_nice: int = typer.Option(None, "--worker-nice", min=0, max=19, metavar="N",
                                    help="With --workers 2 or more: run the workers N nice "
                                         "steps below the action writer, so that actions go "
                                         "first when the cores are busy (default 10; 0: the "
                                         "same priority)."),
) -> None:
    """Serve the game read-only: the JSON API (/api/v1), the Atom feed of the Dealer's Reports
    (/reports.atom) and the web page (/)."""
    import os
    import resource

    import uvicorn

    from nomic_cards.cli._common import cli_options
    from nomic_cards.core.mail import BASE_URL_VARIABLE, check_base_url
    from nomic_cards.core.services.public import ledger_head

    db = cli_options(ctx).db
    if base_url:  # checked now, in one line; the workers read it from the environment
        os.environ[BASE_URL_VARIABLE] = check_base_url(base_url)
    else:
        os.environ.pop(BASE_URL_VARIABLE, None)
    with open_game(ctx) as game:  # fail now, in one line, if the database is not usable
        ledger_head(game)
        os.environ["NOMIC_CARDS_DB"] = game.url
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:  # many idle connections must not starve the real ones of descriptors
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    import tempfile

    from nomic_cards.cli.workers import WORKER_NICE, Supervisor, listen

    if worker_nice is not None and workers == 1:
        raise InputError("--worker-nice needs --workers 2 or more (one worker has no action "
                         "writer to give way to)")

    # a bad address or a port in use: one line, before any log
    sockets = listen(host, port, workers)
    echo(f"Serving {db or 'nomic-cards.db'} on http://{host}:{port}/ with {workers} worker(s)",
         err=True)
    if forwarded_allow_ips is not None:
        os.environ["NOMIC_CARDS_TRUSTED_PROXY"] = "1"
    config = uvicorn.Config("nomic_cards.server:create_app", factory=True, host=host, port=port,
                            workers=workers, proxy_headers=forwarded_allow_ips is not None,
                            forwarded_allow_ips=forwarded_allow_ips, access_log=access_log,
                            server_header=False, log_level="info",
                            # open event streams never end by themselves: a stop waits this
                            # long for them, then closes them (clients resume with
                            # Last-Event-ID)
                            timeout_graceful_shutdown=GRACE)
    # the failed-token counts, shared by the workers, in a folder only this user can read
    with tempfile.TemporaryDirectory(prefix="nomic-cards-serve-") as folder:
        os.environ.setdefault("NOMIC_CARDS_LIMITS", os.path.join(folder, "limits.db"))
        if workers == 1:
            uvicorn.Server(config).run(sockets=sockets)
            return
        # each worker dies with this process, even if it is killed with SIGKILL
        os.environ["NOMIC_CARDS_SUPERVISOR"] = str(os.getpid())
        # the workers hand their actions to one writer (nomic_cards.server.writer), through a
        # socket in the same private folder, with a key made for this server
        import secrets

        writer = (os.path.join(folder, "writer.sock"), secrets.token_bytes(32))
        os.environ["NOMIC_CARDS_WRITER"] = writer[0]
        os.environ["NOMIC_CARDS_WRITER_KEY"] = writer[1].hex()
        Supervisor(config, sockets, workers, grace=GRACE, writer=writer,
                   db=os.environ["NOMIC_CARDS_DB"],
                   nice=WORKER_NICE if worker_nice is None else worker_nice).run()


#: seconds a stopping server waits for open connections (event streams) before closing them
GRACE = 3

