"""The Cards proposal's own actions, as :class:`~nomic_cards.core.actions.ActionSpec`: what the
Dealer does (rules 1, 5, the Cards for Votes, the nomic's decisions) through an officer token,
and the one a player takes for emself: a ballot on an open decision of the nomic (card games add
their own players' actions; docs/server.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from nomic_cards.core.actions import ActionField, ActionOutcome, ActionSpec
from nomic_cards.core.services.dealing import deal, transfer
from nomic_cards.core.services.decisions import (
    BallotView,
    cast_ballot,
    open_decision,
    set_strength,
)
from nomic_cards.core.services.self_service import ask_address, choose_mail
from nomic_cards.core.services.time import tick
from nomic_cards.core.services.votes import cast_vote
from nomic_cards.core.store.writes import Tx


def _text(body: Mapping[str, object], name: str) -> str:
    value = body.get(name)
    return value if isinstance(value, str) else ""


def _int(body: Mapping[str, object], name: str) -> int | None:
    """A whole-number field, as the body's check let it through (None: not given)."""
    value = body.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _deal(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    player = _text(body, "player")
    result = deal(tx, player, reason=_text(body, "reason") or "dealt by the Dealer")
    seqs = () if result.event is None else (result.event,)
    if result.refused:
        return ActionOutcome(seqs, summary=f"cannot deal to {result.player}: {result.refused}",
                             refused=True)
    rolls = [{"value": r.value, "sides": r.sides, "source": r.source, "period": r.period,
              "index": r.index} for r in result.rolls]
    told = f"dealt {result.card} (card {result.card_number}) to {result.player} in " \
           f"{len(rolls)} roll(s): " + ", ".join(f"d{r.sides} -> {r.value}" for r in result.rolls)
    return ActionOutcome(seqs, summary=f"dealt {result.player} a card",
                         private={"card": result.card, "number": result.card_number,
                                  "rolls": rolls, "commitment": result.opened_commitment,
                                  "told": told})


def _transfer(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    source = _text(body, "from") or None
    result = transfer(tx, _text(body, "card"), _text(body, "to"), _text(body, "rule"),
                      source=source)
    return ActionOutcome((result.event,), summary=f"moved a card from {result.source} to "
                                                  f"{result.target} under {result.rule!r}")


def _vote(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    cast = cast_vote(tx, _text(body, "player"), _text(body, "proposal"),
                     option=_text(body, "option") or None, endorse=_text(body, "endorse") or None,
                     as_cast=_text(body, "as_cast"), source=_text(body, "source"),
                     at=_text(body, "at") or None)
    if cast.ballot is not None:
        return _ballot_outcome(cast.ballot)
    result = cast.votes
    assert result is not None
    seqs = tuple(s for s in (result.event, *(late.event for late in result.late))
                 if s is not None)
    what = "recorded the vote" if result.recorded else "the vote was already recorded"
    return ActionOutcome(seqs, summary=what)


def _ballot_outcome(b: BallotView) -> ActionOutcome:
    what = b.option if b.endorse is None else f"endorsing {b.endorse}"
    seqs = (b.event, *(late.event for late in b.late if late.event is not None))
    return ActionOutcome(seqs, summary=f"{b.player}'s ballot on decision {b.decision}: {what}"
                         + (" (replacing the earlier one)" if b.replaced else ""))


def _ballot(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    return _ballot_outcome(cast_ballot(
        tx, actor, _text(body, "decision"), option=_text(body, "option") or None,
        endorse=_text(body, "endorse") or None, as_cast=_text(body, "as_cast")))


def _decision_open(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    view = open_decision(
        tx, _text(body, "id"), title=_text(body, "title"), author=_text(body, "author"),
        ai=_text(body, "ai"), klass=_text(body, "class") or "ordinary",
        quorum=_int(body, "quorum"), closes=_text(body, "closes") or None,
        days=_int(body, "days"), source=_text(body, "source"))
    return ActionOutcome((view.event,), summary=f"decision {view.id} ({view.title}) is open "
                                                f"until {view.closes}; {view.told} player(s) "
                                                "told")


def _strength_set(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    view = set_strength(tx, _text(body, "player"), _int(body, "strength"),
                        reason=_text(body, "reason"))
    shown = "the default" if view.strength is None else str(view.strength)
    return ActionOutcome((view.event,), summary=f"{view.player}'s voting strength is {shown}")


def _mail(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    chosen = choose_mail(tx, actor, _text(body, "mail"))
    how = "in one digest a day" if chosen.mail == "daily" else "at each sending, as they come"
    return ActionOutcome((chosen.event,), summary=f"{chosen.player}'s notices are mailed {how}")


def _address(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    asked = ask_address(tx, actor, _text(body, "address"))
    return ActionOutcome((asked.event,), waiting=True,
                         summary=f"a link confirming the change goes to {asked.address} "
                                 "within minutes; your address changes when you follow it")


def _doubt(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    from nomic_cards.core.services.claims import doubt_report

    nweek = _int(body, "nweek")
    assert nweek is not None  # a field the action needs: the body's check asked for it
    done = doubt_report(tx, actor, nweek, claim=_text(body, "claim"),
                        source=_text(body, "source"))
    return ActionOutcome((done.event,), summary=f"{done.player} doubted the Dealer's Report "
                                                f"for nweek {done.nweek} (event {done.event})")


def _withdraw_doubt(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    from nomic_cards.core.services.claims import withdraw_claim

    doubt = _int(body, "doubt")
    assert doubt is not None  # a field the action needs: the body's check asked for it
    done = withdraw_claim(tx, doubt, actor)
    return ActionOutcome((done.event,), summary=f"{done.player} withdrew eir claim of error "
                                                f"of event {doubt}")


def _tick(tx: Tx, actor: str, body: Mapping[str, object]) -> ActionOutcome:
    """Everything due, and everything the action did: the work caught up before it (every
    action's) is said too, and every event it recorded is in the answer."""
    started = tick(tx)
    reports = sum(1 for n in started if n.report_published)
    dealt = sum(len(n.dealt) for n in started)
    done = []
    if len(started) == 1:
        n = started[0]
        done.append(f"started nweek {n.nweek}" + (f" (the Dealer's Report for nweek "
                                                 f"{n.nweek - 1} published)" if reports else "")
                    + f", Cards for Votes {dealt} dealt")
    elif started:
        done.append(f"started {len(started)} nweeks, {started[0].nweek} to {started[-1].nweek} "
                    f"({reports} Dealer's Reports published), Cards for Votes {dealt} dealt")
    done += [f"closed {line}" for line in tx.windows_closed]
    seqs = tuple(r.seq for r in tx.recorded)
    return ActionOutcome(seqs, summary="; ".join(done) if done else "nothing was due")


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
               "Votes): on a decision of the ledger a ballot (an option or an endorsement; it "
               "replaces the player's earlier one), on any other proposal a vote (recording "
               "the same vote again changes nothing).",
               (ActionField("player", "player", "the voter"),
                ActionField("proposal", "text", "the proposal voted on"),
                ActionField("option", "text", "FOR, AGAINST or PRESENT (a ballot)",
                            required=False),
                ActionField("endorse", "player", "or: the player whose ballot it follows",
                            required=False),
                ActionField("as_cast", "text", "the ballot in the voter's words",
                            required=False),
                ActionField("source", "text", "where it was cast (a message)", required=False),
                ActionField("at", "text", "when the vote was cast, ISO 8601 (default: now)",
                            required=False)),
               _vote, example={"action": "cards.vote", "player": "Ienne", "proposal": "P456"}),
    ActionSpec("cards.ballot", "player", "Cast your ballot on an open decision of the nomic: "
               "FOR, AGAINST or PRESENT, or endorse another player (your ballot then counts "
               "as eirs); it replaces your earlier one, until the decision closes.",
               (ActionField("decision", "text", "the decision's id (the proposal's number)"),
                ActionField("option", "text", "FOR, AGAINST or PRESENT", required=False),
                ActionField("endorse", "player", "or: the player whose ballot yours follows",
                            required=False),
                ActionField("as_cast", "text", "your ballot in your own words",
                            required=False)),
               _ballot, example={"action": "cards.ballot", "decision": "9355",
                                 "option": "FOR"}),
    ActionSpec("cards.mail", "player", "Choose how your notices are mailed: \"each\" "
               "sending, within minutes of what they tell, or one \"daily\" digest after "
               "00:00 UTC (what would come less than 12 hours before its deadline goes at once).",
               (ActionField("mail", "text", "each or daily"),),
               _mail, example={"action": "cards.mail", "mail": "daily"}),
    ActionSpec("cards.address", "player", "Change your e-mail address: a link is mailed to the "
               "new address, and the change is made when you follow it (within 48 hours). At "
               "most one request each 15 minutes, four a day.",
               (ActionField("address", "text", "the new address, name@example.org"),),
               _address, example={"action": "cards.address", "address": "ienne@example.net"}),
    ActionSpec("cards.doubt", "player", "Doubt a Dealer's Report posted to the list (a claim "
               "of error, when rule 8's doubt_days is on): say what is wrong; the Dealer denies "
               "it or revises the report, and you may withdraw it.",
               (ActionField("nweek", "int", "the report's nweek"),
                ActionField("claim", "text", "what is wrong in it"),
                ActionField("source", "text", "where you said so (a message)",
                            required=False)),
               _doubt, example={"action": "cards.doubt", "nweek": 3,
                                "claim": "ann received 2 Red cards, not 3"},
               phrases=(r"I (?:doubt|claim (?:an )?error in) the (?:Dealer'?s )?Report (?:for|of)"
                        r" nweek (?P<nweek>[0-9]+)\s*[:,;.-]\s*(?P<claim>.+)",)),
    ActionSpec("cards.doubt_withdraw", "player", "Withdraw your claim of error (its event).",
               (ActionField("doubt", "int", "the claim's event"),),
               _withdraw_doubt, example={"action": "cards.doubt_withdraw", "doubt": 41},
               phrases=(r"I withdraw my (?:doubt|claim of error) (?:#|event )?(?P<doubt>[0-9]+)",)),
    ActionSpec("cards.decision_open", "dealer", "Open a decision of the nomic for ballots until "
               "it closes (as `nomic-cards decision open`); every active player is told.",
               (ActionField("id", "text", "the decision's id (the proposal's number)"),
                ActionField("title", "text", "the proposal's title"),
                ActionField("author", "text", "the proposal's author"),
                ActionField("ai", "text", "the adoption index, a decimal: 1.0 a simple "
                                          "majority"),
                ActionField("days", "int", "voting ends in this many days", required=False),
                ActionField("closes", "text", "or: when voting ends, ISO 8601",
                            required=False),
                ActionField("quorum", "int", "distinct voters needed (default: the rule's)",
                            required=False),
                ActionField("class", "text", "ordinary (default) or democratic",
                            required=False),
                ActionField("source", "text", "where the proposal was distributed",
                            required=False)),
               _decision_open, example={"action": "cards.decision_open", "id": "9355",
                                        "title": "More cards", "author": "Ienne", "ai": "1.0",
                                        "days": 7}),
    ActionSpec("cards.strength_set", "dealer", "Set a player's voting strength on the "
               "decisions closing from now on, with why (as `nomic-cards strength set`).",
               (ActionField("player", "player", "whose strength"),
                ActionField("strength", "int", "0 to 15 (absent: the default again)",
                            required=False),
                ActionField("reason", "text", "why (the rule, the report)")),
               _strength_set, example={"action": "cards.strength_set", "player": "Ienne",
                                       "strength": 2, "reason": "Rule 2422"}),
    ActionSpec("cards.tick", "dealer", "Do everything due at the nweek boundaries passed "
               "since the last tick (as `nomic-cards tick`).", (), _tick,
               example={"action": "cards.tick"}),
)
