"""Running the game scripts: one interface, `ScriptRunner`, for every kind of Redis
the gateway supports.

- A Redis Cluster: `cluster_scripts.ClusterScripts`, through redis-py's cluster client.
- A single Redis server: `speed.scripts.NodeScripts` (a speed path: EVALSHA on the
  client's own connections, without redis-py's command layers), or its reference,
  `speed.scripts.RedisPyScripts` (redis-py's public `Redis.evalsha`), when
  PATIENCE_SPEED_PATHS is off.

A change can be made to wait for replicas (`ReplicaWait`, Redis `WAIT`): the runner
sends WAIT on the connection that ran the script, in the same round trip, and
returns how many replicas confirmed; the store decides what too few means.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from patience_gateway.storage.scripts import Script


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
