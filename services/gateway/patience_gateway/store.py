"""Games in Redis, on one server or a Redis Cluster (the same scripts either way).

Layout of one game (the id in braces is a Redis Cluster hash tag, so the keys share
a slot):

    game:{<id>}:meta   hash   version  integer, +1 on every change (the ETag)
                              token    SHA-256 of the owner token
                              every    K: a checkpoint of the state every K moves
                              variant, options (JSON list), deal, secret ("1" when
                              the deal number was drawn at random), status, created
                              autoplay "1": the safe moves are played after each move
                              lost     the version a search proved lost (a hint)
                              deal     "" for a random deal until the engine shows
                                       its number (at the game's end)
                              open     the deal number, once a random deal's end was
                                       taken back (undo): an open game from then on
    game:{<id>}:states list   sealed states (opaque bytes): the checkpoints at moves
                              0, K, 2K, ... and, last, the current state (see
                              `redis_scripts`); undo replays fewer than K moves
    game:{<id>}:moves  list   the changes applied since the deal: each the notation of a
                              move, or of several joined by "," (a move and the safe
                              moves played with it, or an autoplay), undone as one
    game:{<id>}:redo   list   undone changes, the next one to redo first
    game:{<id>}:idem   hash   Idempotency-Key -> the first answer given for it
    game:{<id>}:idemq  list   those keys, oldest first: a game keeps the answers of its
                              last MAX_STORED_ANSWERS keyed requests, so that a client
                              sending a key with every move does not grow it without end
    game:{<id>}:created string the answer to a create sent with an Idempotency-Key
                              (`create_records`), kept for a fixed time from the
                              creation, not renewed, and not deleted with the game

The hash `game:{<id>}:data` of the earlier layout (states inside the hash, undo from
the deal) is upgraded by the scripts on a game's first use.

Every key gets the time to live again on every use. The scripts are in
`redis_scripts`; each operation is one read script and at most one write script,
run by a `script_calls.ScriptRunner` for the kind of Redis the gateway was given.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from redis import exceptions as redis_errors
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway import redis_scripts
from patience_gateway.redis_client import script_runner
from patience_gateway.script_calls import ReplicaWait, Script, Written

log = logging.getLogger("patience_gateway")
T = TypeVar("T")

MAX_STORED_ANSWERS = 32
# A checkpoint of the state every this many moves: undo replays fewer moves than
# this. 100 keeps a game of 200 moves within 4 KB of Redis memory (three states).
CHECKPOINT_EVERY = 100


class GameKeys(NamedTuple):
    """A game's keys; bytes throughout (redis-py passes bytes on without re-encoding)."""

    meta: bytes
    states: bytes
    moves: bytes
    redo: bytes
    idem: bytes
    idem_order: bytes


def game_keys(game_id: str) -> GameKeys:
    base = f"game:{{{game_id}}}:".encode()
    return GameKeys(
        *(base + name for name in (b"meta", b"states", b"moves", b"redo", b"idem", b"idemq"))
    )


def events_key(game_id: str) -> bytes:
    """The game's recent events (a list) and the pub/sub channel they are published on:
    one name for both (keys and channels are apart in Redis), in the game's slot."""
    return f"game:{{{game_id}}}:events".encode()


def ticket_key(game_id: str, ticket_digest: str) -> bytes:
    return f"game:{{{game_id}}}:ticket:{ticket_digest}".encode()


def legacy_key(game_id: str) -> bytes:
    """The one hash of the earlier layout (read only to upgrade a game kept in it)."""
    return f"game:{{{game_id}}}:data".encode()


def script_keys(game_id: str) -> list[bytes]:
    """KEYS of every script: the game's keys, the earlier layout's hash, the events."""
    return [*game_keys(game_id), legacy_key(game_id), events_key(game_id)]


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


def create_record_key(game_id: str) -> bytes:
    """The record of a create sent with an Idempotency-Key (the game's hash tag)."""
    return f"game:{{{game_id}}}:created".encode()


class ReplicationTimeout(redis_errors.TimeoutError):
    """A change was made on the primary, but fewer replicas than asked for confirmed
    it in time: it is not acknowledged to the client (answered as storage-unavailable)."""


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


