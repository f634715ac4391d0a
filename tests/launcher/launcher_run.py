"""Runs the real `patience` command in a subprocess and reads what it prints."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from patience_launcher import probes

from tests.launcher.processes import Proc, descendants, still_running

STARTUP_SECONDS = 120.0  # a generous deadline, polled: a fast machine does not wait for it
# Settings of the machine running the tests that must not reach the launcher under test.
OWN_SETTINGS = (
    "REDIS_URL",
    "PATIENCE_DATA_DIR",
    "ENGINE_WORKERS",
    "GATEWAY_WORKERS",
    "ENGINE_SEAL_KEY",
    "ENGINE_SEAL_KEY_FILE",
    "ENGINE_OLD_SEAL_KEYS",
    "DATABASE_URL",
    "PLAYER_TOKEN_KEY_FILE",
    "PLAYER_TOKEN_KEYS",
)


# A line of a service that the launcher relays, after the service's name.
_RELAYED = re.compile(r"^\S+ *\| ")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def launcher_lines(text: str) -> list[dict[str, Any]]:
    """The launcher's own lines in what it wrote to standard error (the lines it relays
    from its services, `name | ...`, left out), each read as the JSON object it must be:
    a time, a level, the logger patience_launcher, a message."""
    lines = []
    for written in text.splitlines():
        if not written.strip() or _RELAYED.match(written):
            continue
        line = json.loads(written)
        assert isinstance(line, dict) and line["logger"] == "patience_launcher", written
        assert _TIME.fullmatch(line["time"]) and line["level"] and "message" in line, written
        lines.append(line)
    return lines


def said(text: str) -> list[str]:
    """The messages of the launcher's own lines in `text` (`launcher_lines`)."""
    return [line["message"] for line in launcher_lines(text)]


def answers_ready(url: str, timeout: float = 60.0) -> bool:
    """True once GET `url` answers 2xx, polled until `timeout`: a busy test machine may
    be slow to answer the first request of a worker that the banner did not wait for
    (the launcher's own readiness check reaches one worker of several)."""
    deadline = time.monotonic() + timeout
    while not probes.http_ok(url, timeout=5.0):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def patience_argv() -> list[str]:
    """The installed console script (the real entry point), as a user runs it."""
    script = Path(sys.executable).parent / "patience"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "patience_launcher"]


def serve_args(
    http_port: int, grpc_port: int, *more: str, engine_workers: int = 1, gateway_workers: int = 1
) -> list[str]:
    """`patience serve` on these ports, with few workers (the machine is shared)."""
    return [
        "serve",
        "--http-port",
        str(http_port),
        "--grpc-port",
        str(grpc_port),
        "--engine-workers",
        str(engine_workers),
        "--gateway-workers",
        str(gateway_workers),
        *more,
    ]


def named(procs: list[Proc], *words: str) -> list[Proc]:
    return [proc for proc in procs if any(word in proc.cmdline for word in words)]


# How each service's process is recognised in the launcher's process tree.
SERVICE_WORDS = {
    "redis": ("redis-server",),
    "postgres": ("postgres -D",),
    "engine": ("patience-engine", "patience_engine"),
    "gateway": ("patience-gateway", "patience_gateway"),
}


def clean_env(**settings: str) -> dict[str, str]:
    """This machine's environment without its own settings (they must not leak into the
    launcher under test), plus `settings`."""
    return {**{k: v for k, v in os.environ.items() if k not in OWN_SETTINGS}, **settings}


