"""The SQL text of every read (:class:`.reads.Reads`), in one place, for SQLite and PostgreSQL.

Every column is named ``table.column`` (or ``alias.column`` of an alias declared ``table AS
alias``) so that ``tests/test_reads.py`` can check each name against the SQLAlchemy models (a
schema change cannot silently break these reads); the same test runs every statement on a
freshly migrated database of each backend. Placeholders are ``?`` (sqlite3's style);
:mod:`.reads` turns them into ``%s`` for psycopg.
"""

from __future__ import annotations

REVISION_TABLE_SQLITE = (
    "SELECT sqlite_master.name FROM sqlite_master "
    "WHERE sqlite_master.type = 'table' AND sqlite_master.name = 'alembic_version'")
REVISION_TABLE_POSTGRESQL = "SELECT to_regclass('alembic_version') IS NOT NULL"
REVISION = "SELECT alembic_version.version_num FROM alembic_version"

#: the ledger lock on PostgreSQL: a transaction-level advisory lock keyed by the ``ledger_head``
#: table of the game's schema (so games in two schemas of one database do not wait for each
#: other). PostgreSQL queues the waiters of an advisory lock first come, first served; waiters
#: for a row's lock (``SELECT ... FOR UPDATE``) all wake when it is freed and race for it, and
#: with 16 writers waiting one could lose several races in a row. A writer's statements after
#: this one each see what the writer before it committed (the write is ``READ COMMITTED``)
LEDGER_LOCK_POSTGRESQL = "SELECT pg_advisory_xact_lock('ledger_head'::regclass::oid::bigint)"
HEAD = "SELECT ledger_head.seq, ledger_head.hash FROM ledger_head WHERE ledger_head.id = 1"
#: the time of the head's event
HEAD_AT = ("SELECT events.at FROM events, ledger_head WHERE ledger_head.id = 1 "
           "AND events.seq = ledger_head.seq")
SETTINGS = "SELECT settings.key, settings.value FROM settings"
PACKS = ("SELECT packs.number, packs.name, packs.back, packs.added_seq, packs.retired_seq "
         "FROM packs "
         "ORDER BY packs.number")
PLAYERS = ("SELECT players.id, players.name, players.email, players.active, "
           "players.joined_seq, players.retired_seq FROM players ORDER BY players.id")
#: the same without the addresses (the server reads no e-mail address: docs/server.md)
PLAYERS_PUBLIC = ("SELECT players.id, players.name, NULL, players.active, "
                  "players.joined_seq, players.retired_seq FROM players ORDER BY players.id")
DEALER_TERMS = ("SELECT dealer_terms.player_id, dealer_terms.start_seq, dealer_terms.end_seq "
                "FROM dealer_terms ORDER BY dealer_terms.id")
GAME_DATA = "SELECT game_data.name, game_data.data FROM game_data"
OWNERSHIP = "SELECT ownership.card, ownership.holder_id, ownership.since_seq FROM ownership"
DICE_PERIODS = ("SELECT dice_periods.id, dice_periods.commitment, dice_periods.opened_seq, "
                "dice_periods.revealed_seed, dice_periods.revealed_seq, "
                "dice_periods.rolls_used FROM dice_periods")
CLOCK_INTERVALS = ("SELECT clock_intervals.stopped_at, clock_intervals.stop_seq, "
                   "clock_intervals.started_at, clock_intervals.start_seq "
                   "FROM clock_intervals ORDER BY clock_intervals.id")
NWEEKS = "SELECT nweeks.nweek, nweeks.started_seq FROM nweeks"
#: the nweek.started events after a seq, oldest first: Cards for Votes owed later
#: the events that change Cards for Votes owed later (docs/rules.md, "Owed later"), after an
#: event: every nweek start, and the vote imports that owe a late vote's cards (parameters: the
#: event, the two kinds, and the pattern of the votes' ``owed`` key)
OWED_AFTER = ("SELECT events.seq, events.kind, events.payload FROM events "
              "WHERE events.seq > ? AND (events.kind = ? OR "
              "((events.kind = ? OR events.kind = ?) AND events.payload LIKE ?)) "
              "ORDER BY events.seq")
RULE_CHANGES = ("SELECT rule_changes.seq, events.at, rule_changes.rule, rule_changes.action, "
                "rule_changes.in_force, rule_changes.version, rule_changes.params, "
                "rule_changes.proposal, rule_changes.from_nweek FROM rule_changes "
                "JOIN events ON events.seq = rule_changes.seq "
                "ORDER BY rule_changes.seq, rule_changes.rule")

