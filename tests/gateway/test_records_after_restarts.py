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
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg
import pytest
from patience_gateway.settings import Settings
from patience_gateway.storage.clients import open_redis
from patience_gateway.storage.outbox import OutboxStore
from patience_launcher.addresses import free_port
from patience_launcher.postgres_server import EmbeddedPostgres
from patience_launcher.redis_server import EmbeddedRedis

from tests.gateway.engines import EngineThread
from tests.gateway.helpers import PLAYER_KEY, environment_speed_paths, running_gateway
from tests.gateway.players import Session, new_player, session_of

PLAYERS = 16
SWEEP_SECONDS = 300
# Far below the sweep, far above what a loaded machine takes: the test shows the
# records do not wait for the sweep, not how fast they come.
ARRIVAL_LIMIT = 60.0
# Games finished before the kill, and after Redis is back, by the players together.
BEFORE, AFTER = 24, 24
# a player's pause between games, where a gateway of processes is killed
PAUSE = 0.5


def killed_and_back(server: EmbeddedRedis, data: Path) -> EmbeddedRedis:
    """`server` killed outright (SIGKILL: no shutdown, no last save), then a new one
    started on its port and its append-only file."""
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    server.stop()
    return durable_redis(data, port=server.port)


def durable_redis(data: Path, port: int | None = None) -> EmbeddedRedis:
    """A Redis that writes every command to its append-only file before it answers
    (appendfsync always): with the default everysec, a Redis that finds its last fsync
    still running (a busy disk) holds back the write itself, up to two seconds, and a
    SIGKILL then loses what it had acknowledged."""
    return EmbeddedRedis(
        port=port, appendonly=True, appendfsync="always", data_dir=str(data)
    ).start()


async def test_announcements_reach_a_restarted_redis_on_connections_made_afresh(
    tmp_path: Path,
) -> None:
    """Every connection the client holds died with the old server: each announcement
    is sent again on a new one, none left for the sweep."""
    server = durable_redis(tmp_path)
    redis = open_redis(Settings(redis_url=server.url))
    outbox = OutboxStore(redis, 30.0)
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
    step tried again while the gateway answers 503 or, served by processes, drops the
    connection; `finished` is when each game's end was answered (for an end whose
    answer was lost, when it was first asked for: its age is counted from then)."""

    def __init__(self, http: httpx.AsyncClient, pause: float = 0.0) -> None:
        self.http = http
        self.pause = pause  # between a player's games
        self.finished: dict[str, float] = {}
        self.unavailable = 0
        self.stop = asyncio.Event()

    async def _step(
        self, method: str, path: str, player: Session, body: object = None
    ) -> httpx.Response:
        """The first answer that is not 503 (any status: the caller judges it)."""
        while True:
            try:
                response = await self.http.request(method, path, json=body, headers=player.auth())
            except httpx.TransportError:  # a worker killed with the request
                response = None
            if response is not None and response.status_code != 503:
                return response
            self.unavailable += 1
            await asyncio.sleep(0.02)

    async def begin(self, player: Session, chooser: random.Random) -> str:
        """A new game of the player's, one move made: its path."""
        game: dict[str, Any] = {"status": "stuck"}
        while game["status"] != "playing":  # a deal with no move at all: dealt again
            created = await self._step("POST", "/v1/games", player, {"variant": "bisley"})
            assert created.status_code == 201, created.text
            game = created.json()
        path = f"/v1/games/{game['id']}"
        move = {"move": chooser.choice(game["legal_moves"])}
        moved = await self._step("POST", f"{path}/moves", player, move)
        # (a move sent again after a dropped connection may find itself made: 409, 422)
        if moved.status_code == 200 and moved.json()["status"] != "playing":
            self.finished[game["id"]] = time.monotonic()  # the move left it stuck: ended
        return path

    async def finish(self, player: Session, path: str) -> None:
        game = path.rpartition("/")[2]
        if game in self.finished:
            return
        asked = time.monotonic()
        resigned = await self._step("POST", f"{path}/resign", player)
        if resigned.status_code == 200:
            self.finished[game] = time.monotonic()
        else:  # ended already: by a resign whose answer was lost, or stuck by the move
            assert resigned.json()["code"] == "game-over", resigned.text
            self.finished[game] = asked

    async def play(self, player: Session, seed: int) -> None:
        chooser = random.Random(seed)
        while not self.stop.is_set():
            await self.finish(player, await self.begin(player, chooser))
            await asyncio.sleep(self.pause)

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


