"""Characters that hide text from a reader, and the plain view the rules read.

Invisible characters (zero-width, bidirectional controls, tag characters) and look-alike letters
(Cyrillic or Greek inside a Latin word) are findings of their own; ``plain`` then removes or maps
them, so that ``cu\u200brl`` or ``сurl`` (Cyrillic с) still reads as ``curl`` to the other rules.
Tag characters spell ASCII invisibly (U+E0041 is an invisible "A"): ``plain`` turns them back
into the letters they stand for, so what they hide is scanned too.
"""

from __future__ import annotations

import re
import unicodedata

from .model import Finding, short

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u180e\ufeff"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_MARKS = "\u200e\u200f\u061c"
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe]")
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_VARIATION_SUPPLEMENT = re.compile("[\U000e0100-\U000e01ef]")  # invisible; used to smuggle bytes
_INVISIBLE = re.compile(f"[{ZERO_WIDTH}{BIDI}]")
# a letter that renders like a Latin one, from the scripts used for look-alike names
LOOKALIKE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ү": "y", "һ": "h",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S",
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "τ": "t", "υ": "u", "ε": "e",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})
_WORD = re.compile(r"[^\W_]+(?:[._-][^\W_]+)*")
_FOREIGN = re.compile("[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u13a0-\u13ff\uff21-\uff3a\uff41-\uff5a]")
_LATIN = re.compile("[A-Za-z]")
# a Cyrillic or Greek letter with no Latin look-alike: the text is written in that script
_NATIVE = re.compile("[" + "".join(c for c in map(chr, range(0x0370, 0x0530)) if c.isalpha() and ord(c) not in LOOKALIKE)
                     + "]")


def _joiner_is_text(line: str, i: int) -> bool:
    """ZWJ/ZWNJ between two non-ASCII characters: an emoji sequence or Persian, Indic text."""
    return 0 < i < len(line) - 1 and ord(line[i - 1]) > 0x7F and ord(line[i + 1]) > 0x7F


def findings(file: str, lines: list[str]) -> list[Finding]:
    """The invisible and look-alike characters in ``lines`` (one finding per line and sort)."""
    out: list[Finding] = []
    for n, line in enumerate(lines, 1):
        if line.isascii():
            continue
        tags = _TAGS.search(line)
        if tags:
            spelt = "".join(chr(ord(c) - 0xE0000) for c in tags.group() if 0x20 <= ord(c) - 0xE0000 < 0x7F)
            out.append(Finding("unicode", "critical", file, n, short(f"invisible tag characters spelling {spelt!r}"),
                               "Unicode tag characters are invisible text a model reads and a person does not see"))
        if _VARIATION_SUPPLEMENT.search(line):
            out.append(Finding("unicode", "high", file, n, short(line), "invisible variation selectors can carry "
                                                                          "hidden bytes"))
        # the direction marks of right-to-left writing (RLM, LRM, ALM) in a line of that writing are
        # typography; overrides and isolates are findings anywhere
        marks = _RTL.search(line) is not None
        bidi = [c for c in line if c in BIDI and not (marks and c in _MARKS)]
        if bidi:
            out.append(Finding("unicode", "high", file, n, short(" ".join(f"U+{ord(c):04X}" for c in bidi)),
                               "bidirectional control characters make text display in a different order than it "
                               "is read (Trojan Source)"))
        hidden = [i for i, c in enumerate(line) if c in ZERO_WIDTH and not (c in "\u200c\u200d" and
                                                                           _joiner_is_text(line, i))]
        if hidden and not (hidden == [0] and n == 1 and line[0] == "\ufeff"):  # a byte-order mark is normal
            out.append(Finding("unicode", "high", file, n, short(_INVISIBLE.sub("\u2423", line)),
                               "zero-width characters hide inside words (shown as \u2423)"))
        for m in _WORD.finditer(line):
            word = m.group()
            if _FOREIGN.search(word) and _LATIN.search(word) and _disguised(word, _NATIVE.search(line) is not None):
                out.append(Finding("unicode", "high", file, n, short(word), "a word mixes Latin letters with "
                                   f"look-alikes from another script (reads as {plain(word)!r})"))
                break
    return out


def _disguised(word: str, native_line: bool) -> bool:
    """A word that passes for Latin: one of its parts (split at ``.``, ``-``, ``_``) mixes scripts, or is
    written in look-alikes only beside Latin parts on a line with no other Cyrillic or Greek. A compound
    of a Latin and a Cyrillic word in Russian text ("Linux-сервер", ".po-файлов") is ordinary Russian."""
    parts = [p for p in re.split(r"[._-]", word) if p]
    return any(_FOREIGN.search(p) and (_LATIN.search(p) or not (native_line or _NATIVE.search(p))) for p in parts)


def plain(text: str) -> str:
    """``text`` as the rules read it: tag characters as the ASCII they spell, other invisible
    characters removed, look-alike letters mapped to Latin, full-width forms to ASCII."""
    if text.isascii():
        return text
    text = _TAGS.sub(lambda m: "".join(chr(ord(c) - 0xE0000) for c in m.group()), text)
    text = _VARIATION_SUPPLEMENT.sub("", _INVISIBLE.sub("", text))
    # NFKC maps full-width Latin to ASCII; it leaves CJK text and its full-width punctuation readable
    # a word of look-alikes alone ("ѕh") is mapped in Latin text; in Cyrillic or Greek text ("все", "на")
    # it is a real word, and only a word that also holds Latin letters ("сurl") is a disguise
    native = _NATIVE.search(text) is not None
    return unicodedata.normalize("NFKC", _WORD.sub(lambda m: _as_latin(m.group(), native), text))


def _as_latin(word: str, native: bool) -> str:
    """``word`` mapped to Latin when it could pass for Latin (every letter Latin or a look-alike)."""
    if word.isascii() or (native and not _LATIN.search(word)):
        return word
    mapped = word.translate(LOOKALIKE)
    return mapped if all(c.isascii() or not c.isalpha() for c in mapped) else word
