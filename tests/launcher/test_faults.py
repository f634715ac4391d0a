"""`kill -9` of each process of `patience serve`, one after another, while players make
moves: every move the service acknowledged is still there afterwards, the service
answers again after each kill, and meanwhile clients saw only successes, 503 problems
with Retry-After, or (while the gateway itself was down) refused connections.

Redis runs with `--appendfsync always`, so that the claim is exact: with the default
`everysec`, Redis may reply before it has written the append-only file while a
background fsync is still running (docs/operations.md, "What survives which fault").
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.launcher.launcher_run import LauncherRun, answers_ready, serve_args
from tests.launcher.players import Outcomes, Player, lost_moves
from tests.launcher.processes import Proc

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

PLAYERS = 4
PROGRESS = 15  # acknowledged moves between two kills: the service works again
ALLOWED = ("200", "201", "503 storage-unavailable", "503 engine-unavailable")


@pytest.fixture
def stack(tmp_path: Path, ports: tuple[int, int]) -> Iterator[LauncherRun]:
    http_port, grpc_port = ports
    args = serve_args(
        http_port,
        grpc_port,
        "--appendfsync",
        "always",
        engine_workers=2,  # so that the engine has a parent and workers to kill
        gateway_workers=2,
    )
    run = LauncherRun(args, tmp_path)
    try:
        run.wait_ready()
        yield run
    finally:
        run.cleanup()


def victims(run: LauncherRun) -> list[tuple[str, Callable[[], Proc | None]]]:
    """Each process to kill, in turn, and how to find it when its turn comes (earlier
    kills replace processes)."""
    return [
        ("redis", lambda: run.service("redis")),
        ("engine worker", lambda: next(iter(run.workers("engine")), None)),
        ("engine", lambda: run.service("engine")),
        ("gateway worker", lambda: next(iter(run.workers("gateway")), None)),
        ("gateway", lambda: run.service("gateway")),
    ]


def wait_for_progress(run: LauncherRun, outcomes: Outcomes, players: list[Player]) -> None:
    """Until PROGRESS more moves are acknowledged: the service works again."""
    target = outcomes.acked() + PROGRESS
    run.wait_until(lambda: outcomes.acked() >= target or not any_alive(players))


def test_every_acknowledged_move_survives_kill_9_of_each_process(stack: LauncherRun) -> None:
    base = stack.banner_value("REST API").removesuffix("/v1")
    outcomes = Outcomes()
    stop = threading.Event()
    players = [Player(base, seed, outcomes, stop) for seed in range(PLAYERS)]
    for player in players:
        player.start()
    killed: list[str] = []
    try:
        for name, find in victims(stack):
            wait_for_progress(stack, outcomes, players)
            proc = find()
            assert proc is not None, f"no {name} process\n{stack.output()}"
            back = f"the {name} is back"  # what the launcher says once it restarted one
            restarts = stack.said.count(back)
            outcomes.enter(f"{name} killed")
            os.kill(proc.pid, signal.SIGKILL)
            killed.append(name)
            if name in ("redis", "engine", "gateway"):
                # Progress alone could come from workers still finishing their requests.
                stack.wait_until(lambda: stack.said.count(back) > restarts)  # noqa: B023
        wait_for_progress(stack, outcomes, players)
    finally:
        stop.set()
        for player in players:
            player.join(timeout=30)
    summary = f"killed {killed}; answers:\n{outcomes.table()}"
    print(summary)
    assert not any_alive(players)
    assert killed == [name for name, _ in victims(stack)]
    assert len(stack.workers("gateway")) == 2, "GATEWAY_WORKERS reaches the gateway"
    assert outcomes.acked() >= PROGRESS * (len(killed) + 1), summary
    assert outcomes.wrong == [], summary
    for phase, answer in outcomes.answers:
        refused = answer.startswith("connection") and phase.startswith("gateway")
        assert answer in ALLOWED or refused, summary
    assert stack.process.poll() is None, stack.output()  # the launcher never gave up
    for service in ("redis", "engine", "gateway"):  # each once: the shortest backoff
        assert f"the {service} was killed by SIGKILL" in stack.said
        assert f"restarting the {service} in 0.2 s" in stack.said
    assert lost_moves(base, outcomes) == [], summary
    assert answers_ready(f"{base}/readyz")
    assert stack.interrupt() == 0, stack.output()


def any_alive(players: list[Player]) -> bool:
    return any(player.is_alive() for player in players)