ROLLS = ("SELECT rolls.deal_seq, rolls.position, rolls.value, rolls.sides, rolls.source, "
         "rolls.period_id, rolls.roll_index FROM rolls ORDER BY rolls.deal_seq, rolls.position")
DEALS = ("SELECT deals.seq, deals.player_id, deals.card, deals.reason, deals.refused, "
         "deals.nweek FROM deals ORDER BY deals.seq")
NOTICES = ("SELECT notices.seq, notices.player_id, notices.text, notices.sent_seq, "
           "notices.failed_seq, notices.failed_to FROM notices ORDER BY notices.seq")
CARD_MOVES = "SELECT card_moves.seq, card_moves.card, card_moves.holder_id FROM card_moves"
VOTES = "SELECT votes.seq, votes.player_id, votes.proposal, votes.at FROM votes ORDER BY votes.id"
#: every decision (the live state's: few, and small), and the ballots standing on the open ones
DECISIONS = ("SELECT decisions.id, decisions.opened_seq, decisions.opened_at, decisions.closes, "
             "decisions.params, decisions.resolved_seq, decisions.outcome, "
             "decisions.reminded_seq FROM decisions "
             "ORDER BY decisions.opened_seq")
_BALLOT_COLUMNS = ("ballots.seq, ballots.decision_id, ballots.player_id, ballots.at, "
                   "ballots.option, ballots.endorse_id, ballots.as_cast, ballots.source, "
                   "ballots.comment, ballots.replaced_seq")
OPEN_BALLOTS = (f"SELECT {_BALLOT_COLUMNS} FROM ballots "
                "JOIN decisions ON decisions.id = ballots.decision_id "
                "WHERE decisions.resolved_seq IS NULL AND ballots.replaced_seq IS NULL "
                "ORDER BY ballots.seq")
#: every decision with the number of ballots standing on it (``decision list``)
DECISION_ROWS = ("SELECT decisions.id, decisions.opened_seq, decisions.opened_at, "
                 "decisions.closes, decisions.params, decisions.resolved_seq, decisions.outcome, "
                 "decisions.reminded_seq, (SELECT COUNT(*) FROM ballots "
                 "WHERE ballots.decision_id = decisions.id AND ballots.replaced_seq IS NULL) "
                 "FROM decisions ORDER BY decisions.opened_seq")
#: one decision, and the ballots standing on it
DECISION = ("SELECT decisions.id, decisions.opened_seq, decisions.opened_at, decisions.closes, "
            "decisions.params, decisions.resolved_seq, decisions.outcome, "
            "decisions.reminded_seq FROM decisions WHERE decisions.id = ?")
BALLOTS_ON = (f"SELECT {_BALLOT_COLUMNS} FROM ballots WHERE ballots.decision_id = ? "
              "AND ballots.replaced_seq IS NULL ORDER BY ballots.seq")
#: each player's first ballot cast in an interval: the decision and the event (Cards for
#: Votes names the ballot that earned a card)
FIRST_BALLOTS = ("SELECT players.name, ballots.decision_id, ballots.seq FROM ballots "
                 "JOIN players ON players.id = ballots.player_id "
                 "WHERE ballots.at >= ? AND ballots.at < ? ORDER BY ballots.at, ballots.seq")
#: every ballot ever cast (the history ``verify`` compares)
BALLOTS = f"SELECT {_BALLOT_COLUMNS} FROM ballots ORDER BY ballots.seq"
STRENGTHS = "SELECT strengths.player_id, strengths.strength, strengths.reason, strengths.seq " \
            "FROM strengths"
REPORTS = ("SELECT reports.nweek, reports.published_seq, reports.text, reports.markdown, "
           "reports.json FROM reports ORDER BY reports.nweek")

_EVENT_COLUMNS = ("events.seq, events.at, events.actor, events.kind, events.subject, "
                  "events.payload, events.private, events.prev_hash, events.hash")
#: a batch of events after a given one, with their private parts
EVENTS_PRIVATE = (f"SELECT {_EVENT_COLUMNS}, event_private.nonce, event_private.data "
                  "FROM events LEFT OUTER JOIN event_private "
                  "ON event_private.seq = events.seq "
                  "WHERE events.seq > ? ORDER BY events.seq LIMIT ?")
#: the same without them (the public record)
EVENTS_PUBLIC = (f"SELECT {_EVENT_COLUMNS}, NULL, NULL FROM events "
                 "WHERE events.seq > ? ORDER BY events.seq LIMIT ?")
