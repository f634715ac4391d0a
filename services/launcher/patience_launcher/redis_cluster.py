"""A real Redis Cluster of our own on free loopback ports, for the tests and the
bench: `primaries` primaries, each with `replicas` replicas, run from the same
redis-server binary as `EmbeddedRedis` and formed with the cluster commands
(CLUSTER MEET, ADDSLOTS, REPLICATE) through redis-py, so no redis-cli is needed.

A node can be killed outright and started again (same port, same folder, so its
nodes.conf brings it back into the cluster, as a replica once its replica took
over): what a failover test needs.
"""

from __future__ import annotations

import random
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

import redis

from patience_launcher import addresses
from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.redis_server import (
    NEWEST_NEEDED,
    EmbeddedRedis,
    find_redis_server,
    redis_server_version,
)

SLOTS = 16384
# A node's cluster bus listens 10,000 ports above its own (redis-server 6.2 cannot
# be told otherwise), so nodes take ports below the usual ephemeral range.
BUS_OFFSET = 10_000
PORTS = range(20_000, 32_000)
START_ATTEMPTS = 20


class ClusterNotReady(RuntimeError):
    """The cluster did not reach the state waited for in time."""


def _cluster_args(node_timeout_ms: int) -> tuple[str, ...]:
    return (
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--cluster-node-timeout",
        str(node_timeout_ms),
        # The slots of a failed primary go dark until its replica takes over; the
        # others keep answering (Redis's default would stop the whole cluster).
        "--cluster-require-full-coverage",
        "no",
        # A replica's first sync starts at once (Redis 7 waits 5 s for more replicas).
        "--repl-diskless-sync-delay",
        "0",
    )


