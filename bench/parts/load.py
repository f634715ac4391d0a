"""`python -m bench` part "load": the Locust load test, headless and bounded, through
the stack it shares with the gateway and growth parts.

Alone: `python -m bench.parts.load --users 20 --spawn-rate 5 --run-time 60s [--host URL]`.
Without --host it starts its own stack on loopback (Redis, engine, gateway) and stops
it afterwards; with --host it loads that URL, which must be the user's own. Locust runs
in child processes (bench/clients/locust_runner.py) and its summary is turned into a
Markdown table: bench/results/load.md alone, a section of bench/results/latest.md
from `python -m bench`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import astuple
from pathlib import Path

from bench.clients.locust_runner import LoadResult, parse_run_time, run_locust
from bench.harness.paths import RESULTS
from bench.harness.report import Column, Report, Section
from bench.harness.servers import stop_servers_on_sigterm
from bench.harness.settings import Settings
from bench.harness.stack import Stack


def run(report: Report, settings: Settings, stack: Stack | None) -> None:
    assert stack is not None, "load needs the shared stack"
    result = run_locust(
        stack.base_url,
        settings.load_users,
        settings.load_spawn_rate,
        settings.load_run_time,
        settings.load_processes,
    )
    write_load(report.section("Load test (Locust)"), result)


def write_load(section: Section, result: LoadResult) -> None:
    processes = result.processes
    generator = f"a master and {processes} worker processes" if processes > 1 else "one process"
    section.note(
        f"Locust (FastHttpUser, geventhttpclient), headless, {generator}:"
        f" {result.users} users spawned at"
        f" {result.spawn_rate:g}/s for {result.run_time} against {result.host}. Mix per"
        " player: create 1, view 3, legal moves 3, move 6 (a listed legal move, If-Match),"
        " undo 1; a 0-50 ms pause between tasks. Latencies in ms."
    )
    latencies = (Column(name, 0) for name in ("p50", "p95", "p99", "max"))
    table = section.table("request", "count", "failures", "req/s", *latencies)
    for row in result.rows:
        table.add(*astuple(row))
    total = result.total
    section.record(
        "load", requests=total.requests, failures=total.failures, rate=total.rate,
        p50_ms=total.p50, p95_ms=total.p95, p99_ms=total.p99,
        exceptions=sum(count for count, _ in result.exceptions),
    )  # fmt: skip
    if result.failures:
        failures = section.table("failed request", "error", "occurrences")
        for name, error, count in result.failures[:10]:
            failures.add(name, error[:120], count)
    if result.exceptions:
        exceptions = section.table("count", "exception in the locustfile")
        for count, message in result.exceptions[:10]:
            exceptions.add(count, message[:160])


def main(argv: list[str] | None = None) -> int:
    stop_servers_on_sigterm()
    parser = argparse.ArgumentParser(prog="python -m bench.parts.load", description=__doc__)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--spawn-rate", type=float, default=5.0)
    parser.add_argument("--run-time", default="60s", help="e.g. 60s, 2m (default 60s)")
    parser.add_argument(
        "--host", help="gateway base URL to load (your own); default: start a stack on loopback"
    )
    parser.add_argument("--engine-workers", type=int, default=1)
    parser.add_argument(
        "--processes", type=int, default=1, help="Locust worker processes under a master"
    )
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    parse_run_time(args.run_time)  # a bad value fails before anything starts
    load = (args.users, args.spawn_rate, args.run_time, args.processes)
    if args.host:
        result = run_locust(args.host, *load)
    else:
        with Stack(engine_workers=args.engine_workers) as stack:
            result = run_locust(stack.base_url, *load)
    report = Report(title="patience-engine: load test")
    write_load(report.section("Load test (Locust)"), result)
    md_path, _ = report.write(args.output_dir, stem="load")
    print(report.markdown())
    print(f"written: {md_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
