"""Tables. ``events`` is the truth (append-only); every other table is a projection of it,
written in the same transaction as the event that changes it.

The events' private fields are kept in ``event_private`` (the chain holds a commitment to
them), and the committed-seed dice keep their secret seed in ``dice_secrets`` until the Dealer
reveals it. Neither is part of the public record; docs/dice.md shows the grants for a shared
PostgreSQL game.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from nomic_cards.core.store.base import Base


class Event(Base):
    """One ledger entry. Never updated or deleted."""

    __tablename__ = "events"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(64), index=True)
    subject: Mapped[str | None] = mapped_column(String(200), index=True)
    payload: Mapped[str] = mapped_column(Text)  # the public fields, exactly as hashed
    private: Mapped[str | None] = mapped_column(String(64))  # commitment to the private fields
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)


class EventPrivate(Base):
    """The private fields of an event (cards, notices, addresses) and the nonce of their
    commitment. Not part of the public record: readable by the Dealer only."""

    __tablename__ = "event_private"

    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64))
    data: Mapped[str] = mapped_column(Text)


class LedgerHead(Base):
    """A single row naming the last event; locked by every writer so appends are serial."""

    __tablename__ = "ledger_head"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seq: Mapped[int] = mapped_column(Integer)
    hash: Mapped[str] = mapped_column(String(64))


class Setting(Base):
    """Game settings fixed at creation (a projection of ``game.created``)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Pack(Base):
    __tablename__ = "packs"

    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    back: Mapped[str] = mapped_column(Text)
    added_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    retired_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))


class Card(Base):
    """A card; ``number`` is the proposal's pack*52 + suit*13 + rank."""

    __tablename__ = "cards"

    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    pack: Mapped[int] = mapped_column(ForeignKey("packs.number"), index=True)
    suit: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    email: Mapped[str | None] = mapped_column(String(320))
    active: Mapped[bool] = mapped_column(Boolean)
    joined_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    retired_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))


class DealerTerm(Base):
    """Who held the Dealer office, from which event until which."""

    __tablename__ = "dealer_terms"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    start_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    end_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))


class Ownership(Base):
    """Where each card is: ``holder_id`` NULL means the Deck (owned by the Dealer)."""

    __tablename__ = "ownership"

    card: Mapped[int] = mapped_column(ForeignKey("cards.number"), primary_key=True)
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    since_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))


class CardMove(Base):
    """Every place each card has been: one row per card per event that put it somewhere
    (``holder_id`` NULL: the Deck), so a hand as of any event is one query, without the
    events' private fields (the server answers ``as_of`` from this table)."""

    __tablename__ = "card_moves"

    card: Mapped[int] = mapped_column(ForeignKey("cards.number"), primary_key=True)
    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), primary_key=True)
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)


class DicePeriod(Base):
    __tablename__ = "dice_periods"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    commitment: Mapped[str] = mapped_column(String(64))
    opened_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    revealed_seed: Mapped[str | None] = mapped_column(String(128))
    revealed_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))
    rolls_used: Mapped[int] = mapped_column(Integer)


class DiceSecret(Base):
    """The secret seed of a committed-seed dice period (not part of the public ledger)."""

    __tablename__ = "dice_secrets"

    period_id: Mapped[int] = mapped_column(ForeignKey("dice_periods.id"), primary_key=True)
    seed: Mapped[str] = mapped_column(String(128))


class Deal(Base):
    """A deal (or a refused one: ``card`` NULL)."""

    __tablename__ = "deals"

    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    card: Mapped[int | None] = mapped_column(ForeignKey("cards.number"))
    reason: Mapped[str] = mapped_column(Text)
    refused: Mapped[str | None] = mapped_column(Text)
    nweek: Mapped[int | None] = mapped_column(Integer, index=True)


class Roll(Base):
    """One die roll, in order within its deal."""

    __tablename__ = "rolls"
    __table_args__ = (UniqueConstraint("deal_seq", "position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    deal_seq: Mapped[int] = mapped_column(ForeignKey("deals.seq"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    value: Mapped[int] = mapped_column(Integer)
    sides: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(32))
    period_id: Mapped[int | None] = mapped_column(ForeignKey("dice_periods.id"))
    roll_index: Mapped[int | None] = mapped_column(Integer)


class Notice(Base):
    """A private notice to one player (e.g. which card they were dealt)."""

    __tablename__ = "notices"

    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    sent_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))
    # the latest notice.failed event, and the address it says the server refused
    failed_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))
    failed_to: Mapped[str | None] = mapped_column(String(320))


class ClockInterval(Base):
    """A time the game Clock was Off: from ``stopped_at`` until ``started_at`` (NULL: still Off)."""

    __tablename__ = "clock_intervals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    stopped_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    stop_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    start_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))


class Vote(Base):
    """A vote as counted by the officer who counts votes (one per player, proposal and time)."""

    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("player_id", "proposal", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    proposal: Mapped[str] = mapped_column(String(100))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class Nweek(Base):
    """An nweek whose start has been processed by ``tick`` (Cards for Votes done)."""

    __tablename__ = "nweeks"

    nweek: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    started_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))


class Report(Base):
    """A published Dealer's Report, stored in every format exactly as published."""

    __tablename__ = "reports"

    nweek: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    published_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    text: Mapped[str] = mapped_column(Text)
    markdown: Mapped[str] = mapped_column(Text)
    json: Mapped[str] = mapped_column(Text)


