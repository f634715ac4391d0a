"""Display names: what a player may be called, normalised once, on the way in.

A name is NFKC-normalised (so full-width letters, ligatures and the like become their
plain forms, and two names that look alike compare alike), runs of white space become
one space, and the ends are trimmed. What is left must be 1..MAX_NAME_LENGTH characters
of letters, marks, digits, punctuation, symbols and single spaces: no control or format
characters (no bidirectional overrides, no zero-width joiners), no private-use or
unassigned code points, no surrogates. Names are not unique: a player is known by id.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_NAME_LENGTH: Final = 32
# Unicode general categories a name may hold (L letters, M marks, N numbers,
# P punctuation, S symbols, Zs space separators); C* (control, format, surrogate,
# private use, unassigned), Zl and Zp are refused.
_ALLOWED_MAJOR: Final = frozenset("LMNPS")


class BadName(ValueError):
    """A display name that is refused; the message says why."""


def normalise_name(raw: str) -> str:
    """The name as kept and shown, or BadName."""
    text = unicodedata.normalize("NFKC", raw)
    for char in text:
        category = unicodedata.category(char)
        if category[0] not in _ALLOWED_MAJOR and category != "Zs" and not char.isspace():
            raise BadName(f"a display name cannot hold the character U+{ord(char):04X}")
    name = " ".join(text.split())
    if not name:
        raise BadName("a display name needs at least one visible character")
    if len(name) > MAX_NAME_LENGTH:
        raise BadName(f"a display name is at most {MAX_NAME_LENGTH} characters")
    return name
