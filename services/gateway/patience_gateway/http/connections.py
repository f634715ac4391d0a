"""How many connections each gateway process holds to Redis and PostgreSQL, and how many
are in use: sampled every few seconds into the process's gauges (`http.metrics`), which
`/metrics` sums over the live workers.

Redis: redis-py's pool (`get_connection_count`), and the connections the move scripts'
speed path keeps of its own (`speed.node_runners.NodeRunner.connection_count`). A Redis
Cluster client says nothing of its nodes' connections, so on a cluster there is no
Redis figure. PostgreSQL: psycopg_pool's `get_stats`.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

from prometheus_client.multiprocess import mark_process_dead
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from patience_gateway.http.metrics import Metrics
from patience_gateway.storage.database import Database

SAMPLE_SECONDS = 5.0
_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w*?_(\d+)\.db")


class ConnectionSampler:
    def __init__(
        self,
        metrics: Metrics,
        redis: Redis | RedisCluster,
        scripts: Any,
        database: Database | None,
    ) -> None:
        self.metrics = metrics
        self.redis = redis
        self.scripts = scripts
        self.database = database

    def sample(self) -> None:
        if isinstance(self.redis, Redis):
            idle = used = 0
            for count, attributes in self.redis.connection_pool.get_connection_count():
                if attributes.get("db.client.connection.state") == "used":
                    used += count
                else:
                    idle += count
            own = getattr(self.scripts, "connection_count", None)
            if own is not None:
                more_idle, more_used = own()
                idle, used = idle + more_idle, used + more_used
            self.metrics.redis_connections.labels("idle").set(idle)
            self.metrics.redis_connections.labels("used").set(used)
        if self.database is not None:
            stats = self.database.pool.get_stats()
            size, available = stats.get("pool_size", 0), stats.get("pool_available", 0)
            self.metrics.postgres_connections.labels("idle").set(available)
            self.metrics.postgres_connections.labels("used").set(size - available)
            self.metrics.postgres_max_connections.set(stats.get("pool_max", 0))
            self.metrics.postgres_waiting.set(stats.get("requests_waiting", 0))

    async def run(self) -> None:
        """Samples until cancelled."""
        forget_dead_workers()
        while True:
            self.sample()
            await asyncio.sleep(SAMPLE_SECONDS)


def forget_dead_workers() -> None:
    """Leaves the gauges of worker processes that died (a worker the server started
    again) out of the sums: prometheus_client keeps a dead process's files until told."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder:
        return
    for path in Path(folder).glob("gauge_live*.db"):
        match = _LIVE_GAUGE_FILE.fullmatch(path.name)
        if match is None:
            continue
        pid = int(match.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]
        except PermissionError:
            pass  # alive, another user's
