"""Prometheus metrics: requests (answered, and in flight), latency, moves applied,
errors, winnable deals added to the pools and served, the age of games' records as they
reach PostgreSQL, and the connections each process holds to Redis and PostgreSQL
(`http.connections` samples them). What is read from Redis or PostgreSQL at the time of
the scrape (the outbox, the pools' depths, whether each answers) is added by
`http.scrape`; what is read from the processes then (CPU, memory, open files) and the
build, by `http.live_metrics`. The names and what they mean: docs/operations.md,
"Observing it".

Each app has its own registry (several apps can live in one process, as in the
tests). Label children are cached in plain dicts so that the hot path costs a dict
lookup and an increment, not a label resolution.

Under `patience-gateway` every worker process counts for itself into files in
PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode, chosen by the library
when that variable is set before it is imported), and `/metrics` answers the sums over
every worker, whichever worker serves the scrape.
"""

from __future__ import annotations

import os
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from patience_gateway.http.live_metrics import BuildInfo, served_processes

UNMATCHED_ROUTE = "unmatched"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "patience_gateway_requests",
            "HTTP requests answered",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "patience_gateway_request_duration_seconds",
            "Time to answer a request",
            ["route"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
        )
        self.in_flight = Gauge(
            "patience_gateway_requests_in_flight",
            "Requests being served now (open event streams included)",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.moves = Counter(
            "patience_gateway_moves_applied",
            "Moves applied to games",
            ["variant"],
            registry=self.registry,
        )
        self.errors = Counter(
            "patience_gateway_errors",
            "Problem responses by code",
            ["code"],
            registry=self.registry,
        )
        self.winnable_added = Counter(
            "patience_gateway_winnable_deals_added",
            "Deals proven winnable and put in a pool, by variant",
            ["variant"],
            registry=self.registry,
        )
        self.winnable_served = Counter(
            "patience_gateway_winnable_deals_served",
            "Winnable deals dealt, by variant and where from (pool, search)",
            ["variant", "source"],
            registry=self.registry,
        )
        # From the change a record reports (its outbox entry written in Redis) to its
        # arrival in PostgreSQL: moments, unless Redis or PostgreSQL was away, or the
        # entry's announcement was lost and the drain's sweep found it.
        self.record_arrival = Histogram(
            "patience_gateway_record_arrival_seconds",
            "Age of a game's record (an outbox entry) when it reaches PostgreSQL, by kind",
            ["kind"],
            registry=self.registry,
            buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 600.0, 1800.0),
        )
        # Connections held by the gateway's processes (summed over the live workers).
        self.redis_connections = Gauge(
            "patience_gateway_redis_pool_connections",
            "Connections to Redis, by state (idle, used)",
            ["state"],
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.postgres_connections = Gauge(
            "patience_gateway_postgres_pool_connections",
            "Connections to PostgreSQL in the pools, by state (idle, used)",
            ["state"],
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.postgres_max_connections = Gauge(
            "patience_gateway_postgres_pool_max_connections",
            "Connections to PostgreSQL the pools may open",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.postgres_waiting = Gauge(
            "patience_gateway_postgres_pool_waiting_requests",
            "Requests waiting for a connection to PostgreSQL",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        # read at each scrape (`http.live_metrics`); the commit is the settings'
        self.build = BuildInfo()
        self.live: tuple[Collector, ...] = (served_processes(), self.build)
        self._requests: dict[tuple[str, str, int], Any] = {}
        self._latency: dict[str, Any] = {}
        self._moves: dict[str, Any] = {}
        self._errors: dict[str, Any] = {}

    def observe_request(self, route: str, method: str, status: int, seconds: float) -> None:
        key = (route, method, status)
        counter = self._requests.get(key)
        if counter is None:
            counter = self._requests[key] = self.requests.labels(route, method, str(status))
        counter.inc()
        histogram = self._latency.get(route)
        if histogram is None:
            histogram = self._latency[route] = self.latency.labels(route)
        histogram.observe(seconds)

    def move_applied(self, variant: str) -> None:
        counter = self._moves.get(variant)
        if counter is None:
            counter = self._moves[variant] = self.moves.labels(variant)
        counter.inc()

    def problem(self, code: str) -> None:
        counter = self._errors.get(code)
        if counter is None:
            counter = self._errors[code] = self.errors.labels(code)
        counter.inc()

    def winnable_deal_added(self, variant: str) -> None:
        self.winnable_added.labels(variant).inc()

    def winnable_deal_served(self, variant: str, source: str) -> None:
        self.winnable_served.labels(variant, source).inc()

    def record_arrived(self, kind: str, seconds: float) -> None:
        self.record_arrival.labels(kind).observe(seconds)

    def response(self, scraped: Collector | None = None) -> Response:
        """Every metric, with those `scraped` at this scrape and the live ones."""
        # not described ahead: each is read once, as the text is written
        now = CollectorRegistry(auto_describe=False)
        for collector in (*self.live, *([] if scraped is None else [scraped])):
            now.register(collector)
        text = generate_latest(self._collected()) + generate_latest(now)
        return Response(text, media_type=CONTENT_TYPE_LATEST)

    def _collected(self) -> CollectorRegistry:
        """This app's registry, or every worker's files in multiprocess mode."""
        folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if not folder:
            return self.registry
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
        return registry


class MetricsMiddleware:
    """Counts and times every request by its route template (not its raw path, which
    would make one series per game)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        self.metrics.in_flight.inc()

        async def recording_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, recording_send)
        finally:
            self.metrics.in_flight.dec()
            route = scope.get("route")
            template = getattr(route, "path", UNMATCHED_ROUTE)
            self.metrics.observe_request(
                template, scope["method"], status, time.perf_counter() - start
            )
