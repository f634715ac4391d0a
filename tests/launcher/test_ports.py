"""One service a port, with real processes:

- two `patience serve` started at the same moment on one `--http-port`: one serves, the
  other stops (exit status not 0) saying which port it could not have, and stops what it
  had started; every read of a game made on the one that serves finds it;
- a gateway started past the launcher's own check, on a port a gateway serves, stops at
  once, naming the port, and the first serves on;
- the launcher takes no readiness answer from another server on its gateway's port: only
  an answer with the instance id it gave its gateway counts;
- the ports a process chooses for its services differ, though the kernel hands a port
  just released out again, and a port given explicitly (an embedded server's, the
  engine's metrics port) is never handed out as a free one.
"""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from patience_launcher import addresses, probes
from patience_launcher.addresses import free_port
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_server import EmbeddedRedis
from patience_launcher.services import engine_metrics_port, start_gateway
from patience_launcher.settings import LauncherSettings
from patience_launcher.supervisor import ServiceFailed, Supervisor

from tests.gateway.engines import EngineThread
from tests.launcher.launcher_run import STARTUP_SECONDS, LauncherRun, clean_env, serve_args
from tests.launcher.processes import Proc, descendants, still_running

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

READS = 20


def reads_found(rest: str, game: dict[str, str]) -> int:
    """How many of READS reads of `game`, each on a connection of its own, find it."""
    found = 0
    for _ in range(READS):
        request = urllib.request.Request(
            f"{rest}/v1/games/{game['id']}", headers={"Authorization": f"Bearer {game['token']}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                found += answer.status == 200
        except urllib.error.HTTPError:
            pass
    return found


def create_game(rest: str) -> dict[str, str]:
    body = json.dumps({"variant": "bisley", "deal": 7}).encode()
    request = urllib.request.Request(
        f"{rest}/v1/games", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 201
        game: dict[str, str] = json.loads(answer.read())
    return game


def test_of_two_serves_started_at_once_on_one_port_one_serves(tmp_path: Path) -> None:
    http_port = free_port()
    runs: list[LauncherRun] = []
    trees: dict[int, list[Proc]] = {}
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        run = LauncherRun(serve_args(http_port, 0, "--ephemeral"), tmp_path / name)
        runs.append(run)
        trees[run.process.pid] = []
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            for run in runs:
                if run.process.poll() is None:
                    trees[run.process.pid] += descendants(run.process.pid)
            stopped = [run for run in runs if run.process.poll() is not None]
            ready = [run for run in runs if "ready" in run.stdout]
            outputs = "\n".join(run.output() for run in runs)
            assert len(stopped) < 2, outputs
            if stopped and ready:
                break
            assert time.monotonic() < deadline, outputs
            time.sleep(0.05)
        [loser], [winner] = stopped, ready
        assert loser is not winner
        assert loser.process.returncode != 0, loser.output()
        # refused by the launcher's own check, or by its gateway that could not listen
        said = loser.said
        assert f"port {http_port} on 127.0.0.1 is in use" in said or (
            f"cannot listen on 127.0.0.1:{http_port}: port {http_port} is in use" in said
        ), loser.output()
        left = [proc for proc in trees[loser.process.pid] if still_running(proc)]
        assert left == [], left
        winner.wait_ready()
        rest = winner.banner_value("REST API").removesuffix("/v1")
        game = create_game(rest)
        assert reads_found(rest, game) == READS

        # a gateway of its own, past the launcher's check: it cannot listen either
        env = clean_env(
            REDIS_URL=winner.banner_value("Redis"),
            ENGINE_ADDR=winner.banner_value("gRPC"),
            GATEWAY_PORT=str(http_port),
            GATEWAY_WORKERS="2",
        )
        started = time.monotonic()
        alone = subprocess.run(
            [sys.executable, "-m", "patience_gateway"],
            env=env,
            capture_output=True,
            text=True,
            timeout=STARTUP_SECONDS,
        )
        assert alone.returncode == 1, alone.stderr
        assert time.monotonic() - started < 30, "it stopped at once, not after a timeout"
        [line] = [json.loads(text) for text in alone.stderr.splitlines() if '"error"' in text]
        assert line["message"] == (
            f"cannot listen on 127.0.0.1:{http_port}: port {http_port} is in use by another "
            "process; stop it or choose another GATEWAY_PORT"
        )
        assert reads_found(rest, game) == READS
        assert winner.interrupt() == 0, winner.output()
    finally:
        for run in runs:
            run.cleanup()


class Stranger(BaseHTTPRequestHandler):
    """A server that is not the gateway: 200 and a healthy body to any GET."""

    def do_GET(self) -> None:
        body = b'{"status": "ok", "checks": {}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class SharingServer(ThreadingHTTPServer):
    """Bound with SO_REUSEPORT, as a second gateway's workers once bound theirs."""

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        super().server_bind()


@contextmanager
def stranger_on(port: int) -> Iterator[None]:
    server = SharingServer(("127.0.0.1", port), Stranger)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def test_the_launcher_takes_no_readiness_answer_from_a_stranger(tmp_path: Path) -> None:
    """The stranger answers /readyz 200 at once, before the gateway has even started; the
    launcher waits for its own gateway's answer instead, and fails with the gateway's
    words when it cannot listen on the port."""
    port = free_port()
    supervisor = Supervisor(log=io.StringIO())
    with stranger_on(port):
        readyz = f"http://127.0.0.1:{port}/readyz"
        assert probes.http_ok(readyz)
        assert not probes.http_ok(readyz, instance="0123456789abcdef")
        try:
            with pytest.raises(ServiceFailed) as failed:
                start_gateway(
                    supervisor,
                    "127.0.0.1",
                    port,
                    1,
                    "redis://127.0.0.1:1/0",
                    "127.0.0.1:1",
                    STARTUP_SECONDS,
                    tmp_path / "metrics",
                )
        finally:
            supervisor.stop_all()
    message = str(failed.value)
    assert message.startswith("the gateway exited with status 1"), message
    assert f"cannot listen on 127.0.0.1:{port}: port {port} is in use" in message


def test_the_gateway_answers_its_instance_id(redis_url: str, engine: EngineThread) -> None:
    """What the launcher's check reads: the id it gave, on /livez and /readyz alike."""
    port = free_port()
    env = clean_env(
        REDIS_URL=redis_url,
        ENGINE_ADDR=engine.target,
        GATEWAY_PORT=str(port),
        GATEWAY_WORKERS="1",
        GATEWAY_INSTANCE_ID="launcher-given-id",
    )
    gateway = subprocess.Popen(
        [sys.executable, "-m", "patience_gateway"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_SECONDS
        while not probes.http_ok(f"{base}/readyz", instance="launcher-given-id"):
            assert gateway.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        for path in ("/livez", "/readyz"):
            assert not probes.http_ok(f"{base}{path}", instance="another-id")
            with urllib.request.urlopen(f"{base}{path}", timeout=30) as answer:
                assert answer.headers["Instance-Id"] == "launcher-given-id"
    finally:
        gateway.terminate()
        gateway.wait(60)


def test_the_ports_a_process_chooses_all_differ() -> None:
    """`patience serve` chooses the ports of its services (gRPC, Redis, PostgreSQL,
    metrics) before each has bound its own, and the kernel hands out a port just
    released again (some 8 times in 500 choices in a row here): without remembering
    its choices, a launcher now and then gave its Redis and its engine one port."""
    chosen = [free_port() for _ in range(2000)]
    assert len(set(chosen)) == len(chosen)


@pytest.mark.parametrize(
    "give",
    [
        lambda port: EmbeddedRedis(port=port).port,
        lambda port: EmbeddedPostgres(port=port).port,
        lambda port: engine_metrics_port("127.0.0.1", LauncherSettings(engine_metrics_port=port)),
    ],
    ids=["embedded-redis", "embedded-postgres", "engine-metrics-port"],
)
def test_a_port_given_explicitly_is_never_handed_out_as_free(
    give: Callable[[int], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A port given to a service is not bound until that service starts; meanwhile the
    kernel may offer it to the next `bind(0)`. Here the kernel is made to offer it
    first, as it does now and then: the launcher must choose another."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        given = int(probe.getsockname()[1])
    assert give(given) == given

    offered = iter([given])

    class OfferingTheGivenPortFirst(socket.socket):
        def getsockname(self) -> tuple[str, int]:
            host, port = super().getsockname()
            return host, next(offered, port)

    monkeypatch.setattr(addresses.socket, "socket", OfferingTheGivenPortFirst)
    assert free_port() != given
    assert next(offered, None) is None  # the given port was offered, and passed over
