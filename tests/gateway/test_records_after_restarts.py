"""Records on time through a Redis, or a PostgreSQL, killed outright: players finish
games under load while the server is killed (SIGKILL) and started again on its data
(Redis's append-only file), and every game whose end was answered 200 has its record in
PostgreSQL within moments of the server being back, long before the drain's sweep
(OUTBOX_SWEEP_SECONDS, 300 s here as in production) would find an outbox whose
announcement was lost. The connections that died with the old Redis are made afresh by
redis-py's retry (storage.clients).

Each record's arrival is watched in PostgreSQL itself; the slowest figures are written
to standard output (`-s`), and the arrival metric's series is checked beside them."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from pathlib import Path
from typing import Any

import psycopg
from patience_gateway.settings import Settings
from patience_gateway.storage.clients import open_redis
from patience_gateway.storage.outbox import OutboxStore
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_server import EmbeddedRedis

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import PLAYER_KEY, Gateway, environment_speed_paths, running_gateway
from tests.gateway.players import Session, new_player

PLAYERS = 16
SWEEP_SECONDS = 300
# Far below the sweep, far above what a loaded machine takes: the test shows the
# records do not wait for the sweep, not how fast they come.
ARRIVAL_LIMIT = 60.0
# Games finished before the kill, and after Redis is back, by the players together.
BEFORE, AFTER = 24, 24


def killed_and_back(server: EmbeddedRedis, data: Path) -> EmbeddedRedis:
    """`server` killed outright (SIGKILL: no shutdown, no last save), then a new one
    started on its port and its append-only file."""
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    server.stop()
    return EmbeddedRedis(port=server.port, appendonly=True, data_dir=str(data)).start()


async def test_announcements_reach_a_restarted_redis_on_connections_made_afresh(
    tmp_path: Path,
) -> None:
    """Every connection the client holds died with the old server: each announcement
    is sent again on a new one, none left for the sweep."""
    server = EmbeddedRedis(appendonly=True, data_dir=str(tmp_path)).start()
    redis = open_redis(Settings(redis_url=server.url))
    outbox = OutboxStore(redis)
    try:
        # at once, so that the client opens a connection for each
        await asyncio.gather(*(outbox.announce(f"before-{n}") for n in range(PLAYERS)))
        server = killed_and_back(server, tmp_path)
        await asyncio.gather(*(outbox.announce(f"after-{n}") for n in range(PLAYERS)))
        waiting = {game for game, _ in await outbox.waiting(4 * PLAYERS)}
        assert waiting == {f"{when}-{n}" for when in ("before", "after") for n in range(PLAYERS)}
    finally:
        await redis.aclose()
        server.stop()


class Players:
    """Players finishing games (a create, a move, a resign) one after another, each
    step tried again while the gateway answers 503; `finished` is when each game's
    resign was answered 200."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.finished: dict[str, float] = {}
        self.unavailable = 0
        self.stop = asyncio.Event()

    async def _step(
        self, method: str, path: str, player: Session, body: object = None
    ) -> dict[str, Any]:
        while True:
            response = await self.gateway.http.request(
                method, path, json=body, headers=player.auth()
            )
            if response.status_code != 503:
                assert response.status_code in (200, 201), response.text
                answer: dict[str, Any] = response.json()
                return answer
            self.unavailable += 1
            await asyncio.sleep(0.02)

    async def begin(self, player: Session, chooser: random.Random) -> str:
        """A new game of the player's, one move made: its path."""
        game = await self._step("POST", "/v1/games", player, {"variant": "bisley"})
        path = f"/v1/games/{game['id']}"
        move = {"move": chooser.choice(game["legal_moves"])}
        moved = await self._step("POST", f"{path}/moves", player, move)
        if moved["status"] != "playing":  # the move left it stuck: ended already
            self.finished[game["id"]] = time.monotonic()
        return path

    async def finish(self, player: Session, path: str) -> None:
        game = path.rpartition("/")[2]
        if game not in self.finished:
            await self._step("POST", f"{path}/resign", player)
            self.finished[game] = time.monotonic()

    async def play(self, player: Session, seed: int) -> None:
        chooser = random.Random(seed)
        while not self.stop.is_set():
            await self.finish(player, await self.begin(player, chooser))

    async def run(self, sessions: list[Session], count: int) -> None:
        """Every player plays until `count` games are finished in all."""
        self.stop.clear()
        playing = [
            asyncio.create_task(self.play(session, seed)) for seed, session in enumerate(sessions)
        ]
        while len(self.finished) < count:
            await asyncio.sleep(0.01)
        self.stop.set()
        await asyncio.gather(*playing)


async def watch_arrivals(
    database_url: str, players: Players, arrived: dict[str, float], done: asyncio.Event
) -> None:
    """Notes when each finished game's record is first seen ended in PostgreSQL (connected
    again while PostgreSQL is away)."""
    while not (done.is_set() and arrived.keys() >= players.finished.keys()):
        try:
            async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as db:
                while not (done.is_set() and arrived.keys() >= players.finished.keys()):
                    waiting = [game for game in players.finished if game not in arrived]
                    if waiting:
                        rows = await db.execute(
                            "SELECT id FROM games WHERE id = ANY(%s) AND outcome IS NOT NULL",
                            (waiting,),
                        )
                        now = time.monotonic()
                        for (game,) in await rows.fetchall():
                            arrived[game] = now
                    await asyncio.sleep(0.02)
        except psycopg.OperationalError:
            await asyncio.sleep(0.02)


