"""The Cards proposal's own actions, as :class:`~nomic_cards.core.actions.ActionSpec`: what the
Dealer does (rules 1, 5 and the Cards for Votes) through an officer token. A player has no
action of eir own under the Cards rules -- votes are recorded by the officer -- so every one of
these needs the ``dealer`` scope; a card game adds the players' actions (docs/server.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.store.writes import Tx


def _text(body: Mapping[str, object], name: str) -> str:
    value = body.get(name)
    return value if isinstance(value, str) else ""


def _deal(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    from nomic_cards.core.services.dealing import deal

    player = _text(body, "player")
    result = deal(tx, player, reason=_text(body, "reason") or "dealt by the Dealer")
    seqs = () if result.event is None else (result.event,)
    if result.refused:
        return ActionOutcome(seqs, summary=f"cannot deal to {result.player}: {result.refused}",
                             refused=True)
    return ActionOutcome(seqs, summary=f"dealt {result.player} a card")


def _transfer(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    from nomic_cards.core.services.dealing import transfer

    source = _text(body, "from") or None
    result = transfer(tx, _text(body, "card"), _text(body, "to"), _text(body, "rule"),
                      source=source)
    return ActionOutcome((result.event,), summary=f"moved a card from {result.source} to "
                                                  f"{result.target} under {result.rule!r}")


def _vote(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    from nomic_cards.core.services.time import record_vote

    result = record_vote(tx, _text(body, "player"), _text(body, "proposal"),
                         at=_text(body, "at") or None)
    seqs = tuple(s for s in (result.event, *(late.event for late in result.late))
                 if s is not None)
    what = "recorded the vote" if result.recorded else "the vote was already recorded"
    return ActionOutcome(seqs, summary=what)


def _tick(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    from nomic_cards.core.services.time import tick

    started = tick(tx)
    seqs = tuple(n.event for n in started)
    return ActionOutcome(seqs, summary=f"started {len(started)} nweek(s)" if started
                         else "nothing was due")


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("cards.deal", "dealer", "Deal a card from the Deck to a player (rule 5), with "
               "the committed dice.",
               (ActionField("player", "player", "the player dealt to"),
                ActionField("reason", "text", "why (default: dealt by the Dealer)",
                            required=False)),
               _deal, example={"action": "cards.deal", "player": "Ienne"}),
    ActionSpec("cards.transfer", "dealer", "Move a card under a cited rule (rule 1): to a "
               "player, or to the Deck.",
               (ActionField("card", "text", "the card: its number, or as `hand` shows it "
                                            "(\"Red As\")"),
                ActionField("to", "text", "a player's name, or \"deck\""),
                ActionField("rule", "text", "the rule cited for the transfer"),
                ActionField("from", "text", "where the card must be (a player or \"deck\"); "
                                            "refused otherwise", required=False)),
               _transfer, example={"action": "cards.transfer", "card": "Red As",
                                   "to": "Ienne", "rule": "Rule 399"}),
    ActionSpec("cards.vote", "dealer", "Record a player's vote on a proposal (the Cards for "
               "Votes); recording the same vote again changes nothing.",
               (ActionField("player", "player", "the voter"),
                ActionField("proposal", "text", "the proposal voted on"),
                ActionField("at", "text", "when the vote was cast, ISO 8601 (default: now)",
                            required=False)),
               _vote, example={"action": "cards.vote", "player": "Ienne", "proposal": "P456"}),
    ActionSpec("cards.tick", "dealer", "Do everything due at the nweek boundaries passed "
               "since the last tick (as `nomic-cards tick`).", (), _tick,
               example={"action": "cards.tick"}),
)
