"""One-use codes a person reads on one screen and types on another (link codes,
challenge codes): short, in Crockford's base 32, forgiving as typed."""

from __future__ import annotations

import secrets
from typing import Final

# Crockford's base 32: no I, L, O or U, so a code read aloud or typed is not mistaken.
CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH: Final = 8  # 40 bits: with the rate limits on tries, guessing a live code is hopeless


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def shown_code(code: str) -> str:
    """The code as shown: two groups of four."""
    return f"{code[:4]}-{code[4:]}"


def normal_code(text: str) -> str:
    """A code as typed, in its canonical form: upper case, no dashes or spaces, and the
    letters Crockford reads as digits read so."""
    code = text.upper().replace("-", "").replace(" ", "")
    return code.translate(str.maketrans("OIL", "011"))
