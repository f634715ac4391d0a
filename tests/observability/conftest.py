"""Fixtures of the observability tests: Prometheus's tools (Debian's prometheus package,
`make prometheus`), `patience serve` started by the test, and the URLs it names.

Without prometheus or promtool on PATH the tests that need them are skipped with the
reason, except on CI (CI=true), where they fail: they must never be skipped silently
there."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from patience_launcher.addresses import free_port

from tests.launcher.launcher_run import LauncherRun, serve_args

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS_FOLDER = ROOT / "deploy" / "prometheus"


def tool(name: str) -> str:
    """The path of a Prometheus tool; skips (fails on CI) when it is missing."""
    path = shutil.which(name)
    if path is None:
        reason = f"no {name} on PATH: install Debian's prometheus package (make prometheus)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def promtool() -> str:
    return tool("promtool")


@pytest.fixture(scope="session")
def prometheus() -> str:
    return tool("prometheus")


@dataclass(frozen=True)
class Served:
    """A `patience serve` of the test's own, and where its metrics are scraped."""

    run: LauncherRun
    rest: str
    gateway_metrics: str
    engine_metrics: str


_METRICS = re.compile(r"Metrics\s+(\S+) \(gateway\), (\S+) \(engine\)")


def start_serve(folder: Path, env: dict[str, str]) -> Iterator[Served]:
    """`patience serve` (one engine and one gateway process, an embedded Redis and
    PostgreSQL, its data in a temporary folder) with `env` over this environment."""
    from tests.launcher.launcher_run import clean_env

    run = LauncherRun(serve_args(free_port(), free_port(), "--ephemeral"), folder, clean_env(**env))
    try:
        run.wait_ready()
        match = _METRICS.search(run.stdout)
        assert match, run.output()
        yield Served(
            run, run.banner_value("REST API").removesuffix("/v1"), match.group(1), match.group(2)
        )
    finally:
        if run.process.poll() is None:
            run.interrupt()
        run.cleanup()
