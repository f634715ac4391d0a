"""ChildProcess stops a service together with everything it started."""

from __future__ import annotations

import io
import sys
import time

import pytest
from patience_launcher.children import ChildProcess, group_alive

from tests.launcher.processes import descendants, still_running

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
