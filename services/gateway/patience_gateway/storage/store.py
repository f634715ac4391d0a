"""Games in Redis, on one server or a Redis Cluster (the same scripts either way).

A game is a few keys with its id as a Redis Cluster hash tag, so that they share a slot
(`keys` names them; docs/api.md, "How a game is stored", says what each holds): its
meta hash, its sealed states (a checkpoint every CHECKPOINT_EVERY steps of its history,
and the current state last: undo replays fewer steps than that, `scripts`), its history
and the steps undone, the answers kept for Idempotency-Keys, its recent events while a
stream hears them (lua/_events.lua) and its outbox (records.outbox). The hash
`game:{<id>}:data` of the earlier layout is upgraded by the scripts on a game's first
use. Every key gets the time to live again on every use.

The scripts are in `scripts` (their text in `lua/`); each operation is one read script
and at most one write script, run by the `runners.ScriptRunner` for the kind of Redis
the gateway was given. Their replies are decoded here, and nowhere else: the reads into
`reads`' values, the writes into an outcome (`writes.Outcome`, the reply's first word).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.storage import scripts
from patience_gateway.storage.events import GameEvent, StreamStart
from patience_gateway.storage.failures import ReplicationTimeout, within
from patience_gateway.storage.keys import (
    created_answer_key,
    events_key,
    game_keys,
    outbox_key,
    script_keys,
    ticket_key,
)
from patience_gateway.storage.reads import (
    AtDeal,
    DealEnding,
    ForHint,
    ForRedo,
    ForUndo,
    GameMeta,
    History,
    Loaded,
    StoredAnswer,
)
from patience_gateway.storage.runners import ReplicaWait, ScriptRunner, Written
from patience_gateway.storage.writes import (
    Commit,
    CommitResult,
    Created,
    NewGame,
    Outcome,
    Step,
)

log = logging.getLogger("patience_gateway")
T = TypeVar("T")

MAX_STORED_ANSWERS = 32
# Which state a load reads: the current one, or the one as dealt (a restart).
_CURRENT = b"-1"
_DEALT = b"0"
# A checkpoint of the state every this many steps: undo replays fewer moves than
# this. 100 keeps a game of 200 moves within 4 KB of Redis memory (three states).
CHECKPOINT_EVERY = 100
_COMMITS = {
    Step.NEW: scripts.COMMIT_NEW,
    Step.UNDO: scripts.COMMIT_UNDO,
    Step.REDO: scripts.COMMIT_REDO,
    Step.NONE: scripts.COMMIT_NONE,
}
# The meta hash fields every read returns first (`META` in lua/_meta.lua).
_META_FIELDS = 11


def _text(raw: bytes | None) -> str:
    return "" if raw is None else raw.decode()


def _answer(raw: bytes | None) -> StoredAnswer | None:
    return None if raw is None else StoredAnswer.decode(raw)


def _meta(fields: list[Any]) -> GameMeta:
    """The fields every read returns first, in lua/_meta.lua's order."""
    version, token, owner, category, daily, open_deal, autoplay, lost, record, hints, created = (
        fields[:_META_FIELDS]
    )
    return GameMeta(
        int(version),
        token or b"",
        _text(owner),
        _text(category),
        _text(daily),
        _text(open_deal),
        autoplay == b"1",
        lost is not None and lost == version,
        record,
        hints,
        created,
    )


