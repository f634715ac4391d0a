"""`patience serve` and PostgreSQL: an embedded server, started before the gateway and
handed to it as DATABASE_URL, supervised like Redis, its data kept in the data folder
across runs (and gone with `--ephemeral`); or the server DATABASE_URL names."""

from __future__ import annotations

import os
import pwd
import signal
import sys
from pathlib import Path

import psycopg
import pytest
from patience_launcher import player_keys
from patience_launcher.addresses import port_is_closed
from patience_launcher.postgres_server import PASSWORD_FILE, EmbeddedPostgres
from patience_launcher.records_database import start_database
from patience_launcher.services import redact
from patience_launcher.supervisor import Supervisor

from tests.launcher.launcher_run import LauncherRun, clean_env, named, serve_args

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def embedded_url(run: LauncherRun) -> str:
    """The embedded database's URL, its password read from the data folder (the banner
    hides it)."""
    shown = run.banner_value("PostgreSQL")
    assert ":***@" in shown, run.output()
    data = Path(run.banner_value("Data"))
    password = (data / "postgres" / PASSWORD_FILE).read_text().strip()
    return shown.replace(":***@", f":{password}@", 1)


def query(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url, connect_timeout=10) as connection:
        return connection.execute(sql).fetchall()


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_serve_starts_postgresql_and_hands_the_gateway_its_database(
    tmp_path: Path, ports: tuple[int, int]
) -> None:
    run = LauncherRun(serve_args(*ports, "--ephemeral"), tmp_path, env=clean_env())
    try:
        run.wait_ready()
        data = Path(run.banner_value("Data"))
        assert f"(embedded, data in {data / 'postgres'})" in run.stdout
        url = embedded_url(run)
        assert url.startswith("postgresql://postgres:") and url.endswith("/patience")
        assert query(url, "SELECT current_database()") == [("patience",)]
        assert (data / "postgres" / PASSWORD_FILE).stat().st_mode & 0o777 == 0o600

        gateway = run.environment("gateway")
        assert gateway["DATABASE_URL"] == url
        key_file = data / player_keys.KEY_FILE_NAME
        assert gateway["PLAYER_TOKEN_KEY_FILE"] == str(key_file)
        assert key_file.stat().st_mode & 0o777 == 0o600
        (key,) = player_keys.read_key_file(key_file)
        key_id = player_keys.key_id(key)
        assert f"Players    tokens signed with key {key_id} (key file {key_file})" in run.stdout

        server = run.service("postgres")
        assert server is not None, run.output()
        if os.geteuid() == 0:  # PostgreSQL refuses root: it runs as nobody
            assert os.stat(f"/proc/{server.pid}").st_uid == pwd.getpwnam("nobody").pw_uid
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
    assert "stopping the postgres" in run.said
    assert run.leftovers() == []  # the server and every process it forked
    assert port_is_closed("127.0.0.1", port_of(url))
    assert not data.exists(), "--ephemeral: the database goes with the data folder"


def test_records_outlive_a_run_in_the_same_data_folder(
    tmp_path: Path, ports: tuple[int, int]
) -> None:
    runs: list[LauncherRun] = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        run = LauncherRun(serve_args(*ports), tmp_path / name, env=clean_env(), cwd=tmp_path)
        runs.append(run)
        try:
            run.wait_ready()
            assert run.banner_value("Data") == str(tmp_path / ".patience")
            url = embedded_url(run)
            if name == "first":
                with psycopg.connect(url) as connection:
                    connection.execute("CREATE TABLE kept (note text)")
                    connection.execute("INSERT INTO kept VALUES ('written by the first run')")
            else:
                assert query(url, "SELECT note FROM kept") == [("written by the first run",)]
            assert run.interrupt() == 0, run.output()
        finally:
            run.cleanup()
        assert run.leftovers() == []
    first, second = (run.banner_value("Players") for run in runs)
    assert first == second, "the same token key signs across runs"
    assert (tmp_path / ".patience" / "postgres" / "data" / "PG_VERSION").is_file()