class RuleChange(Base):
    """Every change to the rules in force, in ledger order: the rules ``init`` enacted (all at
    the ``game.created`` event) and each ``rule.enacted``, ``rule.amended`` and
    ``rule.repealed`` since. The rules in force at any moment are the newest row of each rule
    up to it. ``params`` is the canonical JSON of all the rule's parameters after the change;
    ``from_nweek`` the first nweek a new nweek length applies to."""

    __tablename__ = "rule_changes"

    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), primary_key=True)
    rule: Mapped[str] = mapped_column(String(64), primary_key=True)
    action: Mapped[str] = mapped_column(String(16))
    in_force: Mapped[bool] = mapped_column(Boolean)
    version: Mapped[int] = mapped_column(Integer)
    params: Mapped[str] = mapped_column(Text)
    proposal: Mapped[str] = mapped_column(Text)
    from_nweek: Mapped[int | None] = mapped_column(Integer)


class GameData(Base):
    """The card games layer's live state, one row per part (``points``, each game's): the
    canonical JSON of what the replay of ``points.*`` and a game's events gives, and the
    event that last changed it."""

    __tablename__ = "game_data"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[str] = mapped_column(Text)
    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))


class Decision(Base):
    """A decision of the nomic (``decision.opened``): when it opened and closes, what its
    opening set (canonical JSON, as the live state keeps it: title, author, class, adoption
    index, quorum, strengths, carried rule changes; its text stays in the event), and its
    resolution once resolved."""

    __tablename__ = "decisions"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    opened_seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closes: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    params: Mapped[str] = mapped_column(Text)
    resolved_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"), index=True)
    outcome: Mapped[str | None] = mapped_column(String(16))
    reminded_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))


class Ballot(Base):
    """A ballot (``ballot.cast``), and the later one that replaced it (``replaced_seq``; none
    while it stands). A ballot is a vote too: Cards for Votes reads these with ``votes``."""

    __tablename__ = "ballots"

    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"), primary_key=True,
                                     autoincrement=False)
    decision_id: Mapped[str] = mapped_column(ForeignKey("decisions.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    option: Mapped[str | None] = mapped_column(String(8))
    endorse_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    as_cast: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(Text)
    comment: Mapped[str] = mapped_column(Text)
    replaced_seq: Mapped[int | None] = mapped_column(ForeignKey("events.seq"))


class Strength(Base):
    """A Player's voting strength set by ``strength set``, and why (none: the default)."""

    __tablename__ = "strengths"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True,
                                           autoincrement=False)
    strength: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    seq: Mapped[int] = mapped_column(ForeignKey("events.seq"))


class PlayerToken(Base):
    """A player's credential for the server: ``selector.verifier``, of which only the selector
    and a SHA-256 of the verifier are kept. Not part of the ledger (issuing one changes no game
    state); readable by the Dealer only."""

    __tablename__ = "player_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    selector: Mapped[str] = mapped_column(String(32), unique=True)
    verifier_sha256: Mapped[str] = mapped_column(String(64))
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: None: the player's own token; "dealer": an officer token (acts as the Dealer)
    scope: Mapped[str | None] = mapped_column(String(16))


class IdempotencyKey(Base):
    """A player's ``Idempotency-Key`` on ``POST /api/v1/me/actions``: the body's hash, the
    events the action recorded (JSON list) and the first answer (status and JSON body; empty
    until written just after the action's transaction). Outside the ledger; kept 24 hours or
    more."""

    __tablename__ = "idempotency_keys"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    body_sha256: Mapped[str] = mapped_column(String(64))
    seqs: Mapped[str] = mapped_column(Text)
    status: Mapped[int | None] = mapped_column(Integer)
    response: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class MailMessage(Base):
    """A message received by mail (``mail receive``, ``mail import``, ``mail poll``), kept
    whole: the raw message, whom its From names, how it was authenticated, what it said and what
    became of it (applied, pending the officer's review, rejected, refused, or from no player).
    Keyed by its Message-ID, so the same message received twice is applied once. Outside the
    ledger: the ballots and acts it carried are events that cite it. It holds the sender's
    address, so it is the Dealer's alone (docs/deploy.md grants it to no server)."""

    __tablename__ = "mail_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(512), unique=True)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: how it came: receive (standard input), import (a mailbox file), poll (IMAP)
    via: Mapped[str] = mapped_column(String(16))
    #: the From address, as written (None: no one address could be read in it)
    sender: Mapped[str | None] = mapped_column(String(320))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    subject: Mapped[str] = mapped_column(Text)
    #: applied, pending, rejected, refused or unmatched (from no player)
    status: Mapped[str] = mapped_column(String(16), index=True)
    #: why it was refused, rejected or left pending
    reason: Mapped[str] = mapped_column(Text)
    #: how it was authenticated (a DKIM signature's domain, the officer), or why not
    auth: Mapped[str] = mapped_column(Text)
    #: what it said (JSON): the items read, and the lines that were not
    reading: Mapped[str] = mapped_column(Text)
    #: what became of each item (JSON; None until applied)
    outcome: Mapped[str | None] = mapped_column(Text)
    #: the events recorded from it (JSON list)
    seqs: Mapped[str] = mapped_column(Text)
    #: whether it carried a private act (a notification for the Dealer's eyes)
    private: Mapped[bool] = mapped_column(Boolean)
    size: Mapped[int] = mapped_column(Integer)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    raw_sha256: Mapped[str] = mapped_column(String(64))
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    decided_by: Mapped[str | None] = mapped_column(String(200))
    #: the receipt to the player: None (none is sent), due, sent or failed
    receipt: Mapped[str | None] = mapped_column(String(16), index=True)
    #: when it was sent, or why it failed
    receipt_note: Mapped[str | None] = mapped_column(Text)