def _flag(value: bool) -> bytes:
    return b"1" if value else b""


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

    @property
    def runner(self) -> ScriptRunner:
        """What runs the scripts (`speed.script_runner` chose it)."""
        return self._scripts

    async def aclose(self) -> None:
        """Close the connections the scripts ran on (not the client's own)."""
        await self._scripts.aclose()

    async def _read(self, script: scripts.Script, keys: Sequence[bytes], args: list[Any]) -> Any:
        """A read: the script's reply."""
        return await self._within_deadline(self._scripts.read(script, keys, args))

    async def _write(
        self,
        script: scripts.Script,
        game_id: str,
        args: list[Any],
        keys: Sequence[bytes] | None = None,
        *,
        confirmed: bool = True,
    ) -> tuple[Outcome, Any]:
        """A write of the game (on `keys`, the game's own by default): its outcome (OK
        for a reply that is not a list) and reply; `confirmed`: a change made, once the
        replicas asked for confirm it (else ReplicationTimeout)."""
        written = await self._within_deadline(
            self._scripts.write(script, keys or script_keys(game_id), args), self._change_timeout
        )
        reply = written.reply
        outcome = Outcome(reply[0]) if isinstance(reply, list) else Outcome.OK
        if outcome is Outcome.OK and confirmed:
            self._confirmed(written, game_id)
        return outcome, reply

    async def _within_deadline(self, call: Awaitable[T], seconds: float | None = None) -> T:
        return await within(call, self._timeout if seconds is None else seconds)

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

    # ------------------------------------------------------------------ a new game

    async def create(
        self, game_id: str, game: NewGame, *, answer: bytes = b"", answer_ttl_seconds: int = 0
    ) -> Created:
        """Stores `game` at version 1, and with `answer` the create's answer, kept
        `answer_ttl_seconds`, in the same script: both or neither. A player's game
        starts its outbox with its `outbox_entry`."""
        fields: list[bytes | str | int] = [
            *("version", 1, "token", game.token_digest, "variant", game.variant),
            *("options", json.dumps(list(game.options)), "deal", game.deal),
            *("secret", "1" if game.deal_secret else "0", "status", game.status),
            *("created", int(time.time()), "every", CHECKPOINT_EVERY),
            *("autoplay", "1" if game.autoplay else "0", "record", game.record),
        ]
        # An anonymous game keeps no `owner`; a random deal's `category` goes without
        # saying (records.record.RANDOM): every byte of a game counts, kept for days.
        if game.owner:
            fields += ["owner", game.owner]
        if game.category and game.category != "random":
            fields += ["category", game.category]
        if game.daily:
            fields += ["daily", game.daily]
        ttl = answer_ttl_seconds * 1000
        args = [self._ttl_ms, game.state, answer, ttl, game.outbox_entry, *fields]
        keys = [*script_keys(game_id), created_answer_key(game_id)]
        outcome, reply = await self._write(scripts.CREATE, game_id, args, keys)
        replayed = outcome is Outcome.IDEMPOTENT_REPLAY
        return Created(outcome, reply[1] if replayed else None)

    async def created_answer(self, game_id: str) -> bytes | None:
        """The answer kept by an earlier create with the key that derives this id."""
        kept = await self._within_deadline(self.redis.get(created_answer_key(game_id)))
        return kept if isinstance(kept, bytes) else None

    # ------------------------------------------------------------------ reads

    async def _load_state(
        self, game_id: str, key: str, which: bytes, *, touch: bool = True, plan: bool = False
    ) -> list[Any] | None:
        args = [self._ttl_ms if touch else b"", key.encode(), which, _flag(plan)]
        reply: list[Any] | None = await self._read(scripts.LOAD_STATE, script_keys(game_id), args)
        return reply

    async def load(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        """The game with its current state."""
        reply = await self._load_state(game_id, idempotency_key, _CURRENT)
        return None if reply is None else Loaded(_meta(reply[0]), reply[1], _answer(reply[2]))

    async def peek(self, game_id: str) -> Loaded | None:
        """The game as `load` reads it, without renewing its time to live (a check
        that must not keep the game alive)."""
        reply = await self._load_state(game_id, "", _CURRENT, touch=False)
        return None if reply is None else Loaded(_meta(reply[0]), reply[1])

    async def load_for_hint(self, game_id: str, idempotency_key: str = "") -> ForHint | None:
        """The game with its current state and the plan of its last hint."""
        reply = await self._load_state(game_id, idempotency_key, _CURRENT, plan=True)
        return None if reply is None else ForHint(_meta(reply[0]), reply[1], plan=reply[4])

    async def load_dealt(self, game_id: str, idempotency_key: str = "") -> AtDeal | None:
        """The game with its state as dealt."""
        reply = await self._load_state(game_id, idempotency_key, _DEALT)
        if reply is None:
            return None
        fields = reply[0]
        deal, secret = fields[_META_FIELDS:]
        return AtDeal(
            _meta(fields),
            reply[1],
            _answer(reply[2]),
            at_deal=reply[3] == 1,
            deal=_text(deal),
            deal_secret=secret == b"1",
        )

    async def load_for_undo(self, game_id: str, idempotency_key: str) -> ForUndo | None:
        args = [self._ttl_ms, idempotency_key]
        reply = await self._read(scripts.LOAD_FOR_UNDO, script_keys(game_id), args)
        if reply is None:
            return None
        fields, checkpoint, answer, position, steps, dealt = reply
        _, status, secret, deal = fields[_META_FIELDS:]
        return ForUndo(
            _meta(fields),
            checkpoint or b"",
            _answer(answer),
            position=int(position),
            steps=steps,
            ending=DealEnding(_text(status), secret == b"1", _text(deal)),
            dealt=dealt or None,
        )

    async def load_for_redo(self, game_id: str, idempotency_key: str) -> ForRedo | None:
        args = [self._ttl_ms, idempotency_key]
        reply = await self._read(scripts.LOAD_FOR_REDO, script_keys(game_id), args)
        if reply is None:
            return None
        fields, state, answer, next_step = reply
        return ForRedo(_meta(fields), state, _answer(answer), next_step=next_step)

    async def load_history(self, game_id: str) -> History | None:
        reply = await self._read(scripts.LOAD_HISTORY, script_keys(game_id), [self._ttl_ms])
        if reply is None:
            return None
        fields, steps, undone = reply
        variant, options, deal, secret, status = (_text(f) for f in fields[_META_FIELDS:])
        return History(
            _meta(fields),
            variant,
            options,
            deal,
            secret == "1",
            status,
            [step.decode() for step in steps],
            [step.decode() for step in undone],
        )

    async def has_outbox(self, game_id: str) -> bool:
        """Whether the game's outbox holds entries still to be drained."""
        return bool(await self.redis.exists(outbox_key(game_id)))

    # ------------------------------------------------------------------ changes

    async def commit(self, game_id: str, change: Commit) -> CommitResult:
        """Writes `change` if the game is still at `change.version` (compare-and-set):
        its step, state, fields, answer, event and outbox entry together, or nothing."""
        answer = change.answer
        args: list[bytes] = [
            str(change.version).encode(),
            change.state,
            change.status.encode(),
            self._ttl_ms,
            change.key.encode(),
            answer.encode() if answer is not None else b"",
            self._max_answers,
            change.new_step.encode(),
            change.event[0].encode(),
            change.event[1],
            self._publish,
            change.outbox_entry,
            _flag(change.unowned),
            _flag(change.keeps_proof),
        ]
        for name, value in change.meta.items():
            args += [name.encode(), value if isinstance(value, bytes) else value.encode()]
        outcome, reply = await self._write(_COMMITS[change.step], game_id, args)
        if outcome in (Outcome.OK, Outcome.STALE):
            return CommitResult(outcome, version=int(reply[1]))
        if outcome is Outcome.IDEMPOTENT_REPLAY:
            return CommitResult(outcome, answer=StoredAnswer.decode(reply[1]))
        return CommitResult(outcome)

    async def after_hint(
        self, game_id: str, version: int, *, lost: bool, count: bool, plan: bytes
    ) -> bool:
        """After a hint for `version`: keeps that a search proved the game lost (`lost`),
        counts the hint in the game's record (`count`) and keeps its `plan` for the
        next hint, while the game is still at that version; False when it moved on (or
        is gone) meanwhile."""
        args = [str(version).encode(), b"1" if lost else b"0", b"1" if count else b"0", plan]
        _, reply = await self._write(scripts.AFTER_HINT, game_id, args, confirmed=False)
        return bool(reply)

    async def confirm_replicated(self, game_id: str) -> None:
        """With `wait`: returns once the replicas have every change made to the game
        so far (a write of the game's time to live, then WAIT: a replica confirms
        the replication stream in order), else raises ReplicationTimeout. Without
        `wait`, at once."""
        if self._wait is not None:
            await self._write(scripts.TOUCH, game_id, [self._ttl_ms])

    async def delete(
        self, game_id: str, expected_version: int | None, outbox_entry: bytes = b""
    ) -> CommitResult:
        """Deletes the game; its streams get a `deleted` event, and end. A player's game
        that had not ended leaves `outbox_entry` in its outbox (which stays until it is
        drained)."""
        expected = "" if expected_version is None else str(expected_version)
        body = b'{"id":"%s"}' % game_id.encode()
        args = [expected, body, self._publish, outbox_entry]
        outcome, reply = await self._write(scripts.DELETE, game_id, args)
        return CommitResult(outcome, version=int(reply[1]) if outcome is Outcome.STALE else 0)

    # ------------------------------------------------------------------ streams

    async def issue_ticket(self, game_id: str, ticket_digest: str, ttl_ms: int) -> bool:
        """Keeps a stream ticket (by its digest) for `ttl_ms`; False: no such game."""
        keys = [game_keys(game_id).meta, ticket_key(game_id, ticket_digest)]
        return bool(await self._read(scripts.ISSUE_TICKET, keys, [str(ttl_ms).encode()]))

    async def open_stream(self, game_id: str, ticket_digest: str | None) -> StreamStart | Outcome:
        """Uses up the ticket (unless None: a stream catching up) and reads what a
        stream starts from; else BAD_TICKET (no such ticket) or GONE (no such game)."""
        names = game_keys(game_id)
        keys = [names.meta, names.states, events_key(game_id)]
        if ticket_digest is not None:
            keys.append(ticket_key(game_id, ticket_digest))
        reply = await self._read(scripts.OPEN_STREAM, keys, [_flag(ticket_digest is not None)])
        outcome = Outcome(reply[0])
        if outcome is not Outcome.OK:
            return outcome
        _, version, state, recent = reply
        return StreamStart(int(version), state, [GameEvent.decode(e) for e in recent])
