"""The data folder, temporary folders that outlive a killed owner, and the split of the
cores between engine and gateway processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from patience_launcher.data_folder import FolderInUse, RunData, data_dir
from patience_launcher.scratch import LOCK_NAME, OwnedTempDir, sweep_abandoned
from patience_launcher.supervisor import RestartPolicy
from patience_launcher.workers import WorkerSplit, split_workers


def test_the_data_folder_is_dot_patience_here_unless_the_variable_names_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert data_dir({}) == tmp_path / ".patience"
    assert data_dir({"PATIENCE_DATA_DIR": "games"}) == tmp_path / "games"
    assert data_dir({"PATIENCE_DATA_DIR": "/srv/patience"}) == Path("/srv/patience")


def test_one_launcher_per_data_folder(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    first = RunData(folder)
    try:
        assert folder.is_dir() and (folder.stat().st_mode & 0o777) == 0o700
        with pytest.raises(FolderInUse):
            RunData(folder)
    finally:
        first.release()
    RunData(folder).release()  # free again once released
    assert folder.is_dir(), "a kept data folder stays"


def test_an_ephemeral_data_folder_goes_on_release() -> None:
    run_data = RunData(ephemeral=True)
    assert run_data.path.is_dir()
    run_data.release()
    assert not run_data.path.exists()


def test_folders_of_owners_that_were_killed_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from patience_launcher.scratch import OwnedTempDir\n"
        "print(OwnedTempDir('demo-', sys.argv[1]).path, flush=True)\n"
        "time.sleep(600)\n"
    )
    owner = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert owner.stdout is not None
    orphaned = Path(owner.stdout.readline().strip())
    live = OwnedTempDir("demo-", tmp_path)
    try:
        assert sweep_abandoned("demo-", tmp_path) == []  # both owners are alive
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        owner.stdout.close()
        assert (orphaned / LOCK_NAME).exists()
        assert sweep_abandoned("demo-", tmp_path) == [orphaned]
        assert not orphaned.exists() and live.path.is_dir()
    finally:
        live.cleanup()
    assert not live.path.exists()


def test_a_folder_without_a_lock_file_is_not_ours_to_remove(tmp_path: Path) -> None:
    other = tmp_path / "demo-of-another-program"
    other.mkdir()
    os.utime(other, (0, 0))
    assert sweep_abandoned("demo-", tmp_path) == []
    assert other.is_dir()


@pytest.mark.parametrize(
    ("cores", "engine", "gateway"), [(1, 1, 1), (2, 1, 1), (4, 1, 2), (8, 3, 5), (16, 5, 10)]
)
def test_the_cores_are_shared_by_cpu_time_per_move(cores: int, engine: int, gateway: int) -> None:
    assert split_workers(None, None, {}, available=cores) == WorkerSplit(engine, gateway)


def test_flags_then_variables_override_the_split() -> None:
    env = {"ENGINE_WORKERS": "3", "GATEWAY_WORKERS": "7"}
    assert split_workers(None, None, env, available=16) == WorkerSplit(3, 7)
    assert split_workers(2, None, env, available=16) == WorkerSplit(2, 7)
    assert split_workers(None, 4, {}, available=16) == WorkerSplit(5, 4)
    with pytest.raises(ValueError, match="GATEWAY_WORKERS must be at least 1"):
        split_workers(None, None, {"GATEWAY_WORKERS": "0"}, available=2)
    with pytest.raises(ValueError, match="ENGINE_WORKERS must be a whole number"):
        split_workers(None, None, {"ENGINE_WORKERS": "two"}, available=2)


def test_restarts_back_off_and_give_up_after_five_crashes_in_a_minute() -> None:
    policy = RestartPolicy()
    assert [policy.delay(n) for n in range(1, 5)] == [0.2, 0.4, 0.8, 1.6]
    assert policy.delay(9) == policy.max_delay == 8.0
    assert (policy.max_crashes, policy.window_seconds) == (5, 60.0)
