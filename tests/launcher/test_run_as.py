"""patience_launcher.run_as: a program run as another user (PostgreSQL's, under root)
starts cleanly from a process whose gRPC threads are running, where a child that
subprocess switches itself (a plain fork) sometimes fails in gRPC's fork handlers."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from patience_launcher import run_as
from patience_launcher.postgres_server import ServerUser

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="switching the user needs root")


@pytest.fixture
def grpc_threads() -> Iterator[None]:
    """A gRPC server and a channel connected to it, in this process, as a test, a bench
    part or the launcher has them."""
    server = grpc.server(futures.ThreadPoolExecutor(2))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    grpc.channel_ready_future(channel).result(timeout=10)
    try:
        yield
    finally:
        channel.close()
        server.stop(None)


@ROOT_ONLY
def test_programs_run_as_another_user_start_cleanly_beside_grpc(grpc_threads: None) -> None:
    """A hundred starts: with subprocess's `user` and `group` a few in two hundred were
    seen to exit with only gRPC's "epoll_wait error" on their standard error."""
    nobody = pwd.getpwnam("nobody")
    for _ in range(100):
        done = subprocess.run(
            run_as.command(["sh", "-c", "id -u; id -G"], (nobody.pw_uid, nobody.pw_gid)),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert (done.returncode, done.stderr) == (0, ""), done
        uid, groups = done.stdout.splitlines()
        assert int(uid) == nobody.pw_uid
        assert groups.split() == [str(nobody.pw_gid)], "no supplementary group is kept"


@ROOT_ONLY
def test_the_server_user_under_root_runs_programs_through_run_as() -> None:
    user = ServerUser.for_this_process()
    assert user.is_other
    argv = user.command(["initdb", "--version"])
    assert argv[:3] == [sys.executable, "-m", "patience_launcher.run_as"]
    assert argv[3:] == [f"{user.uid}:{user.gid}", "initdb", "--version"]


def test_the_same_user_runs_programs_as_they_are() -> None:
    user = ServerUser(os.getuid(), os.getgid())
    assert user.command(["initdb", "--version"]) == ["initdb", "--version"]


def test_a_user_that_cannot_be_taken_is_refused_with_a_reason() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "patience_launcher.run_as", "nobody:nogroup", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("run_as: cannot switch the user:")


def test_without_a_program_it_says_how_it_is_used() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "patience_launcher.run_as", "0:0"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "run_as UID:GID PROGRAM" in done.stderr
