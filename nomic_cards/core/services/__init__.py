"""Use cases: each opens one unit of work (one transaction) on a :class:`~nomic_cards.core.Game`,
asks the rules what to do, records the resulting events and returns a result dataclass for an
adapter to print or serve.

One module per part of the officer's work: :mod:`.players` (the game, players, the Dealer,
packs), :mod:`.dealing` (deals and transfers), :mod:`.dice` (dice periods), :mod:`.time` (the
Clock, votes, ``tick``), :mod:`.reports` (the Dealer's Report), :mod:`.notices` (mailing
notices), :mod:`.queries` (hands, the Deck, the log), :mod:`.audit` (verification). Every use
case is re-exported here: ``services.deal(game, "Ienne")``.
"""

from __future__ import annotations

from nomic_cards.core.services.audit import (
    DiceCheck,
    VerifyReport,
    dice_verify,
    ledger_verify,
    verify_dice_state,
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
)
from nomic_cards.core.services.queries import (
    BackCount,
    CardView,
    DeckView,
    EventView,
    HandView,
    NoticeView,
    cards_of,
    deck,
    hand,
    hand_faces,
    log,
    notices,
)
from nomic_cards.core.services.reports import ReportView, labels_dealt_in, report
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

__all__ = [
    "BackCount", "CardView", "ClockView", "DealResult", "DealerTermView", "DealerView",
    "DeckView", "DiceCheck", "EventView", "HandView", "InitResult", "MailedNotice",
    "NoticeView", "NweekStart", "PackView", "PeriodView", "PlayerView", "ReportView",
    "RevealResult", "RollView", "SendReport", "TransferResult", "VerifyReport", "VoteImport",
    "add_pack", "add_player", "cards_of", "clock_start", "clock_status", "clock_stop", "deal",
    "deal_in", "deck", "dice_open", "dice_periods", "dice_reveal", "dice_verify",
    "elect_dealer", "hand", "hand_faces", "import_votes", "init_game", "labels_dealt_in",
    "ledger_verify", "list_packs", "list_players", "log", "notices", "nweek_start", "record_vote",
    "record_votes",
    "report", "retire_player", "send_notices", "set_email", "show_dealer", "tick",
    "transfer", "verify_dice_state",
]
