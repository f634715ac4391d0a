"""The gateway as it runs in production: `python -m patience_gateway` (Granian, two
worker processes) in a child process, configured from the environment, spoken to over
real sockets: its limits on what one client may send or hold, its workers, their
supervision and their metrics."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.client import HTTPConnection
from pathlib import Path

import httpx
import psutil
import pytest
from patience_launcher.addresses import free_port

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import killed_late

LIMIT = 4096
WORKERS = 2
# short, so that the tests of the timeouts are quick; the answers are awaited far longer
HEADER_TIMEOUT = 1
BODY_TIMEOUT = 1
WAIT = 30.0


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.base.removeprefix("http://").split(":")
        return host, int(port)

    def workers(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children()

    def serving_workers(self) -> set[int]:
        """Workers that serve: Granian's runtime (its tokio threads) runs in a worker once
        its app has started; before that, a worker would not stop on SIGTERM yet. (Every
        worker holds the listening socket from its start: the main process's, inherited.)"""
        serving = set()
        for worker in self.workers():
            try:
                threads = [f"/proc/{worker.pid}/task/{t.id}/comm" for t in worker.threads()]
                if any(Path(name).read_text().startswith("tokio") for name in threads):
                    serving.add(worker.pid)
            except (psutil.NoSuchProcess, OSError):
                continue
        return serving

    def metrics_folder(self) -> Path:
        """The run's PROMETHEUS_MULTIPROC_DIR, where the workers keep their files open."""
        for worker in self.workers():
            for file in worker.open_files():
                if Path(file.path).name.startswith("counter_"):
                    return Path(file.path).parent
        raise AssertionError("no worker keeps a metrics file")


def _environment(redis_url: str, engine: EngineThread, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "REDIS_URL": redis_url,
        "ENGINE_ADDR": engine.target,
        "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(port),
        "GATEWAY_WORKERS": str(WORKERS),
        "GATEWAY_HEADER_TIMEOUT_SECONDS": str(HEADER_TIMEOUT),
        "GATEWAY_BODY_TIMEOUT_SECONDS": str(BODY_TIMEOUT),
        "GATEWAY_MAX_HEADER_BYTES": "8192",
        "MAX_BODY_BYTES": str(LIMIT),
        "LOG_LEVEL": "info",
    }


def _wait_until_ready(server: Server, gone: int | None = None) -> None:
    """Until every worker serves (none of them `gone`, a pid that died)."""
    deadline = time.monotonic() + 90
    while True:
        assert server.process.poll() is None, _output(server.process)
        serving = server.serving_workers()
        if len(serving) == WORKERS and gone not in serving:
            try:
                if httpx.get(f"{server.base}/livez", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
        assert time.monotonic() < deadline, "the gateway's workers did not all start"
        time.sleep(0.05)


def _output(process: subprocess.Popen[bytes]) -> str:
    return process.stderr.read().decode() if process.stderr else ""


def _started(port: int, env: dict[str, str]) -> Server:
    """`python -m patience_gateway` on `port`, its log in the process's stderr pipe."""
    process = subprocess.Popen(
        [sys.executable, "-m", "patience_gateway"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return Server(f"http://127.0.0.1:{port}", process)


@pytest.fixture(scope="module")
def server(redis_url: str, engine: EngineThread) -> Iterator[Server]:
    with _served(redis_url, engine) as serving:
        yield serving


@contextmanager
def _served(redis_url: str, engine: EngineThread) -> Iterator[Server]:
    """The server; at the end, SIGTERM must stop every worker gracefully: exit status
    0, no traceback, no worker killed for being late, the metrics folder removed."""
    port = free_port()
    server = _started(port, _environment(redis_url, engine, port))
    process = server.process
    try:
        _wait_until_ready(server)
        yield server
        workers = server.workers()
        folder = server.metrics_folder()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=WAIT) == 0
        errors = _output(process)
        assert "Traceback" not in errors, errors
        assert not killed_late(errors), errors
        assert not any(worker.is_running() for worker in workers)
        assert not folder.exists(), "the run's metrics folder is left behind"
    finally:
        if process.poll() is None:
            process.kill()
        if process.stderr:
            process.stderr.close()


def _connect(server: Server) -> socket.socket:
    return socket.create_connection(server.address, timeout=WAIT)


def _response_head(sock: socket.socket) -> bytes:
    """Reads until the end of the response's header block (or the connection's)."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(4096)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


def _read_to_close(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection (the socket's timeout fails
    the test if it never does)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _send_all_you_can(sock: socket.socket, pieces: Iterator[bytes]) -> None:
    """Sends until the server stops taking bytes (it answered and closed)."""
    try:
        for piece in pieces:
            sock.sendall(piece)
    except OSError:
        pass


def test_plays_a_game_over_http(server: Server) -> None:
    with httpx.Client(base_url=server.base, timeout=WAIT) as http:
        assert http.get("/readyz").status_code == 200
        created = http.post("/v1/games", json={"variant": "la-belle-lucie", "deal": 7})
        assert created.status_code == 201
        game = created.json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        moved = http.post(
            f"/v1/games/{game['id']}/moves",
            json={"move": game["legal_moves"][0]},
            headers={**auth, "If-Match": created.headers["etag"]},
        )
        assert (moved.status_code, moved.headers["etag"]) == (200, '"2"')
        schema = http.get("/openapi.json").json()
        assert "/v1/games/{game_id}/moves" in schema["paths"]
        assert "patience_gateway_moves_applied_total" in http.get("/metrics").text


def test_declared_oversize_body_is_refused_before_it_is_sent(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000000\r\n\r\n"
        )
        # not a byte of the body is sent: the answer must come anyway
        head = _response_head(sock)
    assert head.startswith(b"HTTP/1.1 413"), head
    assert b"application/problem+json" in head


def test_chunked_oversize_body_is_refused_while_it_streams(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b" " * 1024
        _send_all_you_can(sock, (b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(8)))
        # the body is never finished (no last chunk): the answer must come anyway
        head = _response_head(sock)
    assert head.startswith(b"HTTP/1.1 413"), head


def test_a_16_mib_header_is_refused_without_reading_it(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /livez HTTP/1.1\r\nHost: gateway\r\nX-Big: ")
        _send_all_you_can(sock, (b"a" * 65536 for _ in range(256)))
        head = _response_head(sock)
    assert head.startswith(b"HTTP/1.1 431"), head[:200]
    assert httpx.get(f"{server.base}/livez", timeout=WAIT).status_code == 200


def test_more_than_100_headers_are_refused(server: Server) -> None:
    headers = b"".join(b"X-H%d: v\r\n" % index for index in range(101))
    with _connect(server) as sock:
        sock.sendall(b"GET /livez HTTP/1.1\r\nHost: gateway\r\n" + headers + b"\r\n")
        head = _response_head(sock)
    assert head.startswith(b"HTTP/1.1 431"), head[:200]


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: gateway\r\n\r\n", b"431"),
        (b"NOT HTTP AT ALL\r\n\r\n", b"400"),
    ],
    ids=["long-request-line", "unparsable"],
)
def test_the_servers_own_refusals_are_empty_and_close_the_connection(
    server: Server, request_bytes: bytes, status: bytes
) -> None:
    """What the server refuses before the app sees the request has no problem+json body
    (docs/operations.md says so): its status alone, no body, and the connection closed."""
    with _connect(server) as sock:
        sock.sendall(request_bytes)
        answer = _read_to_close(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 " + status), head[:200]
    lines = head.lower().split(b"\r\n")
    assert b"connection: close" in lines and b"content-length: 0" in lines
    assert body == b""


def test_a_body_that_never_comes_is_answered_408_and_the_connection_closed(
    server: Server,
) -> None:
    with _connect(server) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50\r\n\r\n{"
        )
        answer = _read_to_close(sock)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"code":"body-timeout"' in answer


def test_a_connection_that_sends_nothing_is_closed(server: Server) -> None:
    with _connect(server) as sock:
        assert _read_to_close(sock) == b""


def test_a_connection_trickling_its_headers_is_closed(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /livez HTTP/1.1\r\nHost: gateway\r\nX-Slow: ")
        began = time.monotonic()
        try:
            # one byte every 0.2 s: every read is quick, the headers never end
            while time.monotonic() - began < WAIT:
                sock.sendall(b"a")
                time.sleep(0.2)
            closed = False
        except OSError:
            closed = True
    assert closed, "the server kept a connection whose headers never ended"


def test_an_idle_kept_alive_connection_is_closed(server: Server) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /livez HTTP/1.1\r\nHost: gateway\r\n\r\n")
        answer = _read_to_close(sock)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]


def _count(metrics: str, route: str) -> float:
    labels = f'method="GET",route="{re.escape(route)}",status="200"'
    pattern = rf"patience_gateway_requests_total{{{labels}}} (\S+)"
    return sum(float(value) for value in re.findall(pattern, metrics))


def test_workers_are_supervised_and_metrics_add_up_every_worker(
    redis_url: str, engine: EngineThread
) -> None:
    with _served(redis_url, engine) as server:
        _supervised(server)


def _supervised(server: Server) -> None:
    workers = server.workers()
    assert len(workers) == WORKERS
    before = _count(httpx.get(f"{server.base}/metrics", timeout=WAIT).text, "/v1/variants")
    asked = 40
    for _ in range(asked):  # a fresh connection each: the kernel spreads them
        assert httpx.get(f"{server.base}/v1/variants", timeout=WAIT).status_code == 200
    folder = server.metrics_folder()
    assert {int(name.stem.rsplit("_", 1)[1]) for name in folder.glob("counter_*.db")} == {
        worker.pid for worker in workers
    }, "every worker keeps its own counts"

    victim = workers[0]
    victim.kill()
    victim.wait(WAIT)
    _wait_until_ready(server, gone=victim.pid)  # a new worker in its place
    after = _count(httpx.get(f"{server.base}/metrics", timeout=WAIT).text, "/v1/variants")
    # the dead worker's counts stay in the totals, whichever worker answers the scrape
    assert after - before >= asked


def test_a_bad_setting_stops_the_start_with_a_clear_message() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "patience_gateway"],
        env={**os.environ, "GATEWAY_HEADER_TIMEOUT_SECONDS": "600"},
        capture_output=True,
        timeout=WAIT,
    )
    assert result.returncode == 2
    assert b"GATEWAY_HEADER_TIMEOUT_SECONDS must be at most 60" in result.stderr


def test_the_connection_stays_usable_after_error_answers(server: Server) -> None:
    created = httpx.post(
        f"{server.base}/v1/games", json={"variant": "bisley", "deal": 11}, timeout=WAIT
    )
    game = created.json()
    path = f"/v1/games/{game['id']}"
    auth = f"Bearer {game['token']}".encode()
    move = b'{"move": "%s"}' % game["legal_moves"][0].encode()
    connection = HTTPConnection(*server.address, timeout=WAIT)
    bad_requests: list[tuple[str, str, list[tuple[bytes, bytes]], bytes | None, int]] = [
        ("POST", f"{path}/moves", [(b"If-Match", b"\xb2")], move, 400),
        ("POST", f"{path}/moves", [(b"If-Match", b"1" * 4301)], move, 400),
        ("DELETE", path, [(b"If-Match", b'"\xb9"')], None, 400),
        ("POST", f"{path}/undo", [(b"If-Match", b'"9"')], None, 412),
        ("GET", path, [(b"If-None-Match", b"\xb3")], None, 400),
        ("POST", f"{path}/moves", [(b"Content-Type", b"application/json")], b"{", 400),
        (
            "POST",
            f"{path}/moves",
            [(b"Content-Type", b"application/json")],
            b'{"move": "t1-t1"}',
            422,
        ),
        ("GET", "/v1/nowhere", [], None, 404),
    ]
    try:
        connection.connect()
        first_socket = connection.sock
        for method, target, headers, body, status in bad_requests:
            connection.putrequest(method, target)
            connection.putheader(b"Authorization", auth)
            for name, value in headers:
                connection.putheader(name, value)
            if body is not None and not any(name == b"Content-Type" for name, _ in headers):
                connection.putheader(b"Content-Type", b"application/json")
            connection.putheader(b"Content-Length", str(len(body or b"")).encode())
            connection.endheaders(body)
            response = connection.getresponse()
            answer = response.read()
            assert response.status == status, (method, target, headers, answer)
            assert b"Traceback" not in answer
            assert not response.will_close, "the server closed the connection after an error"
        connection.request("GET", path, headers={"Authorization": auth.decode()})
        response = connection.getresponse()
        assert (response.status, response.read()[:1]) == (200, b"{")
        assert connection.sock is first_socket, "every request went over the one connection"
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("framing", "body"),
    [
        # Content-Length says 6 bytes ("0\r\n\r\nG"): a server that trusted it would take
        # the rest as a second request
        (b"Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n"),
        # Content-Length says 4: the chunk's size line; the chunk carries a request
        (
            b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
            b"5c\r\n" + b"x" * 0x5C + b"\r\n0\r\n\r\n",
        ),
    ],
    ids=["cl.te", "te.cl"],
)
def test_a_request_framed_two_ways_smuggles_nothing(
    server: Server, framing: bytes, body: bytes
) -> None:
    """A request with both Content-Length and Transfer-Encoding is read by its chunked
    framing (RFC 9112, 6.1), answered once, and the connection closed: the bytes after it
    never become a request of their own."""
    smuggled = b"GET /v1/variants/smuggled HTTP/1.1\r\nHost: gateway\r\n\r\n"
    with _connect(server) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            + framing
            + b"\r\n"
            + body
            + smuggled
        )
        answered = _read_to_close(sock)
    assert answered.count(b"HTTP/1.1 ") == 1, answered[:500]
    assert b"smuggled" not in answered
    assert not answered.startswith(b"HTTP/1.1 2"), answered[:200]


def test_a_gateway_stopped_while_its_workers_start_stops_gracefully(
    engine: EngineThread,
) -> None:
    """SIGTERM while the workers' app starts (here each reads a Redis Cluster's slots
    from a node that takes connections and never answers, for the Redis deadline). A
    Granian worker misses a stop signal that comes before it has set its handlers: when
    each worker imported the app itself (seconds), the signal came then, and the main
    process killed the workers 15 s after the stop. The main process imports the app
    before it forks them (`main`)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # the kernel takes the connections; nothing answers them
        port = free_port()
        env = {
            **_environment(f"redis://127.0.0.1:{silent.getsockname()[1]}", engine, port),
            "REDIS_CLUSTER": "true",
        }
        server = _started(port, env)
        process = server.process
        try:
            deadline = time.monotonic() + WAIT
            while len(server.workers()) < WORKERS:  # forked: their apps are starting
                assert process.poll() is None, _output(process)
                assert time.monotonic() < deadline, "the gateway did not fork its workers"
                time.sleep(0.02)
            time.sleep(0.5)  # into the startup, which waits on the silent node for 2 s
            assert not server.serving_workers(), "a worker served before its app started"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=WAIT) == 0
            errors = _output(process)
            assert not killed_late(errors), errors
            assert "Traceback" not in errors, errors
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
