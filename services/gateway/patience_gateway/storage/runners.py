"""Running the game scripts: one interface, `ScriptRunner`, for every kind of Redis
the gateway supports.

- A Redis Cluster: `ClusterRunner`, through redis-py's cluster client.
- A single Redis server: `speed.node_runners.NodeRunner` (a speed path: EVALSHA on the
  client's own connections, without redis-py's command layers), or its reference,
  `speed.node_runners.RedisPyRunner` (redis-py's public `Redis.evalsha`), when
  PATIENCE_SPEED_PATHS is off.

A change can be made to wait for replicas (`ReplicaWait`, Redis `WAIT`): the runner
sends WAIT on the connection that ran the script, in the same round trip, and
returns how many replicas confirmed; the store decides what too few means.

On a Redis Cluster the client finds the primary of a game's slot (all of a game's keys
carry its id as a hash tag), follows MOVED and ASK redirections, and learns the new
topology after a failover; `script_load` loads a script on every primary. It is opened
without retries (see `clients`), so an error reaches the store, which answers 503, and
the client's next command starts from a fresh view of the cluster.

WAIT must run on the connection that made the change, so on a cluster a change that
waits for replicas goes as a two-command pipeline pinned to the slot's primary: the
script, then WAIT. If the slot moved meanwhile, the script did not run there: one
command through the client's own routing teaches it the slot's new owner, and the
pipeline is sent once more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import AskError, MovedError, NoScriptError, TryAgainError

from patience_gateway.storage.scripts import Script

_REDIRECTED = (MovedError, AskError, TryAgainError)


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


class ClusterRunner:
    """ScriptRunner for a Redis Cluster."""

    def __init__(self, cluster: RedisCluster, wait: ReplicaWait | None = None) -> None:
        self._cluster = cluster
        self._wait = wait

    async def read(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Any:
        try:
            return await self._cluster.evalsha(script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self._cluster.script_load(script.text)
            return await self._cluster.evalsha(script.sha, len(keys), *keys, *args)

    async def write(self, script: Script, keys: Sequence[bytes], args: Sequence[Any]) -> Written:
        if self._wait is None:
            return Written(await self.read(script, keys, args), None)
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        for attempt in range(2):
            reply, acked = await self._pinned(command, keys[0], self._wait)
            if isinstance(reply, NoScriptError):
                await self._cluster.script_load(script.text)
                reply, acked = await self._pinned(command, keys[0], self._wait)
            if not isinstance(reply, _REDIRECTED):
                break
            if attempt == 0:
                await self._cluster.exists(keys[0])  # follows the redirection, learns the owner
        else:
            # The slot is being moved between primaries: the script ran nowhere.
            raise TryAgainError("the game's slot is moving between nodes")
        for result in (reply, acked):
            if isinstance(result, BaseException):
                raise result
        return Written(reply, int(acked))

    async def _pinned(
        self, command: tuple[Any, ...], key: bytes, wait: ReplicaWait
    ) -> tuple[Any, Any]:
        """The command and WAIT on one connection to the primary of `key`'s slot;
        error replies are returned, not raised."""
        await self._cluster.initialize()  # the slots, on first use or after an error
        node = self._cluster.get_node_from_key(key)  # type: ignore[arg-type]
        pipeline = self._cluster.pipeline(transaction=False)
        pipeline.execute_command(*command, target_nodes=node)
        pipeline.execute_command(*wait.command(), target_nodes=node)
        reply, acked = await pipeline.execute(raise_on_error=False, allow_redirections=False)
        return reply, acked

    async def aclose(self) -> None:
        """Nothing of its own: the cluster client's connections are closed with it."""
