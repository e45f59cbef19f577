"""The UTS #39 confusable skeleton of player names (nomic_cards/core/rules/names.py) from
Unicode's own data: the table ``skeleton.txt`` that ``scripts/gen_confusables.py`` makes from
``confusables.txt`` and ``DerivedCoreProperties.txt``, and the skeletons it gives, each as ICU's
spoof checker (ICU 78, Unicode 17) gives it."""

from __future__ import annotations

from importlib import resources

import pytest

from nomic_cards.core.rules import names
from scripts.gen_confusables import render

#: (text, its skeleton as ICU 78's SpoofChecker.getSkeleton gives it)
ICU_SKELETONS = [
    ("W0nko", "WOnko"), ("Pau1", "Paul"), ("rnodern", "rnodern"), ("modern", "rnodern"),
    ("\u0410nn", "Ann"), ("p\u0430yp\u0430l", "paypal"), ("1l|I", "llll"),
    ("a\u034fb", "ab"),          # COMBINING GRAPHEME JOINER: default ignorable, removed
    ("\u3164", ""),              # HANGUL FILLER: removed, though confusables.txt maps it too
    ("\u2160", "l"), ("\u01c9", "lj"), ("\u0131", "i"), ("\ufb01", "fi"),
    ("\u00e9", "e\u0301"), ("e\u0301", "e\u0301"),
    ("\u1f08\u03bd\u03bd\u03b1", "A\u0313vva"), ("\u0410\u043d\u043d\u0430", "A\u029c\u029ca"),
    ("\u05d5\u05d5", "ll"),
]


@pytest.mark.parametrize("text, expected", ICU_SKELETONS)
def test_the_skeleton_is_icus(text: str, expected: str) -> None:
    assert names.skeleton(text) == expected


def test_the_table_names_its_unicode_sources_and_holds_every_mapping() -> None:
    text = resources.files("nomic_cards.core.rules").joinpath("skeleton.txt").read_text(
        encoding="utf-8")
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert any(line.startswith("# confusables.txt Version: 17.0.0 ") and " sha256 " in line
               for line in head), head
    assert any(line.startswith("# DerivedCoreProperties-17.0.0.txt ") for line in head), head
    table = names.read_table(text)
    assert sum(1 for v in table.values() if v) == 6565 - 1  # U+3164 is removed, not mapped
    assert table[ord("0")] == "O" and table[0x034F] is None and table[0x3164] is None


CONFUSABLES = """\ufeff# confusables.txt
# Date: 2025-07-22, 05:49:37 GMT
#
# Unicode Security Mechanisms for UTS #39
# Version: 17.0.0
#
05AD ;\t0596 ;\tMA\t# ( \u05ad \u2192 \u0596 ) HEBREW ACCENT DEHI
0030 ;\t004F ;\tMA\t# ( 0 \u2192 O ) DIGIT ZERO \u2192 LATIN CAPITAL LETTER O
3164 ;\t1160 ;\tMA\t# HANGUL FILLER
FB01 ;\t0066 0069 ;\tMA\t# LATIN SMALL LIGATURE FI
"""
DERIVED = """# DerivedCoreProperties-17.0.0.txt
# Date: 2025-07-30, 23:55:08 GMT
00AD          ; Default_Ignorable_Code_Point # Cf       SOFT HYPHEN
3164          ; Default_Ignorable_Code_Point # Lo       HANGUL FILLER
FE00..FE02    ; Default_Ignorable_Code_Point # Mn  [3] VARIATION SELECTOR-1..
0041          ; Alphabetic # L&   LATIN CAPITAL LETTER A
"""


def test_the_generator_writes_what_the_skeleton_reads() -> None:
    text = render(CONFUSABLES.encode(), DERIVED.encode())
    assert text == render(CONFUSABLES.encode(), DERIVED.encode())  # the same files, the same
    assert "# confusables.txt Version: 17.0.0 Date: 2025-07-22, 05:49:37 GMT sha256 " in text
    assert names.read_table(text) == {
        0x05AD: "\u0596", 0x0030: "O", 0xFB01: "fi",
        0x00AD: None, 0x3164: None, 0xFE00: None, 0xFE01: None, 0xFE02: None}
