"""The engine's Prometheus metrics: each RPC by method and status code, refusals by
reason, and the searches (queue, wait, run time, processes replaced).

Each server process counts for itself; `metrics_server` serves them. With several
worker processes (ENGINE_WORKERS > 1) every worker writes its counts into files in
PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode, chosen by the library
when that variable is set before it is first imported) and the supervisor serves the
sums over every worker. The label children the hot path uses are kept in plain dicts,
so that counting a call costs a dict lookup and an observation.

Names follow Prometheus' conventions (base units, `_total` on counters); the list with
what each means is in docs/operations.md, "Observing it".
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

# RPC times: a move takes a fraction of a millisecond, a search up to seconds.
RPC_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
SEARCH_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class EngineMetrics:
    """One server process's metrics, in `registry` (a registry of its own by default,
    so that several engines can live in one process, as in the tests)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rpc_duration = Histogram(
            "patience_engine_rpc_duration_seconds",
            "Time to answer an RPC, by method and gRPC status code",
            ["method", "code"],
            buckets=RPC_BUCKETS,
            registry=r,
        )
        self.refusals = Counter(
            "patience_engine_refusals",
            "Requests refused, by method and reason (docs/errors.md); the states refused "
            "are the reasons MALFORMED_STATE, STATE_SEAL_INVALID, STATE_KEY_UNKNOWN, "
            "INVALID_STATE",
            ["method", "reason"],
            registry=r,
        )
        self.search_queue = Gauge(
            "patience_engine_search_queue_length",
            "Searches waiting for a search process",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.search_queue_capacity = Gauge(
            "patience_engine_search_queue_capacity",
            "Searches that may wait for a search process (ENGINE_SOLVER_QUEUE per server process)",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.searches_running = Gauge(
            "patience_engine_searches_running",
            "Searches running in a search process now",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.search_processes = Gauge(
            "patience_engine_search_processes",
            "Search processes (ENGINE_SOLVER_PROCESSES per server process)",
            registry=r,
            multiprocess_mode="livesum",
        )
        self.search_wait = Histogram(
            "patience_engine_search_wait_seconds",
            "Time a search waited for a search process, by kind (hint, solve)",
            ["kind"],
            buckets=SEARCH_BUCKETS,
            registry=r,
        )
        self.search_duration = Histogram(
            "patience_engine_search_duration_seconds",
            "Time a search process took over a search, by kind (hint, solve)",
            ["kind"],
            buckets=SEARCH_BUCKETS,
            registry=r,
        )
        self.search_processes_replaced = Counter(
            "patience_engine_search_processes_replaced",
            "Search processes that died (killed, out of memory) and were replaced",
            registry=r,
        )
        self.hints = Counter(
            "patience_engine_hints",
            "Hints answered, by how: searched, remembered (the answer of a search of the "
            "same position), shared (the search of the same hint under way) or continued "
            "(the next move of the line of the game's previous hint)",
            ["answer"],
            registry=r,
        )
        self._rpcs: dict[tuple[str, str], Any] = {}

    def rpc(self, method: str, code: str, seconds: float) -> None:
        key = (method, code)
        child = self._rpcs.get(key)
        if child is None:
            child = self._rpcs[key] = self.rpc_duration.labels(method, code)
        child.observe(seconds)

    def refused(self, method: str, reason: str) -> None:
        self.refusals.labels(method, reason).inc()

    # The search pool's observer (`searches.SearchObserver`).
    def searches_started(self, processes: int, queue_limit: int) -> None:
        self.search_processes.set(processes)
        self.search_queue_capacity.set(queue_limit)

    def queue_changed(self, waiting: int, running: int) -> None:
        self.search_queue.set(waiting)
        self.searches_running.set(running)

    def search_waited(self, kind: str, seconds: float) -> None:
        self.search_wait.labels(kind).observe(seconds)

    def search_ran(self, kind: str, seconds: float) -> None:
        self.search_duration.labels(kind).observe(seconds)

    def search_process_replaced(self) -> None:
        self.search_processes_replaced.inc()

    # The hint answers' observer (`hint_answers.HintObserver`).
    def hint_answered(self, how: str) -> None:
        self.hints.labels(how).inc()