#: the newest events; {where} is empty or ``WHERE ...`` built by :mod:`.plain`
RECENT_EVENTS = (f"SELECT {_EVENT_COLUMNS}, event_private.nonce, event_private.data "
                 "FROM events LEFT OUTER JOIN event_private "
                 "ON event_private.seq = events.seq {where} "
                 "ORDER BY events.seq DESC LIMIT ?")
RECENT_BY_SUBJECT = "events.subject = ?"
RECENT_BY_KIND = "events.kind IN ({marks})"
EVENT_AT = (f"SELECT {_EVENT_COLUMNS}, event_private.nonce, event_private.data "
            "FROM events LEFT OUTER JOIN event_private ON event_private.seq = events.seq "
            "WHERE events.seq = ?")
#: the events of some kinds from a time on; {until} is empty or ``AND events.at < ?``
EVENTS_FROM = (f"SELECT {_EVENT_COLUMNS}, event_private.nonce, event_private.data "
               "FROM events LEFT OUTER JOIN event_private ON event_private.seq = events.seq "
               "WHERE events.at >= ? {until} AND events.kind IN ({marks}) ORDER BY events.seq")
EVENTS_UNTIL = "AND events.at < ?"
EVENT_HEADS = ("SELECT events.seq, events.hash, events.subject FROM events "
               "WHERE events.seq IN ({marks})")

NOTICE_SENT = "SELECT notices.sent_seq FROM notices WHERE notices.seq = ?"
CARD_ROWS = ("SELECT cards.number, cards.pack, cards.suit, cards.rank FROM cards "
             "ORDER BY cards.number")
VOTERS_BETWEEN = ("SELECT players.name FROM players "
                  "JOIN votes ON votes.player_id = players.id "
                  "WHERE votes.at >= ? AND votes.at < ? "
                  "UNION SELECT players.name FROM players "
                  "JOIN ballots ON ballots.player_id = players.id "
                  "WHERE ballots.at >= ? AND ballots.at < ?")
EXISTING_VOTES = ("SELECT players.name, votes.proposal, votes.at FROM votes "
                  "JOIN players ON votes.player_id = players.id "
                  "WHERE votes.at >= ? AND votes.at <= ?")
DEALS_IN_NWEEK = ("SELECT deals.seq, players.name, deals.card, rolls.source, rolls.period_id, "
                  "deals.reason FROM deals JOIN players ON deals.player_id = players.id "
                  "JOIN rolls ON rolls.deal_seq = deals.seq AND rolls.position = 0 "
                  "WHERE deals.nweek = ? AND deals.card IS NOT NULL ORDER BY deals.seq")
REPORT = ("SELECT reports.nweek, reports.published_seq, reports.text, reports.markdown, "
          "reports.json FROM reports WHERE reports.nweek = ?")
LATEST_REPORT = "SELECT max(reports.nweek) FROM reports"
SECRET = "SELECT dice_secrets.seed FROM dice_secrets WHERE dice_secrets.period_id = ?"
EVENT_TIME = "SELECT events.at FROM events WHERE events.seq = ?"

# --- the narrow reads of the server's hot paths: one statement each, no state loaded ------

FIRST_HASH = "SELECT events.hash FROM events WHERE events.seq = 1"
#: the last event recorded at or before a time (0: none); events are recorded in time order
LAST_EVENT_AT = "SELECT coalesce(max(events.seq), 0) FROM events WHERE events.at <= ?"
_TOKEN_COLUMNS = ("players.name, players.active, player_tokens.verifier_sha256, "
                  "player_tokens.revoked_at, players.id, player_tokens.scope")
_TOKEN_JOINS = ("FROM ledger_head LEFT OUTER JOIN player_tokens ON player_tokens.selector = ? "
                "LEFT OUTER JOIN players ON players.id = player_tokens.player_id")
#: a token and its player, by selector. Always one row (the ledger head's, with the token's
#: columns empty when no token has the selector), so that a known and an unknown selector cost
#: the same fetch.
TOKEN = f"SELECT {_TOKEN_COLUMNS} {_TOKEN_JOINS} WHERE ledger_head.id = 1"
#: a token's row as ``TOKEN`` selects it, then its player's Idempotency-Key as kept (under the
#: ledger lock, in an action's transaction)
TOKEN_AND_KEY = (
    f"SELECT {_TOKEN_COLUMNS}, idempotency_keys.body_sha256, idempotency_keys.seqs, "
    f"idempotency_keys.status, idempotency_keys.response {_TOKEN_JOINS} "
    "LEFT OUTER JOIN idempotency_keys ON idempotency_keys.player_id = players.id "
    "AND idempotency_keys.key = ? WHERE ledger_head.id = 1")
