"""What a message says (nomic_cards/mail/reading.py): ballots in the forms players write them,
act lines as ``nomic-cards act`` names actions, quoted text never counted, the rest kept
unread. Each expectation is written out by hand from docs/mail.md's examples."""

from __future__ import annotations

import pytest

from nomic_cards.core.services.acting import registry
from nomic_cards.core.services.mail_in import Item
from nomic_cards.mail.reading import MAX_ITEMS, read


def _said(text: str) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for item in read(text, registry()).items:
        if item.kind == "ballot":
            out.append(("ballot", item.decision or "", item.option or f"endorse {item.endorse}"))
        elif item.kind == "act":
            out.append(("act", item.action or "", repr(dict(item.body))))
        else:
            out.append(("bad", item.line))
    return out


@pytest.mark.parametrize(("line", "decision", "option"), [
    ("9355 FOR", "9355", "FOR"),
    ("9355: against", "9355", "AGAINST"),
    ("9355 - PRESENT", "9355", "PRESENT"),
    ("Proposal 9355 FOR", "9355", "FOR"),
    ("FOR on 9355", "9355", "FOR"),
    ("I vote FOR on 9355.", "9355", "FOR"),
    ("I vote AGAINST proposal 9355", "9355", "AGAINST"),
    ("present on #9355", "9355", "PRESENT"),
    ("FOR 9355!", "9355", "FOR"),
    ("  9355   FOR  ", "9355", "FOR"),
])
def test_a_ballot_in_each_form_players_write(line: str, decision: str, option: str) -> None:
    assert _said(line) == [("ballot", decision, option)]


@pytest.mark.parametrize(("line", "decision", "endorsed"), [
    ("9355 endorse ais523", "9355", "ais523"),
    ("Proposal 9355: ENDORSE ais523", "9355", "ais523"),
    ("I endorse ais523 on 9355", "9355", "ais523"),
    ("endorse G. on proposal 9355", "9355", "G."),
])
def test_an_endorsement(line: str, decision: str, endorsed: str) -> None:
    assert _said(line) == [("ballot", decision, f"endorse {endorsed}")]


def test_a_block_of_votes_as_follows_and_the_rest_kept_unread() -> None:
    text = ("Hello all,\n\nI vote as follows:\n9355 FOR\n9356 AGAINST\n9357 PRESENT\n"
            "9358 endorse ben\n\nSee you at the Showdown.\n")
    reading = read(text, registry())
    assert _said(text) == [("ballot", "9355", "FOR"), ("ballot", "9356", "AGAINST"),
                           ("ballot", "9357", "PRESENT"), ("ballot", "9358", "endorse ben")]
    assert reading.unread == ("Hello all,", "See you at the Showdown.")
    assert reading.quoted == 0


def test_quoted_text_never_counts() -> None:
    text = ("FOR on 9355\n"
            "> 9356 AGAINST\n"
            ">> pooker.trade with=ann give=\"Red As\" get=\"Red Kd\"\n"
            "On Fri, 2 Jan 2026 at 09:00, ben <ben@mail.example> wrote:\n"
            "> 9357 FOR\n"
            "ann wrote:\n"
            "9358 PRESENT\n")
    reading = read(text, registry())
    assert _said(text) == [("ballot", "9355", "FOR"), ("ballot", "9358", "PRESENT")]
    assert reading.quoted == 3
    assert reading.unread == ()


@pytest.mark.parametrize("separator", [
    "-----Original Message-----",
    "________________________________",
    "Begin forwarded message:",
    "---------- Forwarded message ---------",
])
def test_the_original_under_a_top_posted_reply_never_counts(separator: str) -> None:
    text = f"9355 FOR\n\n{separator}\nFrom: ben\n9355 AGAINST\nI vote FOR on 9356\n"
    reading = read(text, registry())
    assert _said(text) == [("ballot", "9355", "FOR")]
    assert reading.quoted == 4
    assert reading.unread == ()


def test_nothing_under_the_signature_counts() -> None:
    text = "9355 FOR\n-- \nann, who votes 9356 AGAINST in her signature\n9357 FOR\n"
    assert _said(text) == [("ballot", "9355", "FOR")]


