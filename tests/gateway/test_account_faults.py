"""An account's deletion under faults: the gateway killed (kill -9: what it held in
memory is lost, what it wrote stays), Redis killed (kill -9, restarted on its own
data) or PostgreSQL stopped, at each point between the deletion's steps. The player's
tokens are refused from the first step on; a retry of the DELETE finishes the
deletion; then nothing of the player is left in PostgreSQL or Redis but the mark
docs/api.md names (tests/gateway/accounts.py searches every table and every key)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from patience_gateway.records import days
from patience_gateway.records.deletion import AccountDeletion, mark, purge
from patience_gateway.settings import Settings
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_server import EmbeddedRedis

from tests.conftest import new_database
from tests.gateway.accounts import leftovers
from tests.gateway.helpers import GameHandle, Gateway, assert_problem, running_gateway
from tests.gateway.players import Session, bisley_win, drained, new_game, new_player, play

pytestmark = pytest.mark.asyncio(loop_scope="session")

# The points a fault strikes at: before the first step, after each.
BEFORE, MARKED, REDIS_CLEARED, PURGED = range(4)
POINTS = (BEFORE, MARKED, REDIS_CLEARED, PURGED)
FAULTS = ("gateway", "redis", "postgresql")


def real_clock() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class OwnRedis:
    """A Redis of this module's own (the suite's is shared), appending every write to
    its file before answering, so that a kill -9 loses nothing acknowledged."""

    folder: Path
    server: EmbeddedRedis

    def kill(self) -> None:
        assert self.server.process is not None
        self.server.process.kill()  # SIGKILL
        self.server.process.wait()
        self.server.stop()

    def start(self) -> None:
        self.server = _redis(self.folder, self.server.port)


def _redis(folder: Path, port: int | None = None) -> EmbeddedRedis:
    return EmbeddedRedis(
        port=port, appendonly=True, appendfsync="always", data_dir=str(folder)
    ).start()


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnRedis]:
    folder = tmp_path_factory.mktemp("redis-of-the-deletions")
    own = OwnRedis(folder, _redis(folder))
    try:
        yield own
    finally:
        own.server.stop()


@pytest.fixture(scope="module")
def own_database(database_url: str) -> str:
    """A database of this module's own: the drain of every gateway finishes the
    deletions cut short that it finds in its database, and another gateway of the
    suite's on the same database would finish these against the suite's Redis, not
    this module's (its Redis keys then left, its rows gone)."""
    return new_database(database_url)


@pytest.fixture(scope="module")
async def fault_gateway(
    records_settings: Settings, own_redis: OwnRedis, own_database: str
) -> AsyncIterator[Gateway]:
    settings = replace(
        records_settings,
        database_url=own_database,
        redis_url=own_redis.server.url,
        redis_cluster=False,
        daily_variants=("bisley",),
        redis_timeout_seconds=5.0,
    )
    async with running_gateway(settings, clock=real_clock) as gateway:
        await gateway.app.state.services.daily.prepare(days.today())
        yield gateway


async def an_account(gateway: Gateway) -> tuple[Session, list[str]]:
    """A named player with a live link code, a won game, a game in play
    and a day's attempt on the board; its games' ids."""
    player = await new_player(gateway, f"Faulty {time.time_ns() % 10**9}")
    code = await gateway.http.post("/v1/players/me/link-codes", headers=player.auth())
    assert code.status_code == 201  # left live
    deal, moves = bisley_win()
    won = await new_game(gateway, player, "bisley", deal=deal)
    await play(gateway, won, moves)
    playing = await new_game(gateway, player, "usk", deal=5)
    started = await gateway.http.post("/v1/daily/bisley/games", headers=player.auth())
    assert started.status_code == 201, started.text
    daily = GameHandle(started.json()["id"], player.access, started.headers["etag"], started.json())
    await play(gateway, daily, [started.json()["legal_moves"][0]])
    await gateway.http.post(f"/v1/games/{daily.id}/resign", headers=player.auth())
    await drained(gateway)
    return player, [won.id, playing.id, daily.id]


async def steps_until(deletion: AccountDeletion, player_id: str, point: int) -> None:
    """The deletion's steps, as the gateway runs them, up to `point` (then it dies)."""
    if point < MARKED:
        return
    async with deletion.database.transaction() as connection:
        assert await mark(connection, player_id, datetime.now(UTC))
    left = await deletion.what_is_left(player_id)
    assert left is not None
    if point >= REDIS_CLEARED:
        await deletion.clear_redis(player_id, left)
    if point >= PURGED:
        async with deletion.database.transaction() as connection:
            await purge(connection, player_id)


@pytest.mark.parametrize("point", POINTS, ids=["before", "marked", "redis-cleared", "purged"])
@pytest.mark.parametrize("fault", FAULTS)
async def test_a_deletion_cut_short_by_a_fault_is_finished_by_its_retry(
    fault_gateway: Gateway,
    own_redis: OwnRedis,
    postgres_server: EmbeddedPostgres,
    own_database: str,
    fault: str,
    point: int,
) -> None:
    gateway = fault_gateway
    services = gateway.app.state.services
    player, games = await an_account(gateway)
    deletion = AccountDeletion(services.database, services.games.store)
    await steps_until(deletion, player.player_id, point)
    if point >= MARKED:  # the tombstone refuses the player's tokens from the first step
        me = await gateway.http.get("/v1/players/me", headers=player.auth())
        assert_problem(me, 401, "invalid-token")

    if fault == "redis":
        own_redis.kill()
        try:
            answer = await gateway.http.delete("/v1/players/me", headers=player.auth())
            if point < PURGED:
                assert_problem(answer, 503, "storage-unavailable")
        finally:
            own_redis.start()
    elif fault == "postgresql":
        postgres_server.halt()
        try:
            answer = await gateway.http.delete("/v1/players/me", headers=player.auth())
            assert_problem(answer, 503, "records-unavailable")
        finally:
            postgres_server.start()
    # the gateway killed: nothing of the deletion in its memory; the player sends again

    retried = await gateway.http.delete("/v1/players/me", headers=player.auth())
    assert retried.status_code == 204, retried.text
    await drained(gateway)
    redis: Any = services.redis
    assert await leftovers(gateway, own_database, redis, player.player_id, games) == []
    assert_problem(
        await gateway.http.post("/v1/sessions/refresh", json={"refresh_token": player.refresh}),
        401,
        "bad-refresh-token",
    )


async def test_with_redis_away_the_routes_that_read_postgresql_still_answer(
    fault_gateway: Gateway, own_redis: OwnRedis
) -> None:
    """The mark of deleted players is in Redis; while Redis is away a player route that
    reads PostgreSQL alone still answers (a deleted player's row refuses its token
    there), and one that needs Redis is 503 as before."""
    gateway = fault_gateway
    player = await new_player(gateway)
    own_redis.kill()
    try:
        me = await gateway.http.get("/v1/players/me", headers=player.auth())
        assert me.status_code == 200, me.text
        created = await gateway.http.post(
            "/v1/games", json={"variant": "bisley"}, headers=player.auth()
        )
        assert_problem(created, 503, "storage-unavailable")
    finally:
        own_redis.start()
