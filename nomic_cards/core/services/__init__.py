"""Use cases: each opens one unit of work (one transaction) on a :class:`~nomic_cards.core.Game`,
asks the rules what to do, records the resulting events and returns a result dataclass for an
adapter to print or serve.

One module per part of the officer's work: :mod:`.players` (the game, players, the Dealer,
packs), :mod:`.dealing` (deals and transfers), :mod:`.dice` (dice periods), :mod:`.time` (the
Clock, votes, ``tick``), :mod:`.reports` (the Dealer's Report), :mod:`.rules` (the rules in
force and their changes), :mod:`.notices` (mailing notices), :mod:`.queries` (hands, the Deck,
the log), :mod:`.audit` (verification). Every use
case is re-exported here: ``services.deal(game, "Ienne")``. The modules are imported on
first use of one of their names, so that a command loads only the part it runs (a read
command never loads SQLAlchemy).
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nomic_cards.core.services.audit import (
        Anchor,
        DiceCheck,
        DiceReport,
        PublicEvent,
        VerifyReport,
        dice_verify,
        ledger_verify,
        parse_anchors,
        public_record,
    )
    from nomic_cards.core.services.dealing import (
        DealResult,
        RollView,
        TransferResult,
        deal,
        deal_in,
        transfer,
    )
    from nomic_cards.core.services.dice import (
        PeriodView,
        RevealResult,
        dice_open,
        dice_periods,
        dice_reveal,
    )
    from nomic_cards.core.services.notices import MailedNotice, SendReport, send_notices
    from nomic_cards.core.services.players import (
        DealerTermView,
        DealerView,
        InitResult,
        PackView,
        PlayerView,
        add_pack,
        add_player,
        elect_dealer,
        init_game,
        list_packs,
        list_players,
        retire_player,
        set_email,
        show_dealer,
        show_player,
    )
    from nomic_cards.core.services.public import ledger_head
    from nomic_cards.core.services.queries import (
        BackCount,
        CardView,
        DeckView,
        EventView,
        HandView,
        NoticeView,
        ShownHand,
        cards_of,
        deck,
        hand,
        hand_faces,
        log,
        notices,
    )
    from nomic_cards.core.services.reports import (
        ReportView,
        labels_dealt_in,
        new_reports,
        report,
    )
    from nomic_cards.core.services.rules import (
        CardGameView,
        RuleChangeView,
        RuleView,
        amend_rule,
        enact_rule,
        game_amend,
        game_enact,
        game_list,
        game_repeal,
        repeal_rule,
        rules_history,
        rules_show,
    )
    from nomic_cards.core.services.time import (
        ClockView,
        NweekStart,
        VoteImport,
        clock_start,
        clock_status,
        clock_stop,
        import_votes,
        nweek_start,
        record_vote,
        record_votes,
        tick,
    )
    from nomic_cards.core.services.tokens import (
        IssuedToken,
        MailedToken,
        TokenView,
        issue_token,
        list_tokens,
        mail_token,
        revoke_tokens,
    )

__all__ = [
    "Anchor",
    "BackCount",
    "CardView",
    "ClockView",
    "DealResult",
    "DealerTermView",
    "DealerView",
    "DeckView",
    "DiceCheck",
    "DiceReport",
    "EventView",
    "HandView",
    "InitResult",
    "IssuedToken",
    "MailedNotice",
    "MailedToken",
    "NoticeView",
    "NweekStart",
    "PackView",
    "PeriodView",
    "PlayerView",
    "PublicEvent",
    "ReportView",
    "RevealResult",
    "RuleChangeView",
    "RuleView",
    "RollView",
    "SendReport",
    "ShownHand",
    "TokenView",
    "TransferResult",
    "VerifyReport",
    "VoteImport",
    "add_pack",
    "add_player",
    "amend_rule",
    "cards_of",
    "clock_start",
    "clock_status",
    "clock_stop",
    "deal",
    "deal_in",
    "deck",
    "dice_open",
    "dice_periods",
    "dice_reveal",
    "dice_verify",
    "elect_dealer",
    "enact_rule",
    "hand",
    "hand_faces",
    "import_votes",
    "init_game",
    "issue_token",
    "labels_dealt_in",
    "ledger_head",
    "ledger_verify",
    "list_packs",
    "list_players",
    "list_tokens",
    "mail_token",
    "log",
    "notices",
    "new_reports",
    "nweek_start",
    "parse_anchors",
    "public_record",
    "record_vote",
    "record_votes",
    "repeal_rule",
    "report",
    "retire_player",
    "revoke_tokens",
    "rules_history",
    "rules_show",
    "CardGameView",
    "game_amend",
    "game_enact",
    "game_list",
    "game_repeal",
    "send_notices",
    "set_email",
    "show_dealer",
    "show_player",
    "tick",
    "transfer",
]

#: the module defining each public name
_WHERE = MappingProxyType({
    "Anchor": "audit",
    "BackCount": "queries",
    "CardView": "queries",
    "ClockView": "time",
    "DealResult": "dealing",
    "DealerTermView": "players",
    "DealerView": "players",
    "DeckView": "queries",
    "DiceCheck": "audit",
    "DiceReport": "audit",
    "EventView": "queries",
    "HandView": "queries",
    "InitResult": "players",
    "IssuedToken": "tokens",
    "MailedNotice": "notices",
    "MailedToken": "tokens",
    "NoticeView": "queries",
    "NweekStart": "time",
    "PackView": "players",
    "PeriodView": "dice",
    "PlayerView": "players",
    "PublicEvent": "audit",
    "ReportView": "reports",
    "RevealResult": "dice",
    "RuleChangeView": "rules",
    "CardGameView": "rules",
    "game_amend": "rules",
    "game_enact": "rules",
    "game_list": "rules",
    "game_repeal": "rules",
    "RuleView": "rules",
    "RollView": "dealing",
    "SendReport": "notices",
    "ShownHand": "queries",
    "TokenView": "tokens",
    "TransferResult": "dealing",
    "VerifyReport": "audit",
    "VoteImport": "time",
    "add_pack": "players",
    "add_player": "players",
    "amend_rule": "rules",
    "cards_of": "queries",
    "clock_start": "time",
    "clock_status": "time",
    "clock_stop": "time",
    "deal": "dealing",
    "deal_in": "dealing",
    "deck": "queries",
    "dice_open": "dice",
    "dice_periods": "dice",
    "dice_reveal": "dice",
    "dice_verify": "audit",
    "elect_dealer": "players",
    "enact_rule": "rules",
    "hand": "queries",
    "hand_faces": "queries",
    "import_votes": "time",
    "init_game": "players",
    "issue_token": "tokens",
    "labels_dealt_in": "reports",
    "ledger_head": "public",
    "ledger_verify": "audit",
    "list_packs": "players",
    "list_players": "players",
    "list_tokens": "tokens",
    "mail_token": "tokens",
    "log": "queries",
    "notices": "queries",
    "nweek_start": "time",
    "new_reports": "reports",
    "parse_anchors": "audit",
    "public_record": "audit",
    "record_vote": "time",
    "record_votes": "time",
    "repeal_rule": "rules",
    "report": "reports",
    "retire_player": "players",
    "revoke_tokens": "tokens",
    "rules_history": "rules",
    "rules_show": "rules",
    "send_notices": "notices",
    "set_email": "players",
    "show_dealer": "players",
    "show_player": "players",
    "tick": "time",
    "transfer": "dealing",
})


#: the submodules (``services.public``, ``from nomic_cards.core.services import time``)
_MODULES = frozenset({"audit", "common", "dealing", "dice", "notices", "players",
                      "public", "queries", "reports", "rules", "summaries", "time", "tokens"})


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is not None:
        return getattr(import_module(f"nomic_cards.core.services.{module}"), name)
    if name in _MODULES:
        return import_module(f"nomic_cards.core.services.{name}")
    raise AttributeError(f"module 'nomic_cards.core.services' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


class _Services(ModuleType):
    """This package's module type: importing the submodule :mod:`.notices` must not hide the
    use case :func:`notices` (the import system sets a package attribute per submodule)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _WHERE and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Services
