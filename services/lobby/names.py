"""Player names: what a name may contain, and when two names look alike (the no-impersonation rule).

A name is kept in Unicode's compatibility form (NFKC: full-width "Ａｎｎａ" becomes "Anna") with invisible
characters (zero-width, bidi controls) removed; any other control or format character refuses it. Two
names are "the same" when their skeletons are equal: NFKC, invisible characters dropped, letters that
look like Latin ones mapped to them (Cyrillic "А", Greek "Α"), case-folded, then "I", "l", "1" counted as
one letter, "0" as "o" and "rn" as "m". A name that mixes Latin, Cyrillic or Greek letters is refused outright:
no honest name needs that, and it is the usual way to forge a look-alike.

The mapping is the part of Unicode's confusables (UTS #39) that turns letters of the scripts people type
here into Latin look-alikes; a table of our own, small and readable, instead of a dependency whose data we
would still have to cut down to these scripts.
"""

from __future__ import annotations

import re
import unicodedata

from services.lobby.errors import invalid

NAME_MIN, NAME_MAX = 3, 20
_NAME_PATTERN = re.compile(r"[^\W_][\w .\-]*")

INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u3164\ufe0f\ufeff"
)
"""Zero-width characters, soft hyphens and bidi controls: they change no glyph (or reorder glyphs), so
they are dropped from a name instead of making a second "Anna"."""

_LOOKALIKES = str.maketrans({
    # Cyrillic letters that look like Latin ones
    "А": "A", "а": "a", "В": "B", "Е": "E", "е": "e", "Ё": "Ë", "ё": "ë", "З": "3", "Ѕ": "S", "ѕ": "s",
    "І": "I", "і": "i", "Ї": "Ï", "ї": "ï", "Ј": "J", "ј": "j", "К": "K", "М": "M", "Н": "H", "О": "O",
    "о": "o", "Р": "P", "р": "p", "С": "C", "с": "c", "Т": "T", "У": "Y", "у": "y", "Х": "X", "х": "x",
    "Ү": "Y", "ү": "y", "Һ": "h", "һ": "h", "Ӏ": "I", "ӏ": "l", "Ԁ": "d", "ԁ": "d", "Ԛ": "Q", "ԛ": "q",
    "Ԝ": "W", "ԝ": "w", "г": "r", "п": "n", "ь": "b", "Ь": "b",
    # Greek letters that look like Latin ones
    "Α": "A", "α": "a", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "ι": "i", "Κ": "K", "κ": "k",
    "Μ": "M", "Ν": "N", "ν": "v", "Ο": "O", "ο": "o", "Ρ": "P", "ρ": "p", "Τ": "T", "τ": "t", "Υ": "Y",
    "υ": "u", "Χ": "X", "χ": "x", "γ": "y", "ϲ": "c", "Ϲ": "C", "ϳ": "j", "Ϳ": "J",
})
_FOLDED_LOOKALIKES = str.maketrans({"l": "i", "1": "i", "ı": "i", "0": "o"})
"""After case folding: "I" has become "i", so capital I, small l, 1 and i all count as one letter (a few
honest names collide, which only means choosing another), and 0 as o."""
_SEQUENCES = (("rn", "m"), ("vv", "w"))
"""Letter pairs that read as one letter ("rn" as "m"), replaced after case folding."""

_CONFUSABLE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})

RESERVED_PREFIX = "Computer"
"""Names of computer seats ("Computer", "Computer 1", …): the platform gives them, no player may."""


def normalize(raw: str) -> str:
    """Return `raw` in NFKC with invisible characters dropped and runs of white space made one space.

    Never refuses (logging in with an odd name simply finds nobody); see `check_name` for what a new name
    may be.
    """
    text = "".join(char for char in unicodedata.normalize("NFKC", raw) if char not in INVISIBLE)
    return " ".join(text.split())


def skeleton(name: str) -> str:
    """Return the form two names are compared in: equal skeletons mean the names look alike."""
    text = normalize(name).translate(_LOOKALIKES)
    text = unicodedata.normalize("NFKC", text).casefold().translate(_FOLDED_LOOKALIKES)
    for pair, single in _SEQUENCES:
        text = text.replace(pair, single)
    return text


def check_name(raw: str) -> str:
    """Return the name a player may use (normalized), or refuse it (422 with the German reason)."""
    if any(_is_forbidden(char) for char in raw):
        raise invalid("Der Name enthält Steuerzeichen; bitte nur Buchstaben, Ziffern und Leerzeichen verwenden.",
                      "name_invalid")
    name = normalize(raw)
    if len(name) < NAME_MIN:
        raise invalid(f"Der Name braucht mindestens {NAME_MIN} Zeichen.", "name_too_short")
    if len(name) > NAME_MAX:
        raise invalid(f"Der Name darf höchstens {NAME_MAX} Zeichen haben.", "name_too_long")
    if not _NAME_PATTERN.fullmatch(name):
        raise invalid("Der Name beginnt mit einem Buchstaben oder einer Ziffer und enthält nur Buchstaben, "
                      "Ziffern, Leerzeichen, Punkt, Binde- und Unterstrich.", "name_invalid")
    if len(scripts_of(name) & _CONFUSABLE_SCRIPTS) > 1:
        raise invalid("Der Name mischt Schriften (etwa lateinische und kyrillische Buchstaben); "
                      "bitte nur eine verwenden.", "name_mixed_scripts")
    if is_reserved(name):
        raise invalid("Namen wie „Computer 1“ tragen nur die Computergegner.", "name_reserved")
    return name


def is_reserved(name: str) -> bool:
    """True for names that look like a computer seat's: "Computer", "Computer 2", "Cоmputer3" (a word that
    merely begins so, like "Computerfreak", is free)."""
    folded = skeleton(name)
    if not folded.startswith(_RESERVED_SKELETON):
        return False
    rest = folded[len(_RESERVED_SKELETON):]
    # Digits fold to look-alike letters ("1" → "i", "0" → "o"), so a rest of only those is a number.
    return not rest or not rest[0].isalpha() or not rest.strip("io0123456789")


def scripts_of(name: str) -> set[str]:
    """Return the scripts of the name's letters ("LATIN", "CYRILLIC", "GREEK", "CJK", …)."""
    return {unicodedata.name(char, "UNKNOWN").split(" ")[0] for char in name if char.isalpha()}


def _is_forbidden(char: str) -> bool:
    """Control (tab and line breaks too), line or paragraph separator, format other than the invisible ones
    dropped, private use, surrogate or unassigned."""
    return char not in INVISIBLE and unicodedata.category(char) in _FORBIDDEN_CATEGORIES


_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
_RESERVED_SKELETON = skeleton(RESERVED_PREFIX)
