"""The measured-speed suite still runs end to end: `python -m bench --quick` with tiny
counts starts its own Redis, engine, gateway and Locust on loopback and produces every
figure. Only that figures exist and are positive is checked, never how fast anything
was: speed depends on the machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# One worker takes the whole module, so the quick run (some 90 s) runs once and
# not once per worker that got one of its tests; the fixture lasts the session, since
# that worker may run other modules' tests between these two.
pytestmark = [
    pytest.mark.xdist_group("bench"),
    # the quick run is part of the first test's setup: some 90 s on a quiet two-core
    # machine, two to three times that with other work beside it, so the suite's five
    # minutes a test would be too close
    pytest.mark.timeout(900),
]

TINY = [
    "--quick",
    "--seconds", "0.3",
    "--warmup", "0.1",
    "--rounds", "1",
    "--rules-states", "2",
    "--rules-seconds", "0.05",
    "--solver-deals", "1",
    "--solver-seconds", "0.2",
    "--solver-rate-nodes", "2000",
    "--engine-workers", "1",
    "--engine-concurrency", "2",
    "--gateway-concurrency", "2",
    "--sweep", "1,2",
    "--sweep-seconds", "0.2",
    "--games-per-client", "1",
    "--growth-late", "60",
    "--memory-after", "10,50",
    "--growth-window", "5",
    "--load-users", "2",
    "--load-spawn-rate", "2",
    "--load-run-time", "2s",
    "--scaling-levels", "1",
    "--probe-slow-clients", "20",
    "--probe-slow-seconds", "1",
    "--leaderboard-players", "300",
    "--crowding-clients", "2",
    "--crowding-seconds", "0.3",
    "--crowding-hints-per-second", "2",
    "--accounts-sign-ins", "10",
]  # fmt: skip

# one figure of each kind that every part must produce
EXPECTED = [
    "rules.bisley.legal_moves_us",
    "rules.house-on-the-hill.apply_us",
    "rules.cody.playout_steps_per_s",
    "solver.bisley.nodes_per_s",
    "solver.napoleon-at-st-helena.library_positions_per_s",
    "solver.cody.decided",
    "solver_rpc.napoleon-at-st-helena.flood_one_p99_ms",
    "solver_rpc.bisley.flood_each_p99_ms",
    "engine.w1.unsealed.apply.rate",
    "engine.w1.unsealed.empty.rate",
    "engine.w1.sealed.apply.p99_ms",
    "engine.w1.sealed.ratio",
    "gateway.gateway.rate",
    "gateway.bare.rate",
    "gateway.gateway.p95_ms",
    "gateway.ratio",
    "gateway.sweep.c1.rate",
    "gateway.sweep.c2.rate",
    "redis.ping_x1.rate",
    "growth.early.median_ms",
    "growth.late.median_ms",
    "growth.late_undo.median_ms",
    "growth.memory_after_10.bytes",
    "growth.memory_after_50.bytes",
    "load.requests",
    "load.rate",
    "load.p95_ms",
    "cluster.script.noderunner.client_cpu_us",
    "cluster.script.redis_evalsha.client_cpu_us",
    "cluster.script.rediscluster_evalsha.client_cpu_us",
    "cluster.nowait.rate",
    "cluster.wait.rate",
    "cluster.drill.w1r1.unavailable",
    "cluster.drill.w1r1.replaced_s",
    "scaling.p1.rate",
    "scaling.p1.gateway_us",
    "scaling.p1.engine_us",
    "scaling.p1.client_us",
    "probes.short_body.status",
    "probes.headers_200.refused",
    "probes.long_line.refused",
    "probes.silent.seconds",
    "probes.idle.seconds",
    "probes.slow.baseline.p99_ms",
    "probes.slow.loaded.p99_ms",
    "leaderboards.players",
    "leaderboards.c1.top.rate",
    "leaderboards.c1.me.p99_ms",
    "leaderboards.step.total_us",
    "crowding.quiet.rate",
    "crowding.pools_filling.p99_ms",
    "crowding.pools_filling_hints.p99_ms",
    "accounts.link.p50_ms",
    "accounts.identity_rs256.cpu_ms",
    "accounts.identity_es256.p99_ms",
]


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, float], str]:
    out = tmp_path_factory.mktemp("bench")
    completed = subprocess.run(
        [sys.executable, "-m", "bench", *TINY, "--output-dir", str(out)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=840,  # a crowded two-core machine takes two to three times as long
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    figures = json.loads((out / "latest.json").read_text())
    return figures, (out / "latest.md").read_text()


def test_every_part_produces_positive_figures(quick_run: tuple[dict[str, float], str]) -> None:
    figures, report = quick_run
    missing = [name for name in EXPECTED if name not in figures]
    assert not missing, f"figures not produced: {missing}"
    not_positive = {name: figures[name] for name in EXPECTED if not figures[name] > 0}
    # the errors the measurements met say why a figure is zero
    errors = [line for line in report.splitlines() if line.startswith("First error")]
    assert not not_positive, f"figures not positive: {not_positive}; {errors}"


def test_no_request_failed(quick_run: tuple[dict[str, float], str]) -> None:
    figures, _ = quick_run
    assert figures["load.failures"] == 0
    assert figures["load.exceptions"] == 0
    # a primary failing over with WAIT: 503s only, nothing acknowledged lost
    assert figures["cluster.drill.w1r1.others"] == 0
    assert figures["cluster.drill.w1r1.lost"] == 0


def test_markdown_has_every_section(quick_run: tuple[dict[str, float], str]) -> None:
    _, markdown = quick_run
    for title in (
        "## Rules library",
        "## Solver",
        "## Engine over gRPC",
        "## Gateway over HTTP",
        "## Cost as work grows",
        "## Load test (Locust)",
        "## Redis Cluster",
        "## Scaling with processes",
        "## HTTP limits",
        "## Leaderboard reads",
        "## Searches beside moves",
    ):
        assert title in markdown
    assert "Not measured" not in markdown
