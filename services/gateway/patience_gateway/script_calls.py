"""Running the game scripts on Redis: one interface, `ScriptRunner`, for both kinds of
deployment the gateway supports.

- A single Redis server (`NodeScripts`, here): each game operation is one or two
  EVALSHA calls, and through `Redis.evalsha` redis-py wraps each in layers the
  gateway does not use (observability hooks, a retry wrapper with no retries, a pool
  lock). Measured by the bench (bench/README.md, "Redis script calls"): about 80 µs
  of client CPU per call here against about 130 µs through `Redis.evalsha`, with
  16 concurrent callers. So `NodeScripts` keeps idle connections made by the
  client's own pool (same URL, credentials, database and timeouts) and talks to
  Redis over them with redis-py's public connection methods, still with its
  encoder and (hiredis) parser.
- A Redis Cluster (`cluster_scripts.ClusterScripts`): through redis-py's cluster
  client, which finds the node of the game's slot and follows MOVED/ASK
  redirections and topology changes.

A change can be made to wait for replicas (`ReplicaWait`, Redis `WAIT`): the runner
sends WAIT on the connection that ran the script, in the same round trip, and
returns how many replicas confirmed; the store decides what too few means.

A connection of `NodeScripts` goes back to the idle list only with nothing left to
read: a reply, error replies included, is read whole, and a connection whose send
or read failed or was cancelled is disconnected (redis-py does that itself; done
here again for any other error), so its next use connects afresh. A connection
that Redis closed while it was idle (a restart) is seen at once, its end of stream
already read by the event loop, and is reconnected before use instead of failing
the request that takes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

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


@dataclass(frozen=True, slots=True)
class ReplicaWait:
    """Wait after each change until `replicas` replicas confirm it (Redis WAIT),
    at most `timeout_ms`."""

    replicas: int
    timeout_ms: int

    def command(self) -> tuple[str, int, int]:
        return ("WAIT", self.replicas, self.timeout_ms)


@dataclass(frozen=True, slots=True)
class Written:
    """A write script's reply, and how many replicas confirmed it (None: not asked)."""

    reply: Any
    replicas: int | None


class ScriptRunner(Protocol):
    """Runs a script whose keys all share one hash tag (one Cluster slot)."""

    async def read(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Any:
        """The script's reply. Error replies raise redis-py's exceptions."""
        ...

    async def write(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Written:
        """The reply, followed by WAIT when the runner was given a ReplicaWait."""
        ...

    async def aclose(self) -> None: ...


def evalsha(script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> tuple[Any, ...]:
    return ("EVALSHA", script.sha, len(keys), *keys, *args)


class NodeScripts:
    """ScriptRunner for one Redis server, on connections made by `pool`."""

    def __init__(self, pool: ConnectionPool, wait: ReplicaWait | None = None) -> None:
        self._pool = pool
        self._wait = wait
        self._idle: list[AbstractConnection] = []
        self._closed = False

    async def read(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Any:
        written = await self._call(script, evalsha(script, keys, args), None)
        return written.reply

    async def write(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Written:
        return await self._call(script, evalsha(script, keys, args), self._wait)

    async def _call(
        self, script: Script, command: tuple[Any, ...], wait: ReplicaWait | None
    ) -> Written:
        """Runs `command` (an EVALSHA); loads the script first if Redis does not have
        it (a restart or SCRIPT FLUSH emptied its cache)."""
        connection = self._idle.pop() if self._idle else self._new_connection()
        try:
            # Data waiting on an idle connection can only be its end of stream.
            if connection.is_connected and await connection.can_read():
                await connection.disconnect()
            try:
                return await self._send(connection, command, wait)
            except NoScriptError:
                await connection.send_command("SCRIPT", "LOAD", script.text)
                await connection.read_response()
                return await self._send(connection, command, wait)
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
    async def _send(
        connection: AbstractConnection, command: tuple[Any, ...], wait: ReplicaWait | None
    ) -> Written:
        if wait is None:
            await connection.send_command(*command)
            return Written(await connection.read_response(), None)
        await connection.send_packed_command(connection.pack_commands([command, wait.command()]))
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