def test_a_postgres_killed_outright_is_started_again_and_keeps_its_data(
    tmp_path: Path, ports: tuple[int, int]
) -> None:
    run = LauncherRun(serve_args(*ports, "--ephemeral"), tmp_path, env=clean_env())
    try:
        run.wait_ready()
        url = embedded_url(run)
        with psycopg.connect(url) as connection:
            connection.execute("CREATE TABLE kept (note text)")
            connection.execute("INSERT INTO kept VALUES ('committed before the kill')")
        server = run.service("postgres")
        assert server is not None, run.output()
        os.kill(server.pid, signal.SIGKILL)
        run.wait_until(lambda: "the postgres is back" in run.said)
        assert "the postgres was killed by SIGKILL" in run.said
        assert "restarting the postgres in 0.2 s" in run.said
        again = run.service("postgres")
        assert again is not None and again.pid != server.pid
        # on the same port, with the same data: the gateway's URL still holds
        assert query(url, "SELECT note FROM kept") == [("committed before the kill",)]
        assert run.environment("gateway")["DATABASE_URL"] == url
        assert run.process.poll() is None, run.output()
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
    assert run.leftovers() == []


def test_serve_uses_the_database_in_database_url_and_the_keys_given(
    tmp_path: Path,
    ports: tuple[int, int],
    database_url: str,
    postgres_server: EmbeddedPostgres,
) -> None:
    keys = [player_keys.new_key(), player_keys.new_key()]
    env = clean_env(DATABASE_URL=database_url, PLAYER_TOKEN_KEYS=",".join(keys))
    run = LauncherRun(serve_args(*ports, "--ephemeral"), tmp_path, env=env)
    try:
        run.wait_ready()
        assert f"PostgreSQL {redact(database_url)}  (from DATABASE_URL)" in run.stdout
        assert postgres_server.password not in run.stdout + run.stderr
        current = player_keys.key_id(keys[0])
        assert f"tokens signed with key {current}, 1 old key (PLAYER_TOKEN_KEYS)" in run.stdout
        assert named(run.children, "postgres -D") == [], "no embedded server"
        data = Path(run.banner_value("Data"))
        assert not (data / "postgres").exists()
        assert not (data / player_keys.KEY_FILE_NAME).exists()
        gateway = run.environment("gateway")
        assert gateway["DATABASE_URL"] == database_url
        assert gateway["PLAYER_TOKEN_KEYS"] == ",".join(keys)
        assert "PLAYER_TOKEN_KEY_FILE" not in gateway
        assert run.interrupt() == 0, run.output()
    finally:
        run.cleanup()
    assert run.leftovers() == []
    assert query(database_url, "SELECT 1") == [(1,)], "a server it did not start keeps running"


def test_serve_refuses_a_database_that_does_not_answer(
    tmp_path: Path, ports: tuple[int, int], database_url: str
) -> None:
    missing = database_url.rsplit("/", 1)[0] + "/no_such_database"
    env = clean_env(DATABASE_URL=missing)
    args = serve_args(*ports, "--ephemeral", "--startup-timeout", "3")
    run = LauncherRun(args, tmp_path, env=env)
    try:
        assert run.process.wait(timeout=120) == 1, run.output()
    finally:
        run.cleanup()
    assert "did not answer within 3 s" in run.said
    assert 'database "no_such_database" does not exist' in run.said
    assert "starting the gateway" not in run.said


def test_an_empty_database_url_means_no_records(tmp_path: Path) -> None:
    database = start_database(Supervisor(), {"DATABASE_URL": " "}, tmp_path, 1.0)
    assert database.env == {"DATABASE_URL": ""}
    assert database.banner == (
        "none: no records kept, the players' routes answer 503 (DATABASE_URL is empty)"
    )
    assert not (tmp_path / "postgres").exists(), "no server started"
