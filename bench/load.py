"""The Locust load test, headless and bounded: `python -m bench.load --users 20
--spawn-rate 5 --run-time 60s [--host URL]`.

Without --host it starts its own stack on loopback (Redis, engine, gateway) and stops
it afterwards; with --host it loads that URL, which must be the user's own. Locust
runs in a child process (it patches the standard library with gevent) and its CSV
summary is turned into a Markdown table: bench/results/load.md, and a section of
bench/results/latest.md when run from `python -m bench`.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.procs import REPO_ROOT
from bench.report import Report, Section, fmt
from bench.stack import Stack

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
RESULTS = Path(__file__).with_name("results")


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


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def read_csv(prefix: Path, result: LoadResult) -> None:
    with open(f"{prefix}_stats.csv", newline="") as stats:
        for record in csv.DictReader(stats):
            result.rows.append(
                LoadRow(
                    name=record["Name"],
                    requests=int(record["Request Count"]),
                    failures=int(record["Failure Count"]),
                    rate=_number(record["Requests/s"]),
                    p50=_number(record["50%"]),
                    p95=_number(record["95%"]),
                    p99=_number(record["99%"]),
                    max=_number(record["Max Response Time"]),
                )
            )
    failures_path = Path(f"{prefix}_failures.csv")
    if failures_path.exists():
        with open(failures_path, newline="") as failures:
            for record in csv.DictReader(failures):
                result.failures.append(
                    (record["Name"], record["Error"], int(record["Occurrences"]))
                )
    exceptions_path = Path(f"{prefix}_exceptions.csv")
    if exceptions_path.exists():
        with open(exceptions_path, newline="") as exceptions:
            for record in csv.DictReader(exceptions):
                result.exceptions.append((int(record["Count"]), record["Message"]))


def run_locust(host: str, users: int, spawn_rate: float, run_time: str) -> LoadResult:
    seconds = parse_run_time(run_time)
    result = LoadResult(host, users, spawn_rate, run_time)
    with tempfile.TemporaryDirectory(prefix="bench-locust-") as tmp:
        prefix = Path(tmp) / "locust"
        args = [
            sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless",
            "--users", str(users), "--spawn-rate", str(spawn_rate), "--run-time", run_time,
            "--host", host, "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING",
            "--stop-timeout", "5", "--exit-code-on-error", "0",
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        completed = subprocess.run(
            args, cwd=REPO_ROOT, env=env, capture_output=True, text=True,
            timeout=seconds + 120,
        )  # fmt: skip
        if completed.returncode != 0 or not Path(f"{prefix}_stats.csv").exists():
            raise RuntimeError(
                f"locust exited with {completed.returncode}:\n{completed.stderr[-3000:]}"
            )
        read_csv(prefix, result)
    if not any(row.requests for row in result.rows):
        problems = "; ".join(message for _, message in result.exceptions[:3])
        raise RuntimeError(
            f"locust made no request ({problems or 'no exception recorded'}):\n"
            f"{completed.stderr[-3000:]}"
        )
    return result


def run_load(
    *, users: int, spawn_rate: float, run_time: str, host: str | None, engine_workers: int = 1
) -> LoadResult:
    if host:
        return run_locust(host, users, spawn_rate, run_time)
    with Stack(engine_workers=engine_workers) as stack:
        assert stack.gateway is not None
        return run_locust(stack.gateway.base_url, users, spawn_rate, run_time)


def write_load(report: Report, section: Section, result: LoadResult) -> None:
    section.note(
        f"Locust (FastHttpUser, geventhttpclient), headless: {result.users} users spawned at"
        f" {result.spawn_rate:g}/s for {result.run_time} against {result.host}. Mix per"
        " player: create 1, view 3, legal moves 3, move 6 (a listed legal move, If-Match),"
        " undo 1; a 0-50 ms pause between tasks. Latencies in ms."
    )
    table = section.table("request", "count", "failures", "req/s", "p50", "p95", "p99", "max")
    for row in result.rows:
        table.add(
            row.name, row.requests, row.failures, fmt(row.rate), fmt(row.p50, 0),
            fmt(row.p95, 0), fmt(row.p99, 0), fmt(row.max, 0),
        )  # fmt: skip
    total = result.total
    report.figure("load.requests", total.requests)
    report.figure("load.failures", total.failures)
    report.figure("load.rate", total.rate)
    report.figure("load.p50_ms", total.p50)
    report.figure("load.p95_ms", total.p95)
    report.figure("load.p99_ms", total.p99)
    report.figure("load.exceptions", sum(count for count, _ in result.exceptions))
    if result.failures:
        failures = section.table("failed request", "error", "occurrences")
        for name, error, count in result.failures[:10]:
            failures.add(name, error[:120], count)
    if result.exceptions:
        exceptions = section.table("exception in the locustfile", "count")
        for count, message in result.exceptions[:10]:
            exceptions.add(message[:160], count)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--spawn-rate", type=float, default=5.0)
    parser.add_argument("--run-time", default="60s", help="e.g. 60s, 2m (default 60s)")
    parser.add_argument(
        "--host", help="gateway base URL to load (your own); default: start a stack on loopback"
    )
    parser.add_argument("--engine-workers", type=int, default=1)
    parser.add_argument("--output-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    parse_run_time(args.run_time)  # a bad value fails before anything starts
    result = run_load(
        users=args.users, spawn_rate=args.spawn_rate, run_time=args.run_time,
        host=args.host, engine_workers=args.engine_workers,
    )  # fmt: skip
    report = Report(title="patience-engine: load test")
    write_load(report, report.section("Load test (Locust)"), result)
    md_path, _ = report.write(args.output_dir, stem="load")
    print(report.markdown())
    print(f"written: {md_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
