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
                              `scripts`); undo replays fewer than K moves
    game:{<id>}:moves  list   the changes applied since the deal: each the notation of a
                              move, or of several joined by "," (a move and the safe
                              moves played with it, or an autoplay), undone as one
    game:{<id>}:redo   list   undone changes, the next one to redo first
    game:{<id>}:idem   hash   Idempotency-Key -> the first answer given for it
    game:{<id>}:idemq  list   those keys, oldest first: a game keeps the answers of its
                              last MAX_STORED_ANSWERS keyed requests, so that a client
                              sending a key with every move does not grow it without end
                              owner    the player who owns the game ("" or none: an
                                       anonymous game, opened by its token)
                              category how it counts in its player's statistics
                              record   the game's record (records.record), hints the
                                       hints asked, counted apart
    game:{<id>}:created string the answer to a create sent with an Idempotency-Key
                              (`games.create_records`), kept for a fixed time from the
                              creation, not renewed, and not deleted with the game
    game:{<id>}:outbox stream what the player's records in PostgreSQL have still to learn
                              of the game (records.outbox); no time to live: it goes
                              once drained

The hash `game:{<id>}:data` of the earlier layout (states inside the hash, undo from
the deal) is upgraded by the scripts on a game's first use.

Every key gets the time to live again on every use (`keys` names them). The scripts
are in `scripts` (their text in `lua/`); each operation is one read script and at
most one write script, run by the `runners.ScriptRunner` for the kind of Redis the
gateway was given. A write script's reply starts with its outcome (`outcomes.Outcome`),
read here once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar

from redis import exceptions as redis_errors
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.storage import scripts
from patience_gateway.storage.failures import ReplicationTimeout
from patience_gateway.storage.keys import (
    create_record_key,
    events_key,
    game_keys,
    outbox_key,
    script_keys,
    ticket_key,
)
from patience_gateway.storage.outcomes import Outcome
from patience_gateway.storage.records import (
    CommitResult,
    Created,
    DealEnding,
    GameEventEntry,
    HistoryRecord,
    Loaded,
    StoredAnswer,
    StreamStart,
)
from patience_gateway.storage.runners import ReplicaWait, ScriptRunner, Written

log = logging.getLogger("patience_gateway")
T = TypeVar("T")

MAX_STORED_ANSWERS = 32
# Which state a load reads: the current one, or the one as dealt (a restart).
_CURRENT = b"-1"
_DEALT = b"0"
# A checkpoint of the state every this many moves: undo replays fewer moves than
# this. 100 keeps a game of 200 moves within 4 KB of Redis memory (three states).
CHECKPOINT_EVERY = 100


def _text(raw: bytes | None) -> str:
    return "" if raw is None else raw.decode()


def _answer(raw: Any) -> StoredAnswer | None:
    return None if raw is None else StoredAnswer.decode(raw)


