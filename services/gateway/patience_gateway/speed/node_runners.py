"""Running the game scripts on one Redis server: the speed path, `NodeRunner`, and its
reference, `RedisPyRunner`; both are `storage.runners.ScriptRunner`s.

Speed path. Each game operation is one or two EVALSHA calls, and through
`Redis.evalsha` redis-py wraps each in layers the gateway does not use (observability
hooks, a retry wrapper with no retries, a pool lock). Measured by the bench
(bench/README.md, "Redis script calls"): about 80 µs of client CPU per call here
against about 130 µs through `Redis.evalsha`, with 16 concurrent callers. So
`NodeRunner` keeps idle connections made by the client's own pool (same URL,
credentials, database and timeouts) and talks to Redis over them with redis-py's
public connection methods and (hiredis) parser, the commands packed here (`packed`).

A connection of `NodeRunner` goes back to the idle list only with nothing left to
read: a reply, error replies included, is read whole, and a connection whose send
or read failed or was cancelled is disconnected (redis-py does that itself; done
here again for any other error), so its next use connects afresh. A connection
that Redis closed while it was idle (a restart) is seen at once, its end of stream
already read by the event loop, and is reconnected before use instead of failing
the request that takes it.

Reference. `RedisPyRunner` does the same through redis-py's public API only:
`Redis.evalsha`, `Redis.script_load` when Redis does not have the script, and a
pipeline (one connection) for a change that waits for replicas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import NoScriptError, ResponseError

from patience_gateway.storage.runners import ReplicaWait, Written
from patience_gateway.storage.scripts import Script


def packed(command: Sequence[Any]) -> bytes:
    """`command` in Redis's protocol: an array of bulk strings, each argument bytes, or
    a str or int as its text (UTF-8). redis-py's own packing, through its encoder one
    argument at a time, cost more than the rest of the call on the store's commands."""
    parts = [b"*%d\r\n" % len(command)]
    for argument in command:
        if not isinstance(argument, bytes):
            argument = str(argument).encode()
        parts += (b"$%d\r\n" % len(argument), argument, b"\r\n")
    return b"".join(parts)


class NodeRunner:
    """ScriptRunner for one Redis server, on connections made by `pool`."""

    def __init__(self, pool: ConnectionPool, wait: ReplicaWait | None = None) -> None:
        self._pool = pool
        self._wait = wait
        self._idle: list[AbstractConnection] = []
        self._in_use = 0  # for the metrics (`http.connections`)
        self._closed = False

    def connection_count(self) -> tuple[int, int]:
        """The connections of its own it holds: idle, and in use now."""
        return len(self._idle), self._in_use

    async def read(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Any:
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        return (await self._call(script, command, None)).reply

    async def write(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Written:
        return await self._call(
            script, ("EVALSHA", script.sha, len(keys), *keys, *args), self._wait
        )

    async def _call(
        self, script: Script, command: tuple[Any, ...], wait: ReplicaWait | None
    ) -> Written:
        """Runs `command` (an EVALSHA); loads the script first if Redis does not have
        it (a restart or SCRIPT FLUSH emptied its cache)."""
        connection = self._idle.pop() if self._idle else self._new_connection()
        self._in_use += 1
        try:
            # Data waiting on an idle connection can only be its end of stream.
            if connection.is_connected and await connection.can_read():
                await connection.disconnect()
            try:
                return await self._send(connection, command, wait)
            except NoScriptError:
                await connection.send_packed_command(packed(("SCRIPT", "LOAD", script.text)))
                await connection.read_response()
                return await self._send(connection, command, wait)
        except ResponseError:
            raise  # an error reply, read whole: the connection is fine
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        finally:
            self._in_use -= 1
            if self._closed:
                await connection.disconnect(nowait=True)
            else:
                self._idle.append(connection)

    def _new_connection(self) -> AbstractConnection:
        connection: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        return connection

    @staticmethod
    async def _send(
        connection: AbstractConnection, command: tuple[Any, ...], wait: ReplicaWait | None
    ) -> Written:
        if wait is None:
            await connection.send_packed_command(packed(command))
            return Written(await connection.read_response(), None)
        await connection.send_packed_command(packed(command) + packed(wait.command()))
        try:
            reply = await connection.read_response()
        except ResponseError:
            await connection.read_response()  # WAIT's reply: leave nothing unread
            raise
        return Written(reply, int(await connection.read_response()))

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.disconnect()


class RedisPyRunner:
    """ScriptRunner for one Redis server through redis-py's public API: the reference
    `NodeRunner` must equal."""

    def __init__(self, redis: Redis, wait: ReplicaWait | None = None) -> None:
        self._redis = redis
        self._wait = wait

    async def read(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Any:
        try:
            return await self._redis.evalsha(script.sha, len(keys), *keys, *args)
        except NoScriptError:  # a restart or SCRIPT FLUSH emptied Redis's cache
            await self._redis.script_load(script.text)
            return await self._redis.evalsha(script.sha, len(keys), *keys, *args)

    async def write(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Written:
        if self._wait is None:
            return Written(await self.read(script, keys, args), None)
        reply, acked = await self._with_wait(script, keys, args, self._wait)
        if isinstance(reply, NoScriptError):
            await self._redis.script_load(script.text)
            reply, acked = await self._with_wait(script, keys, args, self._wait)
        for result in (reply, acked):
            if isinstance(result, BaseException):
                raise result
        return Written(reply, int(acked))

    async def _with_wait(
        self, script: Script, keys: Sequence[bytes], args: Sequence[Any], wait: ReplicaWait
    ) -> tuple[Any, Any]:
        """The script and WAIT on one connection (a pipeline without a transaction);
        error replies are returned, not raised."""
        async with self._redis.pipeline(transaction=False) as pipeline:
            pipeline.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
            pipeline.execute_command(*wait.command())
            reply, acked = await pipeline.execute(raise_on_error=False)
        return reply, acked

    async def aclose(self) -> None:
        """Nothing of its own: the client's connections are closed with it."""
