"""PostgreSQL's backup and restore, performed for real: a gateway records players and
their finished games in a database of the suite's PostgreSQL; the backup script of
deploy/kubernetes (the CronJob's, from its ConfigMap) dumps it with the environment the
CronJob gives it, three nights running, keeping two dumps; a player signs up after the
last dump; then the procedure of docs/operations.md, "Backup and restore": the gateway
stopped, the restore script (the restore Job's) drops the database and restores the
newest dump, the gateway started again. Every player's statistics and games read back
as before the dump, every row of every table and every sequence too, and the player
made after the dump is gone. pg_dump, pg_restore and dropdb are those of the PostgreSQL
installation the suite's server runs."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from patience_gateway.settings import Settings
from patience_launcher.postgres_server import find_postgres_bin
from patience_launcher.redis_server import EmbeddedRedis

from tests.deploy.kustomize import Doc, find, pod_spec, render
from tests.gateway.engines import EngineThread
from tests.gateway.helpers import PLAYER_KEY, Gateway, running_gateway
from tests.gateway.players import (
    Session,
    bisley_win,
    drained,
    my_games,
    my_statistics,
    new_game,
    new_player,
    one_move_in,
    play,
    play_until_stuck,
)

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "deploy" / "kubernetes" / "base"
RESTORE = ROOT / "deploy" / "kubernetes" / "restore"
OPERATIONS = ROOT / "docs" / "operations.md"
KEEP = 2


@dataclass(frozen=True)
class Scripts:
    """The backup and restore scripts of the manifests, and the environment their
    containers are given there (names only: the values name the cluster's server)."""

    backup: str
    restore: str
    backup_env: set[str]
    restore_env: set[str]


def env_names(workload: Doc) -> set[str]:
    [container] = pod_spec(workload)["containers"]  # type: ignore[index]
    return {variable["name"] for variable in container["env"]}


@pytest.fixture(scope="module")
def scripts() -> Scripts:
    base, restore = render(BASE), render(RESTORE)
    data = find(base, "ConfigMap", "patience-postgres-backup")["data"]
    return Scripts(
        data["backup.sh"],
        data["restore.sh"],
        env_names(find(base, "CronJob", "patience-postgres-backup")),
        env_names(find(restore, "Job", "patience-postgres-restore")),
    )


def run_script(script: str, env: dict[str, str]) -> str:
    """Runs a script of the manifests as its container does (`/bin/sh script`), with the
    client programs of the suite's PostgreSQL installation first on PATH."""
    # the folder of the server binary itself (PATH may hold a link to it)
    binaries = (find_postgres_bin() / "postgres").resolve().parent
    for program in ("pg_dump", "pg_restore", "dropdb"):
        assert (binaries / program).is_file(), f"no {program} beside the server in {binaries}"
    path = f"{binaries}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(
        ["/bin/sh", "-c", script, "script"],
        env={"PATH": path, "LC_ALL": "C", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def connection_env(database_url: str) -> dict[str, str]:
    """libpq's variables for the database of `database_url`, as the manifests set them."""
    url = urlsplit(database_url)
    assert url.hostname and url.username and url.password
    return {
        "PGHOST": url.hostname,
        "PGPORT": str(url.port or 5432),
        "PGUSER": url.username,
        "PGPASSWORD": url.password,
        "PGDATABASE": url.path.lstrip("/"),
    }


def snapshot(database_url: str) -> dict[str, Any]:
    """Every row of every table of the database, and every sequence's position."""
    found: dict[str, Any] = {}
    with psycopg.connect(database_url) as connection:
        tables = connection.execute(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
        ).fetchall()
        for (table,) in tables:
            rows = connection.execute(f'SELECT row_to_json(t)::text FROM "{table}" t').fetchall()
            found[table] = sorted(row for (row,) in rows)
        found["sequences"] = connection.execute(
            "SELECT sequencename, last_value FROM pg_sequences ORDER BY sequencename"
        ).fetchall()
    return found


async def players_view(gateway: Gateway, players: list[Session]) -> dict[str, Any]:
    """What each player reads of their records: statistics, and their games."""
    return {
        player.player_id: {
            "statistics": await my_statistics(gateway, player),
            "finished": await my_games(gateway, player, "?state=finished"),
            "games": await my_games(gateway, player),
        }
        for player in players
    }


async def play_some_games(gateway: Gateway) -> list[Session]:
    """Three players: two wins; a win and a resigned game; a game played until stuck
    and one left unfinished."""
    deal, moves = bisley_win()
    players = [await new_player(gateway, name) for name in ("Ada", "Brook", "Cass")]
    for player in (players[0], players[0], players[1]):
        won = await play(gateway, await new_game(gateway, player, "bisley", deal=deal), moves)
        assert won["record"]["outcome"] == "won"
    resigned, _ = await one_move_in(gateway, players[1])
    answer = await gateway.http.post(f"/v1/games/{resigned.id}/resign", headers=players[1].auth())
    assert answer.status_code == 200, answer.text
    await play_until_stuck(gateway, await new_game(gateway, players[2], "bisley"), seed=3)
    unfinished = await new_game(gateway, players[2], "bisley")
    await play(gateway, unfinished, [unfinished.created["legal_moves"][0]])
    await drained(gateway)
    return players


def next_second() -> None:
    """Waits into the next second: the dumps are named by the second they start."""
    time.sleep(1.05 - time.time() % 1)


@pytest.fixture
def redis_server_of_its_own() -> Iterator[EmbeddedRedis]:
    """A Redis of the test's own beside its database of its own: on the suite's Redis,
    the outbox drains of other tests' gateways, whose PostgreSQL lacks these players,
    would take their games for a deleted player's and forget them."""
    with EmbeddedRedis() as server:
        yield server


async def test_a_restored_dump_gives_back_every_players_statistics_and_games(
    scripts: Scripts,
    engine: EngineThread,
    redis_server_of_its_own: EmbeddedRedis,
    database_of_its_own: str,
    tmp_path: Path,
) -> None:
    settings = Settings(
        redis_url=redis_server_of_its_own.url,
        engine_addr=engine.target,
        database_url=database_of_its_own,
        player_token_keys=(PLAYER_KEY,),
        new_players_per_minute=100_000,
        redis_timeout_seconds=30.0,
        engine_timeout_seconds=30.0,
    )
    async with running_gateway(settings) as gateway:
        players = await play_some_games(gateway)
        before = await players_view(gateway, players)
    assert all(view["finished"]["games"] for view in before.values()), before
    rows_before = snapshot(database_of_its_own)
    assert rows_before["players"] and any(rows_before.values())

    # three nightly runs of the CronJob's script, with the CronJob's variables
    backups = tmp_path / "backups"
    backups.mkdir()
    env = {
        **connection_env(database_of_its_own),
        "BACKUP_DIR": str(backups),
        "BACKUP_KEEP": str(KEEP),
    }
    assert set(env) == scripts.backup_env
    for _ in range(3):
        next_second()
        said = run_script(scripts.backup, env)
        assert said.startswith(f"dumped {env['PGDATABASE']} into patience-"), said
    dumps = sorted(path.name for path in backups.iterdir())
    assert len(dumps) == KEEP and all(name.endswith(".dump") for name in dumps), dumps
    assert "removed patience-" in said  # the oldest went

    # written after the last dump: the restore takes it away
    async with running_gateway(settings) as gateway:
        await new_player(gateway, "Late")
    assert len(snapshot(database_of_its_own)["players"]) == len(rows_before["players"]) + 1

    # the restore, the gateway stopped meanwhile, with the restore Job's variables
    env = {**connection_env(database_of_its_own), "BACKUP_DIR": str(backups), "DUMP": ""}
    assert set(env) == scripts.restore_env
    said = run_script(scripts.restore, env)
    assert said.splitlines()[-1] == f"restored {env['PGDATABASE']} from {dumps[-1]}", said

    assert snapshot(database_of_its_own) == rows_before
    async with running_gateway(settings) as gateway:
        after = await players_view(gateway, players)
    assert after == before


def test_the_documented_procedure_is_what_the_scripts_do(scripts: Scripts) -> None:
    """docs/operations.md shows the commands the scripts run, and names the manifests
    that run them."""
    text = OPERATIONS.read_text()
    section = text[text.index("## Backup and restore") :]
    section = section[: section.index("\n## ", 1)]
    for script in (scripts.backup, scripts.restore):
        for line in script.splitlines():
            command = line.strip()
            if command.startswith(("pg_dump ", "pg_restore --create", "dropdb ")):
                assert command in section, command
    for needle in (
        "kubectl apply -k deploy/kubernetes/restore",
        "deployment/patience-gateway --replicas=0",
        "cronjob/patience-postgres-backup",
    ):
        assert needle in section, needle
