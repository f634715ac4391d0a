"""Live game events for the streams of one gateway process.

Every change of a game is published by the script that makes it (`scripts`), on
the game's channel `game:{<id>}:events`. A gateway process keeps one subscriber
(`EventHub`): one pub/sub connection (one per node of a Redis Cluster, through
redis-py's cluster pub/sub and sharded channels), subscribed to the channel of each
game that has a stream open in this process, and a reader that hands each message to
those streams' queues. An idle stream costs a queue and its response's tasks, which
wait; nothing polls per stream. Once in a while (`sweep_seconds`) one check of every
watched game tells the streams of games that expired.

A stream never misses a change silently: if the subscriber loses its connection, it
subscribes again and tells every stream to catch up (`RESYNC`), which then reads the
missed changes from the game's recent events, or the whole view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from patience_gateway.storage.keys import events_key

log = logging.getLogger("patience_gateway")

# How many events a stream's queue holds before the stream is told to catch up
# instead (a client that reads slower than the game changes).
QUEUE_LIMIT = 64
# How long the reader waits on one node of a Redis Cluster before looking at the next
# (redis-py reads sharded channels node by node).
CLUSTER_POLL_SECONDS = 0.05
RECONNECT_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class GameEvent:
    """A change as the scripts publish it and keep it: "<kind> <version>\n<body>"."""

    kind: str
    version: int
    body: bytes

    @classmethod
    def decode(cls, entry: bytes) -> GameEvent:
        head, _, body = entry.partition(b"\n")
        kind, _, version = head.partition(b" ")
        return cls(kind.decode(), int(version), body)


@dataclass(frozen=True, slots=True)
class StreamStart:
    """What a stream reads when it opens: the game's version, its current state (for
    a whole view) and its recent events, oldest first."""

    version: int
    state: bytes
    recent: list[GameEvent]


RESYNC = GameEvent("resync", 0, b"")
CLOSING = GameEvent("closing", 0, b"")


class Listener:
    """The events of one game for one stream, in order."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.channel = events_key(game_id)
        self._queue: asyncio.Queue[GameEvent] = asyncio.Queue()

    def put(self, event: GameEvent) -> None:
        if self._queue.qsize() >= QUEUE_LIMIT:
            # too far behind: drop what is queued; the stream reads what it missed,
            # unless it was told to close (a stopping process), which it still is
            closing = event is CLOSING
            while not self._queue.empty():
                closing = self._queue.get_nowait() is CLOSING or closing
            event = CLOSING if closing else RESYNC
        self._queue.put_nowait(event)

    async def get(self) -> GameEvent:
        return await self._queue.get()


