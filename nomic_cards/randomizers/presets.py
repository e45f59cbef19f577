"""Named randomizers, each a plain Blackjack spec with the source it comes from.

``PRESETS[name].spec`` is ordinary Blackjack text; nothing here is special-cased elsewhere.
The TGM presets complete the seed's "incomplete" examples with the initial history the games
use (TetrisWiki, "TGM randomizer"): TGM1 starts with four Z pieces in the history and makes four
rolls; TGM2 (Tetris The Absolute: The Grand Master 2) makes six rolls and its history, stored
as Z,Z,S,S, is effectively Z,S,S,Z because the first piece overwrites a Z instead of pushing the
oldest entry out. Both never deal S, Z or O first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Preset:
    """A named spec: ``spec`` is Blackjack text, ``source`` where it comes from."""

    name: str
    spec: str
    source: str
    note: str = ""

    def __str__(self) -> str:
        return self.spec


_SEED = "TetrisWiki, \"Blackjack\" (examples)"
_TGM = "TetrisWiki, \"TGM randomizer\" (revision 21995)"

PRESETS: Mapping[str, Preset] = MappingProxyType({
    p.name: p
    for p in (
        Preset("7-bag", "bag of I,J,L,O,S,T,Z", _SEED,
               "the Tetris Guideline's Random Generator: each bag deals the seven pieces"),
        Preset("14-bag", "bag of I,I,J,J,L,L,O,O,S,S,T,T,Z,Z", _SEED,
               "two of each piece per bag"),
        Preset("memoryless", "I,J,L,O,S,T,Z", _SEED, "each piece uniform and independent"),
        Preset("move-to-back", "I,J,L,O,S,T,Z with 4 history", _SEED,
               "deal one of the three pieces not among the last four"),
        Preset("szsz", "S,Z", _SEED, "the seed's SZSZ example: S and Z, memoryless"),
        Preset("tgm1", "I,J,L,O,S,T,Z with 4 history 4 rolls first I,J,L,T history Z,Z,Z,Z",
               _TGM, "Tetris The Grand Master: 4 rolls, history starts Z,Z,Z,Z"),
        Preset("tgm2", "I,J,L,O,S,T,Z with 4 history 6 rolls first I,J,L,T history Z,S,S,Z",
               _TGM, "TGM2 (TAP): 6 rolls, history effectively starts Z,S,S,Z"),
    )
})
