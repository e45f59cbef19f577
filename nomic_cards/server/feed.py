"""The Atom feed of the Dealer's Reports (RFC 4287), newest first, with the standard library's
XML writer."""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree import ElementTree as ET

from nomic_cards.core.services.public import ReportEntry

ATOM = "http://www.w3.org/2005/Atom"


def atom(base: str | None, game_id: str, entries: Sequence[tuple[ReportEntry, str]]) -> bytes:
    """The feed with one entry per (report, its text). Links and ids come from ``base``, the
    server's configured public URL (``serve --base-url``), never from a request. Without one
    the links are relative (resolved against the feed's own address) and the ids are URNs made
    from ``game_id`` (the hash of the game's first event), so they stay the same for every
    reader."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            el.text = text
        return el

    link = base or ""

    def ident(what: str, path: str) -> str:
        return f"{base}{path}" if base else f"urn:nomic-cards:{game_id}:{what}"

    sub(feed, "id", ident("reports", "/reports.atom"))
    sub(feed, "title", "Spoon Nomic Cards: the Dealer's Reports")
    sub(feed, "updated", entries[0][0].published if entries else "1970-01-01T00:00:00Z")
    sub(feed, "link", rel="self", href=f"{link}/reports.atom")
    sub(feed, "link", rel="alternate", href=f"{link}/")
    author = sub(feed, "author")
    sub(author, "name", "The Dealer")
    for entry, text in entries:
        item = sub(feed, "entry")
        sub(item, "id", ident(f"report:{entry.nweek}", f"/api/v1/reports/{entry.nweek}"))
        sub(item, "title", f"Dealer's Report for nweek {entry.nweek}")
        sub(item, "updated", entry.published)
        sub(item, "link", rel="alternate", type="text/plain",
            href=f"{link}/api/v1/reports/{entry.nweek}?format=text")
        sub(item, "content", text, type="text")
    out: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return out
