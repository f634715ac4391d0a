"""What the store writes, and what its writes answer: a new game, a change of a game
(one compare-and-set), and their outcomes, each the word its script's reply starts
with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from patience_gateway.storage.reads import StoredAnswer


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
    # A create found another game under its id; a claim, a player's game.
    TAKEN = b"taken"
    # A stream ticket that was used, expired, or never issued.
    BAD_TICKET = b"ticket"


class Step(Enum):
    """What a change does to the game's history (each its own script)."""

    NEW = "new"  # a new step (a move, its safe moves, an autoplay, a restart): no redo left
    UNDO = "undo"  # the last step goes to the front of the undone ones
    REDO = "redo"  # the next undone step goes back onto the history
    NONE = "none"  # the position stays (settings, a resignation, a claim, an abandonment)


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to store at version 1."""

    state: bytes  # as dealt
    token_digest: bytes  # b"" for a player's game
    variant: str
    options: Sequence[str]
    deal: str  # "" while a random deal's number is hidden
    deal_secret: bool
    status: str
    record: bytes  # the game's record (records.record)
    owner: str = ""
    category: str = ""  # records.record.RANDOM goes without saying
    daily: str = ""
    autoplay: bool = False
    outbox_entry: bytes = b""  # a player's game's first


@dataclass(frozen=True, slots=True)
class Commit:
    """A change, written only if the game is still at `version` (the one read). With
    `key`, `answer` is kept for it; `meta`: fields of the meta hash to set (the record,
    a random deal's number once shown, `open`, the settings, an owner); `event`: (kind,
    body) for the game's streams; `outbox_entry`: for a player's records."""

    version: int
    step: Step = Step.NONE
    state: bytes = b""  # the new state, with a step
    status: str = ""  # the new status, with a step
    new_step: str = ""  # Step.NEW: the step the history gains
    meta: Mapping[str, str | bytes] = field(default_factory=dict)
    event: tuple[str, bytes] = ("", b"")
    key: str = ""
    answer: StoredAnswer | None = None
    outbox_entry: bytes = b""
    # only while no player owns the game (a claim): else TAKEN
    unowned: bool = False
    # a proof of loss of the version read holds for the new one (the position stays)
    keeps_proof: bool = False


@dataclass(frozen=True, slots=True)
class CommitResult:
    """Outcome of a change: OK (with the new `version`), IDEMPOTENT_REPLAY (with the
    stored `answer`), STALE (with the game's `version`), GONE, EMPTY or TAKEN."""

    outcome: Outcome
    version: int = 0
    answer: StoredAnswer | None = None


@dataclass(frozen=True, slots=True)
class Created:
    """Outcome of a create: OK, IDEMPOTENT_REPLAY (a create with the same key stored
    its game first: `answer` is the answer it kept) or TAKEN (another game has the id)."""

    outcome: Outcome
    answer: bytes | None = None
