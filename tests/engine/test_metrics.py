"""The engine's metrics: each RPC timed by method and status code, refusals by reason,
the searches' queue, waits and run times; served over HTTP (ENGINE_METRICS_PORT) by a
server alone, or by a supervisor summing its workers' (and counting the workers it
restarted)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from patience_contract.client import EngineClient, EngineError
from patience_engine.server import EngineConfig
from patience_launcher.addresses import free_port
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from tests.engine.helpers import EngineThread
from tests.engine.test_entry_point import PATIENCE_SECONDS, serving_lines, wait_for

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parsed(text: str) -> Samples:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture(scope="module")
def counted() -> Iterator[EngineThread]:
    engine = EngineThread(EngineConfig(listen="127.0.0.1:0", workers=1)).start()
    yield engine
    engine.stop()


async def test_rpcs_refusals_and_searches_are_counted(counted: EngineThread) -> None:
    async with EngineClient(counted.target, timeout=30) as client:
        game = await client.new_game("bisley", deal=7)
        await client.apply_move(game.state, "t6-f3")
        with pytest.raises(EngineError):
            await client.apply_move(game.state, "t1-t1")
        with pytest.raises(EngineError):
            await client.new_game("nope")
        await client.hint(game.state)
    assert counted.running is not None
    samples = parsed(generate_latest(counted.running.metrics.registry).decode())
    rpcs = "patience_engine_rpc_duration_seconds_count"
    assert value(samples, rpcs, method="NewGame", code="OK") == 1
    assert value(samples, rpcs, method="ApplyMove", code="OK") == 1
    assert value(samples, rpcs, method="ApplyMove", code="FAILED_PRECONDITION") == 1
    assert value(samples, rpcs, method="NewGame", code="NOT_FOUND") == 1
    assert value(samples, rpcs, method="Hint", code="OK") == 1
    refusals = "patience_engine_refusals_total"
    assert value(samples, refusals, method="ApplyMove", reason="ILLEGAL_MOVE") == 1
    assert value(samples, refusals, method="NewGame", reason="UNKNOWN_VARIANT") == 1
    assert value(samples, "patience_engine_search_wait_seconds_count", kind="hint") == 1
    assert value(samples, "patience_engine_search_duration_seconds_count", kind="hint") == 1
    assert value(samples, "patience_engine_search_processes") == 1
    assert value(samples, "patience_engine_search_queue_capacity") == 4
    assert value(samples, "patience_engine_search_queue_length") == 0
    assert value(samples, "patience_engine_searches_running") == 0


def scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return parsed(answer.read().decode())


@pytest.mark.parametrize("workers", [1, 2])
def test_the_metrics_are_served_summed_over_the_workers(tmp_path: Path, workers: int) -> None:
    metrics_port = free_port()
    log = tmp_path / "engine.log"
    env = {
        **os.environ,
        "ENGINE_LISTEN": "127.0.0.1:0",
        "ENGINE_WORKERS": str(workers),
        "ENGINE_METRICS_PORT": str(metrics_port),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "patience_engine"], env=env, stdout=sink, stderr=sink
        )
    try:
        wait_for(lambda: len(serving_lines(log)) >= workers, "the workers to serve")
        searches = "patience_engine_search_processes"
        wait_for(lambda: value(scrape(metrics_port), searches) == workers, "every worker's figures")
        samples = scrape(metrics_port)
        assert value(samples, "patience_engine_search_queue_capacity") == 4 * workers
        assert value(samples, "process_start_time_seconds") > 0
        if workers == 2:
            victim = serving_lines(log)[0][1]
            os.kill(victim, signal.SIGKILL)
            wait_for(lambda: len(serving_lines(log)) >= 3, "a replacement worker")
            restarts = "patience_engine_worker_restarts_total"
            wait_for(lambda: value(scrape(metrics_port), restarts) == 1, "the restart counted")
            # the dead worker's gauges left the sums; its replacement's came in
            wait_for(lambda: value(scrape(metrics_port), searches) == 2, "two search processes")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=PATIENCE_SECONDS) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
