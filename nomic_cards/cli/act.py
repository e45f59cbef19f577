"""``nomic-cards act``: take any declared action -- the Cards rules' (``cards.deal``, ...) or an
installed card game's (``<game>.<action>``) -- from the command line, in one transaction, as the
server's action endpoint takes it (the same declaration checks the body, the same use case runs).

A player's action is recorded for the player named by ``--as`` (the officer enters what the
player sent); the Dealer's actions act as the Dealer. The body is given as ``KEY=VALUE``
arguments, each read as its declared field wants it (a whole number; text; a list of cards,
comma-separated, or the key repeated; Poker Hands: cards comma-separated, hands separated by
``;``), or whole as JSON with ``--body``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import typer

from nomic_cards.cli.common import JSON_OPTION, act_at, at_option, echo, emit_json, open_nomic
from nomic_cards.core.actions import body_from_pairs
from nomic_cards.errors import InputError
from nomic_cards.inputs import read_json

#: the longest JSON body taken (as the server's)
MAX_BODY = 16 * 1024


def body_from(action: str, pairs: list[str], raw: str | None,
              declared: Mapping[str, str]) -> dict[str, Any]:
    """The action's body from ``KEY=VALUE`` arguments or ``--body`` JSON (``declared``: each
    field's kind)."""
    if raw is not None:
        if pairs:
            raise InputError("give the body as KEY=VALUE arguments or as --body JSON, not both")
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_BODY:
            raise InputError(f"--body is too large (at most {MAX_BODY} bytes)")
        parsed = read_json(raw, "--body")
        if not isinstance(parsed, dict):
            raise InputError("--body must be a JSON object of the action's fields")
        return {**parsed, "action": action}
    return body_from_pairs(action, pairs, declared)


def act(
    ctx: typer.Context,
    action: str = typer.Argument(..., help="The action, <game>.<action> (see `nomic-cards "
                                           "actions`)."),
    fields: list[str] = typer.Argument(None, help="The action's fields, KEY=VALUE."),
    player: str = typer.Option(None, "--as", metavar="PLAYER",
                               help="The player taking a player's action (the officer enters "
                                    "what the player sent)."),
    body: str = typer.Option(None, "--body", metavar="JSON",
                             help="The whole body as a JSON object, instead of KEY=VALUE."),
    at: str = at_option(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Take a declared action (the Cards rules' or an installed card game's) in one
    transaction, as the server's POST /api/v1/me/actions takes it."""
    from nomic_cards.core.services import acting
    from nomic_cards.core.services.acting import registry
    from nomic_cards.core.services.live import recorded_events

    actions = registry()
    spec = acting.named(actions, {"action": action})
    checked = acting.check_body(spec, body_from(action, fields or [], body,
                                                {f.name: f.kind for f in spec.fields}))
    if spec.scope == "player" and not player:
        raise InputError(f"{spec.name} is a player's action: say whose with --as PLAYER")
    if spec.scope == "dealer" and player:
        raise InputError(f"{spec.name} is the Dealer's action: it takes no --as")
    act_at(ctx, at)
    with open_nomic(ctx) as nomic, nomic.write() as tx:
        actor = player if spec.scope == "player" else tx.state.dealer
        if actor is None:
            raise InputError("the game has no Dealer to take this action")
        outcome = spec.run(tx, actor, checked)
        events = [e for e in recorded_events(tx, None) if e.event in set(outcome.seqs)]
    if as_json:
        emit_json({"action": spec.name, "actor": actor, "summary": outcome.summary,
                   "waiting": outcome.waiting, "refused": outcome.refused,
                   "events": [{"event": e.event, "kind": e.kind} for e in events]})
    else:
        state = "waiting" if outcome.waiting else "refused" if outcome.refused else "done"
        echo(f"{spec.name} by {actor}: {outcome.summary} ({state}; "
             f"{', '.join(f'event {e.event} {e.kind}' for e in events) or 'no event'})")
    if outcome.refused:
        raise typer.Exit(1)


def list_actions(as_json: bool = JSON_OPTION) -> None:
    """List every action ``act`` and the server take: the Cards rules' and each installed card
    game's, with their fields."""
    from nomic_cards.core.services.acting import registry

    actions = registry()
    if as_json:
        emit_json([{"action": a.name, "scope": a.scope, "doc": a.doc,
                    "fields": [{"name": f.name, "kind": f.kind, "required": f.required,
                                "doc": f.doc} for f in a.fields]}
                   for a in actions.values()])
        return
    for a in actions.values():
        names = " ".join(f"{f.name}={f.kind.upper()}" if f.required
                         else f"[{f.name}={f.kind.upper()}]" for f in a.fields)
        who = "the Dealer" if a.scope == "dealer" else "a player (--as)"
        echo(f"{a.name} {names}".rstrip())
        echo(f"    {who}: {a.doc}")
