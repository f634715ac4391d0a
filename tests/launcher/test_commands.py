"""`patience redis` with its own data folder, Redis's own words when it cannot start,
`patience` alone, and `make help`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from patience_launcher import probes

from tests.launcher.launcher_run import LauncherRun, patience_argv

ROOT = Path(__file__).resolve().parents[2]


def test_redis_creates_a_relative_data_folder_and_keeps_its_data(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    args = ["redis", "--appendonly", "--dir", "./redis-data/nested"]
    run = LauncherRun(args, logs, cwd=tmp_path)
    try:
        run.wait_ready()
        url = run.stdout.split("ready: ")[1].split()[0]
        assert probes.redis_pong(url)
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
    folder = tmp_path / "redis-data" / "nested"
    assert f"data in {folder}, kept" in run.stdout
    assert any(folder.glob("appendonly*")), list(folder.iterdir())


def test_redis_that_cannot_start_says_why_in_its_own_words(tmp_path: Path) -> None:
    (tmp_path / "appendonly.aof").write_text("this is not an append-only file\n")
    run = LauncherRun(["redis", "--appendonly", "--dir", str(tmp_path)], tmp_path)
    try:
        assert run.process.wait(timeout=60) == 1
    finally:
        run.cleanup()
    assert "the redis exited with status 1; its last output:" in run.said
    assert "Bad file format reading the append only file" in run.said


def test_redis_refuses_a_data_folder_it_cannot_make(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    run = LauncherRun(["redis", "--dir", str(tmp_path / "a-file" / "data")], tmp_path)
    try:
        assert run.process.wait(timeout=60) == 2
    finally:
        run.cleanup()
    assert "cannot use --dir" in run.said and "a-file" in run.said


def test_patience_alone_prints_its_help() -> None:
    done = subprocess.run(patience_argv(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for command in ("serve", "engine", "gateway", "redis"):
        assert command in done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_help_lists_every_target() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")  # continued lines
    phony = next(line for line in makefile.splitlines() if line.startswith(".PHONY:"))
    targets = phony.split(":", 1)[1].split()
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("  ")}
    assert listed == set(targets), done.stdout
