"""Games in Redis.

Layout of one game (the id in braces is a Redis Cluster hash tag, so the four keys
share a slot):

    game:{<id>}:data   hash   state    the current sealed state (SealedState bytes)
                              initial  the sealed state as dealt (undo replays from it)
                              version  integer, +1 on every change (the ETag)
                              token    SHA-256 of the owner token
                              variant, options (JSON list), deal, secret ("1" when
                              the deal number was drawn at random), status, created
    game:{<id>}:moves  list   the moves applied since the deal, in notation
    game:{<id>}:redo   list   undone moves, the next one to redo first
    game:{<id>}:idem   hash   Idempotency-Key -> the first answer given for it
    game:{<id>}:idemq  list   those keys, oldest first: a game keeps the answers of its
                              last MAX_STORED_ANSWERS keyed requests, so that a client
                              sending a key with every move does not grow it without end

Every key gets the time to live again on every use. The scripts are in
`redis_scripts`; each operation is one read script and at most one write script.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio import Redis

from patience_gateway import redis_scripts
from patience_gateway.script_calls import Script, ScriptCaller

MAX_STORED_ANSWERS = 32


def game_keys(game_id: str) -> list[bytes]:
    # bytes throughout: redis-py passes bytes through without re-encoding them
    base = f"game:{{{game_id}}}:".encode()
    return [base + b"data", base + b"moves", base + b"redo", base + b"idem", base + b"idemq"]


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

    state: bytes  # the current state, or the initial state for undo
    version: int
    token_digest: bytes
    answer: StoredAnswer | None
    moves: Sequence[bytes] = ()  # undo: the whole history
    next_redo: bytes | None = None  # redo: the move to redo


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


@dataclass(frozen=True, slots=True)
class CommitResult:
    """Outcome of a compare-and-set: `outcome` is ok, idem, stale, gone or empty."""

    outcome: str
    version: int = 0
    answer: StoredAnswer | None = None


def _answer(raw: Any) -> StoredAnswer | None:
    return None if raw is None else StoredAnswer.decode(raw)


class GameStore:
    """Reads and writes games; every method is one Redis round trip.

    Each call runs under one deadline of its own (`timeout_seconds`). The Redis client
    is meant to be opened without a socket timeout: redis-py enforces that with an
    extra task per command (asyncio.wait_for), which costs more on the move path
    than the rest of the Redis call. The scripts run on connections of the client's
    pool's kind, straight from `script_calls` (see there why).
    """

    def __init__(self, redis: Redis, ttl_seconds: int, timeout_seconds: float = 2.0) -> None:
        self.redis = redis
        self._scripts = ScriptCaller(redis.connection_pool)
        self._ttl_ms = str(ttl_seconds * 1000).encode()
        self._timeout = timeout_seconds
        self._max_answers = str(MAX_STORED_ANSWERS).encode()
        script = Script.of
        self._load_state = script(redis_scripts.LOAD_STATE)
        self._load_undo = script(redis_scripts.LOAD_FOR_UNDO)
        self._load_redo = script(redis_scripts.LOAD_FOR_REDO)
        self._load_history = script(redis_scripts.LOAD_HISTORY)
        self._create = script(redis_scripts.CREATE)
        self._delete = script(redis_scripts.DELETE)
        self._commits = {
            "move": script(redis_scripts.COMMIT_MOVE),
            "undo": script(redis_scripts.COMMIT_UNDO),
            "redo": script(redis_scripts.COMMIT_REDO),
        }

    async def aclose(self) -> None:
        """Close the connections the scripts ran on (not the client's own pool)."""
        await self._scripts.aclose()

    async def _run(self, script: Script, game_id: str, args: list[Any]) -> Any:
        try:
            async with asyncio.timeout(self._timeout):
                return await self._scripts.call(script, game_keys(game_id), args)
        except TimeoutError:
            raise redis_errors.TimeoutError("Redis did not answer in time") from None

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
    ) -> bool:
        """Store a new game at version 1; False if the id is already taken."""
        fields: list[bytes | str | int] = [
            "state",
            state,
            "initial",
            state,
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
        ]
        created = await self._run(self._create, game_id, [self._ttl_ms, *fields])
        return bool(created)

    async def load(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        reply = await self._run(self._load_state, game_id, [self._ttl_ms, idempotency_key.encode()])
        if reply is None:
            return None
        state, version, token, answer = reply
        return Loaded(state, int(version), token, _answer(answer))

    async def load_for_undo(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        reply = await self._run(self._load_undo, game_id, [self._ttl_ms, idempotency_key])
        if reply is None:
            return None
        initial, version, token, answer, moves = reply
        return Loaded(initial, int(version), token, _answer(answer), moves=moves)

    async def load_for_redo(self, game_id: str, idempotency_key: str = "") -> Loaded | None:
        reply = await self._run(self._load_redo, game_id, [self._ttl_ms, idempotency_key])
        if reply is None:
            return None
        state, version, token, answer, next_redo = reply
        return Loaded(state, int(version), token, _answer(answer), next_redo=next_redo)

    async def load_history(self, game_id: str) -> HistoryRecord | None:
        reply = await self._run(self._load_history, game_id, [self._ttl_ms])
        if reply is None:
            return None
        version, token, variant, options, deal, secret, status, moves, redo = reply
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
    ) -> CommitResult:
        """Compare-and-set for `operation` (move, undo or redo): applied only if the
        game is still at `expected_version`, together with the idempotency record."""
        args: list[bytes] = [
            str(expected_version).encode(),
            state,
            status.encode(),
            self._ttl_ms,
            idempotency_key.encode(),
            answer.encode() if answer is not None else b"",
            self._max_answers,
        ]
        if operation == "move":
            args.append(move.encode())
        reply = await self._run(self._commits[operation], game_id, args)
        outcome = reply[0].decode()
        if outcome in ("ok", "stale"):
            return CommitResult(outcome, version=int(reply[1]))
        if outcome == "idem":
            return CommitResult(outcome, answer=StoredAnswer.decode(reply[1]))
        return CommitResult(outcome)

    async def delete(self, game_id: str, expected_version: int | None) -> CommitResult:
        expected = "" if expected_version is None else str(expected_version)
        reply = await self._run(self._delete, game_id, [expected])
        outcome = reply[0].decode()
        return CommitResult(outcome, version=int(reply[1]) if outcome == "stale" else 0)
