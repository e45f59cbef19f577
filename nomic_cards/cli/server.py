"""``nomic-cards serve`` (the game-state server) and ``nomic-cards token`` (players' tokens).

The server's heavy imports (uvicorn, Starlette, pydantic) happen only inside ``serve``.
"""

from __future__ import annotations

import socket

import typer

from nomic_cards.cli.common import (
    CA_FILE_OPTION,
    JSON_OPTION,
    TLS_OPTION,
    Tls,
    echo,
    emit_json,
    open_nomic,
    read,
    write,
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
                                      "use the token (needed with --mail)."),
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
        if not base_url:
            raise InputError("--mail needs --base-url URL (or NOMIC_CARDS_BASE_URL): the mail "
                             "says where to use the token")
        from nomic_cards.core.mail import smtp_config

        config = smtp_config(smtp, tls=tls.value, cafile=cafile, environ=os.environ)
        mailed = write(ctx, mail_token, player, smtp=config, keep_others=keep_others,
                      sender=sender, base_url=base_url, scope=scope)
        issued, address = mailed.issued, mailed.address
    else:
        issued = write(ctx, issue_token, player, keep_others=keep_others, scope=scope)
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
    count = write(ctx, revoke_tokens, player=player, selector=selector)
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

    rows = read(ctx, list_tokens, player)
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
                                help="Worker processes (uvicorn's; each opens its own database "
                                     "connections)."),
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
) -> None:
    """Serve the game: the JSON API (/api/v1), the actions players and the Dealer take
    (POST /api/v1/me/actions), the live event streams, the Atom feed of the Dealer's Reports
    (/reports.atom) and the web page (/)."""
    import os
    import resource
    import signal
    import tempfile

    import uvicorn

    from nomic_cards.core.mail import BASE_URL_VARIABLE, check_base_url
    from nomic_cards.core.services.public import ledger_head

    if base_url:  # checked now, in one line; the workers read it from the environment
        os.environ[BASE_URL_VARIABLE] = check_base_url(base_url)
    else:
        os.environ.pop(BASE_URL_VARIABLE, None)
    with open_nomic(ctx) as nomic, nomic.read(need_game=False) as r:
        ledger_head(r)  # fail now, in one line, if the database is not usable
        os.environ["NOMIC_CARDS_DB"] = nomic.url
        where = nomic.database  # its password as ***
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:  # many idle connections must not starve the real ones of descriptors
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sock = listen(host, port)  # a bad address or a port in use: one line, before any log
    echo(f"Serving {where} on http://{host}:{port}/ with {workers} worker(s)", err=True)
    if forwarded_allow_ips is not None:
        os.environ["NOMIC_CARDS_TRUSTED_PROXY"] = "1"
    config = uvicorn.Config("nomic_cards.server:create_app", factory=True, workers=workers,
                            proxy_headers=forwarded_allow_ips is not None,
                            forwarded_allow_ips=forwarded_allow_ips, access_log=access_log,
                            server_header=False, log_level="info",
                            # open event streams never end by themselves: a stop waits this
                            # long for them, then closes them (clients resume with
                            # Last-Event-ID)
                            timeout_graceful_shutdown=GRACE,
                            # the header's time and size, the connections per worker
                            http="nomic_cards.server.protocol:HttpProtocol")
    # a stop (systemd's SIGTERM, Ctrl-C) ends `serve` with status 0 once the server has
    # stopped and its folder is removed: uvicorn hands the signal back when it is done, and
    # this handler takes it, as it takes one that comes before uvicorn is listening
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, _stopped)
    # the failed-token counts, shared by the workers, in a folder only this user can read
    with tempfile.TemporaryDirectory(prefix="nomic-cards-serve-") as folder:
        os.environ.setdefault("NOMIC_CARDS_LIMITS", os.path.join(folder, "limits.db"))
        if workers == 1:
            uvicorn.Server(config).run(sockets=[sock])
        else:  # uvicorn's own supervisor: restarts a worker that dies
            from uvicorn.supervisors import Multiprocess

            Multiprocess(config, sockets=[sock]).run()


def _stopped(signum: int, frame: object) -> None:
    raise SystemExit(0)


#: seconds a stopping server waits for open connections (event streams) before closing them
GRACE = 3
#: a connection whose peer has not acknowledged what was sent for this long is closed by the
#: kernel (an event stream's ping is unacknowledged on a half-open connection)
USER_TIMEOUT_MS = 45_000


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the server starts (a bad address or a port in use is
    a one-line error), as a TCP socket (protocol IPPROTO_TCP: the event loop then turns
    Nagle's algorithm off on every connection, which would otherwise wait for a delayed ACK),
    with TCP keepalive and ``TCP_USER_TIMEOUT``, which every accepted connection inherits: a
    connection whose peer vanished (a phone gone out of range holding an event stream) is
    closed by the kernel within a minute, and the server ends the stream."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3),
                            ("TCP_USER_TIMEOUT", USER_TIMEOUT_MS)):
            option = getattr(socket, name, None)
            if option is not None:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
        sock.bind((host, port))
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock
