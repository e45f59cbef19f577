"""The projector: write the changes a fold made into the query tables.

It works from the :data:`~nomic_cards.core.ledger.state.Change` records the state's methods
produced while an event was applied, one kind of change per table; event kinds are unknown
here, so a new kind of event needs no projection code. ``verify`` compares a from-scratch
replay with the tables read back, which catches a table edited by hand.

Every row is written as SQL text (``?`` placeholders) through the transaction's
:class:`Writer`: the same statements every time, nothing for an ORM to build or check, and on
PostgreSQL sent with the transaction's next statement or its ``COMMIT``, in one round trip
(:class:`~.connect.Cursor`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from nomic_cards.cards import spoon_card
from nomic_cards.core.ledger import state as st
from nomic_cards.core.ledger.chain import canonical_json


class Writer(Protocol):
    """Where the projector writes: statements in the transaction's transaction."""

    def run(self, text: str, params: Sequence[Any] = ()) -> None:
        """One statement."""

    def many(self, text: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement for each of ``rows``."""

    def param(self, at: datetime) -> object:
        """A time as a time column stores it."""


def _pid(state: st.State, name: str | None) -> int | None:
    return None if name is None else state.players[name].id


_INSERT_MOVE = "INSERT INTO card_moves (card, seq, holder_id) VALUES (?, ?, ?)"
_INSERT_DEAL = ("INSERT INTO deals (seq, player_id, card, reason, refused, nweek) "
                "VALUES (?, ?, ?, ?, ?, ?)")
_INSERT_ROLL = ("INSERT INTO rolls (deal_seq, position, value, sides, source, period_id, "
                "roll_index) VALUES (?, ?, ?, ?, ?, ?, ?)")
_INSERT_NOTICE = ("INSERT INTO notices (seq, player_id, text, sent_seq, failed_seq, failed_to) "
                  "VALUES (?, ?, ?, ?, ?, ?)")
_INSERT_VOTE = "INSERT INTO votes (seq, player_id, proposal, at) VALUES (?, ?, ?, ?)"
_PERIOD_COLUMNS = "commitment, opened_seq, revealed_seed, revealed_seq, rolls_used"


def _in(values: Sequence[int]) -> str:
    """The placeholders of an ``IN`` list of ``values``."""
    return ", ".join("?" * len(values))


def _coalesce(changes: Iterable[st.Change]) -> list[st.Change]:
    """Each row written once: repeated puts of one player, Dealer term, dice period or Clock stop
    carry the same live object, so the first (an insert if the row is new) writes its final
    values and the rest are dropped."""
    out: list[st.Change] = []
    where: set[tuple[str, int]] = set()
    for c in changes:
        match c:
            case st.PlayerPut():
                key = ("player", c.player.id)
            case st.DealerTermPut():
                key = ("term", c.number)
            case st.PeriodPut():
                key = ("period", c.period.id)
            case st.ClockStopPut():
                key = ("stop", c.number)
            case _:
                out.append(c)
                continue
        if key not in where:  # later puts of the row: the first write has its final values
            where.add(key)
            out.append(c)
    return out


def project(w: Writer, state: st.State, changes: Iterable[st.Change]) -> None:
    """Write ``changes`` (made to ``state`` by the events just applied) into the tables."""
    for c in _coalesce(changes):
        match c:
            case st.DecisionPut():
                dn = c.decision
                if c.new:
                    w.run("INSERT INTO decisions (id, opened_seq, opened_at, closes, params) "
                          "VALUES (?, ?, ?, ?, ?)",
                          (dn.id, dn.opened_seq, w.param(dn.opened_at), w.param(dn.closes),
                           canonical_json(dn.params)))
                else:
                    w.run("UPDATE decisions SET resolved_seq = ?, outcome = ?, reminded_seq = ? "
                          "WHERE id = ?", (dn.resolved_seq, dn.outcome, dn.reminded_seq, dn.id))
            case st.BallotAdded():
                b = c.ballot
                if c.replaced is not None:
                    w.run("UPDATE ballots SET replaced_seq = ? WHERE seq = ?",
                          (b.seq, c.replaced))
                w.run("INSERT INTO ballots (seq, decision_id, player_id, at, option, "
                      "endorse_id, as_cast, source, comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      (b.seq, b.decision, _pid(state, b.player), w.param(b.at), b.option,
                       _pid(state, b.endorse), b.as_cast, b.source, b.comment))
            case st.StrengthPut():
                pid = _pid(state, c.player)
                w.run("DELETE FROM strengths WHERE player_id = ?", (pid,))
                if c.strength is not None:
                    w.run("INSERT INTO strengths (player_id, strength, reason, seq) "
                          "VALUES (?, ?, ?, ?)",
                          (pid, c.strength.strength, c.strength.reason, c.strength.seq))
            case st.SettingsSet():
                if c.settings:
                    w.many("INSERT INTO settings (key, value) VALUES (?, ?)",
                           [(k, str(v)) for k, v in c.settings.items()])
            case st.PackPut():
                p = c.pack
                w.run("INSERT INTO packs (number, name, back, added_seq) VALUES (?, ?, ?, ?)",
                      (p.number, p.name, p.back, p.added_seq))
                faces = [(n, spoon_card(n)) for n in c.cards]
                w.many("INSERT INTO cards (number, pack, suit, rank) VALUES (?, ?, ?, ?)",
                       [(n, pack, int(face.suit), int(face.rank)) for n, (pack, face) in faces])
                w.many("INSERT INTO ownership (card, holder_id, since_seq) VALUES (?, ?, ?)",
                       [(n, None, p.added_seq) for n in c.cards])
                w.many(_INSERT_MOVE, [(n, p.added_seq, None) for n in c.cards])
            case st.PackRetiredChange():
                w.run("UPDATE packs SET retired_seq = ? WHERE number = ?",
                      (c.pack.retired_seq, c.pack.number))
                if c.cards:
                    cards = list(c.cards)
                    w.run(f"DELETE FROM ownership WHERE card IN ({_in(cards)})", cards)
            case st.PlayerPut():
                pl = c.player
                values = (pl.name, pl.email, pl.active, pl.joined_seq, pl.retired_seq, pl.id)
                w.run("INSERT INTO players (name, email, active, joined_seq, retired_seq, id) "
                      "VALUES (?, ?, ?, ?, ?, ?)" if c.new else
                      "UPDATE players SET name = ?, email = ?, active = ?, joined_seq = ?, "
                      "retired_seq = ? WHERE id = ?", values)
            case st.EmailPut():
                w.run("UPDATE players SET email = ? WHERE id = ?", (c.email, c.player_id))
            case st.DealerTermPut():
                t = c.term
                if c.new:
                    w.run("INSERT INTO dealer_terms (id, player_id, start_seq, end_seq) "
                          "VALUES (?, ?, ?, ?)",
                          (c.number, _pid(state, t.player), t.start_seq, t.end_seq))
                else:
                    w.run("UPDATE dealer_terms SET end_seq = ? WHERE id = ?",
                          (t.end_seq, c.number))
            case st.CardsMoved():
                holder, cards = _pid(state, c.owner), list(c.cards)
                if cards:
                    w.run(f"UPDATE ownership SET holder_id = ?, since_seq = ? "
                          f"WHERE card IN ({_in(cards)})", [holder, c.seq, *cards])
                    w.many(_INSERT_MOVE, [(n, c.seq, holder) for n in cards])
            case st.PeriodPut():
                per = c.period
                period = (per.commitment, per.opened_seq, per.revealed_seed,
                          per.revealed_seq, per.rolls_used, per.id)
                w.run(f"INSERT INTO dice_periods ({_PERIOD_COLUMNS}, id) "
                      f"VALUES (?, ?, ?, ?, ?, ?)" if c.new else
                      "UPDATE dice_periods SET commitment = ?, opened_seq = ?, "
                      "revealed_seed = ?, revealed_seq = ?, rolls_used = ? WHERE id = ?", period)
            case st.DealAdded():
                d = c.deal
                w.run(_INSERT_DEAL, (d.seq, _pid(state, d.player), d.card, d.reason, d.refused,
                                     d.nweek))
                if d.rolls:
                    w.many(_INSERT_ROLL, [(d.seq, r.position, r.value, r.sides, r.source,
                                           r.period, r.index) for r in d.rolls])
            case st.NoticeAdded():
                n = c.notice
                w.run(_INSERT_NOTICE, (n.seq, _pid(state, n.player), n.text, n.sent_seq,
                                       n.failed_seq, n.failed_to))
            case st.NoticeMarkedSent():
                w.run("UPDATE notices SET sent_seq = ? WHERE seq = ?", (c.sent_seq, c.notice))
            case st.NoticeMarkedFailed():
                w.run("UPDATE notices SET failed_seq = ?, failed_to = ? WHERE seq = ?",
                      (c.failed_seq, c.failed_to, c.notice))
            case st.ClockStopPut():
                k = c.stop
                started = None if k.started_at is None else w.param(k.started_at)
                if c.new:
                    w.run("INSERT INTO clock_intervals (id, stopped_at, stop_seq, started_at, "
                          "start_seq) VALUES (?, ?, ?, ?, ?)",
                          (c.number, w.param(k.stopped_at), k.stop_seq, started, k.start_seq))
                else:
                    w.run("UPDATE clock_intervals SET started_at = ?, start_seq = ? "
                          "WHERE id = ?", (started, k.start_seq, c.number))
            case st.VotesAdded():
                w.many(_INSERT_VOTE, [(v.seq, _pid(state, v.player), v.proposal,
                                       w.param(v.at)) for v in c.votes])
            case st.NweekMarked():
                w.run("INSERT INTO nweeks (nweek, started_seq) VALUES (?, ?)",
                      (c.nweek, c.seq))
            case st.ReportAdded():
                r = c.report
                w.run("INSERT INTO reports (nweek, published_seq, text, markdown, json) "
                      "VALUES (?, ?, ?, ?, ?)", (r.nweek, r.seq, r.text, r.markdown, r.json))
            case st.GameDataPut():
                w.run("DELETE FROM game_data WHERE name = ?", (c.name,))
                if c.data is not None:
                    w.run("INSERT INTO game_data (name, data, seq) VALUES (?, ?, ?)",
                          (c.name, canonical_json(c.data), c.seq))
            case st.RuleChangeAdded():
                rc = c.change
                w.run("INSERT INTO rule_changes (seq, rule, action, in_force, version, params, "
                      "proposal, from_nweek) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      (rc.seq, rc.rule, rc.action, rc.in_force, rc.version,
                       canonical_json(dict(rc.params)), rc.proposal, rc.from_nweek))
