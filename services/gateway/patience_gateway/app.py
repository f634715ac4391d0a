"""The app's wiring: the HTTP app (`http.factory`) and what lives as long as it does,
the typed `Services` its routes read (`http.exchange`), opened by its lifespan and closed
by one exit stack: one Redis client, a few gRPC channels to the engine, the game
store, the winnable deals, PostgreSQL's connections (when DATABASE_URL names one), the
players and records, the game operations' dependencies (`games.service.Games`), the
event hub, and the background work: the winnable pools' refill, the outbox drain and
the sampling of the connections for the metrics. The speed paths are chosen here
(`speed`, Settings.speed_paths), and tracing is started here where the OTEL_* variables
ask for it (`tracing`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
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
from patience_gateway.http.exchange import Services
from patience_gateway.http.factory import http_app
from patience_gateway.http.metrics import Metrics
from patience_gateway.http.scrape import ScrapeSources
from patience_gateway.http.stop_signals import call_on_stop_signal
from patience_gateway.players.access_tokens import AccessTokens, KeySet
from patience_gateway.players.outside_identities import OutsideIdentities
from patience_gateway.players.service import Players
from patience_gateway.records.deletion import AccountDeletion
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

log = logging.getLogger("patience_gateway")


def create_app(settings: Settings | None = None, *, served: bool = False) -> FastAPI:
    """The gateway's app. `served`: built by a server's worker process (`main`), whose
    stop signals also end its event streams at once (see `http.stop_signals`)."""
    settings = settings or Settings.from_env()
    metrics = Metrics()
    traced = tracing.start()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            app.state.services = await open_services(settings, metrics, stack, served, traced)
            yield

    app = http_app(settings, metrics, lifespan, speed.entrances(settings.speed_paths))
    if traced:
        tracing.instrument(app)
    return app


async def open_services(
    settings: Settings, metrics: Metrics, stack: AsyncExitStack, served: bool, traced: bool
) -> Services:
    """The app's services, each closed by `stack` (in the reverse order of their
    opening), and its background work, cancelled by it first."""
    redis = open_redis(settings)
    stack.push_async_callback(redis.aclose)
    await learn_topology(redis, settings.redis_timeout_seconds)
    engine = EngineClient(
        settings.engine_addr,
        timeout=settings.engine_timeout_seconds,
        channels=settings.engine_channels,
    )
    stack.push_async_callback(engine.close)
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
    stack.push_async_callback(store.aclose)
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
    if database is not None:
        stack.push_async_callback(database.close)
    schema_ready = _schema_ready(settings.database_url)
    tokens = (
        AccessTokens(KeySet.from_texts(settings.player_token_keys), settings.access_token_seconds)
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
        identities=OutsideIdentities(
            settings.identity_issuers,
            keys_seconds=settings.identity_keys_seconds,
            refetch_seconds=settings.identity_refetch_seconds,
            retry_after=settings.retry_after_seconds,
        ),
    )
    outbox = OutboxStore(redis, settings.redis_timeout_seconds)
    games = Games(
        engine,
        store,
        settings.retry_after_seconds,
        winnable=winnable,
        on_move_applied=metrics.move_applied,
        players=players,
        outbox=outbox,
    )
    leaderboards = Leaderboards(Boards(redis), database) if database is not None else None
    daily = DailyDeals(
        games,
        database,
        schema_ready,
        DailySettings(
            settings.daily_variants,
            settings.winnable_solve_milliseconds,
            settings.winnable_solve_positions,
        ),
    )
    # its own client: a pub/sub connection is read by the hub's reader (`open_redis`)
    events_redis = open_redis(settings, health_checks=False)
    stack.push_async_callback(events_redis.aclose)
    events = EventHub(events_redis)
    stack.push_async_callback(events.aclose)  # ends this process's event streams
    if served:
        stack.callback(call_on_stop_signal(events.end_streams))
    drain = None
    if database is not None:
        abandon_after = timedelta(seconds=settings.abandon_after_seconds)

        async def abandon(game_id: str, now: int) -> AbandonCheck:
            return await change.abandon(games, game_id, abandon_after, now)

        drain = OutboxDrain(
            outbox,
            database,
            abandon,
            DrainSettings(abandon_after, sweep_seconds=settings.outbox_sweep_seconds),
            schema_ready,
            leaderboards,
            on_arrival=metrics.record_arrived,
            deletions=AccountDeletion(database, store),
        )
    # The background work: every process samples its connections and, with a database,
    # drains the outbox; served processes refill the winnable pools and prepare the daily
    # deals. A Redis lock lets one process at a time do each shared job.
    background: list[Awaitable[None]] = [ConnectionSampler(metrics, redis, scripts, database).run()]
    if drain is not None:
        background.append(drain.run())
    if served and winnable.settings.pooled:
        added = metrics.winnable_deal_added
        background.append(PoolRefill(winnable, engine, on_added=added, spare=games.spare).run())
    if served and database is not None:
        background.append(daily.run())
    for work in background:
        with tracing.untraced():
            task = asyncio.ensure_future(work)
        stack.push_async_callback(stop_background, task)
    return Services(
        settings=settings,
        metrics=metrics,
        redis=redis,
        engine=engine,
        database=database,
        games=games,
        players=players,
        records=Records(database, store, schema_ready, settings.abandon_after_seconds),
        leaderboards=leaderboards,
        daily=daily,
        challenges=Challenges(games, database, schema_ready),
        events=events,
        scrape=ScrapeSources(
            redis, outbox, pools, winnable.settings, database, settings.redis_timeout_seconds
        ),
        drain=drain,
    )


# How long a background task is given to end after it is cancelled before it is
# cancelled again.
CANCEL_AGAIN_SECONDS = 1.0


async def stop_background(task: asyncio.Future[None]) -> None:
    """Cancels `task` and waits for it to end. A cancellation can be lost inside a
    library: on Python 3.11 `asyncio.wait_for` (which psycopg_pool's waits use) returns
    its result instead of raising when what it waits for ends as the cancellation comes,
    and a loop that lost it would run on, holding the gateway's stop for good. So a task
    still running a moment after its cancellation is cancelled again."""
    task.cancel()
    while not task.done():
        await asyncio.wait({task}, timeout=CANCEL_AGAIN_SECONDS)
        if not task.done():
            log.warning("a background task ran on after it was cancelled; cancelling it again")
            task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


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
