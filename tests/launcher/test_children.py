"""ChildProcess stops a service together with everything it started, and relays its
output whole lines apart from the launcher's own."""

from __future__ import annotations

import contextlib
import io
import os
import pwd
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from patience_launcher.children import ChildProcess, group_alive
from patience_launcher.supervisor import say

from tests.launcher.launcher_run import launcher_lines
from tests.launcher.processes import descendants, read_proc, still_running

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def wait_for_output(child: ChildProcess, text: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in child.output_so_far():
        assert child.exit_code() is None, child.last_output()
        assert time.monotonic() < deadline, f"no {text!r} from the child"
        time.sleep(0.02)


def python_child(code: str) -> ChildProcess:
    return ChildProcess("test", [sys.executable, "-c", code], env={}, output=io.StringIO())


def test_stop_ends_the_child_and_the_processes_it_forked() -> None:
    child = python_child(
        "import subprocess, sys, time\n"
        "worker = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print('worker', worker.pid, flush=True)\n"
        "time.sleep(600)\n"
    ).start()
    try:
        wait_for_output(child, "worker")
        tree = descendants(child.pid)
        assert tree, "the worker should be running"
        code = child.stop(timeout=10)
    finally:
        child.kill()
    assert code is not None and code < 0  # ended by SIGTERM
    assert not group_alive(child.pid)
    assert not [proc for proc in tree if still_running(proc)]


def test_a_child_is_a_process_group_of_its_own_in_the_launchers_session() -> None:
    """Its own group: stopping it reaches its workers and nothing else. The launcher's
    session: where Linux shares the CPU between sessions first (autogroups), the
    services share one scheduling group, in which the engine's search processes, at a
    lower priority, give way to every service's processes."""
    child = python_child(
        "import os, time\n"
        "print('ids', os.getpid(), os.getpgid(0), os.getsid(0), flush=True)\n"
        "time.sleep(600)\n"
    ).start()
    try:
        wait_for_output(child, "ids")
        line = next(x for x in child.output_so_far().splitlines() if x.startswith("ids"))
        pid, group, session = (int(x) for x in line.split()[1:])
        assert pid == group == child.pid
        assert session == os.getsid(0)
    finally:
        child.stop(timeout=10)


def test_stop_kills_a_child_that_ignores_sigterm() -> None:
    child = python_child(
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ignoring', flush=True)\n"
        "time.sleep(600)\n"
    ).start()
    try:
        wait_for_output(child, "ignoring")
        code = child.stop(timeout=0.5)
    finally:
        child.kill()
    assert code == -9


def test_output_is_relayed_with_the_name_and_kept_for_errors() -> None:
    relayed = io.StringIO()
    child = ChildProcess(
        "demo",
        [sys.executable, "-c", "print('one'); print('two'); raise SystemExit(3)"],
        {},
        output=relayed,
    ).start()
    assert child.process is not None
    assert child.process.wait(timeout=30) == 3
    assert child.last_output() == "one\ntwo"
    assert relayed.getvalue() == "demo    | one\ndemo    | two\n"


def test_a_server_with_a_stop_signal_of_its_own_gets_it_alone() -> None:
    """PostgreSQL stops its own processes on SIGINT; SIGTERM to its group would not do."""
    child = ChildProcess(
        "server",
        [
            sys.executable,
            "-c",
            "import signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "signal.signal(signal.SIGINT, lambda *_: sys.exit(7))\n"
            "print('serving', flush=True)\n"
            "time.sleep(600)\n",
        ],
        env={},
        output=io.StringIO(),
        stop_signal=signal.SIGINT,
    ).start()
    try:
        wait_for_output(child, "serving")
        assert child.stop(timeout=10) == 7
    finally:
        child.kill()


@pytest.mark.skipif(os.geteuid() != 0, reason="switching the user needs root")
def test_a_child_runs_as_the_user_it_is_given_and_still_dies_with_its_launcher() -> None:
    """Linux forgets a parent-death request when a process changes its user: the guard
    must ask after the switch, or a PostgreSQL run as nobody outlives a killed launcher."""
    nobody = pwd.getpwnam("nobody")
    launcher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\n"
            "from patience_launcher.children import ChildProcess\n"
            "child = ChildProcess('server', ['sleep', '600'], {'PATH': '/usr/bin:/bin'},"
            f" user=({nobody.pw_uid}, {nobody.pw_gid})).start()\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert launcher.stdout is not None
    pid = int(launcher.stdout.readline())
    try:
        deadline = time.monotonic() + 20
        while not ((proc := read_proc(pid)) and proc.cmdline.startswith("sleep")):
            assert time.monotonic() < deadline, "the guard did not become the program"
            time.sleep(0.02)
        assert os.stat(f"/proc/{pid}").st_uid == nobody.pw_uid
        launcher.kill()  # no chance to stop its child
        launcher.wait()
        deadline = time.monotonic() + 20
        while still_running(proc):
            assert time.monotonic() < deadline, "the child outlived its launcher"
            time.sleep(0.02)
    finally:
        launcher.kill()
        launcher.wait()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_the_launchers_lines_and_a_childs_relayed_lines_never_share_a_line(
    tmp_path: Path,
) -> None:
    """Standard error as it is under PYTHONUNBUFFERED (each write goes out at once),
    written by the launcher (`say`) while a thread relays a chatty child's lines: every
    line is one of the two, whole."""
    path = tmp_path / "stderr"
    with open(path, "wb", buffering=0) as raw:
        stream = io.TextIOWrapper(raw, line_buffering=True, write_through=True)
        lines = "for _ in range(5000): print('{\"x\": 1}')"
        child = ChildProcess("chatty", [sys.executable, "-c", lines], {}, output=stream).start()
        said = 0
        while child.exit_code() is None:
            say("a line of the launcher's own", stream=stream)
            said += 1
        assert child.stop(timeout=10) == 0
        stream.flush()
    written = path.read_text()
    relayed = [line for line in written.splitlines() if line.startswith("chatty  |")]
    assert relayed == ['chatty  | {"x": 1}'] * 5000
    assert len(launcher_lines(written)) == said
