"""The Markdown form of the Dealer's Report carries what players and officers wrote as text and
nothing else: rendered by two real Markdown renderers (markdown-it-py, CommonMark with tables
and raw HTML on; cmark-gfm, GitHub's own, with its autolinks and unsafe HTML on), no name, Back,
rule, proposal or pack name becomes an element, an attribute, a link or a table cell, and each
reads back as exactly what was written. Reports published before keep their stored bytes."""

from __future__ import annotations

from html.parser import HTMLParser

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from nomic_cards.cli import app
from nomic_cards.core import api
from nomic_cards.core.ledger.events import RenderedReport, ReportPublished
from nomic_cards.core.nomic import Nomic
from nomic_cards.core.report import (
    DealerSpan,
    PackNote,
    Receipt,
    Received,
    ReportData,
    RuleNote,
    markdown_text,
    render_markdown,
    render_text,
)

HOSTILE = [
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "[x](javascript:alert(1))",
    "![i](http://evil.example/i.png)", "a|b", "| c |", "`code`", "``", "*em* _u_ **b** __c__",
    "# head", "## h2", "> quote", "- item", "1. item", "---", "~~gone~~", "&amp; &lt;b&gt;",
    "&#60;i&#62;", "\\*", "back\\", "evil@e.example", "www.evil.example",
    "http://evil.example/x", "<http://evil.example>", "<evil@e.example>", "$x^2$",
    "{#id .cls}", "[^1]", "[x]: http://evil.example", "line\nbreak", "tab\there",
]


def _data() -> ReportData:
    """A report whose every player-written string is hostile."""
    n = len(HOSTILE)
    receipts = tuple(
        Receipt(name, (Received(HOSTILE[(i + 1) % n], "committed", 1),
                       Received(HOSTILE[(i + 2) % n], "transfer", None,
                                HOSTILE[(i + 3) % n], HOSTILE[(i + 4) % n]),
                       Received(HOSTILE[(i + 5) % n], "transfer", None, None,
                                HOSTILE[(i + 6) % n])))
        for i, name in enumerate(HOSTILE))
    return ReportData(
        nweek=3, start="2026-01-21T00:00:00Z", end="2026-01-31T00:00:00Z",
        dealers=(DealerSpan(HOSTILE[0], None), DealerSpan(HOSTILE[2], "2026-01-25T00:00:00Z")),
        receipts=receipts, commitments=((1, "ab" * 32),), head=(41, "cd" * 32),
        rule_changes=tuple(RuleNote("2026-01-22T00:00:00Z", "rule 9 (cards-for-votes)",
                                    "amended", text, (("packs", text), (text, 2)))
                           for text in HOSTILE),
        packs_retired=tuple(PackNote("2026-01-23T00:00:00Z", 2, text, HOSTILE[-1 - i], 3,
                                     ((HOSTILE[i - 1], 2),))
                            for i, text in enumerate(HOSTILE)))


