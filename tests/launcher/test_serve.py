"""`patience serve` end to end: the real command starts Redis, the engine and the
gateway, they answer, and Ctrl-C stops all of them with exit status 0."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from patience_contract.client import SyncEngineClient
from patience_engine.sealing import key_id_of
from patience_launcher import probes
from patience_launcher.addresses import free_port, port_is_closed
from patience_launcher.data_folder import EPHEMERAL_PREFIX
from patience_launcher.healthcheck import main as healthcheck
from patience_launcher.scratch import sweep_abandoned
from patience_launcher.seal_keys import STORE_RECORD

from tests.launcher.launcher_run import (
    LauncherRun,
    answers_ready,
    clean_env,
    named,
    serve_args,
)
from tests.launcher.processes import descendants, still_running, where_waiting

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        return json.loads(response.read())


# the `serve` fixture's run: a temporary data folder, two search processes
EPHEMERAL_SERVE = ("--ephemeral", "--solver-processes", "2")


@pytest.fixture
def serve(tmp_path: Path, ports: tuple[int, int]) -> Iterator[LauncherRun]:
    http_port, grpc_port = ports
    run = LauncherRun(serve_args(http_port, grpc_port, *EPHEMERAL_SERVE), tmp_path)
    try:
        yield run
    finally:
        run.cleanup()


def test_serve_answers_on_rest_and_grpc_then_stops_cleanly_on_ctrl_c(
    serve: LauncherRun, ports: tuple[int, int]
) -> None:
    http_port, grpc_port = ports
    serve.wait_ready()
    rest = f"http://127.0.0.1:{http_port}"
    grpc_target = f"127.0.0.1:{grpc_port}"
    assert serve.banner_value("REST API") == f"{rest}/v1"
    assert serve.banner_value("REST docs") == f"{rest}/docs"
    assert serve.banner_value("Play") == f"{rest}/play/"
    assert serve.banner_value("gRPC") == grpc_target
    assert "(1 gateway worker)" in serve.stdout
    assert "(1 engine worker, 2 search processes each)" in serve.stdout
    data = Path(serve.banner_value("Data"))
    assert data.is_dir() and "temporary" in serve.stdout
    redis_url = serve.banner_value("Redis")
    redis_port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    assert redis_port != 6379

    assert answers_ready(f"{rest}/readyz")
    variants = get_json(f"{rest}/v1/variants")
    assert variants, "GET /v1/variants answered with nothing"
    # The page the gateway serves may call it under either loopback name (CORS).
    preflight = urllib.request.Request(
        f"{rest}/v1/games",
        method="OPTIONS",
        headers={
            "Origin": f"http://localhost:{http_port}",
            "Access-Control-Request-Method": "POST",
        },
    )
    with urllib.request.urlopen(preflight, timeout=10) as response:
        allowed = response.headers["Access-Control-Allow-Origin"]
        assert allowed == f"http://localhost:{http_port}"
    assert probes.grpc_serving(grpc_target)
    assert healthcheck(["grpc", grpc_target]) == 0
    with SyncEngineClient(grpc_target) as engine:
        assert len(engine.list_variants()) == 9
    assert probes.redis_pong(redis_url)

    children = serve.children
    assert named(children, "redis-server"), children
    assert named(children, "patience-engine", "patience_engine"), children
    assert named(children, "patience-gateway", "patience_gateway"), children

    assert serve.interrupt() == 0, serve.output()
    assert serve.leftovers() == []
    for port in (http_port, grpc_port, redis_port):
        assert port_is_closed("127.0.0.1", port), f"port {port} still open"
    assert healthcheck(["grpc", grpc_target, "--timeout", "0.5"]) == 1
    assert not data.exists(), "--ephemeral: the data folder goes on exit"


@pytest.fixture
def store_key_record(redis_url: str) -> Iterator[None]:
    """The suite's Redis without the seal key id a `patience serve` records in it,
    before and after the test."""
    client = redis.Redis.from_url(redis_url)
    client.delete(STORE_RECORD)
    try:
        yield
    finally:
        client.delete(STORE_RECORD)
        client.close()


def test_serve_uses_the_redis_in_redis_url_and_leaves_it_running(
    tmp_path: Path, ports: tuple[int, int], redis_url: str, store_key_record: None
) -> None:
    http_port, grpc_port = ports
    env = {**os.environ, "REDIS_URL": redis_url, "ENGINE_SEAL_KEY": "redis-url-test-key"}
    run = LauncherRun(serve_args(http_port, grpc_port, "--ephemeral"), tmp_path, env=env)
    try:
        run.wait_ready()
        assert run.banner_value("Redis") == redis_url
        key_id = key_id_of(b"redis-url-test-key")
        assert f"States     sealed, key {key_id} (ENGINE_SEAL_KEY)" in run.stdout
        assert named(run.children, "redis-server") == []
        assert answers_ready(f"http://127.0.0.1:{http_port}/readyz")
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
    assert run.leftovers() == []
    assert probes.redis_pong(redis_url), "the launcher stopped a Redis it did not start"
    # The Redis remembers the key its games were sealed with: another one starts nothing.
    env["ENGINE_SEAL_KEY"] = "another-key"
    other = LauncherRun(serve_args(http_port, grpc_port, "--ephemeral"), tmp_path, env=env)
    try:
        assert other.process.wait(60) == 1, other.output()
        assert "sealed with key " + key_id_of(b"redis-url-test-key") in other.said
    finally:
        other.cleanup()
    assert other.leftovers() == []


def test_serve_with_redis_url_and_no_key_refuses_to_start(
    tmp_path: Path, ports: tuple[int, int], redis_url: str
) -> None:
    """Finding: it drew a key of its own, and every stored game answered 500 after a
    restart."""
    http_port, grpc_port = ports
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGINE_SEAL_KEY")}
    env["REDIS_URL"] = redis_url
    run = LauncherRun(serve_args(http_port, grpc_port, "--ephemeral"), tmp_path, env=env)
    try:
        assert run.process.wait(60) == 2, run.output()
        assert "REDIS_URL is set but no seal key is" in run.said
        assert "patience key new" in run.said
    finally:
        run.cleanup()
    assert run.leftovers() == []


def test_a_service_that_keeps_crashing_stops_everything_with_status_1(
    serve: LauncherRun, ports: tuple[int, int]
) -> None:
    serve.wait_ready()
    killed: set[tuple[int, int]] = set()
    tree = list(serve.children)
    deadline = time.monotonic() + 120
    while serve.process.poll() is None:
        engine = serve.service("engine")
        if engine is not None and (engine.pid, engine.start_ticks) not in killed:
            tree += descendants(serve.process.pid)
            killed.add((engine.pid, engine.start_ticks))
            os.killpg(engine.pid, signal.SIGKILL)
        assert time.monotonic() < deadline, serve.output()
        time.sleep(0.02)
    assert serve.process.returncode == 1, serve.output()
    assert len(killed) == 5, serve.output()
    assert "the engine crashed 5 times within 60 s: giving up" in serve.said
    assert [proc for proc in tree if still_running(proc)] == []
    for port in ports:
        assert port_is_closed("127.0.0.1", port)


def test_when_the_launcher_is_killed_outright_its_services_stop_too(
    tmp_path: Path, ports: tuple[int, int]
) -> None:
    # A temporary directory of its own: another test's `patience serve --ephemeral`,
    # started meanwhile on another worker, would sweep the abandoned folder first.
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir()
    env = clean_env(TMPDIR=str(own_tmp))
    serve = LauncherRun(serve_args(*ports, *EPHEMERAL_SERVE), tmp_path, env=env)
    try:
        serve.wait_ready()
        direct = [proc for proc in serve.children if proc.ppid == serve.process.pid]
        assert len(direct) == 4, serve.children  # redis, postgres, engine, gateway
        data = Path(serve.banner_value("Data"))
        assert data.parent == own_tmp
        serve.process.kill()  # SIGKILL: no chance to clean up
        serve.process.wait(timeout=60)
        deadline = time.monotonic() + 60
        while serve.leftovers() and time.monotonic() < deadline:
            time.sleep(0.05)
        left = serve.leftovers()
        assert left == [], "\n".join([*map(where_waiting, left), serve.output()])
        assert data.is_dir(), "a launcher killed outright cannot remove its temporary folder"
        # what the next `patience serve --ephemeral` does first
        assert sweep_abandoned(EPHEMERAL_PREFIX, own_tmp) == [data]
        assert not data.exists()
    finally:
        serve.cleanup()


def test_serve_refuses_a_port_that_is_taken(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = LauncherRun(["serve", "--http-port", str(port), "--grpc-port", "0"], tmp_path)
        try:
            assert run.process.wait(timeout=60) == 2
        finally:
            run.cleanup()
    assert f"port {port} on 127.0.0.1 is in use" in run.said
    assert "--http-port" in run.said


def test_engine_and_gateway_alone_with_their_workers(tmp_path: Path, redis_url: str) -> None:
    grpc_port = free_port()
    clean = clean_env()
    (tmp_path / "engine").mkdir()
    (tmp_path / "gateway").mkdir()
    engine = LauncherRun(
        [
            "engine",
            "--grpc-port",
            str(grpc_port),
            "--engine-workers",
            "2",
            "--solver-processes",
            "2",
        ],
        tmp_path / "engine",
        env=clean,
    )
    gateway_env = {**clean, "REDIS_URL": redis_url, "ENGINE_ADDR": f"127.0.0.1:{grpc_port}"}
    gateway = LauncherRun(
        ["gateway", "--http-port", "0", "--gateway-workers", "2"], tmp_path / "gateway", gateway_env
    )
    try:
        engine.wait_ready()
        gateway.wait_ready()
        assert "(2 workers)" in gateway.stdout
        assert "(2 workers, 2 search processes each)" in engine.stdout
        assert len(engine.workers("engine")) == 2 and len(gateway.workers("gateway")) == 2
        rest = gateway.stdout.split("REST ")[1].split()[0].rstrip(",").removesuffix("/v1")
        assert answers_ready(f"{rest}/readyz")
        assert gateway.interrupt() == 0, gateway.output()
        assert engine.interrupt() == 0, engine.output()
    finally:
        gateway.cleanup()
        engine.cleanup()
    assert gateway.leftovers() == [] and engine.leftovers() == []


def test_gateway_alone_needs_redis_url(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    run = LauncherRun(["gateway", "--http-port", "0"], tmp_path, env=env)
    try:
        assert run.process.wait(timeout=60) == 2
    finally:
        run.cleanup()
    assert "REDIS_URL" in run.said


def test_ctrl_c_during_startup_still_stops_everything(tmp_path: Path) -> None:
    """SIGINT as soon as the engine process exists, most likely before it answers."""
    run = LauncherRun(serve_args(0, 0, "--ephemeral"), tmp_path)
    try:
        deadline = time.monotonic() + 60
        started = descendants(run.process.pid)
        while not named(started, "patience-engine", "patience_engine"):
            assert run.process.poll() is None, run.output()
            assert time.monotonic() < deadline, run.output()
            time.sleep(0.02)
            started = descendants(run.process.pid)
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
    assert [proc for proc in started if still_running(proc)] == []
