"""The whole service on loopback, as every part that measures through it starts it: a
Redis of the bench's own (one server, or a Redis Cluster of 3 primaries), the engine and
the gateway through their real entry points, and as the part asks, PostgreSQL with the
players' routes on (a token key the stack holds), the bare endpoint on the same Redis,
more gateways on the same stores. Or all of it as `patience serve` starts it (`launched_in`
a data folder): the launcher's own choice of processes, each started the way it always is.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis

from bench.harness.servers import (
    EngineProcess,
    HttpServerProcess,
    LauncherProcess,
    bare_process,
    gateway_process,
)

CLUSTER_NODE_TIMEOUT_MS = 1000


@dataclass(kw_only=True, eq=False)
class Stack(StartsAndStops):
    """`players`: PostgreSQL, and the gateway given the stack's token key;
    `cluster_replicas`: a Redis Cluster with this many replicas of each primary instead of
    one Redis server; `launched_in`: `patience serve` with its data there, given
    `gateway_env` (the other options are then the launcher's)."""

    engine_workers: int = 1
    engine_settings: Mapping[str, str] = field(default_factory=dict)
    gateway_workers: int = 1
    gateway_env: Mapping[str, str] = field(default_factory=dict)
    players: bool = True
    with_bare: bool = False
    cluster_replicas: int | None = None
    launched_in: Path | None = None
    # what runs, once started
    token_key: str = field(default_factory=lambda: secrets.token_hex(32), init=False)
    redis: EmbeddedRedis | None = field(default=None, init=False)
    cluster: EmbeddedRedisCluster | None = field(default=None, init=False)
    postgres: EmbeddedPostgres | None = field(default=None, init=False)
    engine: EngineProcess | None = field(default=None, init=False)
    gateway: HttpServerProcess | None = field(default=None, init=False)
    launcher: LauncherProcess | None = field(default=None, init=False)
    bare: HttpServerProcess | None = field(default=None, init=False)
    _exit: ExitStack = field(default_factory=ExitStack, init=False)

    def start(self) -> Self:
        enter = self._exit.enter_context
        try:
            if self.launched_in is not None:
                self.launcher = enter(LauncherProcess(self.launched_in, self.gateway_env))
                self.gateway = self.launcher
                return self
            if self.cluster_replicas is None:
                self.redis = enter(EmbeddedRedis())
            else:
                self.cluster = enter(
                    EmbeddedRedisCluster(
                        replicas=self.cluster_replicas, node_timeout_ms=CLUSTER_NODE_TIMEOUT_MS
                    )
                )
            if self.players:
                self.postgres = enter(EmbeddedPostgres())
            self.engine = enter(
                EngineProcess(workers=self.engine_workers, settings=self.engine_settings)
            )
            self.gateway = self.add_gateway(self.gateway_env)
            if self.with_bare:
                self.bare = enter(bare_process(redis_url=self.redis_url))
        except BaseException:
            self._exit.close()
            raise
        return self

    def add_gateway(self, env: Mapping[str, str]) -> HttpServerProcess:
        """A gateway on the stack's stores and engine, with `env` over the stack's
        settings (the first one the stack starts; the cluster part starts others)."""
        assert self.engine is not None
        settings = {"REDIS_CLUSTER": "true"} if self.cluster is not None else {}
        if self.postgres is not None:
            settings |= {
                "DATABASE_URL": self.postgres.url,
                "PLAYER_TOKEN_KEYS": self.token_key,
                # the bench's clients all come from loopback
                "NEW_PLAYERS_PER_MINUTE": "1000000",
            }
        gateway = gateway_process(
            redis_url=self.redis_url,
            engine_target=self.engine.target,
            workers=self.gateway_workers,
            env={**settings, **env},
        )
        self._exit.enter_context(gateway)
        return gateway

    def stop(self) -> None:
        self._exit.close()

    @property
    def base_url(self) -> str:
        assert self.gateway is not None
        return self.gateway.base_url

    @property
    def redis_url(self) -> str:
        url: str
        if self.launcher is not None:
            url = self.launcher.redis_url
        elif self.cluster is not None:
            url = self.cluster.url
        else:
            assert self.redis is not None
            url = self.redis.url
        return url

    @property
    def database_url(self) -> str:
        assert self.postgres is not None
        url: str = self.postgres.url
        return url

    def pids(self, *names: str) -> dict[str, int]:
        """Process ids by name (gateway, engine, redis, postgres, bare; a cluster's nodes
        redis-0, redis-1, ...): those named, or every one that serves a gateway request
        (PostgreSQL too, which a move never waits on, but the gateway's outbox drain talks
        to), the bare endpoint left out."""
        if self.launcher is not None:
            known = self.launcher.service_pids()
        else:
            assert self.gateway and self.engine
            known = {"gateway": self.gateway.pid, "engine": self.engine.pid}
            for name, server in self._stores().items():
                assert server.process is not None
                known[name] = server.process.pid
            if self.bare is not None:
                known["bare"] = self.bare.pid
        if names:
            return {name: known[name] for name in names}
        return {name: pid for name, pid in known.items() if name != "bare"}

    def _stores(self) -> dict[str, EmbeddedRedis | EmbeddedPostgres]:
        stores: dict[str, EmbeddedRedis | EmbeddedPostgres] = {}
        if self.redis is not None:
            stores["redis"] = self.redis
        if self.cluster is not None:
            stores |= {f"redis-{index}": node for index, node in enumerate(self.cluster.nodes)}
        if self.postgres is not None:
            stores["postgres"] = self.postgres
        return stores