class GameStore:
    """Reads and writes games; every method is one Redis round trip.

    `redis` is a client for one server or for a Redis Cluster, and `runner` runs the
    scripts on it (the same scripts on either). With `wait`, every change waits until
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
        runner: ScriptRunner,
        ttl_seconds: int,
        timeout_seconds: float,
        wait: ReplicaWait | None = None,
    ) -> None:
        self.redis = redis
        self._scripts = runner
        self._wait = wait
        self._ttl_ms = str(ttl_seconds * 1000).encode()
        self._timeout = timeout_seconds
        # A change waits for its replicas on purpose, so its deadline adds that wait
        # twice: a primary that lacked the script answers NOSCRIPT, then the WAIT sent
        # with it, and the change is sent again with its own WAIT (the runners).
        self._change_timeout = timeout_seconds + (2 * wait.timeout_ms / 1000 if wait else 0.0)
        self._max_answers = str(MAX_STORED_ANSWERS).encode()
        # A Redis Cluster publishes a game's events on a sharded channel (its slot's
        # node only); a single server on an ordinary one (Redis 6 has no SPUBLISH).
        self.sharded = isinstance(redis, RedisCluster)
        self._publish = b"SPUBLISH" if self.sharded else b"PUBLISH"
        self._commits = {
            "move": scripts.COMMIT_MOVE,
            "undo": scripts.COMMIT_UNDO,
            "redo": scripts.COMMIT_REDO,
            # the safe moves, one history entry like a move
            "autoplay": scripts.COMMIT_MOVE,
            # back to the deal: one entry, `restart`, and the state as dealt
            "restart": scripts.COMMIT_MOVE,
        }

    @property
    def runner(self) -> ScriptRunner:
        """What runs the scripts (`speed.script_runner` chose it)."""
        return self._scripts

    async def aclose(self) -> None:
        """Close the connections the scripts ran on (not the client's own)."""
        await self._scripts.aclose()

    async def _run(self, script: scripts.Script, game_id: str, args: list[Any]) -> Any:
        """A read: the script's reply."""
        return await self._within_deadline(self._scripts.read(script, script_keys(game_id), args))

    async def _change(self, script: scripts.Script, game_id: str, args: list[Any]) -> Written:
        """A write: its reply and, with `wait`, how many replicas confirmed it."""
        return await self._within_deadline(
            self._scripts.write(script, script_keys(game_id), args), self._change_timeout
        )

    async def _within_deadline(self, call: Awaitable[T], seconds: float | None = None) -> T:
        try:
            async with asyncio.timeout(self._timeout if seconds is None else seconds):
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
        game_record: bytes,
        owner: str,
        category: str,
        outbox_entry: bytes,
        autoplay: bool = False,
        record: bytes = b"",
        record_ttl_seconds: int = 0,
        daily: str = "",
    ) -> Created:
        """Store a new game at version 1, and with `record` the create record, kept
        `record_ttl_seconds`, in the same script: both or neither. A player's game
        (`owner`) starts its outbox with `outbox_entry`."""
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
            "record",
            game_record,
        ]
        # An anonymous game keeps no `owner`; a random deal's `category` goes without
        # saying (records.record.RANDOM): every byte of a game counts, kept for days.
        if owner:
            fields += ["owner", owner]
        if category and category != "random":
            fields += ["category", category]
        if daily:
            fields += ["daily", daily]
        args = [self._ttl_ms, state, record, record_ttl_seconds * 1000, outbox_entry, *fields]
        keys = [*script_keys(game_id), create_record_key(game_id)]
        written = await self._within_deadline(
            self._scripts.write(scripts.CREATE, keys, args), self._change_timeout
        )
        outcome = Outcome.of(written.reply)
        if outcome is Outcome.OK:
            self._confirmed(written, game_id)
            return Created(outcome)
        replayed = outcome is Outcome.IDEMPOTENT_REPLAY
        return Created(outcome, written.reply[1] if replayed else None)

    async def create_record(self, game_id: str) -> bytes | None:
        """The record of an earlier create with the key that derives this id."""
        keys = [create_record_key(game_id)]
        record: bytes | None = await self._within_deadline(
            self._scripts.read(scripts.LOAD_CREATE_RECORD, keys, [])
        )
        return record

    async def load(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        """The game with its current state."""
        return await self._load(game_id, idempotency_key, _CURRENT)

    async def load_for_hint(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        """The game with its current state and the plan of its last hint."""
        return await self._load(game_id, idempotency_key, _CURRENT, plan=True)

    async def load_for_restart(self, game_id: str, idempotency_key: str) -> Loaded | None:
        """The game with its state as dealt."""
        return await self._load(game_id, idempotency_key, _DEALT)

    async def peek(self, game_id: str) -> Loaded | None:
        """The game as `load` reads it, without renewing its time to live (a check
        that must not keep the game alive)."""
        return await self._load(game_id, "", _CURRENT, touch=False)

    async def has_outbox(self, game_id: str) -> bool:
        """Whether the game's outbox holds entries still to be drained."""
        return bool(await self.redis.exists(outbox_key(game_id)))

    async def _load(
        self,
        game_id: str,
        idempotency_key: str,
        which: bytes,
        *,
        touch: bool = True,
        plan: bool = False,
    ) -> Loaded | None:
        args = [self._ttl_ms if touch else b"", idempotency_key.encode(), which]
        if plan:
            args.append(b"1")
        reply = await self._run(scripts.LOAD_STATE, game_id, args)
        if reply is None:
            return None
        (
            state,
            version,
            token,
            answer,
            open_deal,
            lost,
            autoplay,
            owner,
            record,
            hints,
            created,
            category,
            at_deal,
            deal,
            secret,
            daily,
            hint_plan,
        ) = reply
        return Loaded(
            state,
            int(version),
            token,
            _answer(answer),
            open_deal=_text(open_deal),
            proven_lost=lost is not None and lost == version,
            autoplay=autoplay == b"1",
            owner=_text(owner),
            category=_text(category),
            record=record,
            hints=hints,
            created=created,
            at_deal=at_deal == 1,
            deal=_text(deal),
            deal_secret=secret == b"1",
            daily=_text(daily),
            hint_plan=hint_plan,
        )

    async def load_for_undo(self, game_id: str, idempotency_key: str) -> Loaded | None:
        reply = await self._run(scripts.LOAD_FOR_UNDO, game_id, [self._ttl_ms, idempotency_key])
        if reply is None:
            return None
        (
            checkpoint,
            version,
            token,
            answer,
            position,
            moves,
            ending,
            autoplay,
            owner,
            record,
            hints,
            created,
            category,
            dealt,
            daily,
        ) = reply
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
            owner=_text(owner),
            category=_text(category),
            record=record,
            hints=hints,
            created=created,
            dealt=dealt or None,
            daily=_text(daily),
        )

    async def load_for_redo(self, game_id: str, idempotency_key: str) -> Loaded | None:
        reply = await self._run(scripts.LOAD_FOR_REDO, game_id, [self._ttl_ms, idempotency_key])
        if reply is None:
            return None
        (
            state,
            version,
            token,
            answer,
            next_redo,
            open_deal,
            autoplay,
            owner,
            record,
            hints,
            created,
            category,
            daily,
        ) = reply
        return Loaded(
            state,
            int(version),
            token,
            _answer(answer),
            daily=_text(daily),
            next_redo=next_redo,
            open_deal=_text(open_deal),
            autoplay=autoplay == b"1",
            owner=_text(owner),
            category=_text(category),
            record=record,
            hints=hints,
            created=created,
        )

    async def load_history(self, game_id: str) -> HistoryRecord | None:
        reply = await self._run(scripts.LOAD_HISTORY, game_id, [self._ttl_ms])
        if reply is None:
            return None
        (
            version,
            token,
            variant,
            options,
            deal,
            secret,
            status,
            moves,
            redo,
            open_deal,
            owner,
            daily,
        ) = reply
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
            owner=_text(owner),
            daily=_text(daily),
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
        meta: Mapping[str, str | bytes] | None = None,
        event: tuple[str, bytes] = ("", b""),
        outbox_entry: bytes = b"",
    ) -> CommitResult:
        """Compare-and-set for `operation` (move, undo, redo, autoplay or restart):
        applied only if the game is still at `expected_version`, together with the
        idempotency record, the fields in `meta`, set in the game's meta hash (e.g.
        `record`, `deal`, `open`), the `event` (kind, JSON body) published to the game's
        streams, and an entry for the game's outbox (a player's game that ends)."""
        args: list[bytes] = [
            str(expected_version).encode(),
            state,
            status.encode(),
            self._ttl_ms,
            idempotency_key.encode(),
            answer.encode() if answer is not None else b"",
            self._max_answers,
        ]
        args += [move.encode(), event[0].encode(), event[1], self._publish, outbox_entry]
        for name, value in (meta or {}).items():
            args += [name.encode(), value if isinstance(value, bytes) else value.encode()]
        written = await self._change(self._commits[operation], game_id, args)
        reply = written.reply
        outcome = Outcome.of(reply)
        if outcome is Outcome.OK:
            self._confirmed(written, game_id)
        if outcome in (Outcome.OK, Outcome.STALE):
            return CommitResult(outcome, version=int(reply[1]))
        if outcome is Outcome.IDEMPOTENT_REPLAY:
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
        written = await self._change(scripts.SET_SETTINGS, game_id, args)
        outcome = Outcome.of(written.reply)
        if outcome is Outcome.OK:
            self._confirmed(written, game_id)
        version = int(written.reply[1]) if outcome in (Outcome.OK, Outcome.STALE) else 0
        return CommitResult(outcome, version=version)

    async def after_hint(
        self, game_id: str, version: int, *, lost: bool, count: bool, plan: bytes
    ) -> bool:
        """After a hint for `version`: keeps that a search proved the game lost (`lost`),
        counts the hint in the game's record (`count`) and keeps its `plan` for the
        next hint, while the game is still at that version; False when it moved on (or
        is gone) meanwhile."""
        args = [str(version).encode(), b"1" if lost else b"0", b"1" if count else b"0", plan]
        written = await self._change(scripts.AFTER_HINT, game_id, args)
        return bool(written.reply)

    async def end_game(
        self,
        game_id: str,
        *,
        expected_version: int,
        record: bytes,
        event: tuple[str, bytes],
        outbox_entry: bytes = b"",
    ) -> CommitResult:
        """Closes the game's record without a move (a resignation, an abandonment) as a
        new version, if the game is still at `expected_version`."""
        args = [
            str(expected_version).encode(),
            record,
            self._ttl_ms,
            event[0].encode(),
            event[1],
            self._publish,
            outbox_entry,
        ]
        written = await self._change(scripts.END_GAME, game_id, args)
        return self._versioned(written, game_id)

    async def claim(
        self,
        game_id: str,
        *,
        expected_version: int,
        player_id: str,
        category: str,
        event_body: bytes,
        outbox_entry: bytes,
    ) -> CommitResult:
        """Gives an anonymous game to a player as a new version (the game token no longer
        opens it), if it is still at `expected_version` and nobody claimed it (TAKEN)."""
        args = [
            str(expected_version).encode(),
            player_id.encode(),
            category.encode(),
            self._ttl_ms,
            event_body,
            self._publish,
            outbox_entry,
        ]
        written = await self._change(scripts.CLAIM, game_id, args)
        return self._versioned(written, game_id)

    def _versioned(self, written: Written, game_id: str) -> CommitResult:
        """The outcome of a write that answers OK or STALE with a version, GONE or TAKEN."""
        outcome = Outcome.of(written.reply)
        if outcome is Outcome.OK:
            self._confirmed(written, game_id)
        version = int(written.reply[1]) if outcome in (Outcome.OK, Outcome.STALE) else 0
        return CommitResult(outcome, version=version)

    async def confirm_replicated(self, game_id: str) -> None:
        """With `wait`: returns once the replicas have every change made to the game
        so far (a write of the game's time to live, then WAIT: a replica confirms
        the replication stream in order), else raises ReplicationTimeout. Without
        `wait`, at once."""
        if self._wait is None:
            return
        written = await self._change(scripts.TOUCH, game_id, [self._ttl_ms])
        self._confirmed(written, game_id)

    async def delete(
        self, game_id: str, expected_version: int | None, outbox_entry: bytes = b""
    ) -> CommitResult:
        """Deletes the game; its streams get a `deleted` event, and end. A player's game
        that had not ended leaves `outbox_entry` in its outbox (which stays until it is
        drained)."""
        expected = "" if expected_version is None else str(expected_version)
        body = b'{"id":"%s"}' % game_id.encode()
        args = [expected, body, self._publish, outbox_entry]
        written = await self._change(scripts.DELETE, game_id, args)
        outcome = Outcome.of(written.reply)
        if outcome is Outcome.OK:
            self._confirmed(written, game_id)
        version = int(written.reply[1]) if outcome is Outcome.STALE else 0
        return CommitResult(outcome, version=version)

    async def issue_ticket(self, game_id: str, ticket_digest: str, ttl_ms: int) -> bool:
        """Keeps a stream ticket (by its digest) for `ttl_ms`; False: no such game."""
        keys = [game_keys(game_id).meta, ticket_key(game_id, ticket_digest)]
        issued = await self._within_deadline(
            self._scripts.read(scripts.ISSUE_TICKET, keys, [str(ttl_ms).encode()])
        )
        return bool(issued)

    async def open_stream(self, game_id: str, ticket_digest: str | None) -> StreamStart | Outcome:
        """Uses up the ticket (unless None: a stream catching up) and reads what a
        stream starts from; else BAD_TICKET (no such ticket) or GONE (no such game)."""
        names = game_keys(game_id)
        keys = [names.meta, names.states, events_key(game_id)]
        if ticket_digest is not None:
            keys.append(ticket_key(game_id, ticket_digest))
        args = [b"1" if ticket_digest is not None else b"0"]
        reply = await self._within_deadline(self._scripts.read(scripts.OPEN_STREAM, keys, args))
        outcome = Outcome.of(reply)
        if outcome is not Outcome.OK:
            return outcome
        _, version, state, recent = reply
        return StreamStart(int(version), state, [GameEventEntry.decode(e) for e in recent])
