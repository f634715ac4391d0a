"""The gateway as it runs in production: `python -m patience_gateway` (uvicorn) in a
child process, configured from the environment, spoken to over real sockets."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest
from patience_launcher.redis_server import free_port

from tests.gateway.engines import EngineThread

LIMIT = 4096


@pytest.fixture(scope="module")
def server(redis_url: str, engine: EngineThread) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "ENGINE_ADDR": engine.target,
        "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(port),
        "MAX_BODY_BYTES": str(LIMIT),
        "LOG_LEVEL": "warning",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "patience_gateway"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            if httpx.get(f"{base}/livez", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the gateway did not start"
        time.sleep(0.05)
    try:
        yield base
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            # uvicorn shuts down gracefully (lifespan closed), then re-raises the signal
            assert process.wait(timeout=30) in (0, -signal.SIGTERM)
            errors = process.stderr.read().decode() if process.stderr else ""
            assert "Traceback" not in errors, errors
        finally:
            if process.poll() is None:
                process.kill()
            if process.stderr:
                process.stderr.close()


def test_plays_a_game_over_http(server: str) -> None:
    with httpx.Client(base_url=server) as http:
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


def _response_head(sock: socket.socket) -> bytes:
    """Reads until the end of the response's header block."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _connect(server: str) -> socket.socket:
    host, port = server.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    return sock


def test_declared_oversize_body_is_refused_before_it_is_sent(server: str) -> None:
    with _connect(server) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000000\r\n\r\n"
        )
        # not a byte of the body is sent: the answer must come anyway
        head = _response_head(sock)
    assert head.startswith(b"HTTP/1.1 413"), head
    assert b"application/problem+json" in head


def test_chunked_oversize_body_is_refused_while_it_streams(server: str) -> None:
    with _connect(server) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b" " * 1024
        try:
            for _ in range(2 * LIMIT // len(chunk)):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass  # the server may already have answered and closed
        # the body is never finished (no last chunk): the answer must come anyway
        head = _response_head(sock)
    assert head.startswith(b"HTTP/1.1 413"), head