class EventHub:
    """The subscriber of one gateway process (see the module's doc)."""

    def __init__(self, redis: Redis | RedisCluster, sweep_seconds: float = 30.0) -> None:
        self.redis = redis
        self.sharded = isinstance(redis, RedisCluster)
        self.sweep_seconds = sweep_seconds
        self._listeners: dict[bytes, set[Listener]] = {}
        self._confirmed: dict[bytes, asyncio.Future[None]] = {}
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._ending = False  # the process stops: no stream stays open
        self._closed = False

    @property
    def streams(self) -> int:
        return sum(len(listeners) for listeners in self._listeners.values())

    @contextlib.asynccontextmanager
    async def listen(self, game_id: str) -> AsyncIterator[Listener]:
        """A listener of the game's events, subscribed (Redis confirmed it) before the
        block starts: what the block reads from Redis afterwards, it also hears of."""
        listener = Listener(game_id)
        await self._add(listener)
        try:
            yield listener
        finally:
            await self._remove(listener)

    async def _add(self, listener: Listener) -> None:
        if self._ending:
            listener.put(CLOSING)  # opened while the process stops: ends at once
            return
        async with self._lock:
            listeners = self._listeners.setdefault(listener.channel, set())
            listeners.add(listener)
            if len(listeners) > 1:
                return
            await self._subscribe(listener.channel)

    async def _subscribe(self, channel: bytes) -> None:
        confirmed = asyncio.get_running_loop().create_future()
        self._confirmed[channel] = confirmed
        try:
            if self._pubsub is None:
                self._pubsub = self.redis.pubsub()
            await self._subscribed(channel)
            self._start_reader()
            await asyncio.wait_for(asyncio.shield(confirmed), 5.0)
        except BaseException:
            self._confirmed.pop(channel, None)
            listeners = self._listeners.get(channel)
            if listeners is not None and len(listeners) <= 1:
                self._listeners.pop(channel, None)
            raise

    async def _subscribed(self, *channels: bytes) -> None:
        """Subscribes the subscriber to `channels` (sharded ones on a Redis Cluster,
        whose slots' nodes it reads first)."""
        if isinstance(self.redis, RedisCluster):
            await self.redis.initialize()
            await self._pubsub.ssubscribe(*channels)
        else:
            await self._pubsub.subscribe(*channels)

    async def _remove(self, listener: Listener) -> None:
        async with self._lock:
            listeners = self._listeners.get(listener.channel)
            if listeners is None:
                return
            listeners.discard(listener)
            if listeners:
                return
            del self._listeners[listener.channel]
            if self._pubsub is None:
                return
            with contextlib.suppress(RedisError, OSError):
                if self.sharded:
                    await self._pubsub.sunsubscribe(listener.channel)
                else:
                    await self._pubsub.unsubscribe(listener.channel)

    def _start_reader(self) -> None:
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read(), name="game-events")
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name="game-expiry")

    async def _next_message(self) -> dict[str, Any] | None:
        if self.sharded:
            if not self._listeners:
                await asyncio.sleep(CLUSTER_POLL_SECONDS)
                return None
            message: dict[str, Any] | None = await self._pubsub.get_sharded_message(
                timeout=CLUSTER_POLL_SECONDS
            )
            return message
        message = await self._pubsub.get_message(timeout=None)
        return message

    async def _read(self) -> None:
        while not self._closed:
            try:
                message = await self._next_message()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the connection went: subscribe again
                log.warning("game events: subscriber lost its connection (%s)", error)
                await self._reconnect()
                continue
            if message is not None:
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if isinstance(kind, bytes):
            kind = kind.decode()
        channel = message.get("channel")
        if kind in ("subscribe", "ssubscribe"):
            confirmed = self._confirmed.pop(channel, None)  # type: ignore[arg-type]
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)
            return
        if kind not in ("message", "smessage"):
            return
        try:
            event = GameEvent.decode(message["data"])
        except (ValueError, TypeError):
            log.error("game events: unreadable entry on %r", channel)
            return
        for listener in list(self._listeners.get(channel, ())):  # type: ignore[arg-type]
            listener.put(event)

    async def _reconnect(self) -> None:
        """A new subscriber for every watched game, then every stream catches up."""
        old, self._pubsub = self._pubsub, None
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()
        while not self._closed:
            await asyncio.sleep(RECONNECT_SECONDS)
            try:
                self._pubsub = self.redis.pubsub()
                if self._listeners:
                    await self._subscribed(*self._listeners)
                break
            except Exception as error:
                log.warning("game events: cannot subscribe again yet (%s)", error)
                self._pubsub = None
        for listeners in self._listeners.values():
            for listener in listeners:
                listener.put(RESYNC)

    async def _sweep(self) -> None:
        """Tells the streams of games that expired (an expiry publishes nothing)."""
        while not self._closed:
            await asyncio.sleep(self.sweep_seconds)
            watched = list(self._listeners)
            if not watched:
                continue
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel in watched:
                        pipe.exists(channel.removesuffix(b"events") + b"meta")
                    found = await pipe.execute()
            except (RedisError, OSError) as error:
                log.warning("game events: expiry check failed (%s)", error)
                continue
            for channel, exists in zip(watched, found, strict=True):
                if not exists:
                    gone = GameEvent("expired", 0, b"{}")
                    for listener in list(self._listeners.get(channel, ())):
                        listener.put(gone)

    def end_streams(self) -> None:
        """Ends every stream of this process, and those opened from now on (they get
        CLOSING): a stopping server waits for its open responses, and a stream would
        never finish by itself. The clients reconnect, to a gateway that serves."""
        self._ending = True
        for listeners in self._listeners.values():
            for listener in listeners:
                listener.put(CLOSING)

    async def aclose(self) -> None:
        """Ends every stream of this process and the subscriber."""
        self.end_streams()
        self._closed = True
        for task in (self._reader, self._sweeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
