"""Atom feeds (RFC 4287), newest first, with the standard library's XML writer: the Dealer's
Reports (``/reports.atom``, each report's text) and the public log (``/log.atom``, each event's
sentence, as the streams and ``GET /api/v1/log`` say it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.etree import ElementTree as ET

ATOM = "http://www.w3.org/2005/Atom"


@dataclass(frozen=True)
class Entry:
    """One entry: ``name`` names it in its URN (``report:3``, ``event:41``), ``path`` its id
    under a configured base URL, ``link`` where it is read."""

    name: str
    path: str
    link: str
    title: str
    updated: str
    media: str
    content: str | None = None


@dataclass(frozen=True)
class Feed:
    name: str
    path: str
    title: str


REPORTS = Feed("reports", "/reports.atom", "Spoon Nomic Cards: the Dealer's Reports")
LOG = Feed("log", "/log.atom", "Spoon Nomic Cards: the ledger")


def atom(base: str | None, game_id: str, feed: Feed, entries: Sequence[Entry]) -> bytes:
    """The feed of ``entries``. Links and ids come from ``base``, the server's configured
    public URL (``serve --base-url``), never from a request. Without one the links are relative
    (resolved against the feed's own address) and the ids are URNs made from ``game_id`` (the
    hash of the game's first event), so they stay the same for every reader."""
    ET.register_namespace("", ATOM)
    root = ET.Element(f"{{{ATOM}}}feed")

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            el.text = text
        return el

    link = base or ""

    def ident(what: str, path: str) -> str:
        return f"{base}{path}" if base else f"urn:nomic-cards:{game_id}:{what}"

    sub(root, "id", ident(feed.name, feed.path))
    sub(root, "title", feed.title)
    sub(root, "updated", entries[0].updated if entries else "1970-01-01T00:00:00Z")
    sub(root, "link", rel="self", href=f"{link}{feed.path}")
    sub(root, "link", rel="alternate", href=f"{link}/")
    author = sub(root, "author")
    sub(author, "name", "The Dealer")
    for entry in entries:
        item = sub(root, "entry")
        sub(item, "id", ident(entry.name, entry.path))
        sub(item, "title", entry.title)
        sub(item, "updated", entry.updated)
        sub(item, "link", rel="alternate", type=entry.media, href=f"{link}{entry.link}")
        if entry.content is not None:
            sub(item, "content", entry.content, type="text")
    out: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return out
