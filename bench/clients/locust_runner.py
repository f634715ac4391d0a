"""Locust run headless in child processes (it patches the standard library with
gevent), with bench/clients/locustfile.py, and its final statistics read back per
request name."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patience_launcher.addresses import free_port

from bench.harness.paths import REPO_ROOT

LOCUSTFILE = Path(__file__).with_name("locustfile.py")


@dataclass
class LoadRow:
    name: str
    requests: int
    failures: int
    rate: float
    p50: float
    p95: float
    p99: float
    max: float


@dataclass
class LoadResult:
    host: str
    users: int
    spawn_rate: float
    run_time: str
    processes: int = 1
    rows: list[LoadRow] = field(default_factory=list)
    failures: list[tuple[str, str, int]] = field(default_factory=list)
    # exceptions raised inside the locustfile's tasks (a bug there, or an answer it
    # could not read): (count, message)
    exceptions: list[tuple[int, str]] = field(default_factory=list)

    @property
    def total(self) -> LoadRow:
        return next(row for row in self.rows if row.name == "Aggregated")


def parse_run_time(text: str) -> float:
    """Locust's run-time syntax (`90`, `60s`, `2m`, `1h30m`) in seconds."""
    total, number = 0.0, ""
    units = {"h": 3600, "m": 60, "s": 1}
    for char in text.strip():
        if char.isdigit() or char == ".":
            number += char
        elif char in units and number:
            total, number = total + float(number) * units[char], ""
        else:
            raise ValueError(f"bad run time {text!r}: use e.g. 60s, 2m, 1h30m")
    return total + (float(number) if number else 0.0)


def _percentile(times: dict[int, int], fraction: float) -> float:
    """Nearest-rank percentile of Locust's response-time histogram (ms -> count)."""
    total = sum(times.values())
    if total == 0:
        return float("nan")
    rank, seen = max(1, math.ceil(fraction * total)), 0
    for millis in sorted(times):
        seen += times[millis]
        if seen >= rank:
            return float(millis)
    return float(max(times))


def _row(name: str, entries: list[dict[str, Any]], seconds: float) -> LoadRow:
    times: dict[int, int] = {}
    for entry in entries:
        for millis, count in entry["response_times"].items():
            times[int(float(millis))] = times.get(int(float(millis)), 0) + int(count)
    requests = sum(int(entry["num_requests"]) for entry in entries)
    return LoadRow(
        name=name,
        requests=requests,
        failures=sum(int(entry["num_failures"]) for entry in entries),
        rate=requests / seconds if seconds > 0 else float("nan"),
        p50=_percentile(times, 0.50),
        p95=_percentile(times, 0.95),
        p99=_percentile(times, 0.99),
        max=max((float(entry["max_response_time"]) for entry in entries), default=float("nan")),
    )


def read_stats(prefix: Path, result: LoadResult, run_seconds: float) -> None:
    """Per request name and aggregated, from Locust's final JSON stats: written once
    the run is over (its CSV summary can miss the last second's requests on a slow
    machine). Rates are over the time the requests spanned."""
    entries: list[dict[str, Any]] = json.loads(Path(f"{prefix}.json").read_text())
    starts = [float(entry["start_time"]) for entry in entries if entry["num_requests"]]
    ends = [float(entry["last_request_timestamp"]) for entry in entries if entry["num_requests"]]
    seconds = max(ends) - min(starts) if starts else run_seconds
    seconds = seconds if seconds > 0 else run_seconds
    by_name: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        by_name.setdefault(entry["name"], []).append(entry)
    for name in sorted(by_name):
        result.rows.append(_row(name, by_name[name], seconds))
    result.rows.append(_row("Aggregated", entries, seconds))


def read_csv(prefix: Path, kind: str) -> list[dict[str, str]]:
    """The failure or exception details Locust writes beside its stats."""
    path = Path(f"{prefix}_{kind}.csv")
    if not path.exists():
        return []
    with open(path, newline="") as details:
        return list(csv.DictReader(details))


def run_locust(
    host: str, users: int, spawn_rate: float, run_time: str, processes: int = 1
) -> LoadResult:
    """Locust against `host`; with processes > 1, a master and that many worker
    processes (each its own core), so that the load generator is not the limit. The
    workers are started apart from the master, not with Locust's --processes, whose
    forked workers would each write the summary file too, over the master's. A worker
    reports every 3 s: a distributed run needs a longer run time, and its rates are
    over the time its reported requests span."""
    seconds = parse_run_time(run_time)
    result = LoadResult(host, users, spawn_rate, run_time, processes)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    locust = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--loglevel", "WARNING"]
    with tempfile.TemporaryDirectory(prefix="bench-locust-") as tmp, ExitStack() as workers:
        prefix = Path(tmp) / "locust"
        args = [
            *locust, "--headless",
            "--users", str(users), "--spawn-rate", str(spawn_rate), "--run-time", run_time,
            "--host", host, "--csv", str(prefix), "--only-summary",
            "--stop-timeout", "5", "--exit-code-on-error", "0",
            "--json-file", str(prefix),
        ]  # fmt: skip
        if processes > 1:
            port = free_port()
            args += [
                "--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(port),
                "--expect-workers", str(processes), "--expect-workers-max-wait", "120",
            ]  # fmt: skip
            worker = [*locust, "--worker", "--master-host", "127.0.0.1", "--master-port", str(port)]
            for _ in range(processes):
                workers.enter_context(_worker(worker, env))
        completed = subprocess.run(
            args, cwd=REPO_ROOT, env=env, capture_output=True, text=True,
            timeout=seconds + 180,
        )  # fmt: skip
        if completed.returncode != 0 or not Path(f"{prefix}.json").exists():
            raise RuntimeError(
                f"locust exited with {completed.returncode}:\n{completed.stderr[-3000:]}"
            )
        read_stats(prefix, result, seconds)
        for record in read_csv(prefix, "failures"):
            result.failures.append((record["Name"], record["Error"], int(record["Occurrences"])))
        for record in read_csv(prefix, "exceptions"):
            result.exceptions.append((int(record["Count"]), record["Message"]))
    if not any(row.requests for row in result.rows):
        problems = "; ".join(message for _, message in result.exceptions[:3])
        raise RuntimeError(
            f"locust made no request ({problems or 'no exception recorded'}):\n"
            f"{completed.stderr[-3000:]}"
        )
    return result


@contextmanager
def _worker(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """A Locust worker; it leaves when the master quits, and is ended if it does not."""
    process = subprocess.Popen(
        args, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        yield process
    finally:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
