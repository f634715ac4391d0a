"""The games outlive `patience serve`: Ctrl-C, start again in the same folder, and they
are all there; one launcher at a time per data folder."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from patience_contract import key_files
from patience_engine.sealing import key_id_of

from tests.launcher.launcher_run import LauncherRun, clean_env, serve_args

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def start(folder: Path, logs: str, ports: tuple[int, int], env: dict[str, str]) -> LauncherRun:
    (folder / logs).mkdir()
    return LauncherRun(serve_args(*ports), folder / logs, env=env, cwd=folder)


def test_games_survive_ctrl_c_and_a_new_start_in_the_same_folder(
    tmp_path: Path, ports: tuple[int, int]
) -> None:
    env = clean_env()
    first = start(tmp_path, "first", ports, env)
    try:
        first.wait_ready()
        assert first.banner_value("Data") == str(tmp_path / ".patience")
        assert "kept across runs" in first.stdout
        assert "append-only file fsynced every second" in first.stdout
        base = first.banner_value("REST API").removesuffix("/v1")
        with httpx.Client(base_url=base, timeout=10) as http:
            created = http.post("/v1/games", json={"variant": "bisley", "deal": 7})
            assert created.status_code == 201, created.text
            game = created.json()
            auth = {"Authorization": f"Bearer {game['token']}"}
            version, moves = game["version"], game["legal_moves"]
            for _ in range(3):
                moved = http.post(
                    f"/v1/games/{game['id']}/moves",
                    json={"move": moves[0]},
                    headers={**auth, "If-Match": f'"{version}"'},
                )
                assert moved.status_code == 200, moved.text
                version, moves = moved.json()["version"], moved.json()["legal_moves"]
            before = http.get(f"/v1/games/{game['id']}/history", headers=auth).json()
        key_file = tmp_path / ".patience" / "engine-seal.key"
        assert (key_file.stat().st_mode & 0o777) == 0o600
        key = key_file.read_text()
        (current,) = key_files.read(key_file, "seal")
        key_id = key_id_of(current.encode())
        assert f"States     sealed, key {key_id} (key file {key_file})" in first.stdout

        second = start(tmp_path, "second", (0, 0), env)
        try:
            assert second.process.wait(timeout=60) == 2
        finally:
            second.cleanup()
        assert f"{tmp_path / '.patience'} is in use by another `patience serve`" in second.said
        assert first.interrupt() == 0, first.output()
    finally:
        first.cleanup()

    again = start(tmp_path, "again", ports, env)
    try:
        again.wait_ready()
        with httpx.Client(base_url=base, timeout=10) as http:
            after = http.get(f"/v1/games/{game['id']}/history", headers=auth)
            assert after.status_code == 200, after.text
            assert after.json() == before and len(before["moves"]) == 3
            moved = http.post(
                f"/v1/games/{game['id']}/moves",
                json={"move": moves[0]},
                headers={**auth, "If-Match": f'"{version}"'},
            )
            assert moved.status_code == 200, moved.text
        assert again.interrupt() == 0, again.output()
        assert key_file.read_text() == key, "the same key opens the same games"
    finally:
        again.cleanup()
