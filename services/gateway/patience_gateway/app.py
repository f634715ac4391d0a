"""The app's wiring: the HTTP app (`http.factory`) and what lives as long as it does,
opened by its lifespan: one Redis client, a few gRPC channels to the engine, the game
store, the winnable deals, PostgreSQL's connections (when DATABASE_URL names one), the
players and records, the game operations' dependencies (`games.service.Games`), the
event hub, and the background work: the winnable pools' refill, the outbox drain and
the sampling of the connections for the metrics. The speed paths are chosen here
(`speed`, Settings.speed_paths), and tracing is started here where the OTEL_* variables
ask for it (`tracing`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

from fastapi import FastAPI
from patience_contract.client import EngineClient

from patience_gateway import speed, tracing
from patience_gateway.games import change
from patience_gateway.games.challenges import Challenges
from patience_gateway.games.daily import DailyDeals, DailySettings
from patience_gateway.games.service import Games
from patience_gateway.games.winnable import PoolRefill, WinnableDeals, WinnableSettings
from patience_gateway.http.connections import ConnectionSampler
from patience_gateway.http.factory import http_app
from patience_gateway.http.metrics import Metrics
from patience_gateway.http.scrape import ScrapeSources
from patience_gateway.http.stop_signals import call_on_stop_signal
from patience_gateway.players.access_tokens import AccessTokens, KeySet
from patience_gateway.players.service import Players
from patience_gateway.records.leaderboards import Leaderboards
from patience_gateway.records.outbox import AbandonCheck, DrainSettings, OutboxDrain
from patience_gateway.records.service import Records
from patience_gateway.settings import Settings
from patience_gateway.storage.boards import Boards
from patience_gateway.storage.clients import learn_topology, open_redis, replica_wait
from patience_gateway.storage.database import Database, DatabaseUnavailable
from patience_gateway.storage.events import EventHub
from patience_gateway.storage.link_codes import LinkCodes
from patience_gateway.storage.outbox import OutboxStore
from patience_gateway.storage.rates import Rate, RateLimits
from patience_gateway.storage.schema import SchemaReady
from patience_gateway.storage.store import GameStore
from patience_gateway.storage.winnable_pools import WinnablePools


def create_app(settings: Settings | None = None, *, served: bool = False) -> FastAPI:
    """The gateway's app. `served`: built by a server's worker process (`main`), whose
    stop signals also end its event streams at once (see `http.stop_signals`)."""
    settings = settings or Settings.from_env()
    metrics = Metrics()
    traced = tracing.start()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        redis = open_redis(settings)
        await learn_topology(redis, settings.redis_timeout_seconds)
        engine = EngineClient(
            settings.engine_addr,
            timeout=settings.engine_timeout_seconds,
            channels=settings.engine_channels,
        )
        app.state.redis = redis
        app.state.engine = engine
        wait = replica_wait(settings)
        # traced, the scripts go through redis-py's evalsha, which the tracing sees
        scripts = speed.script_runner(redis, wait, settings.speed_paths and not traced)
        store = GameStore(
            redis,
            scripts,
            settings.game_ttl_seconds,
            settings.redis_timeout_seconds,
            wait=wait,
        )
        pools = WinnablePools(redis)
        winnable = WinnableDeals(
            engine,
            pools,
            WinnableSettings(
                settings.winnable_pool_size,
                settings.winnable_search_seconds,
                settings.winnable_solve_milliseconds,
                settings.winnable_solve_positions,
                settings.winnable_pool_sizes,
            ),
            retry_after=settings.retry_after_seconds,
            on_served=metrics.winnable_deal_served,
        )
        database = Database(settings.database_url) if settings.database_url else None
        app.state.database = database
        schema_ready = _schema_ready(settings.database_url)
        tokens = (
            AccessTokens(
                KeySet.from_texts(settings.player_token_keys), settings.access_token_seconds
            )
            if settings.player_token_keys
            else None
        )
        players = Players(
            database,
            tokens,
            LinkCodes(redis),
            RateLimits(redis),
            schema_ready,
            retry_after=settings.retry_after_seconds,
            new_players=Rate("new-player", settings.new_players_per_minute, 60),
        )
        outbox = OutboxStore(redis)
        app.state.scrape = ScrapeSources(
            redis,
            outbox,
            pools,
            winnable.settings,
            database,
            settings.redis_timeout_seconds,
        )
        with tracing.untraced():
            sampler = asyncio.create_task(
                ConnectionSampler(metrics, redis, scripts, database).run()
            )
        app.state.players = players
        app.state.records = Records(database, store, schema_ready, settings.abandon_after_seconds)
        app.state.games = games = Games(
            engine,
            store,
            settings.retry_after_seconds,
            winnable=winnable,
            on_move_applied=metrics.move_applied,
            players=players,
            outbox=outbox,
        )
        app.state.leaderboards = leaderboards = (
            Leaderboards(Boards(redis), database) if database is not None else None
        )
        app.state.daily = daily = DailyDeals(
            games,
            database,
            schema_ready,
            DailySettings(
                settings.daily_variants,
                settings.winnable_solve_milliseconds,
                settings.winnable_solve_positions,
            ),
        )
        app.state.challenges = Challenges(games, database, schema_ready)
        app.state.events = events = EventHub(redis)
        restore_signals = call_on_stop_signal(events.end_streams) if served else None
        # Every served process runs a refill; the Redis lock lets one of them work.
        refill = None
        if served and winnable.settings.pooled:
            with tracing.untraced():
                refill = asyncio.create_task(
                    PoolRefill(
                        winnable, engine, on_added=metrics.winnable_deal_added, spare=games.spare
                    ).run()
                )
        # Every process with a database drains; the Redis lock lets one of them work.
        drain = None
        if database is not None:
            abandon_after = timedelta(seconds=settings.abandon_after_seconds)

            async def abandon(game_id: str, now: int) -> AbandonCheck:
                return await change.abandon(games, game_id, abandon_after, now)

            app.state.drain = OutboxDrain(
                outbox,
                database,
                abandon,
                DrainSettings(abandon_after, sweep_seconds=settings.outbox_sweep_seconds),
                schema_ready,
                leaderboards,
                on_arrival=metrics.record_arrived,
            )
            with tracing.untraced():
                drain = asyncio.create_task(app.state.drain.run())
        # Every served process prepares the daily deals; a Redis lock lets one work.
        preparer = None
        if served and database is not None:
            with tracing.untraced():
                preparer = asyncio.create_task(daily.run())
        try:
            yield
        finally:
            for task in (refill, drain, sampler, preparer):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            if database is not None:
                await database.close()
            if restore_signals is not None:
                restore_signals()
            await events.aclose()  # ends this process's event streams
            await engine.close()
            await store.aclose()
            await redis.aclose()

    app = http_app(settings, metrics, lifespan, speed.entrances(settings.speed_paths))
    if traced:
        tracing.instrument(app)
    return app


def _schema_ready(url: str) -> Callable[[], Awaitable[None]]:
    """The schema brought up to date before the database's first use (or, without a
    database, the refusal the player routes answer)."""
    if url:
        return SchemaReady(url)

    async def no_database() -> None:
        raise DatabaseUnavailable("this gateway has no PostgreSQL (DATABASE_URL)")

    return no_database


def served_app() -> FastAPI:
    """The app each worker process of the server builds (`main`): on SIGTERM/SIGINT it
    ends its event streams at once, so that they do not hold the worker's stop up."""
    return create_app(served=True)
