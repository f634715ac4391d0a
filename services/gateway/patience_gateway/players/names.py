"""Display names: what a player may be called, normalised once, on the way in.

A name is NFKC-normalised (so full-width letters, ligatures and the like become their
plain forms, and two names that look alike compare alike), runs of white space become
one space, and the ends are trimmed. What is left must be 1..MAX_NAME_LENGTH characters
of letters, marks, digits, punctuation, symbols and single spaces: no control or format
characters (no bidirectional overrides), no private-use or unassigned code points, no
surrogates. A zero-width joiner is taken only inside an emoji sequence (between two
symbols, as in "👩‍💻"). A name must show something: characters that draw nothing
(the Hangul fillers, the blank Braille pattern) do not count as visible.

Names are unique among players by their key (`name_key`): the name case folded, after
NFKC, so "Walker", "WALKER" and "Walker" written in full-width letters are one name.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_NAME_LENGTH: Final = 32
# Unicode general categories a name may hold (L letters, M marks, N numbers,
# P punctuation, S symbols, Zs space separators); C* (control, format, surrogate,
# private use, unassigned), Zl and Zp are refused.
_ALLOWED_MAJOR: Final = frozenset("LMNPS")
ZERO_WIDTH_JOINER: Final = "\u200d"
# Letters and symbols that draw nothing: a name of these alone looks blank.
_BLANK: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# What an emoji sequence's joiner may follow: a symbol, a skin tone (Sk), or the
# emoji presentation selector after a symbol (Mn).
_JOINED_AFTER: Final = frozenset(("So", "Sk", "Mn"))


class BadName(ValueError):
    """A display name that is refused; the message says why."""


def _visible(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] in "LNPS" and char not in _BLANK


def _joins_emoji(text: str, index: int) -> bool:
    """Whether the joiner at `index` stands between two parts of an emoji sequence."""
    if index == 0 or index + 1 >= len(text):
        return False
    before = unicodedata.category(text[index - 1])
    after = unicodedata.category(text[index + 1])
    return before in _JOINED_AFTER and after == "So"


def normalise_name(raw: str) -> str:
    """The name as kept and shown, or BadName."""
    text = unicodedata.normalize("NFKC", raw)
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if char == ZERO_WIDTH_JOINER and _joins_emoji(text, index):
            continue
        if category[0] not in _ALLOWED_MAJOR and category != "Zs" and not char.isspace():
            raise BadName(f"a display name cannot hold the character U+{ord(char):04X}")
    name = " ".join(text.split())
    if not any(_visible(char) for char in name):
        raise BadName("a display name needs at least one visible character")
    if len(name) > MAX_NAME_LENGTH:
        raise BadName(f"a display name is at most {MAX_NAME_LENGTH} characters")
    return name


def name_key(name: str) -> str:
    """What two names that must not both be taken share: the normalised name, case
    folded (NFKC again: folding can undo it)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