@dataclass(frozen=True, slots=True)
class DealEnding:
    """What undo needs to tell whether it takes back the end of a random deal."""

    status: str
    deal_secret: bool
    deal: str  # "" for a random deal whose number was never shown


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


@dataclass(frozen=True, slots=True)
class Created:
    """Outcome of a create: `outcome` is ok, idem (a create with the same key stored
    its game first: `record` is its record) or taken (another game has the id)."""

    outcome: str
    record: bytes | None = None


@dataclass(frozen=True, slots=True)
class CommitResult:
    """Outcome of a compare-and-set: `outcome` is ok, idem, stale, gone or empty."""

    outcome: str
    version: int = 0
    answer: StoredAnswer | None = None


def _text(raw: bytes | None) -> str:
    return "" if raw is None else raw.decode()


def _answer(raw: Any) -> StoredAnswer | None:
    return None if raw is None else StoredAnswer.decode(raw)


class GameStore:
    """Reads and writes games; every method is one Redis round trip.

    `redis` is a client for one server or for a Redis Cluster; the same scripts run
    on either (`redis_client.script_runner`). With `wait`, every change waits until
    that many replicas confirm it (Redis WAIT), and one they do not confirm in time
    raises ReplicationTimeout instead of being acknowledged.

    Each call runs under one deadline of its own (`timeout_seconds`). The Redis client
    is meant to be opened without a socket timeout: redis-py enforces that with an
    extra task per command (asyncio.wait_for), which costs more on the move path
    than the rest of the Redis call.
    """

    def __init__(
        self,
        redis: Redis | RedisCluster,
        ttl_seconds: int,
        timeout_seconds: float = 2.0,
        wait: ReplicaWait | None = None,
    ) -> None:
        self.redis = redis
        self._scripts = script_runner(redis, wait)
        self._wait = wait
        self._ttl_ms = str(ttl_seconds * 1000).encode()
        self._timeout = timeout_seconds
        self._max_answers = str(MAX_STORED_ANSWERS).encode()
        script = Script.of
        self._load_state = script(redis_scripts.LOAD_STATE)
        self._load_undo = script(redis_scripts.LOAD_FOR_UNDO)
        self._load_redo = script(redis_scripts.LOAD_FOR_REDO)
        self._load_history = script(redis_scripts.LOAD_HISTORY)
        self._create = script(redis_scripts.CREATE)
        self._load_create_record = script(redis_scripts.LOAD_CREATE_RECORD)
        self._delete = script(redis_scripts.DELETE)
        self._issue_ticket = script(redis_scripts.ISSUE_TICKET)
        self._open_stream = script(redis_scripts.OPEN_STREAM)
        # A Redis Cluster publishes a game's events on a sharded channel (its slot's
        # node only); a single server on an ordinary one (Redis 6 has no SPUBLISH).
        self.sharded = isinstance(redis, RedisCluster)
        self._publish = b"SPUBLISH" if self.sharded else b"PUBLISH"
        self._touch = script(redis_scripts.TOUCH)
        self._remember_lost = script(redis_scripts.REMEMBER_LOST)
        self._set_settings = script(redis_scripts.SET_SETTINGS)
        self._commits = {
            "move": script(redis_scripts.COMMIT_MOVE),
            "undo": script(redis_scripts.COMMIT_UNDO),
            "redo": script(redis_scripts.COMMIT_REDO),
            # the safe moves, one history entry like a move
            "autoplay": script(redis_scripts.COMMIT_MOVE),
        }

    async def aclose(self) -> None:
        """Close the connections the scripts ran on (not the client's own)."""
        await self._scripts.aclose()

    async def _run(self, script: Script, game_id: str, args: list[Any]) -> Any:
        """A read: the script's reply."""
        return await self._within_deadline(self._scripts.read(script, script_keys(game_id), args))

    async def _change(self, script: Script, game_id: str, args: list[Any]) -> Written:
        """A write: its reply and, with `wait`, how many replicas confirmed it."""
        return await self._within_deadline(self._scripts.write(script, script_keys(game_id), args))

    async def _within_deadline(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self._timeout):
                return await call
        except TimeoutError:
            raise redis_errors.TimeoutError("Redis did not answer in time") from None

    def _confirmed(self, written: Written, game_id: str) -> None:
        """Raises ReplicationTimeout when a change that was made lacks its replicas."""
        if self._wait is None or written.replicas is None:
            return
        if written.replicas < self._wait.replicas:
            log.warning(
                "change to game %s confirmed by %d of %d replicas in %d ms",
                game_id,
                written.replicas,
                self._wait.replicas,
                self._wait.timeout_ms,
            )
            raise ReplicationTimeout(
                f"{written.replicas} of {self._wait.replicas} replicas confirmed the change"
            )

    async def create(
        self,
        game_id: str,
        *,
        state: bytes,
        token_digest: bytes,
        variant: str,
        options_json: str,
        deal: str,
        deal_secret: bool,
        status: str,
        autoplay: bool = False,
        record: bytes = b"",
        record_ttl_seconds: int = 0,
    ) -> Created:
        """Store a new game at version 1, and with `record` the create record, kept
        `record_ttl_seconds`, in the same script: both or neither."""
        fields: list[bytes | str | int] = [
            "version",
            1,
            "token",
            token_digest,
            "variant",
            variant,
            "options",
            options_json,
            "deal",
            deal,
            "secret",
            "1" if deal_secret else "0",
            "status",
            status,
            "created",
            int(time.time()),
            "every",
            CHECKPOINT_EVERY,
            "autoplay",
            "1" if autoplay else "0",
        ]
        args = [self._ttl_ms, state, record, record_ttl_seconds * 1000, *fields]
        keys = [*script_keys(game_id), create_record_key(game_id)]
        written = await self._within_deadline(self._scripts.write(self._create, keys, args))
        outcome = written.reply[0].decode()
        if outcome == "ok":
            self._confirmed(written, game_id)
            return Created(outcome)
        return Created(outcome, written.reply[1] if outcome == "idem" else None)

    async def create_record(self, game_id: str) -> bytes | None:
        """The record of an earlier create with the key that derives this id."""
        keys = [create_record_key(game_id)]
        record: bytes | None = await self._within_deadline(
            self._scripts.read(self._load_create_record, keys, [])
        )
        return record

    async def load(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        reply = await self._run(self._load_state, game_id, [self._ttl_ms, idempotency_key.encode()])
        if reply is None:
            return None
        state, version, token, answer, open_deal, lost, autoplay = reply
        return Loaded(
            state,
            int(version),
            token,
            _answer(answer),
            open_deal=_text(open_deal),
            proven_lost=lost is not None and lost == version,
            autoplay=autoplay == b"1",
        )

    async def load_for_undo(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        reply = await self._run(self._load_undo, game_id, [self._ttl_ms, idempotency_key])
        if reply is None:
            return None
        checkpoint, version, token, answer, position, moves, ending, autoplay = reply
        status, secret, deal, open_deal = (_text(field) for field in ending)
        return Loaded(
            checkpoint or b"",
            int(version),
            token,
            _answer(answer),
            position=int(position),
            moves=moves,
            open_deal=open_deal,
            ending=DealEnding(status, secret == "1", deal),
            autoplay=autoplay == b"1",
        )

    async def load_for_redo(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        reply = await self._run(self._load_redo, game_id, [self._ttl_ms, idempotency_key])
        if reply is None:
            return None
        state, version, token, answer, next_redo, open_deal, autoplay = reply
        return Loaded(
            state,
            int(version),
            token,
            _answer(answer),
            next_redo=next_redo,
            open_deal=_text(open_deal),
            autoplay=autoplay == b"1",
        )

    async def load_history(self, game_id: str) -> HistoryRecord | None:
        reply = await self._run(self._load_history, game_id, [self._ttl_ms])
        if reply is None:
            return None
        version, token, variant, options, deal, secret, status, moves, redo, open_deal = reply
        return HistoryRecord(
            version=int(version),
            token_digest=token,
            variant=variant.decode(),
            options_json=options.decode(),
            deal=deal.decode(),
            deal_secret=secret == b"1",
            status=status.decode(),
            moves=[m.decode() for m in moves],
            redo=[m.decode() for m in redo],
            open_deal=_text(open_deal),
        )

    async def commit(
        self,
        operation: str,
        game_id: str,
        *,
        expected_version: int,
        state: bytes,
        status: str,
        move: str = "",
        idempotency_key: str = "",
        answer: StoredAnswer | None = None,
        meta: Mapping[str, str] | None = None,
        event: tuple[str, bytes] = ("", b""),
    ) -> CommitResult:
        """Compare-and-set for `operation` (move, undo, redo or autoplay): applied only if the
        game is still at `expected_version`, together with the idempotency record and
        the fields in `meta`, set in the game's meta hash (e.g. `deal`, `open`), and
        the `event` (kind, JSON body) published to the game's streams."""
        args: list[bytes] = [
            str(expected_version).encode(),
            state,
            status.encode(),
            self._ttl_ms,
            idempotency_key.encode(),
            answer.encode() if answer is not None else b"",
            self._max_answers,
        ]
        args += [move.encode(), event[0].encode(), event[1], self._publish]
        for name, value in (meta or {}).items():
            args += [name.encode(), value.encode()]
        written = await self._change(self._commits[operation], game_id, args)
        reply = written.reply
        outcome = reply[0].decode()
        if outcome == "ok":
            self._confirmed(written, game_id)
        if outcome in ("ok", "stale"):
            return CommitResult(outcome, version=int(reply[1]))
        if outcome == "idem":
            return CommitResult(outcome, answer=StoredAnswer.decode(reply[1]))
        return CommitResult(outcome)

    async def set_settings(
        self, game_id: str, *, expected_version: int, autoplay: bool, event_body: bytes
    ) -> CommitResult:
        """The game's settings as a new version, if it is still at `expected_version`;
        its streams get a `settings` event with `event_body`."""
        args = [
            str(expected_version).encode(),
            self._ttl_ms,
            b"1" if autoplay else b"0",
            event_body,
            self._publish,
        ]
        written = await self._change(self._set_settings, game_id, args)
        outcome = written.reply[0].decode()
        if outcome == "ok":
            self._confirmed(written, game_id)
        version = int(written.reply[1]) if outcome in ("ok", "stale") else 0
        return CommitResult(outcome, version=version)

    async def remember_lost(self, game_id: str, version: int) -> bool:
        """Keeps that a search proved the game lost at `version`, while it is still
        there; False when the game moved on (or is gone) meanwhile."""
        written = await self._change(self._remember_lost, game_id, [str(version).encode()])
        return bool(written.reply)

    async def confirm_replicated(self, game_id: str) -> None:
        """With `wait`: returns once the replicas have every change made to the game
        so far (a write of the game's time to live, then WAIT: a replica confirms
        the replication stream in order), else raises ReplicationTimeout. Without
        `wait`, at once."""
        if self._wait is None:
            return
        written = await self._change(self._touch, game_id, [self._ttl_ms])
        self._confirmed(written, game_id)

    async def delete(self, game_id: str, expected_version: int | None) -> CommitResult:
        """Deletes the game; its streams get a `deleted` event, and end."""
        expected = "" if expected_version is None else str(expected_version)
        body = b'{"id":"%s"}' % game_id.encode()
        written = await self._change(self._delete, game_id, [expected, body, self._publish])
        outcome = written.reply[0].decode()
        if outcome == "ok":
            self._confirmed(written, game_id)
        version = int(written.reply[1]) if outcome == "stale" else 0
        return CommitResult(outcome, version=version)

    async def issue_ticket(self, game_id: str, ticket_digest: str, ttl_ms: int) -> bool:
        """Keeps a stream ticket (by its digest) for `ttl_ms`; False: no such game."""
        keys = [game_keys(game_id).meta, ticket_key(game_id, ticket_digest)]
        issued = await self._within_deadline(
            self._scripts.read(self._issue_ticket, keys, [str(ttl_ms).encode()])
        )
        return bool(issued)

    async def open_stream(self, game_id: str, ticket_digest: str | None) -> StreamStart | str:
        """Uses up the ticket (unless None: a stream catching up) and reads what a
        stream starts from; else "ticket" (no such ticket) or "gone" (no such game)."""
        names = game_keys(game_id)
        keys = [names.meta, names.states, events_key(game_id)]
        if ticket_digest is not None:
            keys.append(ticket_key(game_id, ticket_digest))
        args = [b"1" if ticket_digest is not None else b"0"]
        reply = await self._within_deadline(self._scripts.read(self._open_stream, keys, args))
        outcome: str = reply[0].decode()
        if outcome != "ok":
            return outcome
        _, version, state, recent = reply
        return StreamStart(int(version), state, [GameEventEntry.decode(e) for e in recent])
