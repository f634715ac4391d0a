"""The tests' and the bench's own servers (EmbeddedRedis, EmbeddedPostgres) stop with the
process that started them, even one killed outright: a test run killed by a closed pipe
or an out-of-memory kill leaves no server behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from patience_launcher import orphan_guard
from patience_launcher.orphan_guard import guarded_from_here
from patience_launcher.redis_server import EmbeddedRedis

from tests.launcher.processes import read_proc, still_running

OWNER = """
import sys, time
from patience_launcher.{module} import {server}
with {server}() as server:
    print(server.process.pid, server.port, flush=True)
    time.sleep(600)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the guard is Linux's parent-death signal")
@pytest.mark.parametrize(
    ("module", "server", "program"),
    [
        ("redis_server", "EmbeddedRedis", "redis-server"),
        ("postgres_server", "EmbeddedPostgres", "postgres"),
    ],
)
def test_a_server_stops_when_its_owner_is_killed_outright(
    module: str, server: str, program: str
) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER.format(module=module, server=server)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None
    pid = None
    try:
        line = owner.stdout.readline().split()
        assert line, f"the {server} did not start"
        pid = int(line[0])
        proc = read_proc(pid)
        assert proc is not None and program in proc.cmdline, proc
        owner.kill()  # SIGKILL: the owner has no chance to stop its server
        owner.wait()
        deadline = time.monotonic() + 20
        while still_running(proc):
            assert time.monotonic() < deadline, f"the {program} outlived its owner"
            time.sleep(0.02)
    finally:
        owner.kill()
        owner.wait()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_server_started_from_a_thread_outlives_the_thread() -> None:
    """Linux ties the parent-death signal to the thread that started the child: a guard
    asked for from a worker thread would stop the server when that thread ends."""
    servers: list[EmbeddedRedis] = []
    worker = threading.Thread(target=lambda: servers.append(EmbeddedRedis().start()))
    worker.start()
    worker.join()
    (server,) = servers
    try:
        time.sleep(0.5)  # the signal, had it been asked for, comes as the thread ends
        assert server.process is not None and server.process.poll() is None
        assert server._answers_ping()
    finally:
        server.stop()


@pytest.mark.skipif(sys.platform != "linux", reason="the guard is Linux's parent-death signal")
def test_the_guard_is_asked_for_from_the_main_thread_only() -> None:
    argv = ["redis-server", "--port", "1"]
    assert guarded_from_here(argv) == orphan_guard.guarded(argv)
    assert guarded_from_here(argv, (65534, 65534)) == orphan_guard.guarded(argv, (65534, 65534))
    seen: dict[str, list[str]] = {}

    def from_a_worker() -> None:
        seen["plain"] = guarded_from_here(argv)
        seen["as nobody"] = guarded_from_here(argv, (65534, 65534))

    worker = threading.Thread(target=from_a_worker)
    worker.start()
    worker.join()
    assert seen["plain"] == argv
    assert seen["as nobody"] == [
        sys.executable,
        "-m",
        "patience_launcher.run_as",
        "65534:65534",
        *argv,
    ]