@dataclass(frozen=True)
class Arrivals:
    """What a run through an outage saw: when each finished game's end was answered
    (`players.finished`) and its record reached PostgreSQL (`arrived`), when the server
    was back, and the gateway's metrics at the end."""

    players: Players
    arrived: dict[str, float]
    back: float
    metrics: str


# Takes a server away and brings it back, ending the players' games in play (the
# callable it is given) at the moment it chooses; returns when the server was back.
Outage = Callable[[Callable[[], Awaitable[None]]], Awaitable[float]]


def outage_settings(engine: EngineThread, redis_url: str, database_url: str) -> Settings:
    return Settings(
        redis_url=redis_url,
        engine_addr=engine.target,
        database_url=database_url,
        player_token_keys=(PLAYER_KEY,),
        outbox_sweep_seconds=SWEEP_SECONDS,
        speed_paths=environment_speed_paths(),
    )


async def records_through(settings: Settings, outage: Outage) -> Arrivals:
    """Players finish games before, during and after `outage`; then every finished
    game's record is awaited in PostgreSQL (ARRIVAL_LIMIT), far sooner than the sweep."""
    async with running_gateway(settings) as gateway:
        players = Players(gateway.http)
        sessions = [await new_player(gateway) for _ in range(PLAYERS)]
        arrived: dict[str, float] = {}
        done = asyncio.Event()
        async with asyncio.timeout(SWEEP_SECONDS / 2), asyncio.TaskGroup() as group:
            watcher = group.create_task(
                watch_arrivals(settings.database_url, players, arrived, done)
            )
            # Load, so that the Redis client holds a connection for each player's
            # announcements; then each player's game in play as the outage begins.
            await players.run(sessions, BEFORE)
            chooser = random.Random(PLAYERS)
            in_play = await asyncio.gather(*(players.begin(s, chooser) for s in sessions))

            async def finish_in_play() -> None:
                pairs = zip(sessions, in_play, strict=True)
                await asyncio.gather(*(players.finish(s, g) for s, g in pairs))

            back = await outage(finish_in_play)
            await players.run(sessions, len(players.finished) + AFTER)
            done.set()
            async with asyncio.timeout(ARRIVAL_LIMIT):
                await watcher
        metrics = (await gateway.http.get("/metrics")).text
    return Arrivals(players, arrived, back, metrics)


# Beside the bench's run, which starts servers on free ports while this one is away: a
# server of the bench could take the port before the restart claims it again.
@pytest.mark.xdist_group("bench")
async def test_every_finished_games_record_arrives_within_moments_of_redis_back(
    engine: EngineThread, database_of_its_own: str, tmp_path: Path
) -> None:
    server = durable_redis(tmp_path)

    async def redis_killed(finish_in_play: Callable[[], Awaitable[None]]) -> float:
        nonlocal server
        server = killed_and_back(server, tmp_path)
        back = time.monotonic()
        # the games in play end at once, on connections that reached the old server
        await finish_in_play()
        return back

    try:
        run = await records_through(
            outage_settings(engine, server.url, database_of_its_own), redis_killed
        )
    finally:
        server.stop()
    ages = [run.arrived[game] - at for game, at in run.players.finished.items()]
    last = max(run.arrived.values()) - run.back
    report("Redis killed (from each end's answer)", ages, last, run.players)
    assert last < ARRIVAL_LIMIT
    assert 'patience_gateway_record_arrival_seconds_count{kind="ended"}' in run.metrics


# Beside the bench's run, which starts servers on free ports while this one is away: a
# server of the bench could take the port before the restart claims it again.
@pytest.mark.xdist_group("bench")
async def test_every_finished_games_record_arrives_within_moments_of_postgresql_back(
    engine: EngineThread, tmp_path: Path
) -> None:
    """PostgreSQL killed outright while players finish games: the ends made meanwhile
    wait in Redis, and reach PostgreSQL within moments of its return, as do those after.
    A player's new game waits for PostgreSQL (503 until it is back)."""
    redis = EmbeddedRedis().start()
    # Durable, as in production: without synchronous commits a commit the drain was told
    # of (its outbox entry then deleted) could be lost with the killed server.
    postgres = EmbeddedPostgres(data_dir=tmp_path / "postgres", durable=True).start()

    async def postgres_killed(finish_in_play: Callable[[], Awaitable[None]]) -> float:
        assert postgres.process is not None
        postgres.process.kill()  # SIGKILL: no shutdown
        postgres.process.wait()
        await finish_in_play()  # while PostgreSQL is away
        postgres.process = None
        postgres.start()
        return time.monotonic()

    try:
        run = await records_through(
            outage_settings(engine, redis.url, postgres.url), postgres_killed
        )
    finally:
        postgres.stop()
        redis.stop()
    ages = [run.arrived[game] - max(at, run.back) for game, at in run.players.finished.items()]
    last = max(run.arrived.values()) - run.back
    report(
        "PostgreSQL killed (from each end's answer, or PostgreSQL's return if later)",
        ages,
        last,
        run.players,
    )
    assert last < ARRIVAL_LIMIT