def report(what: str, ages: list[float], last: float, players: Players) -> None:
    """The figures of a run, on standard output (`-s`)."""
    ages = sorted(ages)
    p99 = ages[max(0, round(len(ages) * 0.99) - 1)]
    print(
        f"\n{what}: {len(ages)} records; arrival: median {statistics.median(ages):.3f} s, "
        f"p99 {p99:.3f} s, max {ages[-1]:.3f} s; the last record {last:.3f} s after the "
        f"restart; {players.unavailable} answers 503 meanwhile"
    )


async def test_every_finished_games_record_arrives_within_moments_of_redis_back(
    engine: EngineThread, database_of_its_own: str, tmp_path: Path
) -> None:
    server = EmbeddedRedis(appendonly=True, data_dir=str(tmp_path)).start()
    settings = Settings(
        redis_url=server.url,
        engine_addr=engine.target,
        database_url=database_of_its_own,
        player_token_keys=(PLAYER_KEY,),
        outbox_sweep_seconds=SWEEP_SECONDS,
        speed_paths=environment_speed_paths(),
    )
    try:
        async with running_gateway(settings) as gateway:
            players = Players(gateway)
            sessions = [await new_player(gateway) for _ in range(PLAYERS)]
            arrived: dict[str, float] = {}
            done = asyncio.Event()
            async with asyncio.timeout(SWEEP_SECONDS / 2), asyncio.TaskGroup() as group:
                watcher = group.create_task(
                    watch_arrivals(database_of_its_own, players, arrived, done)
                )
                # Load, so that the Redis client holds a connection for each player's
                # announcements; then each player's game in play, as Redis is killed.
                await players.run(sessions, BEFORE)
                chooser = random.Random(PLAYERS)
                in_play = await asyncio.gather(*(players.begin(s, chooser) for s in sessions))
                server = killed_and_back(server, tmp_path)
                back = time.monotonic()
                # The games in play end at once, on connections that reached the old
                # server, and the load goes on.
                await asyncio.gather(
                    *(players.finish(s, g) for s, g in zip(sessions, in_play, strict=True))
                )
                await players.run(sessions, len(players.finished) + AFTER)
                done.set()
                async with asyncio.timeout(ARRIVAL_LIMIT):
                    await watcher
            metrics = (await gateway.http.get("/metrics")).text
    finally:
        server.stop()
    ages = [arrived[game] - at for game, at in players.finished.items()]
    report("Redis killed (from each end's answer)", ages, max(arrived.values()) - back, players)
    assert max(arrived.values()) - back < ARRIVAL_LIMIT
    assert 'patience_gateway_record_arrival_seconds_count{kind="ended"}' in metrics


async def test_every_finished_games_record_arrives_within_moments_of_postgresql_back(
    engine: EngineThread, tmp_path: Path
) -> None:
    """PostgreSQL killed outright while players finish games: the ends made meanwhile
    wait in Redis, and reach PostgreSQL within moments of its return, as do those after.
    A player's new game waits for PostgreSQL (503 until it is back)."""
    redis = EmbeddedRedis().start()
    postgres = EmbeddedPostgres(data_dir=tmp_path / "postgres").start()
    settings = Settings(
        redis_url=redis.url,
        engine_addr=engine.target,
        database_url=postgres.url,
        player_token_keys=(PLAYER_KEY,),
        outbox_sweep_seconds=SWEEP_SECONDS,
        speed_paths=environment_speed_paths(),
    )
    try:
        async with running_gateway(settings) as gateway:
            players = Players(gateway)
            sessions = [await new_player(gateway) for _ in range(PLAYERS)]
            arrived: dict[str, float] = {}
            done = asyncio.Event()
            async with asyncio.timeout(SWEEP_SECONDS / 2), asyncio.TaskGroup() as group:
                watcher = group.create_task(watch_arrivals(postgres.url, players, arrived, done))
                await players.run(sessions, BEFORE)
                chooser = random.Random(PLAYERS)
                in_play = await asyncio.gather(*(players.begin(s, chooser) for s in sessions))
                assert postgres.process is not None
                postgres.process.kill()  # SIGKILL: no shutdown
                postgres.process.wait()
                # the games in play end while PostgreSQL is away
                await asyncio.gather(
                    *(players.finish(s, g) for s, g in zip(sessions, in_play, strict=True))
                )
                postgres.process = None
                postgres.start()
                back = time.monotonic()
                await players.run(sessions, len(players.finished) + AFTER)
                done.set()
                async with asyncio.timeout(ARRIVAL_LIMIT):
                    await watcher
    finally:
        postgres.stop()
        redis.stop()
    ages = [arrived[game] - max(at, back) for game, at in players.finished.items()]
    report(
        "PostgreSQL killed (from each end's answer, or PostgreSQL's return if later)",
        ages,
        max(arrived.values()) - back,
        players,
    )
    assert max(arrived.values()) - back < ARRIVAL_LIMIT
