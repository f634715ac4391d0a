"""What the store reads and writes, as values: a game as an operation reads it, the
answers kept for Idempotency-Keys, the outcome of a write, and event entries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from patience_gateway.storage.outcomes import Outcome


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """The first answer given to an Idempotency-Key, to be given again on retries."""

    fingerprint: str
    status: int
    etag: str
    body: bytes

    def encode(self) -> bytes:
        head = f"{self.fingerprint}\n{self.status}\n{self.etag}\n".encode()
        return head + self.body

    @classmethod
    def decode(cls, raw: bytes) -> StoredAnswer:
        fingerprint, status, etag, body = raw.split(b"\n", 3)
        return cls(fingerprint.decode(), int(status), etag.decode(), body)


@dataclass(frozen=True, slots=True)
class DealEnding:
    """What undo needs to tell whether it takes back the end of a random deal."""

    status: str
    deal_secret: bool
    deal: str  # "" for a random deal whose number was never shown


@dataclass(frozen=True, slots=True)
class Loaded:
    """What an operation on an existing game reads in its one round trip."""

    state: bytes  # the current state; for undo, the checkpoint to replay from
    version: int
    token_digest: bytes
    answer: StoredAnswer | None
    position: int = 0  # undo: the number of moves played (0: nothing to undo)
    moves: Sequence[bytes] = ()  # undo: the moves from the checkpoint to the target
    next_redo: bytes | None = None  # redo: the move to redo
    # The deal number of a game that was taken back after its random deal was shown:
    # it is an open game from then on ("" for every other game).
    open_deal: str = ""
    # undo: whether the game is over now, and what is known of its deal
    ending: DealEnding | None = None
    # a search proved the game lost at this version (a hint answered `lost`)
    proven_lost: bool = False
    # the game plays every safe move to a foundation after each move
    autoplay: bool = False
    # the player who owns the game ("" for an anonymous game, opened by its token)
    owner: str = ""
    # how the game counts in its player's statistics (records.record.CATEGORIES)
    category: str = ""
    # the game's record as the meta hash keeps it (records.record.GameRecord.read),
    # the hints counted apart, and its creation time in seconds (for a game made
    # before records were kept)
    record: bytes | None = None
    hints: bytes | None = None
    created: bytes | None = None
    # restart: the game stands at its deal (nothing played since the start or the last
    # restart)
    at_deal: bool = False
    # undo: the state as dealt, when a restart is among the moves to replay
    dealt: bytes | None = None
    # the deal number ("" for a random deal until its end shows it), and whether it
    # was drawn at random
    deal: str = ""
    deal_secret: bool = False
    # a daily deal's day (`YYYY-MM-DD`): its number is hidden until the day is over
    daily: str = ""
    # a hint: the plan of the game's last hint (HintRequest.plan), b"" for none
    hint_plan: bytes = b""


@dataclass(frozen=True, slots=True)
class HistoryRecord:
    version: int
    token_digest: bytes
    variant: str
    options_json: str
    deal: str
    deal_secret: bool
    status: str
    moves: list[str]
    redo: list[str]
    open_deal: str = ""
    owner: str = ""
    daily: str = ""


@dataclass(frozen=True, slots=True)
class Created:
    """Outcome of a create: OK, IDEMPOTENT_REPLAY (a create with the same key stored
    its game first: `record` is its record) or TAKEN (another game has the id)."""

    outcome: Outcome
    record: bytes | None = None


@dataclass(frozen=True, slots=True)
class CommitResult:
    """Outcome of a compare-and-set: OK, IDEMPOTENT_REPLAY (with the stored `answer`),
    STALE (with the game's `version`), GONE or EMPTY."""

    outcome: Outcome
    version: int = 0
    answer: StoredAnswer | None = None


@dataclass(frozen=True, slots=True)
class GameEventEntry:
    """A change as the scripts publish it and keep it: "<kind> <version>\n<body>"."""

    kind: str
    version: int
    body: bytes

    @classmethod
    def decode(cls, entry: bytes) -> GameEventEntry:
        head, _, body = entry.partition(b"\n")
        kind, _, version = head.partition(b" ")
        return cls(kind.decode(), int(version), body)


@dataclass(frozen=True, slots=True)
class StreamStart:
    """What a stream reads when it opens: the game's version, its current state (for
    a whole view) and its recent events, oldest first."""

    version: int
    state: bytes
    recent: list[GameEventEntry]