class LauncherRun:
    """`patience ARGS...` with stdout and stderr in files (no pipe can fill up)."""

    def __init__(
        self,
        args: Sequence[str],
        folder: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        """Output goes to files in `folder`; the command runs in `cwd` (default: `folder`,
        so that the default data folder, ./.patience, lands in the test's own folder)."""
        self.stdout_path = folder / "stdout.txt"
        self.stderr_path = folder / "stderr.txt"
        full_env = clean_env() if env is None else dict(env)
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                [*patience_argv(), *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=full_env,
                cwd=cwd or folder,
            )
        self.children: list[Proc] = []

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    @property
    def said(self) -> str:
        """What the launcher itself has said so far: its lines' messages, one after the
        other (a message may take several lines)."""
        return "\n".join(said(self.stderr))

    def output(self) -> str:
        return f"--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"

    def wait_ready(self, timeout: float = STARTUP_SECONDS) -> str:
        """Waits for the banner; returns stdout. Fails if the launcher exits first."""
        deadline = time.monotonic() + timeout
        while "ready" not in self.stdout:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"patience exited with {self.process.returncode}\n{self.output()}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"patience was not ready in {timeout} s\n{self.output()}")
            time.sleep(0.05)
        self.children = descendants(self.process.pid)
        return self.stdout

    def banner_value(self, label: str) -> str:
        match = re.search(rf"^\s*{label}\s+(\S+)", self.stdout, re.MULTILINE)
        assert match, f"no {label!r} in the banner\n{self.output()}"
        return match.group(1)

    def service(self, name: str) -> Proc | None:
        """The process the launcher runs now for `name` (redis, postgres, engine,
        gateway); None between a crash and its restart."""
        direct = [
            proc
            for proc in descendants(self.process.pid)
            if proc.ppid == self.process.pid and proc.state not in "ZX"
        ]
        found = named(direct, *SERVICE_WORDS[name])
        assert len(found) <= 1, found
        return found[0] if found else None

    def environment(self, name: str) -> dict[str, str]:
        """The environment the launcher started the service `name` with."""
        proc = self.service(name)
        assert proc is not None, f"no {name} running\n{self.output()}"
        with open(f"/proc/{proc.pid}/environ", "rb") as environ:
            entries = environ.read().decode(errors="replace").split("\0")
        return dict(entry.split("=", 1) for entry in entries if "=" in entry)

    def workers(self, name: str) -> list[Proc]:
        """The worker processes of the engine or the gateway (none when it serves alone)."""
        parent = self.service(name)
        if parent is None:
            return []
        return [
            proc
            for proc in descendants(parent.pid)
            if proc.ppid == parent.pid
            and proc.state not in "ZX"
            and "resource_tracker" not in proc.cmdline
        ]

    def wait_until(self, condition: Callable[[], bool], timeout: float = 60.0) -> None:
        """Polls `condition` until it holds; fails with the launcher's output otherwise."""
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"still waiting\n{self.output()}"
            time.sleep(0.05)

    def interrupt(self, timeout: float = 60.0) -> int:
        """Ctrl-C: SIGINT to the launcher only, as a terminal delivers it to the
        foreground process (the children run in process groups of their own)."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=timeout)

    def leftovers(self) -> list[Proc]:
        return [proc for proc in self.children if still_running(proc)]

    def cleanup(self) -> None:
        """After a failed test: nothing may stay behind."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for proc in self.leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)


# What a fault grid kills: a service's process, and first one of its workers where it
# runs workers of its own.
Fault = tuple[str, Callable[[], Proc | None]]
_WITH_WORKERS = ("engine", "gateway")


def faults(run: LauncherRun, services: Sequence[str]) -> list[Fault]:
    """The processes to kill, in order, for each of `services`."""
    found: list[Fault] = []
    for name in services:
        if name in _WITH_WORKERS:
            found.append((f"{name} worker", lambda n=name: next(iter(run.workers(n)), None)))
        found.append((name, lambda n=name: run.service(n)))
    return found


@contextlib.contextmanager
def swept_run(folder: Path, ports: tuple[int, int], **workers: int) -> Iterator[LauncherRun]:
    """`patience serve` ready, Redis writing every change to its file before it answers,
    and the outbox swept every 2 s: an announcement lost or a deletion cut short by a
    kill is found within seconds, not minutes."""
    http_port, grpc_port = ports
    args = serve_args(http_port, grpc_port, "--appendfsync", "always", **workers)
    run = LauncherRun(args, folder, env=clean_env(OUTBOX_SWEEP_SECONDS="2"))
    try:
        run.wait_ready()
        yield run
    finally:
        run.cleanup()