#: which of some tokens (by selector; the marks filled in) are still live: not revoked, of an
#: active player (an open event stream's token, checked again as the stream goes)
TOKENS_LIVE = ("SELECT player_tokens.selector FROM player_tokens "
               "JOIN players ON players.id = player_tokens.player_id "
               "WHERE player_tokens.selector IN ({marks}) AND player_tokens.revoked_at IS NULL "
               "AND players.active")
#: a token's row (by its selector) and, only when its verifier's hash is the one given, its
#: player's cards, with the ledger head and whether the player is the Dealer now: the token
#: check and the hand of ``/me/hand`` in one statement (the selector, then the hash)
TOKEN_HAND = ("SELECT players.name, players.active, player_tokens.verifier_sha256, "
              "player_tokens.revoked_at, players.id, player_tokens.scope, "
              "ownership.card, packs.name, ledger_head.seq, ledger_head.hash, "
              "(SELECT COUNT(*) FROM dealer_terms WHERE dealer_terms.player_id = players.id "
              "AND dealer_terms.end_seq IS NULL) "
              "FROM ledger_head "
              "LEFT OUTER JOIN player_tokens ON player_tokens.selector = ? "
              "LEFT OUTER JOIN players ON players.id = player_tokens.player_id "
              "LEFT OUTER JOIN ownership ON ownership.holder_id = players.id "
              "AND player_tokens.verifier_sha256 = ? "
              "LEFT OUTER JOIN cards ON cards.number = ownership.card "
              "LEFT OUTER JOIN packs ON packs.number = cards.pack "
              "WHERE ledger_head.id = 1 ORDER BY ownership.card")
JOINED_SEQ = "SELECT players.joined_seq FROM players WHERE players.name = ?"
#: the Dealer as of an event (its number twice)
DEALER_AT = ("SELECT players.name FROM players "
             "JOIN dealer_terms ON dealer_terms.player_id = players.id "
             "WHERE dealer_terms.start_seq <= ? "
             "AND (dealer_terms.end_seq IS NULL OR dealer_terms.end_seq > ?)")
#: the cards a player held as of an event (its number three times), from ``card_moves``: each
#: card whose last move at or before the event put it in the player's hand, and whose pack was
#: then in play
HAND_AS_OF = ("SELECT card_moves.card, packs.name FROM card_moves "
              "JOIN players ON players.id = card_moves.holder_id "
              "JOIN cards ON cards.number = card_moves.card "
              "JOIN packs ON packs.number = cards.pack "
              "WHERE players.name = ? AND card_moves.seq <= ? "
              "AND (packs.retired_seq IS NULL OR packs.retired_seq > ?) AND NOT EXISTS ("
              "SELECT later.seq FROM card_moves AS later WHERE later.card = card_moves.card "
              "AND later.seq > card_moves.seq AND later.seq <= ?) ORDER BY card_moves.card")
PLAYERS_BY = ("SELECT players.name FROM players WHERE players.joined_seq <= ? "
              "ORDER BY players.id")
#: how many cards of each pack each player holds (and the Deck: no player)
COUNTS_BY_BACK = ("SELECT players.name, cards.pack, count(*) FROM ownership "
                  "JOIN cards ON cards.number = ownership.card "
                  "LEFT OUTER JOIN players ON players.id = ownership.holder_id "
                  "GROUP BY players.name, cards.pack")
NOTICES_OF = ("SELECT notices.seq, events.at, notices.text, notices.sent_seq FROM notices "
              "JOIN players ON players.id = notices.player_id "
              "JOIN events ON events.seq = notices.seq "
              "WHERE players.name = ? ORDER BY notices.seq")
#: how many rolls each of some deals took, and their dice source
ROLL_COUNTS = ("SELECT rolls.deal_seq, count(*), min(rolls.source) FROM rolls "
               "WHERE rolls.deal_seq IN ({marks}) GROUP BY rolls.deal_seq")
REPORTS_INDEX = ("SELECT reports.nweek, reports.published_seq, events.at FROM reports "
                 "JOIN events ON events.seq = reports.published_seq "
                 "ORDER BY reports.nweek DESC")
#: the tokens (of a player: {where} is empty or ``WHERE players.name = ?``), newest first
TOKENS = ("SELECT players.name, player_tokens.selector, player_tokens.issued_at, "
          "player_tokens.revoked_at, player_tokens.scope FROM player_tokens "
          "JOIN players ON players.id = player_tokens.player_id {where} "
          "ORDER BY player_tokens.id DESC")
