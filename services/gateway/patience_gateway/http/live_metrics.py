"""Figures read from the gateway's processes at each scrape, which no worker counts: the
processes' own (CPU, memory, open files: prometheus_client's `ProcessCollector`, which
reads /proc for one process at a time) and what was built.

    process_cpu_seconds_total{pid}           CPU time of each process of the gateway
    process_resident_memory_bytes{pid}       and the other process_* of ProcessCollector,
    process_open_fds{pid}, process_max_fds{pid}   one series per process (label `pid`)
    patience_gateway_build_info{version, commit}  1: the running version

Under `patience-gateway` the processes are its main process and every worker it started
(the main process is the workers' parent), whichever of them answers the scrape; an app
run in another process (the tests, a bench) reports that process alone. A process that
stops between the listing and the reading is left out of that scrape.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
from collections.abc import Iterable
from pathlib import Path

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

_PROC = Path("/proc")


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux's /proc; none elsewhere)."""
    found = []
    for stat in _PROC.glob("[0-9]*/stat"):
        try:
            # the command's name, in parentheses, may hold spaces: the fields follow it
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(stat.parent.name))
    return sorted(found)


class GatewayProcesses(Collector):
    """The process_* figures of the process `main` and, with `workers`, of its
    children; of this process alone when `main` is None."""

    def __init__(self, main: int | None = None, *, workers: bool = False) -> None:
        self.main = main
        self.workers = workers

    def pids(self) -> list[int]:
        if self.main is None:
            return [os.getpid()]
        return [self.main, *children_of(self.main)] if self.workers else [self.main]

    def collect(self) -> Iterable[Metric]:
        families: dict[str, Metric] = {}
        for pid in self.pids():
            reader = ProcessCollector(pid=functools.partial(int, pid), registry=None)
            for family in reader.collect():
                merged = families.setdefault(
                    family.name, Metric(family.name, family.documentation, family.type)
                )
                for sample in family.samples:
                    merged.add_sample(sample.name, {**sample.labels, "pid": str(pid)}, sample.value)
        return families.values()


def served_processes() -> GatewayProcesses:
    """This process's view: a worker of `patience-gateway` (its metrics kept in
    PROMETHEUS_MULTIPROC_DIR, set by the main process before any worker starts) reports
    its parent, the main process, and every worker; any other process itself."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return GatewayProcesses(os.getppid(), workers=True)
    return GatewayProcesses()


class BuildInfo(Collector):
    """patience_gateway_build_info: the package's version and the source commit the
    image was built from (PATIENCE_COMMIT; empty when not known)."""

    def __init__(self, commit: str = "") -> None:
        self.version = importlib.metadata.version("patience-gateway")
        self.commit = commit

    def collect(self) -> Iterable[Metric]:
        info = GaugeMetricFamily(
            "patience_gateway_build_info",
            "The running gateway's version and source commit (value 1)",
            labels=["version", "commit"],
        )
        info.add_metric([self.version, self.commit], 1)
        yield info
