"""The app factory: routes, error handling, middleware, and the connections that
live as long as the app (one Redis pool, a few gRPC channels)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi_offline import FastAPIOffline
from patience_engine.client import EngineClient, EngineError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match

from patience_gateway import openapi
from patience_gateway.bodies import JsonBodies
from patience_gateway.cors import cors_middleware
from patience_gateway.events import EventHub
from patience_gateway.failures import STORAGE_DOWN, engine_problem, storage_problem
from patience_gateway.fast_moves import MoveFastPath
from patience_gateway.limits import BodySizeLimit
from patience_gateway.metrics import Metrics, MetricsMiddleware
from patience_gateway.pages import DOCS_HEADERS, DOCS_PAGES, PLAY_PATH, WithHeaders, web_client
from patience_gateway.problems import ProblemError, problem_response
from patience_gateway.redis_client import open_redis, replica_wait
from patience_gateway.routes import games, operations, streams, variants
from patience_gateway.service import GameService
from patience_gateway.settings import Settings
from patience_gateway.stop_signals import call_on_stop_signal
from patience_gateway.store import GameStore
from patience_gateway.winnable import PoolRefill, WinnableDeals, WinnableSettings

log = logging.getLogger("patience_gateway")

DESCRIPTION = """\
The REST face of the patience rules engine. Deal a game of one of the nine
variants, play it move by move, undo and redo, and read what a player at the table
sees. Errors are RFC 9457 `application/problem+json` with a stable `code`
(see docs/api.md). Game routes need the token handed out when the game was created,
as `Authorization: Bearer <token>`.
"""

DOCS_ASSETS = "/docs/assets"

_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")

_HTTP_STATUS_CODES = {
    400: "malformed-body",
    404: "not-found",
    405: "method-not-allowed",
    408: "body-timeout",
    413: "body-too-large",
}


def create_app(settings: Settings | None = None, *, served: bool = False) -> FastAPI:
    """The gateway's app. `served`: built by a server's worker process (`main`), whose
    stop signals also end its event streams at once (see `stop_signals`)."""
    settings = settings or Settings.from_env()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        redis = open_redis(settings)
        engine = EngineClient(
            settings.engine_addr,
            timeout=settings.engine_timeout_seconds,
            channels=settings.engine_channels,
        )
        app.state.redis = redis
        app.state.engine = engine
        store = GameStore(
            redis,
            settings.game_ttl_seconds,
            settings.redis_timeout_seconds,
            wait=replica_wait(settings),
        )
        winnable = WinnableDeals(
            engine,
            redis,
            WinnableSettings(
                settings.winnable_pool_size,
                settings.winnable_search_seconds,
                settings.winnable_solve_milliseconds,
                settings.winnable_solve_positions,
            ),
            retry_after=settings.retry_after_seconds,
        )
        app.state.service = GameService(
            engine,
            store,
            retry_after=settings.retry_after_seconds,
            on_move_applied=metrics.move_applied,
            winnable=winnable,
        )
        app.state.events = events = EventHub(redis)
        restore_signals = call_on_stop_signal(events.end_streams) if served else None
        # Every served process runs a refill; the Redis lock lets one of them work.
        refill = None
        if served and settings.winnable_pool_size > 0:
            refill = asyncio.create_task(PoolRefill(winnable, engine).run())
        try:
            yield
        finally:
            if refill is not None:
                refill.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await refill
            if restore_signals is not None:
                restore_signals()
            await events.aclose()  # ends this process's event streams
            await engine.close()
            await store.aclose()
            await redis.aclose()

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
            {"name": "variants", "description": "The games on offer."},
            {"name": "operations", "description": "Health, readiness, metrics."},
        ],
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.include_router(games.router)  # first: the router tries routes in order
    app.include_router(streams.router)
    app.include_router(variants.router)
    app.include_router(operations.router)
    app.mount(PLAY_PATH, web_client(), name="play")
    _install_error_handlers(app, settings, metrics)
    # innermost first: the move fast path sees a body already held to the size limit,
    # and what it hands on meets the media-type and duplicate-key checks
    app.add_middleware(JsonBodies, on_problem=metrics.problem)
    app.add_middleware(WithHeaders, headers=DOCS_HEADERS, paths=DOCS_PAGES)
    app.add_middleware(MoveFastPath, gateway=app)
    app.add_middleware(
        BodySizeLimit,
        max_bytes=settings.max_body_bytes,
        timeout_seconds=settings.body_timeout_seconds,
        on_problem=metrics.problem,
    )
    if settings.cors_origins:
        # outside the fast path and the size limit, so their answers carry the headers too
        app.add_middleware(cors_middleware, origins=settings.cors_origins)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    openapi.install(app)
    logging.getLogger("patience_gateway").setLevel(settings.log_level.upper())
    return app


def served_app() -> FastAPI:
    """The app each worker process of the server builds (`main`): on SIGTERM/SIGINT it
    ends its event streams at once, so that they do not hold the worker's stop up."""
    return create_app(served=True)


def _install_error_handlers(app: FastAPI, settings: Settings, metrics: Metrics) -> None:
    retry_after = settings.retry_after_seconds

    def send(request: Request, problem: ProblemError) -> Response:
        metrics.problem(problem.kind.code)
        return problem_response(
            problem.kind.code,
            problem.detail,
            request.url.path,
            status=problem.status,
            headers=problem.headers,
            **problem.extensions,
        )

    async def on_problem(request: Request, error: Exception) -> Response:
        assert isinstance(error, ProblemError)
        return send(request, error)

    async def on_validation(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        details = error.errors()
        unparseable = any(detail.get("type") == "json_invalid" for detail in details)
        where = [
            {"loc": [str(part) for part in detail.get("loc", ())], "msg": str(detail.get("msg"))}
            for detail in details
        ]
        if unparseable:
            problem = ProblemError("malformed-body", "the body is not valid JSON", errors=where)
        elif any(tuple(detail.get("loc", ()))[:2] == ("body", "deal") for detail in details):
            # docs/errors.md promises invalid-deal for any deal that is not a whole number
            problem = ProblemError(
                "invalid-deal", "deal must be a whole number 0..10^20, as a number or a string"
            )
        else:
            problem = ProblemError(
                "malformed-body",
                "the request does not have the documented shape",
                status=422,
                errors=where,
            )
        return send(request, problem)

    async def on_http(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        code = _HTTP_STATUS_CODES.get(error.status_code, "internal")
        detail = {
            "not-found": f"nothing lives at {request.url.path}",
            "method-not-allowed": f"{request.method} is not allowed on {request.url.path}",
            "malformed-body": "the body could not be read",
        }.get(code, str(error.detail))
        headers = dict(error.headers or {})
        if error.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(app, request))
        return send(request, ProblemError(code, detail, status=error.status_code, headers=headers))

    async def on_engine(request: Request, error: Exception) -> Response:
        assert isinstance(error, EngineError)
        return send(request, engine_problem(error, retry_after))

    async def on_storage(request: Request, error: Exception) -> Response:
        return send(request, storage_problem(error, retry_after))

    async def on_anything(request: Request, error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return send(request, ProblemError("internal", "the server failed; the error is logged"))

    handlers: dict[Any, Any] = {
        ProblemError: on_problem,
        RequestValidationError: on_validation,
        HTTPException: on_http,
        EngineError: on_engine,
        Exception: on_anything,
    }
    for kind in STORAGE_DOWN:
        handlers[kind] = on_storage
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)


def _allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route answers at the request's path (Starlette's own 405
    names only the first route whose path matches), asked of the routes themselves."""
    allowed = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in app.router.routes):
            allowed.append(method)
    return allowed