TOKENS_OF = "WHERE players.name = ?"
#: the public columns of the events after one (never their private part)
EVENTS_AFTER = ("SELECT events.seq, events.at, events.actor, events.kind, events.subject, "
                "events.payload FROM events WHERE events.seq > ? ORDER BY events.seq LIMIT ?")
#: the newest events before one, newest first (the public log)
EVENTS_BEFORE = ("SELECT events.seq, events.at, events.actor, events.kind, events.subject, "
                 "events.payload FROM events WHERE events.seq < ? ORDER BY events.seq DESC "
                 "LIMIT ?")
#: the newest event of one kind, public columns only (a card game's last result)
LAST_OF_KIND = ("SELECT events.seq, events.at, events.actor, events.kind, events.subject, "
                "events.payload FROM events WHERE events.kind = ? ORDER BY events.seq DESC "
                "LIMIT 1")
NOTICES_IN = ("SELECT notices.seq, notices.text FROM notices WHERE notices.player_id = ? "
              "AND notices.seq > ? AND notices.seq <= ?")
ALL_NOTICES_IN = ("SELECT notices.seq, notices.player_id, notices.text FROM notices "
                  "WHERE notices.seq > ? AND notices.seq <= ?")
VOTES_OF = ("SELECT votes.seq, votes.proposal, votes.at FROM votes "
            "JOIN players ON players.id = votes.player_id WHERE players.name = ? "
            "ORDER BY votes.at, votes.id")
VOTE_DEALS_OF = ("SELECT deals.seq, deals.reason, notices.text FROM deals "
                 "JOIN players ON players.id = deals.player_id "
                 "JOIN notices ON notices.seq = deals.seq "
                 "WHERE players.name = ? AND deals.reason LIKE ? ORDER BY deals.seq")
#: every kind of event in the ledger, once each
KINDS = "SELECT DISTINCT events.kind FROM events"
#: cards that came into a player's Hand in [start, end) by an event of neither kind named (a
#: card game's: a trade, say), each with whoever held it before (None: the Deck)
RECEIVED_BY_GAMES = (
    "SELECT card_moves.seq, card_moves.card, players.name, events.kind, "
    "(SELECT giver.name FROM card_moves AS prior "
    "LEFT OUTER JOIN players AS giver ON giver.id = prior.holder_id "
    "WHERE prior.card = card_moves.card AND prior.seq < card_moves.seq "
    "ORDER BY prior.seq DESC LIMIT 1) "
    "FROM card_moves JOIN events ON events.seq = card_moves.seq "
    "JOIN players ON players.id = card_moves.holder_id "
    "WHERE events.at >= ? AND events.at < ? AND events.kind <> ? AND events.kind <> ? "
    "ORDER BY card_moves.seq, card_moves.card")

# --- mail in: the messages received (core/store/messages.py writes them) ----------------------
_MAIL = ("SELECT mail_messages.id, mail_messages.message_id, mail_messages.received_at, "
         "mail_messages.via, mail_messages.sender, players.name, mail_messages.subject, "
         "mail_messages.status, mail_messages.reason, mail_messages.auth, "
         "mail_messages.reading, mail_messages.outcome, mail_messages.seqs, "
         "mail_messages.private, mail_messages.size, mail_messages.raw_sha256, "
         "mail_messages.decided_at, mail_messages.decided_by, mail_messages.receipt, "
         "mail_messages.receipt_note "
         "FROM mail_messages LEFT OUTER JOIN players ON players.id = mail_messages.player_id ")
MAIL_BY_MESSAGE_ID = _MAIL + "WHERE mail_messages.message_id = ?"
MAIL_BY_ID = _MAIL + "WHERE mail_messages.id = ?"
#: the newest messages first
MAIL_LIST = _MAIL + "ORDER BY mail_messages.id DESC LIMIT ?"
#: the messages of one status, oldest first
MAIL_LIST_BY_STATUS = (_MAIL + "WHERE mail_messages.status = ? "
                       "ORDER BY mail_messages.id LIMIT ?")
#: the messages whose receipt is in a state (due: to send), oldest first
MAIL_RECEIPTS = _MAIL + "WHERE mail_messages.receipt = ? ORDER BY mail_messages.id"
MAIL_RAW = "SELECT mail_messages.raw FROM mail_messages WHERE mail_messages.id = ?"
