"""Running the game scripts on redis-py connections kept here, without the client.

Every game operation is one or two EVALSHA calls. Through `Redis.evalsha`, redis-py
wraps each in layers the gateway does not use (observability hooks, a retry
wrapper with no retries, a pool lock, a probe read of the socket before every
command) that cost about as much again as sending the command and parsing its
reply. `ScriptCaller` keeps idle connections of the client's own pool's kind (same
URL, credentials, database and timeouts) and talks to Redis over them directly,
still with redis-py's connection, encoder and (hiredis) parser.

A connection goes back to the idle list only with nothing left to read: a reply,
error replies included, is read whole, and a connection whose send or read failed
or was cancelled is disconnected (redis-py does that itself; done here again for
any other error), so its next use connects afresh. A connection that Redis closed while it was idle
(a restart) is seen at once, its end of stream already read by the event loop, and
is reconnected before use instead of failing the request that takes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import ConnectionPool
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import NoScriptError, ResponseError


@dataclass(frozen=True, slots=True)
class Script:
    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())


def _closed_by_server(connection: AbstractConnection) -> bool:
    # redis-py keeps the connection's asyncio.StreamReader as `_reader` (None while
    # disconnected). Should that change, a stale connection fails one call instead.
    reader = getattr(connection, "_reader", None)
    return reader is not None and reader.at_eof()


class ScriptCaller:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool
        self._idle: list[AbstractConnection] = []
        self._closed = False

    async def call(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Any:
        """EVALSHA `script`; loads it first if Redis does not have it (a restart or
        SCRIPT FLUSH emptied its cache). Error replies raise redis-py's exceptions."""
        connection = self._idle.pop() if self._idle else self._new_connection()
        try:
            if _closed_by_server(connection):
                await connection.disconnect()
            try:
                return await self._evalsha(connection, script, keys, args)
            except NoScriptError:
                await connection.send_command("SCRIPT", "LOAD", script.text)
                await connection.read_response()
                return await self._evalsha(connection, script, keys, args)
        except ResponseError:
            raise  # an error reply, read whole: the connection is fine
        except BaseException:
            await connection.disconnect(nowait=True)
            raise
        finally:
            if self._closed:
                await connection.disconnect(nowait=True)
            else:
                self._idle.append(connection)

    def _new_connection(self) -> AbstractConnection:
        connection: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        return connection

    @staticmethod
    async def _evalsha(
        connection: AbstractConnection,
        script: Script,
        keys: Sequence[bytes],
        args: Sequence[Any],
    ) -> Any:
        await connection.send_command("EVALSHA", script.sha, len(keys), *keys, *args)
        return await connection.read_response()

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.disconnect()
