"""Starts services in order, waits for each to answer, watches them, and stops them in
the reverse order: on Ctrl-C/SIGTERM/SIGHUP, or as soon as one of them dies."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import IO

from patience_launcher.children import ChildProcess
from patience_launcher.redis_server import EmbeddedRedis

POLL_SECONDS = 0.1


class StopRequested(Exception):
    """A signal asked the launcher to stop while it was still starting."""


class ServiceFailed(Exception):
    """A service did not start, or stopped on its own."""


@dataclass
class Managed:
    """What the supervisor needs to know about one running service."""

    name: str
    exit_code: Callable[[], int | None]
    last_output: Callable[[], str]
    stop: Callable[[], object]
    kill: Callable[[], object]


class Supervisor:
    def __init__(self, log: IO[str] | None = None) -> None:
        self.log = log if log is not None else sys.stderr
        self.running: list[Managed] = []
        self.stop_requested = threading.Event()
        self._signals_seen = 0

    # signals ---------------------------------------------------------------------------
    def install_signal_handlers(self) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self._signals_seen += 1
        if self._signals_seen == 1:
            self.say(f"{signal.Signals(signum).name} received: stopping (again to force)")
            self.stop_requested.set()
        else:
            self.say("stopping now")
            for service in self.running:
                service.kill()

    def say(self, message: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # the terminal may be gone
            print(f"patience: {message}", file=self.log, flush=True)

    # starting --------------------------------------------------------------------------
    def add_redis(self, redis: EmbeddedRedis) -> None:
        """Registers an embedded Redis that `redis.start()` already brought up."""

        def exit_code() -> int | None:
            return None if redis.process is None else redis.process.poll()

        def kill() -> None:
            if redis.process is not None:
                redis.process.kill()

        self.running.append(Managed("redis", exit_code, redis.log_tail, redis.stop, kill))

    def add_child(
        self, child: ChildProcess, ready: Callable[[], bool], timeout: float, stop_timeout: float
    ) -> None:
        """Starts `child` and returns once `ready()` is true; raises ServiceFailed if the
        child exits first or `timeout` seconds pass, StopRequested on a signal."""
        child.start()
        self.running.append(
            Managed(
                child.name,
                child.exit_code,
                child.last_output,
                lambda: child.stop(stop_timeout),
                child.kill,
            )
        )
        deadline = time.monotonic() + timeout
        while not ready():
            self.check_running()
            if self.stop_requested.is_set():
                raise StopRequested
            if time.monotonic() > deadline:
                raise ServiceFailed(f"the {child.name} did not answer within {timeout:g} s")
            self.stop_requested.wait(POLL_SECONDS)

    # running ---------------------------------------------------------------------------
    def check_running(self) -> None:
        """Raises ServiceFailed if any service has stopped on its own."""
        for service in self.running:
            code = service.exit_code()
            if code is not None:
                raise ServiceFailed(describe_exit(service.name, code, service.last_output()))

    def wait(self) -> None:
        """Blocks until a signal (returns) or a service dies (raises ServiceFailed)."""
        while not self.stop_requested.is_set():
            self.check_running()
            self.stop_requested.wait(POLL_SECONDS)

    def stop_all(self) -> None:
        """Stops every service, the last started first."""
        while self.running:
            service = self.running.pop()
            if service.exit_code() is None:
                self.say(f"stopping the {service.name}")
            service.stop()


def describe_exit(name: str, code: int, output: str) -> str:
    if code < 0:
        how = f"was killed by {signal.Signals(-code).name}"
    else:
        how = f"exited with status {code}"
    lines = [line for line in output.splitlines() if line.strip()][-10:]
    text = f"the {name} {how}"
    if lines:
        text += "; its last output:\n" + "\n".join(f"    {line}" for line in lines)
    return text
