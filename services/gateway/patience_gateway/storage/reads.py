"""What the store reads, as values: a game as each kind of operation needs it, its
history, and the answer kept for an Idempotency-Key. The store decodes the scripts'
replies into these (`store`), in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
class GameMeta:
    """What every operation reads of the game's meta hash."""

    version: int
    token_digest: bytes  # SHA-256 of the game's own token (b"" for a player's game)
    owner: str  # the player who owns the game ("" for an anonymous game)
    category: str  # how it counts in its player's statistics ("" for a random deal)
    daily: str  # a daily deal's day (`YYYY-MM-DD`): its number is hidden until it is over
    # The deal number of a game taken back after its random deal was shown: it is an
    # open game from then on ("" for every other game).
    open_deal: str
    autoplay: bool  # the safe moves are played after each move
    proven_lost: bool  # a search proved this version lost (a hint answered `lost`)
    # the game's record as the hash keeps it (records.record.GameRecord.read), the
    # hints counted apart, and its creation time in seconds
    record: bytes | None
    hints: bytes | None
    created: bytes | None


@dataclass(frozen=True, slots=True)
class Loaded:
    """A game as most operations read it: its meta, its current state, and the answer
    kept for the request's Idempotency-Key."""

    meta: GameMeta
    state: bytes
    answer: StoredAnswer | None = None


@dataclass(frozen=True, slots=True)
class AtDeal(Loaded):
    """A game with its state as dealt (`state`): a restart, a replay, a challenge."""

    at_deal: bool = False  # nothing played since the start or the last restart
    deal: str = ""  # "" for a random deal until its end shows the number
    deal_secret: bool = False  # the number was drawn at random


@dataclass(frozen=True, slots=True)
class ForHint(Loaded):
    plan: bytes = b""  # the plan of the game's last hint (HintRequest.plan), b"" for none


@dataclass(frozen=True, slots=True)
class DealEnding:
    """What undo needs to tell whether it takes back the end of a random deal."""

    status: str
    deal_secret: bool
    deal: str  # "" for a random deal whose number was never shown


@dataclass(frozen=True, slots=True)
class ForUndo(Loaded):
    """Undo to position p - 1: `state` is the checkpoint at or before it (b"" when p is
    0), `steps` the history's steps from there to p - 1, `dealt` the state as dealt
    when a restart is among them."""

    position: int = 0
    steps: Sequence[bytes] = ()
    ending: DealEnding = DealEnding("", False, "")
    dealt: bytes | None = None


@dataclass(frozen=True, slots=True)
class ForRedo(Loaded):
    """`next_step`: the undone step to redo (None: nothing to redo); `state` is the
    deal when that step is a restart."""

    next_step: bytes | None = None


@dataclass(frozen=True, slots=True)
class History:
    meta: GameMeta
    variant: str
    options_json: str
    deal: str
    deal_secret: bool
    status: str
    steps: list[str]  # the history, a step per change of the position
    undone: list[str]  # the steps redo would play again, the next first
