"""Servers the bench starts for itself, each a child process on a free loopback port,
stopped (with everything it spawned) when the bench is done with it: the launcher's
ChildProcess, its output kept in a file of its own so that a failure can say why."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Self

import psutil
from patience_launcher.addresses import free_port
from patience_launcher.children import ChildProcess

from bench.harness.paths import REPO_ROOT

LOOPBACK = "127.0.0.1"
STOP_SECONDS = 15.0


def stop_servers_on_sigterm() -> None:
    """SIGTERM (`kill`, a job's timeout) ends this process as Ctrl-C does, through its
    `with` blocks, so the servers it started are stopped instead of left running (they
    run in process groups of their own, which a signal to this process does not reach)."""
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))


class ServerProcess(ChildProcess):
    """A server child on a loopback port, in the repository's folder, with this
    process's environment and `env` over it; started once the port accepts
    connections."""

    def __init__(self, name: str, args: list[str], env: Mapping[str, str], port: int) -> None:
        self.port = port
        fd, log = tempfile.mkstemp(prefix=f"bench-{name}-", suffix=".log")
        os.close(fd)
        super().__init__(name, args, {**os.environ, **env}, log_file=Path(log), cwd=REPO_ROOT)

    def start(self) -> Self:
        super().start()
        try:
            self.wait_for_port(LOOPBACK, self.port)
        except BaseException:
            self.stop()
            raise
        return self

    def output(self) -> str:
        """The end of what the server wrote."""
        assert self.log_file is not None
        return self.log_file.read_text(errors="replace")[-4000:]

    def check_alive(self) -> None:
        code = self.exit_code()
        if code is not None:
            raise RuntimeError(f"{self.name} exited with code {code}:\n{self.output()}")

    def wait_for_port(self, host: str, port: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                self.answer(host, port)
                return
            except (OSError, http.client.HTTPException):
                time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not answer on {host}:{port}:\n{self.output()}")

    def answer(self, host: str, port: int) -> None:
        """Raises OSError unless the server takes a connection on the port."""
        with socket.create_connection((host, port), timeout=0.5):
            pass

    def stop(self, timeout: float = STOP_SECONDS) -> int | None:
        code = super().stop(timeout)
        if self.log_file is not None:
            self.log_file.unlink(missing_ok=True)
        return code


def python_module(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


class EngineProcess(ServerProcess):
    """The engine through its real entry point (`python -m patience_engine`), with
    `workers` worker processes, sealing states when given a key; `settings` adds
    environment settings (ENGINE_SOLVER_PROCESSES, ...)."""

    def __init__(
        self,
        *,
        workers: int,
        seal_key: str = "",
        settings: Mapping[str, str] | None = None,
    ) -> None:
        port = free_port()
        self.workers = workers
        env = {
            "ENGINE_LISTEN": f"{LOOPBACK}:{port}",
            "ENGINE_WORKERS": str(workers),
            "ENGINE_SEAL_KEY": seal_key,
            "LOG_LEVEL": "warning",
            **(settings or {}),
        }
        super().__init__(f"engine-w{workers}", python_module("patience_engine"), env, port)

    @property
    def target(self) -> str:
        return f"{LOOPBACK}:{self.port}"


class HttpServerProcess(ServerProcess):
    """An HTTP server child: the gateway, or the bare endpoint; started once it answers
    HTTP. Granian's main process binds the port before its workers have started their
    app: a part that measured at once would time the workers' start too."""

    def answer(self, host: str, port: int) -> None:
        """Raises unless a worker answers HTTP (any status)."""
        connection = http.client.HTTPConnection(host, port, timeout=1.0)
        try:
            connection.request("GET", "/livez")
            connection.getresponse().read()
        finally:
            connection.close()

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"


def _served_like_the_gateway(port: int, workers: int) -> dict[str, str]:
    """The gateway's server settings, which the bare endpoint is served with too."""
    return {
        "GATEWAY_HOST": LOOPBACK,
        "GATEWAY_PORT": str(port),
        "GATEWAY_WORKERS": str(workers),
        "LOG_LEVEL": "warning",
    }


def gateway_process(
    *,
    redis_url: str,
    engine_target: str,
    workers: int = 1,
    env: Mapping[str, str] | None = None,
) -> HttpServerProcess:
    """The gateway through its real entry point (`python -m patience_gateway`), with
    `workers` worker processes (one by default: the per-request figures are those of
    one process) and no pools of winnable deals; `env` adds settings (REDIS_CLUSTER,
    REDIS_WAIT_REPLICAS, ...)."""
    port = free_port()
    env = {
        **_served_like_the_gateway(port, workers),
        "REDIS_URL": redis_url,
        "ENGINE_ADDR": engine_target,
        # No pools of winnable deals: filling them (minutes of Solve calls after a start
        # on an empty Redis) would take the engine's CPU from the moves being measured.
        "WINNABLE_POOL_SIZE": "0",
        **(env or {}),
    }
    return HttpServerProcess("gateway", python_module("patience_gateway"), env, port)


def bare_process(*, redis_url: str) -> HttpServerProcess:
    """The bare FastAPI endpoint (bench/harness/bare_app.py), served like the gateway."""
    port = free_port()
    env = {**_served_like_the_gateway(port, workers=1), "REDIS_URL": redis_url}
    return HttpServerProcess("bare", python_module("bench.harness.bare_app"), env, port)


# what each service's process runs (its command line, as the launcher starts it)
SERVICE_COMMANDS = {
    "gateway": ("patience_gateway", "patience-gateway"),
    "engine": ("patience_engine", "patience-engine"),
    "redis": ("redis-server",),
    "postgres": ("postgres",),
}
LAUNCH_SECONDS = 120.0


def command_line(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


class LauncherProcess(HttpServerProcess):
    """`patience serve` (python -m patience_launcher serve) on loopback with its data in
    `data_dir`, as it starts every service itself; started once it says it is ready."""

    def __init__(self, data_dir: Path, env: Mapping[str, str]) -> None:
        port = free_port()
        args = python_module(
            "patience_launcher", "serve", "--host", LOOPBACK, "--http-port", str(port),
            "--grpc-port", str(free_port()), "--data-dir", str(data_dir),
        )  # fmt: skip
        super().__init__("serve", args, env, port)

    def wait_for_port(self, host: str, port: int, timeout: float = LAUNCH_SECONDS) -> None:
        super().wait_for_port(host, port, timeout)

    def answer(self, host: str, port: int) -> None:
        """Raises until it says it is ready: every service it started answers."""
        if "patience is ready" not in self.output():
            raise OSError("patience serve is not ready yet")

    @property
    def redis_url(self) -> str:
        """The embedded Redis's URL, as the launcher's banner says it."""
        # the whole log: the banner comes first, and the access lines after it soon
        # push it out of the output's tail
        assert self.log_file is not None
        whole = self.log_file.read_text(errors="replace")
        found = re.search(r"^\s*Redis\s+(redis://\S+)", whole, re.MULTILINE)
        if found is None:
            raise RuntimeError(f"no Redis in the banner of patience serve:\n{self.output()}")
        return found.group(1)

    def service_pids(self) -> dict[str, int]:
        """The launcher's children by service (each the root of that service's processes)."""
        found: dict[str, int] = {}
        for child in psutil.Process(self.pid).children():
            line = command_line(child)
            for name, marks in SERVICE_COMMANDS.items():
                if name not in found and any(mark in line for mark in marks):
                    found[name] = child.pid
                    break
        return found
