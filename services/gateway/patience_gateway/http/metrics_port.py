"""`/metrics` on a port of its own (GATEWAY_METRICS_PORT), served by the gateway's main
process for all of it: what every worker counted (prometheus_client's multiprocess
files, PROMETHEUS_MULTIPROC_DIR), what is read from Redis and PostgreSQL at the scrape
(`http.scrape`, through clients of this process's own, on an event loop in a thread of
its own), the process_* figures of the main process and every worker, and the build
(`http.live_metrics`): the same series the API port's `/metrics` answers, which then
answers 404. So the API port can be public while this one is reachable by Prometheus
alone (deploy/kubernetes's NetworkPolicy).

The server is prometheus_client's own (`start_http_server`, a thread). Like the API
port, this one is the gateway's alone: bound without SO_REUSEPORT, and a port in use
stops the gateway at once, exit status 1, with a line that names it.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import threading
from collections.abc import Coroutine, Iterable
from types import TracebackType
from typing import Any, Self, TypeVar
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from patience_gateway.games.winnable import WinnableSettings
from patience_gateway.http.live_metrics import BuildInfo, GatewayProcesses
from patience_gateway.http.scrape import ScrapeSources, scrape
from patience_gateway.settings import Settings
from patience_gateway.storage.clients import open_redis
from patience_gateway.storage.database import Database
from patience_gateway.storage.outbox import OutboxStore
from patience_gateway.storage.winnable_pools import WinnablePools

log = logging.getLogger("patience_gateway")

T = TypeVar("T")


class _AtScrape(Collector):
    """The figures of `http.scrape`, read on the port's event loop as each scrape asks."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sources: ScrapeSources) -> None:
        self.loop = loop
        self.sources = sources

    def collect(self) -> Iterable[Metric]:
        reading = asyncio.run_coroutine_threadsafe(scrape(self.sources), self.loop)
        # scrape() holds each read to the Redis deadline; the reads of Redis and
        # PostgreSQL run side by side, then those of the outbox and the pools
        return reading.result(timeout=3 * self.sources.timeout + 1).collect()


class MetricsPort:
    """The server, for as long as the `with` block lasts."""

    def __init__(self, settings: Settings, metrics_folder: str) -> None:
        self.settings = settings
        self.metrics_folder = metrics_folder
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="metrics-reads", daemon=True
        )
        self._sources: ScrapeSources | None = None
        self._server: WSGIServer | None = None

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        """`work` done on the port's event loop, waited for."""
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    async def _open(self) -> ScrapeSources:
        settings = self.settings
        redis = open_redis(settings)
        database = Database(settings.database_url) if settings.database_url else None
        winnable = WinnableSettings(
            settings.winnable_pool_size,
            settings.winnable_search_seconds,
            settings.winnable_solve_milliseconds,
            settings.winnable_solve_positions,
            settings.winnable_pool_sizes,
        )
        return ScrapeSources(
            redis,
            OutboxStore(redis, settings.redis_timeout_seconds),
            WinnablePools(redis),
            winnable,
            database,
            settings.redis_timeout_seconds,
        )

    async def _close(self, sources: ScrapeSources) -> None:
        if sources.database is not None:
            await sources.database.close()
        await sources.redis.aclose()

    def __enter__(self) -> Self:
        settings = self.settings
        self._thread.start()
        sources = self._sources = self._run(self._open())
        registry = CollectorRegistry(auto_describe=False)
        MultiProcessCollector(registry, path=self.metrics_folder)  # type: ignore[no-untyped-call]
        registry.register(_AtScrape(self._loop, sources))
        registry.register(GatewayProcesses(os.getpid(), workers=True))
        registry.register(BuildInfo(settings.commit))
        try:
            self._server, _ = start_http_server(
                settings.metrics_port, addr=settings.host, registry=registry
            )
        except OSError as error:
            self.__exit__(None, None, None)
            where = f"{settings.host}:{settings.metrics_port}"
            if error.errno == errno.EADDRINUSE:
                log.error(
                    "cannot serve metrics on %s: port %d is in use by another process; stop "
                    "it or choose another GATEWAY_METRICS_PORT",
                    where,
                    settings.metrics_port,
                )
            else:
                log.error("cannot serve metrics on %s: %s", where, error.strerror or error)
            raise SystemExit(1) from None
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._sources is not None:
            self._run(self._close(self._sources))
            self._sources = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