class Tree(HTMLParser):
    """The elements of an HTML text, their attributes, and the text of each table row's cells,
    each paragraph and each list item."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.rows: list[list[str]] = []
        self.blocks: list[str] = []  # the text of each p, li and h1
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th", "p", "li", "h1"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._text is not None:
            self.rows[-1].append("".join(self._text))
        elif tag in ("p", "li", "h1") and self._text is not None:
            self.blocks.append("".join(self._text))
        if tag in ("td", "th", "p", "li", "h1"):
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def _markdown_it(text: str) -> str:
    html: str = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    return html


def _github(text: str) -> str:
    html: str = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    return html


#: the elements the report's own Markdown makes: its title, paragraphs, the table, the lists,
#: the commitments as code
OURS = {"h1", "p", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "code"}


def _shown(text: str) -> str:
    """What a reader sees of a text written through markdown_text: the text, a control
    character as its escape, the zero-width space after an @ unseen."""
    return text.replace("\u200b", "")


@pytest.mark.parametrize("render", [_markdown_it, _github], ids=["markdown-it-py", "cmark-gfm"])
def test_nothing_a_player_wrote_becomes_markup_a_link_or_a_cell(render: object) -> None:
    d = _data()
    assert callable(render)
    tree = Tree()
    tree.feed(render(render_markdown(d)))
    assert set(tree.tags) <= OURS
    assert tree.attrs == []  # no href, src, onerror, id, class, style
    # every row has its four cells, each reading exactly what was written
    header, *rows = tree.rows
    assert header == ["Player", "Cards", "By Back", "How"]
    assert len(rows) == len(d.receipts)
    from nomic_cards.inputs import escape

    for row, r in zip(rows, d.receipts, strict=True):
        # each of a player's cards has a Back of its own here: one of each, by name
        cards = sorted(r.cards, key=lambda c: c.back)
        assert len({c.back for c in cards}) == len(cards)
        assert [_shown(cell) for cell in row] == [
            escape(r.player), str(len(r.cards)), ", ".join(f"1 {escape(c.back)}" for c in cards),
            "; ".join(f"{escape(c.back)}: {c.how_in(escape)}" for c in cards)]
    texts = [_shown(b) for b in tree.blocks]
    assert texts[0] == d.title
    # From ... Dealers: the text form's second paragraph, its lines wrapped at 72 columns
    assert texts[1] == " ".join(render_text(d).split("\n\n")[1].splitlines())
    for n in (*d.rule_changes, *d.packs_retired):
        assert n.line_in(escape) in texts
    assert tree.tags.count("code") == 1  # the commitment, the one code span


def test_the_text_form_is_as_written() -> None:
    d = _data()
    text = render_text(d)
    assert "| <img src=x onerror=alert(1)>" not in text  # a line of the text form, not a cell
    assert "  <img src=x onerror=alert(1)>" in text and "[x](javascript:alert(1))" in text


def test_markdown_text_escapes_every_ascii_punctuation_character() -> None:
    import string

    out = markdown_text(string.punctuation)
    assert out == "".join("\\" + c + ("\u200b" if c == "@" else "") for c in string.punctuation)
    assert markdown_text("Ienne and Wonko 2") == "Ienne and Wonko 2"  # letters stay as they are


def test_a_published_report_is_printed_as_stored_and_verifies(sqlite_game: Nomic) -> None:
    """A report published before its Markdown was escaped keeps its stored bytes: printed as
    stored, and the ledger verifies."""
    game = sqlite_game
    stored = "# Dealer's Report for nweek 1\n\n| <b>old</b> | 1 | a|b |\n"
    with game.write() as tx:
        tx.record(ReportPublished(1, {"nweek": 1}, RenderedReport("old text\n", stored, "{}\n")))
    result = CliRunner().invoke(app, ["--db", game.url, "report", "1", "--format", "markdown"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == stored
    with game.read() as tx:
        assert api.ledger_verify(tx).ok


def test_a_report_published_now_escapes_hostile_names_and_rules(sqlite_game: Nomic) -> None:
    """End to end: players named to inject markup, a transfer citing a link; the report the
    game publishes renders without any element the names made."""
    game = sqlite_game
    evil = "<img src=x onerror=alert(1)>"
    with game.write() as tx:
        api.add_player(tx, evil)
        api.add_player(tx, "a|b")
        api.transfer(tx, "Red As", evil, "[x](javascript:alert(1))", source="deck")
        api.transfer(tx, "Red Kd", "a|b", "<script>alert(1)</script>", source="deck")
    with game.read() as tx:
        body = api.report(tx, 1, fmt="markdown").body
    for render in (_markdown_it, _github):
        tree = Tree()
        tree.feed(render(body))
        assert set(tree.tags) <= OURS and tree.attrs == []
        players = [_shown(row[0]) for row in tree.rows[1:]]
        assert evil in players and "a|b" in players
        assert all(len(row) == 4 for row in tree.rows)


def test_a_published_head_is_read_back_from_every_form_it_was_posted_in() -> None:
    from nomic_cards.core.report import published_heads

    h, g = "ab" * 32, "cd" * 32
    before = f"Ledger head: event 12, hash {h}\n"  # the one line of reports before 72 columns
    now = f"Ledger head: event 13, hash\n  {g}\n"
    quoted = f"> Ledger head: event 13, hash\n>   {g}\n"
    assert published_heads(before + now + quoted) == [(12, h), (13, g)]
    assert published_heads(f"Ledger head: event 14, hash\n\n  {g}\n") == []  # a paragraph apart
    assert published_heads(f"Ledger head: event 15, hash {h}0\n") == []  # 65 digits: no hash
