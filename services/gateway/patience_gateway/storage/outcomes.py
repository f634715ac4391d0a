"""What a write script answers: the first word of its reply, read once, where the
store reads the reply (`Outcome.of`)."""

from __future__ import annotations

from enum import Enum


class Outcome(Enum):
    """A write script's outcome; each value is the word the script answers with."""

    OK = b"ok"
    # The Idempotency-Key was used meanwhile: the reply holds the answer stored for it.
    IDEMPOTENT_REPLAY = b"idem"
    # The game is at another version than the one read: the reply holds it.
    STALE = b"stale"
    # No such game (never was, deleted or expired).
    GONE = b"gone"
    # Nothing to undo or redo, although the version was the one read.
    EMPTY = b"empty"
    # A create found another game under its id.
    TAKEN = b"taken"
    # A stream ticket that was used, expired, or never issued.
    BAD_TICKET = b"ticket"

    @classmethod
    def of(cls, reply: list[bytes]) -> Outcome:
        """The outcome a script's reply starts with."""
        return cls(reply[0])
