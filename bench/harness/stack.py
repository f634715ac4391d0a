"""The whole service on loopback, for the gateway figures and the load test: a real
Redis and PostgreSQL of the bench's own (EmbeddedRedis, EmbeddedPostgres), the engine
and the gateway through their real entry points (players on: a token key of its own),
and optionally the bare endpoint on the same Redis."""

from __future__ import annotations

import secrets
from contextlib import ExitStack
from typing import Self

from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_server import EmbeddedRedis

from bench.harness.servers import EngineProcess, HttpServerProcess, bare_process, gateway_process


class Stack(StartsAndStops):
    def __init__(self, *, engine_workers: int = 1, with_bare: bool = False) -> None:
        self.engine_workers = engine_workers
        self.with_bare = with_bare
        self._exit = ExitStack()
        self.redis: EmbeddedRedis | None = None
        self.postgres: EmbeddedPostgres | None = None
        self.engine: EngineProcess | None = None
        self.gateway: HttpServerProcess | None = None
        self.bare: HttpServerProcess | None = None

    def start(self) -> Self:
        try:
            self.redis = self._exit.enter_context(EmbeddedRedis())
            self.postgres = self._exit.enter_context(EmbeddedPostgres())
            self.engine = self._exit.enter_context(EngineProcess(workers=self.engine_workers))
            players = {
                "DATABASE_URL": self.postgres.url,
                "PLAYER_TOKEN_KEYS": secrets.token_hex(32),
                # the bench's clients all come from loopback
                "NEW_PLAYERS_PER_MINUTE": "1000000",
            }
            self.gateway = self._exit.enter_context(
                gateway_process(
                    redis_url=self.redis.url, engine_target=self.engine.target, env=players
                )
            )
            if self.with_bare:
                self.bare = self._exit.enter_context(bare_process(redis_url=self.redis.url))
        except BaseException:
            self._exit.close()
            raise
        return self

    def stop(self) -> None:
        self._exit.close()

    def server_pids(self) -> dict[str, int]:
        """Processes that serve a gateway request: gateway, engine, Redis, and
        PostgreSQL (which a move never waits on, but the gateway's outbox drain talks to)."""
        assert self.gateway and self.engine and self.redis and self.redis.process
        assert self.postgres and self.postgres.process
        return {
            "gateway": self.gateway.pid,
            "engine": self.engine.pid,
            "redis": self.redis.process.pid,
            "postgres": self.postgres.process.pid,
        }

    def bare_pids(self) -> dict[str, int]:
        assert self.bare and self.redis and self.redis.process
        return {"bare": self.bare.pid, "redis": self.redis.process.pid}
