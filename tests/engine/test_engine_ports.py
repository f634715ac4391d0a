"""One engine a port: a second `patience-engine` on a port another serves stops at once,
exit status 1, with a line that names the port, and the first keeps serving. The
supervisor's workers share their port with SO_REUSEPORT, which would admit a second
engine's workers beside them: real processes show that it does not."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from patience_contract.client import SyncEngineClient
from patience_launcher.addresses import free_port

WAIT = 60.0


@contextmanager
def engine(folder: Path, name: str, port: int, workers: int) -> Iterator[subprocess.Popen[bytes]]:
    """`python -m patience_engine` on 127.0.0.1:`port`, its lines in `folder`/`name`.log;
    stopped (killed if it must be) at the end."""
    env = {
        **os.environ,
        "ENGINE_LISTEN": f"127.0.0.1:{port}",
        "ENGINE_WORKERS": str(workers),
        "ENGINE_SOLVER_PROCESSES": "1",
        "ENGINE_SEAL_KEY": "engine-ports-key",
        "LOG_LEVEL": "info",
    }
    with (folder / f"{name}.log").open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "patience_engine"], env=env, stdout=sink, stderr=sink
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def errors(folder: Path, name: str) -> list[str]:
    text = (folder / f"{name}.log").read_text(errors="replace")
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line["message"] for line in lines if line["level"] == "error"]


def serving(port: int, workers: int, folder: Path, name: str) -> None:
    """Until `workers` processes serve the port (each logs that it does)."""
    deadline = time.monotonic() + WAIT
    log = folder / f"{name}.log"
    while log.read_text(errors="replace").count(f"engine serving on 127.0.0.1:{port}") < workers:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)


def answers(port: int, times: int = 10) -> None:
    """`times` fresh connections to the port each answer, with states the same key opens
    (whichever worker the kernel hands a connection to)."""
    with SyncEngineClient(f"127.0.0.1:{port}", timeout=30) as client:
        game = client.new_game("bisley", deal=1)
    for _ in range(times):
        with SyncEngineClient(f"127.0.0.1:{port}", timeout=30) as fresh:
            assert fresh.health()
            assert fresh.player_view(game.state) == game.view


def test_a_second_engine_on_a_served_port_stops_and_the_first_serves_on(tmp_path: Path) -> None:
    port = free_port()
    with engine(tmp_path, "first", port, workers=2) as first:
        serving(port, 2, tmp_path, "first")
        for name, workers in (("second", 2), ("alone", 1)):
            with engine(tmp_path, name, port, workers) as second:
                assert second.wait(WAIT) == 1
            said = errors(tmp_path, name)
            assert said == [
                f"cannot listen on 127.0.0.1:{port}: port {port} is in use by "
                + ("another engine on this machine" if workers > 1 else "another process")
            ], said
        assert first.poll() is None
        answers(port)


def test_of_two_engines_started_at_once_on_one_port_one_serves(tmp_path: Path) -> None:
    """Both find the port free: the one that claims it first serves, the other stops."""
    port = free_port()
    with engine(tmp_path, "a", port, workers=2) as one, engine(tmp_path, "b", port, 2) as other:
        deadline = time.monotonic() + WAIT
        while one.poll() is None and other.poll() is None:
            assert time.monotonic() < deadline, "neither engine stopped"
            time.sleep(0.05)
        stopped, running = ("a", "b") if one.poll() is not None else ("b", "a")
        assert (one if stopped == "a" else other).returncode == 1
        assert any(f"port {port} is in use" in message for message in errors(tmp_path, stopped))
        serving(port, 2, tmp_path, running)
        answers(port)


def test_an_engine_does_not_join_a_stranger_on_its_port(tmp_path: Path) -> None:
    """A server of another kind listening there with SO_REUSEPORT (which the workers'
    sockets would join) is no engine's: the engine stops, naming the port."""
    port = free_port()
    with socket.socket() as stranger:
        stranger.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        stranger.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        stranger.bind(("127.0.0.1", port))
        stranger.listen()
        with engine(tmp_path, "engine", port, workers=2) as process:
            assert process.wait(WAIT) == 1
    assert errors(tmp_path, "engine") == [
        f"cannot listen on 127.0.0.1:{port}: port {port} is in use by another process"
    ]
