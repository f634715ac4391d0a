"""Starts services in order, waits for each to answer, restarts one that dies, and stops
them in the reverse order on Ctrl-C/SIGTERM/SIGHUP.

A service that dies once it has answered is started again with the same command line
(so on the same port, with the same data) after a short backoff, while the others keep
running: the gateway answers 503 with Retry-After meanwhile and reconnects by itself.
A service that keeps crashing (RestartPolicy: 5 crashes within 60 s) stops everything,
exit status 1, as does a service that dies before it first answers (a port taken, bad
settings: restarting would not help), and one that, restarted three times in a row,
never answers again (each try stopped after the startup timeout): however slowly they
come, those restarts would go on for ever.

What the launcher says of its services (`say`) is a JSON line on standard error, as the
services' own lines are (`patience_contract.logs`): time, level, logger
`patience_launcher`, message.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import IO

from patience_contract.logs import JsonFormatter

from patience_launcher.children import ChildProcess

POLL_SECONDS = 0.1
LOGGER = "patience_launcher"
_LINES = JsonFormatter()


class StopRequested(Exception):
    """A signal asked the launcher to stop while it was still starting."""


class ServiceFailed(Exception):
    """A service did not start, or keeps crashing."""


@dataclass(frozen=True)
class RestartPolicy:
    """When a crashed service is started again, and when the launcher gives up."""

    max_crashes: int = 5  # this many crashes ...
    window_seconds: float = 60.0  # ... within this long: give up
    first_delay: float = 0.2  # backoff before the first restart, doubled each time
    max_delay: float = 8.0
    max_unanswered: int = 3  # restarts in a row that never answer: give up

    def delay(self, recent_crashes: int) -> float:
        """Seconds to wait before restarting after the n-th crash of the window."""
        return min(self.max_delay, self.first_delay * 2.0 ** max(0, recent_crashes - 1))


@dataclass
class Service:
    """One supervised child and its restart bookkeeping."""

    child: ChildProcess
    ready: Callable[[], bool]  # answers: the banner waits for it
    back: Callable[[], bool]  # answers again after a restart (may ask less than `ready`)
    startup_timeout: float
    stop_timeout: float
    crashes: collections.deque[float] = field(default_factory=collections.deque)
    restart_at: float | None = None  # set while down: when to start it again
    starting_since: float | None = None  # set while restarted and not answering yet
    unanswered: int = 0  # restarts in a row that died or timed out before answering
    started_at: float = 0.0  # its first start: its startup timeout counts from here

    @property
    def name(self) -> str:
        return self.child.name


class Supervisor:
    def __init__(self, log: IO[str] | None = None, policy: RestartPolicy | None = None) -> None:
        self.log = log if log is not None else sys.stderr
        self.policy = policy or RestartPolicy()
        self.running: list[Service] = []
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
            self.say("stopping now", logging.WARNING)
            for service in self.running:
                service.child.kill()

    def say(self, message: str, level: int = logging.INFO) -> None:
        say(message, level, self.log)

    # starting --------------------------------------------------------------------------
    def add_child(
        self,
        child: ChildProcess,
        ready: Callable[[], bool],
        timeout: float,
        stop_timeout: float,
        back: Callable[[], bool] | None = None,
        *,
        wait: bool = True,
    ) -> None:
        """Starts `child` and returns once `ready()` is true; raises ServiceFailed if the
        child exits first or `timeout` seconds pass, StopRequested on a signal. After a
        restart, `back()` (default: `ready()`) tells when it answers again. `wait=False`:
        returns at once, and `until_ready` waits for it, so that services that need
        nothing of each other start side by side."""
        child.start()
        service = Service(
            child, ready, back or ready, timeout, stop_timeout, started_at=time.monotonic()
        )
        self.running.append(service)
        if wait:
            self._until_answers(service)

    def until_ready(self) -> None:
        """Returns once every service started answers, in the order they were started;
        raises as `add_child` does."""
        for service in self.running:
            self._until_answers(service)

    def _until_answers(self, service: Service) -> None:
        deadline = service.started_at + service.startup_timeout
        while not service.ready():
            self.check_running()
            if self.stop_requested.is_set():
                raise StopRequested
            if time.monotonic() > deadline:
                raise ServiceFailed(
                    f"the {service.name} did not answer within {service.startup_timeout:g} s"
                )
            self.stop_requested.wait(POLL_SECONDS)

    def check_running(self) -> None:
        """Raises ServiceFailed if any service has stopped (while starting up)."""
        for service in self.running:
            code = service.child.exit_code()
            if code is not None:
                raise ServiceFailed(describe_exit(service.name, code, service.child.last_output()))

    # running ---------------------------------------------------------------------------
    def wait(self) -> None:
        """Watches the services until a signal (returns); restarts those that die, and
        raises ServiceFailed when one keeps crashing."""
        while not self.stop_requested.is_set():
            for service in self.running:
                self._tend(service, time.monotonic())
            self.stop_requested.wait(POLL_SECONDS)

    def _tend(self, service: Service, now: float) -> None:
        if service.restart_at is not None:
            if now >= service.restart_at:
                service.restart_at = None
                service.starting_since = now
                service.child.start()
            return
        code = service.child.exit_code()
        if code is not None:
            # What the dead process left in its group (an engine's or a gateway's
            # workers) goes first: nothing may keep serving beside the restarted one.
            service.child.stop(service.stop_timeout)
            self._crashed(service, describe_exit(service.name, code, service.child.last_output()))
        elif service.starting_since is not None:
            if service.back():
                service.starting_since = None
                service.unanswered = 0
                self.say(f"the {service.name} is back")
            elif now - service.starting_since > service.startup_timeout:
                service.child.stop(service.stop_timeout)
                why = f"the {service.name} did not answer within {service.startup_timeout:g} s"
                self._crashed(service, why, timed_out=True)

    def _crashed(self, service: Service, why: str, *, timed_out: bool = False) -> None:
        now = time.monotonic()
        # A restart stopped at the startup timeout: such restarts come too slowly for the
        # crash window to end them. (One that dies at once is the crash window's to count.)
        if timed_out:
            service.unanswered += 1
            if service.unanswered >= self.policy.max_unanswered:
                raise ServiceFailed(
                    f"{why}\nthe {service.name} did not answer after {service.unanswered} "
                    "restarts in a row: giving up"
                )
        service.starting_since = None
        service.crashes.append(now)
        while service.crashes and now - service.crashes[0] > self.policy.window_seconds:
            service.crashes.popleft()
        recent = len(service.crashes)
        if recent >= self.policy.max_crashes:
            raise ServiceFailed(
                f"{why}\nthe {service.name} crashed {recent} times within "
                f"{self.policy.window_seconds:g} s: giving up"
            )
        delay = self.policy.delay(recent)
        self.say(f"{why}\nrestarting the {service.name} in {delay:g} s", logging.WARNING)
        service.restart_at = now + delay

    def stop_all(self) -> None:
        """Stops every service, the last started first."""
        while self.running:
            service = self.running.pop()
            if service.child.exit_code() is None:
                self.say(f"stopping the {service.name}")
            service.child.stop(service.stop_timeout)


def say(message: str, level: int = logging.INFO, stream: IO[str] | None = None) -> None:
    """Writes `message` as one JSON line (the module's doc) to `stream`, standard error
    by default."""
    record = logging.LogRecord(LOGGER, level, "", 0, message, None, None)
    with contextlib.suppress(OSError, ValueError):  # the terminal may be gone
        write_whole(sys.stderr if stream is None else stream, _LINES.format(record))


def write_whole(stream: IO[str], text: str) -> None:
    """`text` and its line end in one write, then flushed. The children's output is
    written to the same stream by threads of their own (`children`), and where the
    stream writes through (PYTHONUNBUFFERED) `print`'s two writes, the text and then
    its line end, let another thread's line in between: two JSON lines on one."""
    stream.write(text + "\n")
    stream.flush()


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
