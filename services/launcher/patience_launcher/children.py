"""Child processes that cannot outlive the launcher.

Each child runs in a process group of its own, so that a Ctrl-C in the terminal reaches
only the launcher, which then stops the children one by one in the order it chooses,
and so that stopping a child also stops any workers it forked. On Linux a child is also
told by the kernel to terminate if the launcher itself dies without cleaning up.

The children stay in the launcher's session. Where Linux groups processes by session for
scheduling (autogroups, on by default on most distributions), the CPU is first shared
between sessions, each as one, and only then between the processes of a session by their
nice: in one session, the engine's search processes, whose nice is lower, give way to
every service's processes (a move through the gateway, the engine and Redis); with a
session per service, the engine's would claim a whole share of the machine for its
searches against the gateway's, whatever their nice (bench/README.md, "Searches beside
moves").
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Self

from patience_launcher.lifecycle import StartsAndStops
from patience_launcher.orphan_guard import guarded_from_here


def group_alive(pgid: int) -> bool:
    """True while a live (not zombie) process remains in group `pgid`."""
    if os.path.isdir("/proc/self"):
        return any(_live_member(entry, pgid) for entry in os.listdir("/proc") if entry.isdigit())
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _live_member(pid: str, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            # the command name may contain spaces or parentheses: fields follow the last ")"
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    state, group = fields[0], int(fields[2])
    return group == pgid and state not in ("Z", "X")


def signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


class ChildProcess(StartsAndStops):
    """A service process whose output is relayed line by line with a name prefix, or
    written straight into a log file."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        output: IO[str] | None = None,
        tail_lines: int = 40,
        *,
        user: tuple[int, int] | None = None,
        stop_signal: signal.Signals = signal.SIGTERM,
        log_file: Path | None = None,
        cwd: Path | None = None,
    ) -> None:
        """`user`: (uid, gid) to run as instead of this process's user (a server that
        refuses root). `stop_signal`: what asks it to stop: SIGTERM goes to the whole
        group (a service and its workers); another signal goes to the child alone, a
        server that stops its own processes (PostgreSQL: SIGINT, its fast shutdown).
        `log_file`: the child writes its output there itself, instead of `output`, so
        that no thread of this process pays for a chatty child (the bench's servers);
        `cwd`: the folder it runs in (default: this process's)."""
        self.name = name
        self.argv = list(argv)
        self.env = dict(env)
        self.user = user
        self.stop_signal = stop_signal
        self.log_file = log_file
        self.cwd = cwd
        self._output = output if output is not None else sys.stderr
        self._tail_lines = tail_lines
        self._tail: collections.deque[str] = collections.deque(maxlen=tail_lines)
        self._relay: threading.Thread | None = None
        self.process: subprocess.Popen[str] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None, f"{self.name} was not started"
        return self.process.pid

    def start(self) -> Self:
        # The guard switches the user on Linux; elsewhere subprocess does.
        switch = self.user if sys.platform != "linux" else None
        with contextlib.ExitStack() as files:
            log = files.enter_context(open(self.log_file, "ab")) if self.log_file else None
            self.process = subprocess.Popen(
                guarded_from_here(self.argv, self.user),
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=log if log is not None else subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                bufsize=1,
                process_group=0,  # a group of its own, in this session (module docstring)
                user=switch[0] if switch else None,
                group=switch[1] if switch else None,
                extra_groups=[] if switch else None,
            )
        if log is None:
            self._relay = threading.Thread(target=self._relay_output, name=f"{self.name}-output")
            self._relay.daemon = True
            self._relay.start()
        return self

    def _relay_output(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self._tail.append(line.rstrip("\n"))
            try:
                self._output.write(f"{self.name:<8}| {line}")
                self._output.flush()
            except (OSError, ValueError):
                pass  # our own output is gone (closed terminal): keep draining the pipe

    def exit_code(self) -> int | None:
        """None while running, else the exit status (negative: killed by that signal)."""
        return None if self.process is None else self.process.poll()

    def output_so_far(self) -> str:
        """The last lines the child printed until now."""
        if self.log_file is not None and self.process is not None:
            lines = self.log_file.read_text(encoding="utf-8", errors="replace").splitlines()
            return "\n".join(lines[-self._tail_lines :])
        return "\n".join(self._tail)

    def last_output(self) -> str:
        """The last lines the child printed, once it has exited: why it stopped."""
        if self._relay is not None:
            self._relay.join(timeout=2.0)
        return self.output_so_far()

    def kill(self) -> None:
        """SIGKILL to the child's whole group, without waiting (safe in a signal handler)."""
        if self.process is not None:
            signal_group(self.process.pid, signal.SIGKILL)

    def stop(self, timeout: float = 10.0) -> int | None:
        """Asks the child to stop (SIGTERM to its whole group, or its own stop signal to
        it alone), SIGKILL to the group after `timeout` seconds; returns the exit status.
        Also ends what a child that died left behind in its group (workers whose parent
        was killed)."""
        if self.process is None:
            return None
        pgid = self.process.pid  # the child leads its own group
        if self.process.poll() is None:
            if self.stop_signal == signal.SIGTERM:
                signal_group(pgid, signal.SIGTERM)
            else:  # a server that stops its own processes, in its own order
                with contextlib.suppress(ProcessLookupError):
                    self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                signal_group(pgid, signal.SIGKILL)
                self.process.wait()
        elif group_alive(pgid):
            signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if group_alive(pgid):
            signal_group(pgid, signal.SIGKILL)
        if self._relay is not None:
            self._relay.join(timeout=2.0)
        return self.process.returncode
