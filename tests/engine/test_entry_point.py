"""The real entry point in a subprocess: one process, or a supervisor with workers."""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from patience_contract.client import SyncEngineClient
from patience_engine.sealing import key_id_of

from tests.engine.helpers import key_id_in

# Upper bound for the engine to come up or go down; the tests wait for what the
# engine says, this only keeps a broken engine from hanging the suite.
PATIENCE_SECONDS = 60


def wait_for(condition: Callable[[], object], what: str) -> object:
    give_up = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < give_up:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def start_engine(tmp_path: Path, workers: int) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / "engine.log"
    env = {
        **os.environ,
        "ENGINE_LISTEN": "127.0.0.1:0",
        "ENGINE_WORKERS": str(workers),
        "ENGINE_SEAL_KEY": "entry-point-key",
        "LOG_LEVEL": "info",
    }
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "patience_engine"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    return process, log


def serving_lines(log: Path) -> list[tuple[int, int]]:
    """(port, pid) of every "engine serving on" line logged so far."""
    text = log.read_text(errors="replace")
    return [
        (int(port), int(pid))
        for port, pid in re.findall(r"engine serving on [\d.]+:(\d+) \(pid (\d+)", text)
    ]


def is_gone(pid: int) -> bool:
    return not alive(pid)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


@pytest.mark.parametrize("workers", [1, 2])
def test_entry_point_serves_and_stops_on_sigterm(tmp_path: Path, workers: int) -> None:
    process, log = start_engine(tmp_path, workers)
    try:
        lines = wait_for(
            lambda: len(serving_lines(log)) >= workers and serving_lines(log),
            f"{workers} engine processes to serve",
        )
        assert isinstance(lines, list)
        ports = {port for port, _ in lines}
        pids = {pid for _, pid in lines}
        assert len(ports) == 1, "every worker serves the same port"
        assert len(pids) == workers
        if workers == 1:
            assert pids == {process.pid}
        else:
            assert process.pid not in pids
        (port,) = ports
        with SyncEngineClient(f"127.0.0.1:{port}", timeout=30) as client:
            assert client.health()
            game = client.new_game("bisley", deal=1)
            # ENGINE_SEAL_KEY reached the workers
            assert key_id_in(game.state) == key_id_of(b"entry-point-key")
            for _ in range(20):
                # New connections are spread by the kernel; each must accept the seal.
                with SyncEngineClient(f"127.0.0.1:{port}", timeout=30) as fresh:
                    assert fresh.player_view(game.state) == game.view
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=PATIENCE_SECONDS) == 0
        for pid in pids:
            wait_for(functools.partial(is_gone, pid), f"process {pid} to end")
        assert "engine stopped" in log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_supervisor_replaces_a_worker_that_dies(tmp_path: Path) -> None:
    process, log = start_engine(tmp_path, 2)
    try:
        wait_for(lambda: len(serving_lines(log)) >= 2, "two workers to serve")
        (port, victim), (_, survivor) = serving_lines(log)[:2]
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: len(serving_lines(log)) >= 3, "a replacement worker")
        replacement = serving_lines(log)[2]
        assert replacement[0] == port
        assert replacement[1] not in (victim, survivor)
        with SyncEngineClient(f"127.0.0.1:{port}", timeout=30) as client:
            assert client.health()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=PATIENCE_SECONDS) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_bad_configuration_exits_with_a_message(tmp_path: Path) -> None:
    env = {**os.environ, "ENGINE_WORKERS": "many"}
    result = subprocess.run(
        [sys.executable, "-m", "patience_engine"],
        env=env,
        capture_output=True,
        timeout=PATIENCE_SECONDS,
    )
    assert result.returncode == 2
    assert b"ENGINE_WORKERS" in result.stderr