class EmbeddedRedisCluster(StartsAndStops):
    def __init__(
        self,
        primaries: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 1000,
        host: str = "127.0.0.1",
    ) -> None:
        self.primaries = primaries
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.host = host
        self.nodes: list[EmbeddedRedis] = []
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        """REDIS_URL for a cluster client: every node, comma-separated."""
        return ",".join(node.url for node in self.nodes)

    def start(self, timeout: float = 30.0) -> Self:
        binary = find_redis_server()
        version = redis_server_version(binary)
        if version is None or version < NEWEST_NEEDED:
            shown = ".".join(map(str, version)) if version else "of an unknown version"
            raise RuntimeError(
                f"a Redis Cluster needs redis-server 7.0 or newer (sharded pub/sub), and "
                f"{binary} is {shown}: install one (Debian: apt-get install redis-server) "
                "or name it in REDIS_SERVER"
            )
        self._tmp = tempfile.TemporaryDirectory(prefix="patience-redis-cluster-")
        try:
            for index in range(self.primaries * (1 + self.replicas)):
                folder = Path(self._tmp.name) / f"node-{index}"
                folder.mkdir()
                self.nodes.append(self._start_node(folder))
            self._form(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_node(self, folder: Path) -> EmbeddedRedis:
        """A node on a port whose bus port is free too; another pair is tried when
        something took one of them between the check and the start."""
        rng = random.Random()
        for _ in range(START_ATTEMPTS):
            port = rng.choice(PORTS)
            if not (
                addresses.port_is_free(self.host, port)
                and addresses.port_is_free(self.host, port + BUS_OFFSET)
            ):
                continue
            # the bus port is bound by the node, later: no free port of this process's
            # choosing may be handed it meanwhile (the node's own port is kept likewise)
            addresses.choose(port + BUS_OFFSET)
            node = EmbeddedRedis(
                port=port,
                host=self.host,
                data_dir=str(folder),
                extra_args=_cluster_args(self.node_timeout_ms),
            )
            try:
                return node.start()
            except RuntimeError:
                continue
        raise ClusterNotReady(f"no free pair of ports for a node in {START_ATTEMPTS} tries")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self.nodes = []
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def client(self, node: EmbeddedRedis) -> redis.Redis:
        """A plain (not cluster) client of one node."""
        return redis.Redis(host=node.host, port=node.port, socket_timeout=5)

    def _form(self, timeout: float) -> None:
        clients = [self.client(node) for node in self.nodes]
        try:
            ids = [_command(client, "CLUSTER", "MYID") for client in clients]
            for client in clients[1:]:
                _command(client, "CLUSTER", "MEET", self.host, self.nodes[0].port)
            for index in range(self.primaries):
                first = SLOTS * index // self.primaries
                last = SLOTS * (index + 1) // self.primaries
                _command(clients[index], "CLUSTER", "ADDSLOTS", *range(first, last))
            self._wait(lambda: all(self._knows_all(c) for c in clients), timeout, "nodes met")
            for index, client in enumerate(clients[self.primaries :]):
                _command(client, "CLUSTER", "REPLICATE", ids[index % self.primaries])
        finally:
            for client in clients:
                client.close()
        self.wait_healthy(timeout)

    def _knows_all(self, client: redis.Redis) -> bool:
        lines = _node_lines(client)
        return len(lines) == len(self.nodes) and not any("handshake" in line for line in lines)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Until every running node says the cluster is ok and sees every slot
        served, and every primary has its replicas in sync."""
        self._wait(lambda: self._healthy(with_replicas=True), timeout, "healthy")

    def wait_replaced(self, node: EmbeddedRedis, timeout: float = 30.0) -> None:
        """Until the running nodes agree that `node` serves no slot any more and
        every slot is served (its replica took over)."""

        def replaced() -> bool:
            served_by = self._slot_owners()
            return (
                bool(served_by)
                and node.port not in served_by
                and self._healthy(with_replicas=False)
            )

        self._wait(replaced, timeout, f"served without the node on port {node.port}")

    def _slot_owners(self) -> set[int]:
        """Ports of the primaries that every running node says serve slots."""
        owners: set[int] = set()
        for node in self.running():
            client = self.client(node)
            try:
                for _first, _last, primary, *_ in _command(client, "CLUSTER", "SLOTS"):
                    owners.add(int(primary[1]))
            except redis.RedisError:
                return set()
            finally:
                client.close()
        return owners

    def _healthy(self, *, with_replicas: bool) -> bool:
        for node in self.running():
            client = self.client(node)
            try:
                info = _command(client, "CLUSTER", "INFO")
                text = info.decode() if isinstance(info, bytes) else str(info)
                if "cluster_state:ok" not in text or "cluster_slots_ok:16384" not in text:
                    return False
                if not with_replicas:
                    continue
                replication = client.info("replication")
                if replication["role"] == "slave" and replication["master_link_status"] != "up":
                    return False
                if (
                    replication["role"] == "master"
                    and self.replicas
                    and (replication["connected_slaves"] < self.replicas and _serves_slots(client))
                ):
                    return False
            except redis.RedisError:
                return False
            finally:
                client.close()
        return True

    def running(self) -> list[EmbeddedRedis]:
        return [node for node in self.nodes if node.process is not None]

    def primary_nodes(self) -> list[EmbeddedRedis]:
        """The running nodes that serve slots now."""
        owners = self._slot_owners()
        return [node for node in self.running() if node.port in owners]

    def primary_of(self, key: bytes | str) -> EmbeddedRedis:
        """The node that serves `key`'s slot now."""
        for node in self.running():
            client = self.client(node)
            try:
                slot = int(_command(client, "CLUSTER", "KEYSLOT", key))
                for first, last, primary, *_ in _command(client, "CLUSTER", "SLOTS"):
                    if first <= slot <= last:
                        port = int(primary[1])
                        return next(n for n in self.nodes if n.port == port)
            except redis.RedisError:
                continue
            finally:
                client.close()
        raise ClusterNotReady(f"no running node knows the slot of {key!r}")

    def replica_of(self, primary: EmbeddedRedis) -> EmbeddedRedis:
        """The (first) replica of `primary`, as the primary itself reports it."""
        client = self.client(primary)
        try:
            port = int(client.info("replication")["slave0"]["port"])
        finally:
            client.close()
        return next(node for node in self.nodes if node.port == port)

    def kill(self, node: EmbeddedRedis) -> None:
        """Ends the node at once (SIGKILL: no goodbye to the cluster, no last write)."""
        assert node.process is not None
        node.process.send_signal(signal.SIGKILL)
        node.process.wait()
        node.stop()

    def restart(self, node: EmbeddedRedis) -> None:
        node.start()

    @staticmethod
    def _wait(check: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise ClusterNotReady(f"the Redis Cluster was not {what} after {timeout} s")
            time.sleep(0.05)


def _node_lines(client: redis.Redis) -> list[str]:
    raw = _command(client, "CLUSTER", "NODES")
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return [line for line in text.splitlines() if line.strip()]


def _serves_slots(client: redis.Redis) -> bool:
    return any("myself" in line and len(line.split()) > 8 for line in _node_lines(client))


def _command(client: redis.Redis, *args: Any) -> Any:
    """A raw command on one node (redis-py leaves execute_command untyped)."""
    return client.execute_command(*args)  # type: ignore[no-untyped-call]
