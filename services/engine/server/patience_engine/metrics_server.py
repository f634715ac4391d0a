"""The engine's metrics over HTTP (ENGINE_METRICS_PORT, on the host of ENGINE_LISTEN):
`GET /metrics` in Prometheus' text format, from a thread of the process that serves it.

One server process serves its own registry, with the process's own figures (CPU,
memory, start time: `process_*`). A supervisor of several worker processes gives its
workers a folder for their metrics files (`worker_files`) and serves the sums over
every worker, with its own `process_*` figures and the workers it restarted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from http.server import HTTPServer

from prometheus_client import CollectorRegistry, ProcessCollector, start_http_server
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def serve_metrics(host: str, port: int, registry: CollectorRegistry) -> HTTPServer:
    """Serves `registry` on host:port until the server is shut down (or the process
    ends: the thread is a daemon)."""
    server, _ = start_http_server(port, addr=host, registry=registry)
    return server


def own_registry(registry: CollectorRegistry) -> CollectorRegistry:
    """`registry` (one process's metrics) with that process's own figures."""
    ProcessCollector(registry=registry)
    return registry


@contextlib.contextmanager
def worker_files() -> Iterator[str]:
    """A folder of this run for the workers' metrics files, named in the environment
    the workers inherit (prometheus_client reads it when they first import it); removed
    on exit. A folder inherited from the environment is not used: it may be another
    program's (a gateway's)."""
    folder = tempfile.mkdtemp(prefix="patience-engine-metrics-")
    inherited = os.environ.get(MULTIPROC_ENV)
    os.environ[MULTIPROC_ENV] = folder
    try:
        yield folder
    finally:
        if inherited is None:
            del os.environ[MULTIPROC_ENV]
        else:
            os.environ[MULTIPROC_ENV] = inherited
        shutil.rmtree(folder, ignore_errors=True)


class WorkerRestarts(Collector):
    """The worker processes the supervisor restarted after they died."""

    def __init__(self) -> None:
        self.count = 0

    def collect(self) -> Iterable[Metric]:
        family = CounterMetricFamily(
            "patience_engine_worker_restarts",
            "Engine worker processes that died and were started again",
        )
        family.add_metric([], self.count)
        yield family


def supervisor_registry(folder: str, restarts: WorkerRestarts) -> CollectorRegistry:
    """The sums over every worker's files in `folder`, the supervisor's own process
    figures and its restarts."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
    ProcessCollector(registry=registry)
    registry.register(restarts)
    return registry


def worker_died(folder: str, pid: int) -> None:
    """Leaves a dead worker's gauges out of the sums (its counters stay counted)."""
    mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]
