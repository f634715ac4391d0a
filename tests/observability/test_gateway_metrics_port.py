"""The gateway's metrics on a port of their own (GATEWAY_METRICS_PORT), as the Kubernetes
manifests run it: `python -m patience_gateway` with two workers, the suite's Redis,
PostgreSQL and engine. The metrics port answers for every worker (their requests summed),
with what is read from Redis and PostgreSQL at the scrape, the CPU, memory and open files
of the main process and of each worker, the requests in flight and the build; the API
port no longer answers /metrics; the text passes `promtool check metrics`; and a second
gateway given the same metrics port stops at once, naming it. `patience serve` keeps the
gateway's /metrics on its API port, where its banner says it is, whatever the
environment says."""

from __future__ import annotations

import importlib.metadata
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
from patience_launcher.addresses import free_port
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from tests.gateway.engines import EngineThread
from tests.observability.conftest import start_serve

# the module's tests share its served stack: on one worker it starts once
pytestmark = pytest.mark.xdist_group("metrics-port")

WORKERS = 2
WAIT = 60.0
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class Gateway:
    process: subprocess.Popen[bytes]
    log: Path
    api: str
    metrics: str

    def samples(self) -> dict[str, list[Sample]]:
        text = httpx.get(self.metrics, timeout=WAIT).text
        found: dict[str, list[Sample]] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                found.setdefault(sample.name, []).append(sample)
        return found


def environment(redis_url: str, database_url: str, engine: EngineThread) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "ENGINE_ADDR": engine.target,
        "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_WORKERS": str(WORKERS),
        # a request held waiting for its body is the one in flight below
        "GATEWAY_BODY_TIMEOUT_SECONDS": str(int(WAIT)),
        "WINNABLE_POOL_SIZE": "0",
        "PATIENCE_COMMIT": COMMIT,
        "LOG_LEVEL": "warning",
    }


def start(env: dict[str, str], api_port: int, metrics_port: int, log: Path) -> Gateway:
    env = {**env, "GATEWAY_PORT": str(api_port), "GATEWAY_METRICS_PORT": str(metrics_port)}
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "patience_gateway"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    return Gateway(
        process,
        log,
        f"http://127.0.0.1:{api_port}",
        f"http://127.0.0.1:{metrics_port}/metrics",
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def gateway(
    redis_url: str,
    database_url: str,
    engine: EngineThread,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Gateway]:
    folder = tmp_path_factory.mktemp("gateway")
    env = environment(redis_url, database_url, engine)
    gateway = start(env, free_port(), free_port(), folder / "gateway.log")
    try:
        deadline = time.monotonic() + 90
        while len(psutil.Process(gateway.process.pid).children()) < WORKERS or not _answers(
            gateway
        ):
            assert gateway.process.poll() is None, gateway.log.read_text()
            assert time.monotonic() < deadline, gateway.log.read_text()
            time.sleep(0.1)
        yield gateway
    finally:
        stop(gateway.process)


def _answers(gateway: Gateway) -> bool:
    try:
        return (
            httpx.get(f"{gateway.api}/livez", timeout=1).status_code == 200
            and httpx.get(gateway.metrics, timeout=5).status_code == 200
        )
    except httpx.TransportError:
        return False


def test_the_metrics_port_answers_for_every_process(gateway: Gateway) -> None:
    with httpx.Client(base_url=gateway.api, timeout=WAIT) as http:
        # a new connection each: the workers share the port's queue, so both serve some
        for _ in range(10):
            assert http.get("/v1/variants", headers={"Connection": "close"}).status_code == 200
        assert http.get("/metrics").status_code == 404  # not on the API port
    samples = gateway.samples()
    [variants] = [
        s for s in samples["patience_gateway_requests_total"] if s.labels["route"] == "/v1/variants"
    ]
    assert variants.value == 10
    main = psutil.Process(gateway.process.pid)
    pids = {str(main.pid), *(str(worker.pid) for worker in main.children())}
    assert len(pids) == 1 + WORKERS
    for name in ("process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds"):
        by_pid = {s.labels["pid"]: s.value for s in samples[name]}
        assert by_pid.keys() == pids, name
        assert all(value > 0 for value in by_pid.values()), (name, by_pid)
    assert {s.labels["pid"] for s in samples["process_max_fds"]} == pids
    [build] = samples["patience_gateway_build_info"]
    assert build.labels == {
        "version": importlib.metadata.version("patience-gateway"),
        "commit": COMMIT,
    }
    assert build.value == 1
    assert [s.value for s in samples["patience_gateway_redis_up"]] == [1]
    assert [s.value for s in samples["patience_gateway_postgres_up"]] == [1]
    assert "patience_gateway_outbox_pending_games" in samples


def test_a_request_being_served_is_in_flight(gateway: Gateway) -> None:
    def in_flight() -> float:
        return sum(s.value for s in gateway.samples()["patience_gateway_requests_in_flight"])

    assert in_flight() == 0
    host, port = gateway.api.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=WAIT) as held:
        # its headers, and not the body they announce: the request waits in the app
        held.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b"Content-Length: 40\r\n\r\n"
        )
        deadline = time.monotonic() + WAIT
        while in_flight() != 1:
            assert time.monotonic() < deadline, "the held request is not in flight"
            time.sleep(0.05)
    deadline = time.monotonic() + WAIT
    while in_flight() != 0:
        assert time.monotonic() < deadline, "the request closed is still in flight"
        time.sleep(0.05)


def test_the_metrics_pass_promtool(gateway: Gateway, promtool: str) -> None:
    text = httpx.get(gateway.metrics, timeout=WAIT).text
    checked = subprocess.run(
        [promtool, "check", "metrics"], input=text, capture_output=True, text=True
    )
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout + checked.stderr


def test_a_second_gateway_on_the_same_metrics_port_stops_naming_it(
    gateway: Gateway,
    redis_url: str,
    database_url: str,
    engine: EngineThread,
    tmp_path: Path,
) -> None:
    metrics_port = int(gateway.metrics.rsplit(":", 1)[1].split("/")[0])
    env = environment(redis_url, database_url, engine)
    second = start(env, free_port(), metrics_port, tmp_path / "second.log")
    try:
        assert second.process.wait(WAIT) == 1
    finally:
        stop(second.process)
    assert f"port {metrics_port} is in use" in second.log.read_text()
    assert httpx.get(gateway.metrics, timeout=WAIT).status_code == 200  # the first serves on


def test_patience_serve_keeps_the_metrics_on_the_api_port(tmp_path: Path) -> None:
    for served in start_serve(tmp_path, {"GATEWAY_METRICS_PORT": str(free_port())}):
        assert served.gateway_metrics == f"{served.rest}/metrics"
        answer = httpx.get(served.gateway_metrics, timeout=WAIT)
        assert answer.status_code == 200 and "patience_gateway_build_info" in answer.text