def workers_of(process: subprocess.Popen[bytes]) -> list[int]:
    """The gateway's workers that serve: Granian's runtime (its tokio threads) runs in a
    worker once its app has started (a killed one not yet reaped is a zombie)."""
    workers = []
    for child in psutil.Process(process.pid).children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                continue
            names = [Path(f"/proc/{child.pid}/task/{t.id}/comm") for t in child.threads()]
            if any(name.read_text().startswith("tokio") for name in names):
                workers.append(child.pid)
        except (psutil.NoSuchProcess, OSError):
            continue
    return workers


async def serving(
    base: str, process: subprocess.Popen[bytes], log: Path, count: int, gone: int = 0
) -> None:
    """Until the gateway has `count` workers, none of them `gone`, and answers."""
    async with httpx.AsyncClient(base_url=base, timeout=1) as http:
        async with asyncio.timeout(90):
            while True:
                assert process.poll() is None, log.read_text()
                workers = workers_of(process)
                if len(workers) == count and gone not in workers:
                    try:
                        if (await http.get("/livez")).status_code == 200:
                            return
                    except httpx.TransportError:
                        pass
                await asyncio.sleep(0.1)


async def test_every_finished_games_record_arrives_through_gateway_workers_killed(
    engine: EngineThread, database_of_its_own: str, tmp_path: Path
) -> None:
    """`python -m patience_gateway` with two workers, each of them killed outright in
    turn under load (one of them held the drain's lock: the other takes it over); the
    players' connections to a killed worker drop and their requests are made again."""
    redis = EmbeddedRedis().start()
    port = free_port()
    log = tmp_path / "gateway.log"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        "REDIS_URL": redis.url,
        "ENGINE_ADDR": engine.target,
        "DATABASE_URL": database_of_its_own,
        "PLAYER_TOKEN_KEYS": PLAYER_KEY,
        "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(port),
        "GATEWAY_WORKERS": "2",
        "WINNABLE_POOL_SIZE": "0",
        "OUTBOX_SWEEP_SECONDS": str(SWEEP_SECONDS),
        "LOG_LEVEL": "warning",
        "GATEWAY_ACCESS_LOG": "off",
    }
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "patience_gateway"], env=env, stdout=sink, stderr=sink
        )
    try:
        await serving(base, process, log, 2)
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            # players who take a moment between games: the test is of the kills, not of
            # a drain sharing a saturated worker's processor with the requests
            players = Players(http, pause=PAUSE)
            sessions = [session_of(await http.post("/v1/players", json={})) for _ in range(PLAYERS)]
            arrived: dict[str, float] = {}
            done = asyncio.Event()
            async with asyncio.timeout(SWEEP_SECONDS / 2), asyncio.TaskGroup() as group:
                watcher = group.create_task(
                    watch_arrivals(database_of_its_own, players, arrived, done)
                )
                await players.run(sessions, BEFORE)
                for worker in workers_of(process):  # each of the first two, in turn
                    load = group.create_task(players.run(sessions, len(players.finished) + AFTER))
                    started = len(players.finished)
                    while len(players.finished) < started + PLAYERS // 2:
                        await asyncio.sleep(0.01)
                    os.kill(worker, signal.SIGKILL)
                    killed = time.monotonic()
                    await load
                    await serving(base, process, log, 2, worker)  # its replacement started
                done.set()
                async with asyncio.timeout(ARRIVAL_LIMIT):
                    await watcher
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        redis.stop()
    ages = [arrived[game] - at for game, at in players.finished.items()]
    report("a gateway worker killed, twice", ages, max(arrived.values()) - killed, players)
    assert max(arrived.values()) - killed < ARRIVAL_LIMIT
