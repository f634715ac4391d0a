"""The HTTP app: FastAPI with the routes, the error answers, the middleware in order,
the documentation pages and the published OpenAPI document; outermost, each request's
id and access line (`http.access`). What lives as long as the
app (connections, the game operations' dependencies) is opened by the `lifespan` it is
given (`patience_gateway.app` wires it)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline
from patience_contract import logs
from starlette.middleware import Middleware

from patience_gateway.http import openapi
from patience_gateway.http.access import AccessLog, write_access_lines
from patience_gateway.http.bodies import BodySizeLimit, JsonBodies
from patience_gateway.http.cors import cors_middleware
from patience_gateway.http.errors import install_error_handlers
from patience_gateway.http.metrics import Metrics, MetricsMiddleware
from patience_gateway.http.pages import DOCS_HEADERS, DOCS_PAGES, PLAY_PATH, WithHeaders, web_client
from patience_gateway.http.routes import (
    challenges,
    daily,
    games,
    operations,
    players,
    streams,
    variants,
)
from patience_gateway.settings import Settings

DESCRIPTION = """\
The REST face of the patience rules engine. Deal a game of one of the nine
variants, play it move by move, undo and redo, and read what a player at the table
sees. Errors are RFC 9457 `application/problem+json` with a stable `code`
(see docs/api.md). Game routes need the token handed out when the game was created,
as `Authorization: Bearer <token>`, or, for a player's game, the player's access token.
Players need no password: create one, keep its refresh token, and its games, records and
statistics follow it from device to device.
"""

DOCS_ASSETS = "/docs/assets"

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def http_app(
    settings: Settings,
    metrics: Metrics,
    lifespan: Lifespan,
    entrances: Sequence[Middleware] = (),
) -> FastAPI:
    """The app. `entrances`: middleware that may answer a request before FastAPI's
    routing does (the speed paths, `patience_gateway.speed`), placed where a body is
    already held to the size limit and what they hand on still meets the media-type and
    duplicate-key checks."""
    # Swagger UI (/docs) and ReDoc (/redoc) from files shipped in fastapi-offline's wheel,
    # so the pages work offline and load nothing from another site.
    app = FastAPIOffline(
        static_url=DOCS_ASSETS,
        title="Patience gateway",
        version="1.0.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=openapi.operation_id,
        openapi_tags=[
            {"name": "games", "description": "Play a game."},
            {"name": "players", "description": "Players, their sessions, games and statistics."},
            {"name": "daily", "description": "Daily deals and leaderboards."},
            {"name": "challenges", "description": "A game's deal offered to a friend."},
            {"name": "variants", "description": "The games on offer."},
            {"name": "operations", "description": "Health, readiness, metrics."},
        ],
    )
    app.include_router(games.router)  # first: the router tries routes in order
    app.include_router(streams.router)
    app.include_router(players.players)
    app.include_router(players.sessions)
    app.include_router(players.well_known)
    app.include_router(daily.daily)
    app.include_router(daily.boards)
    app.include_router(challenges.offers)
    app.include_router(challenges.router)
    app.include_router(variants.router)
    app.include_router(operations.router)
    app.mount(PLAY_PATH, web_client(), name="play")
    install_error_handlers(app, settings, metrics)
    # Added innermost first.
    app.add_middleware(JsonBodies, on_problem=metrics.problem)
    app.add_middleware(WithHeaders, headers=DOCS_HEADERS, paths=DOCS_PAGES)
    for entrance in reversed(entrances):
        app.add_middleware(entrance.cls, *entrance.args, **entrance.kwargs)
    app.add_middleware(
        BodySizeLimit,
        max_bytes=settings.max_body_bytes,
        timeout_seconds=settings.body_timeout_seconds,
        on_problem=metrics.problem,
    )
    if settings.cors_origins:
        # outside the entrances and the size limit, so their answers carry the headers too
        app.add_middleware(cors_middleware, origins=settings.cors_origins)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(AccessLog)  # outermost: every answer has the request's id
    openapi.install(app)
    logging.getLogger("patience_gateway").setLevel(logs.log_level(settings.log_level))
    write_access_lines(settings.access_log)
    metrics.build.commit = settings.commit
    return app
