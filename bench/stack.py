"""The whole service on loopback, for the gateway figures and the load test: a real
Redis of the bench's own (EmbeddedRedis), the engine and the gateway through their
real entry points, and optionally the bare endpoint on the same Redis."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Self

from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.redis_server import EmbeddedRedis

from bench.procs import (
    EngineProcess,
    HttpServerProcess,
    bare_process,
    engine_process,
    gateway_process,
)


class Stack(StartsAndStops):
    def __init__(self, *, engine_workers: int = 1, with_bare: bool = False) -> None:
        self.engine_workers = engine_workers
        self.with_bare = with_bare
        self._exit = ExitStack()
        self.redis: EmbeddedRedis | None = None
        self.engine: EngineProcess | None = None
        self.gateway: HttpServerProcess | None = None
        self.bare: HttpServerProcess | None = None

    def start(self) -> Self:
        try:
            self.redis = self._exit.enter_context(EmbeddedRedis())
            self.engine = self._exit.enter_context(engine_process(workers=self.engine_workers))
            self.gateway = self._exit.enter_context(
                gateway_process(redis_url=self.redis.url, engine_target=self.engine.target)
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
        """Processes that serve a gateway request: gateway, engine, Redis."""
        assert self.gateway and self.engine and self.redis and self.redis.process
        return {
            "gateway": self.gateway.pid,
            "engine": self.engine.pid,
            "redis": self.redis.process.pid,
        }

    def bare_pids(self) -> dict[str, int]:
        assert self.bare and self.redis and self.redis.process
        return {"bare": self.bare.pid, "redis": self.redis.process.pid}
