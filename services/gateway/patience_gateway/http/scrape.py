"""What `/metrics` reads from Redis and PostgreSQL when it is scraped: whether each
answers, the outbox's backlog, and how full the pools of winnable deals are. These are
the same whichever worker answers (they live in Redis), so they are read then, by that
worker, rather than counted by each.

    patience_gateway_redis_up                      1 if Redis answered PING, else 0
    patience_gateway_postgres_up                   1 if PostgreSQL answered, else 0
                                                   (absent without DATABASE_URL)
    patience_gateway_outbox_pending_games          games whose outbox waits to be drained
    patience_gateway_outbox_oldest_age_seconds     how long the longest has waited
    patience_gateway_winnable_pool_deals           deals ready, by variant and options
    patience_gateway_winnable_pool_target_deals    the deals each is kept at, likewise

Each read has the deadline of a Redis command (`Settings.redis_timeout_seconds`); one
that fails leaves its figures out of this scrape.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.games.winnable import WinnableSettings
from patience_gateway.storage.database import Database
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.storage.outbox import OutboxStore
from patience_gateway.storage.winnable_pools import WinnablePools


@dataclass(frozen=True, slots=True)
class ScrapeSources:
    """Where the figures are read (the app's lifespan makes it)."""

    redis: Redis | RedisCluster
    outbox: OutboxStore
    pools: WinnablePools
    winnable: WinnableSettings
    database: Database | None
    timeout: float


@dataclass(slots=True, eq=False)  # a registry keeps its collectors in a dict
class Scraped(Collector):
    """The figures read at one scrape."""

    redis_up: bool = False
    postgres_up: bool | None = None
    outbox: tuple[int, float] | None = None
    pools: dict[str, int] = field(default_factory=dict)  # deals held, by pool name
    targets: dict[str, int] = field(default_factory=dict)  # deals each is kept at

    def collect(self) -> Iterable[Metric]:
        yield _gauge("patience_gateway_redis_up", "1 if Redis answered PING", int(self.redis_up))
        if self.postgres_up is not None:
            yield _gauge(
                "patience_gateway_postgres_up",
                "1 if PostgreSQL answered a query",
                int(self.postgres_up),
            )
        if self.outbox is not None:
            games, age = self.outbox
            yield _gauge(
                "patience_gateway_outbox_pending_games",
                "Games whose outbox waits to be drained into PostgreSQL",
                games,
            )
            yield _gauge(
                "patience_gateway_outbox_oldest_age_seconds",
                "How long the game longest in the outbox has waited (0: none waits)",
                age,
            )
        if self.pools:
            yield _by_pool(
                "patience_gateway_winnable_pool_deals",
                "Winnable deals ready in a pool, by variant and options",
                self.pools,
            )
            yield _by_pool(
                "patience_gateway_winnable_pool_target_deals",
                "The deals each pool of winnable deals is kept at (WINNABLE_POOL_SIZE, "
                "or its variant's in WINNABLE_POOL_SIZES)",
                self.targets,
            )


def _by_pool(name: str, documentation: str, values: dict[str, int]) -> GaugeMetricFamily:
    gauge = GaugeMetricFamily(name, documentation, labels=["variant", "options"])
    for pool, value in sorted(values.items()):
        variant, _, options = pool.partition("/")
        gauge.add_metric([variant, options], value)
    return gauge


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


async def scrape(sources: ScrapeSources) -> Scraped:
    """The figures now (the module's doc lists them)."""
    scraped = Scraped()

    async def redis_answers() -> bool:
        try:
            async with asyncio.timeout(sources.timeout):
                return bool(await sources.redis.ping())
        except (*STORAGE_DOWN, TimeoutError):  # type: ignore[misc]
            return False

    async def postgres_answers() -> bool | None:
        if sources.database is None:
            return None
        return await sources.database.answers(sources.timeout)

    scraped.redis_up, scraped.postgres_up = await asyncio.gather(
        redis_answers(), postgres_answers()
    )
    if not scraped.redis_up:
        return scraped
    try:
        async with asyncio.timeout(sources.timeout):
            games, since = await sources.outbox.backlog()
            scraped.outbox = (games, 0.0 if since is None else max(0.0, time.time() - since))
            if sources.winnable.pooled:
                for name in await sources.pools.wanted():
                    scraped.pools[name] = await sources.pools.size(name)
                    scraped.targets[name] = sources.winnable.size_of(name)
    except (*STORAGE_DOWN, TimeoutError):  # type: ignore[misc]
        pass
    return scraped