def test_an_act_line_as_nomic_cards_act_names_it() -> None:
    text = ('pooker.trade with=ben give="Red As" get="Red Kd,Blue 2c"\n'
            "nomic-cards act pooker.vote vote=yes\n"
            "act pooker.motion\n"
            "pooker.withdraw notification=12\n")
    assert _said(text) == [
        ("act", "pooker.trade", repr({"with": "ben", "give": ["Red As"],
                                      "get": ["Red Kd", "Blue 2c"]})),
        ("act", "pooker.vote", repr({"vote": "yes"})),
        ("act", "pooker.motion", repr({})),
        ("act", "pooker.withdraw", repr({"notification": 12})),
    ]


def test_a_ballot_named_as_an_action_is_a_ballot() -> None:
    assert _said("cards.ballot decision=9355 option=for") == [("ballot", "9355", "FOR")]


def test_an_act_line_that_cannot_be_taken_is_refused_with_the_reason() -> None:
    items = read('pooker.trade with=ben give="Red As\n'
                 "pooker.fly to=moon\n"
                 "pooker.trade --as ben with=ann\n"
                 "pooker.showdown_open ten=ann\n"
                 "pooker.withdraw notification=twelve\n", registry()).items
    assert [i.kind for i in items] == ["bad"] * 5
    reasons = [i.reason for i in items]
    assert reasons[0] == "the line cannot be read: its quotes are not closed"
    assert reasons[1] == "there is no action named 'pooker.fly' (`nomic-cards actions` lists them)"
    assert reasons[2].startswith("a message acts as its sender")
    assert reasons[3] == ("pooker.showdown_open is the Dealer's: a message takes only a "
                          "player's own actions")
    assert reasons[4] == ("pooker.withdraw: notification: 'twelve' is not a whole number in "
                          "ASCII digits")


def test_lines_that_name_no_action_or_ballot_are_kept_unread() -> None:
    text = ("example.org is down again.\n"
            "I FOR one welcome our new Dealer.\n"
            "Proposal: more cards\n"
            "9355 is a fine proposal\n")
    reading = read(text, registry())
    assert reading.items == ()
    assert reading.unread == ("example.org is down again.", "I FOR one welcome our new Dealer.",
                              "Proposal: more cards", "9355 is a fine proposal")


def test_a_message_is_read_for_a_bounded_number_of_items() -> None:
    text = "".join(f"{9000 + n} FOR\n" for n in range(MAX_ITEMS + 5))
    items = read(text, registry()).items
    assert len(items) == MAX_ITEMS + 1
    assert all(i.kind == "ballot" for i in items[:MAX_ITEMS])
    assert items[MAX_ITEMS] == Item(f"{9000 + MAX_ITEMS} FOR", "bad",
                                    reason=f"a message is read for at most {MAX_ITEMS} "
                                           "ballots and actions")


def test_the_phrasings_pooker_declares_for_its_actions() -> None:
    text = ("I trade my Red As and Red Kd with Wonko for eir Blue Kd.\n"
            "I offer to trade Blue 2c to ben for Red 3h\n"
            "I make a Motion to Show Cards\n"
            "I vote no on the Motion to Show Cards.\n"
            "I show Red As, Red Ks; Blue 2c at the Showdown\n"
            "I withdraw my trade notification 12\n"
            "I decline notification #14\n"
            "I declare a Showdown!\n")
    assert _said(text) == [
        ("act", "pooker.trade", repr({"give": ["Red As", "Red Kd"], "with": "Wonko",
                                      "get": ["Blue Kd"]})),
        ("act", "pooker.trade", repr({"give": ["Blue 2c"], "with": "ben", "get": ["Red 3h"]})),
        ("act", "pooker.motion", repr({})),
        ("act", "pooker.vote", repr({"vote": "no"})),
        ("act", "pooker.show", repr({"hands": [["Red As", "Red Ks"], ["Blue 2c"]]})),
        ("act", "pooker.withdraw", repr({"notification": 12})),
        ("act", "pooker.decline", repr({"notification": 14})),
        ("act", "pooker.declare", repr({})),
    ]


def test_every_example_of_what_players_may_write_is_read() -> None:
    """docs/mail.md's examples under "What players may write": each line of each block is read
    as a ballot or an action (the headings aside), and none is refused."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "mail.md").read_text()
    section = doc.split("## What players may write", 1)[1].split("**What is never read:**")[0]
    blocks = section.split("```")[1::2]
    lines = [line for block in blocks for line in block.strip().splitlines()]
    assert len(lines) >= 20
    for line in lines:
        if line == "I vote as follows:":
            continue
        items = read(line, registry()).items
        assert [i.kind for i in items] in (["ballot"], ["act"]), line
