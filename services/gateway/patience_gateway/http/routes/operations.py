"""Liveness, readiness, metrics, and the problem type descriptions.

`/livez` and `/readyz` answer the gateway's instance id (GATEWAY_INSTANCE_ID) in the
`Instance-Id` header, where it has one: `patience serve` gives each gateway it starts a
random one and takes a readiness answer without it for another server's.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Annotated

from fastapi import APIRouter, Path, Request
from patience_contract.client import EngineClient, EngineError
from redis.asyncio import Redis, RedisCluster
from solitaire.v1 import engine_pb2
from starlette.responses import JSONResponse, Response

from patience_gateway.http.exchange import services_of
from patience_gateway.http.openapi import RETRY_AFTER_HEADER, ok, problems
from patience_gateway.http.scrape import scrape
from patience_gateway.http.shapes import Health, ProblemType
from patience_gateway.problems import KINDS, ProblemError
from patience_gateway.storage.failures import STORAGE_DOWN
from patience_gateway.tracing import untraced

log = logging.getLogger("patience_gateway")

router = APIRouter(tags=["operations"])

INSTANCE_ID_HEADER = "Instance-Id"
_INSTANCE_ID = {
    INSTANCE_ID_HEADER: {
        "description": "This gateway's GATEWAY_INSTANCE_ID, where it has one.",
        "schema": {"type": "string", "example": "9f2c4e1a7b3d5608"},
    }
}


def _answer(request: Request, body: Health) -> JSONResponse:
    """`body`, with the gateway's instance id where it has one."""
    instance = services_of(request).settings.instance_id
    return JSONResponse(body, headers={INSTANCE_ID_HEADER: instance} if instance else None)


@router.get(
    "/livez",
    response_model=Health,
    summary="The process is alive",
    responses={200: ok("The process is alive.", **_INSTANCE_ID), **problems()},
)
async def livez(request: Request) -> JSONResponse:
    alive: Health = {"status": "ok", "checks": {}}
    return _answer(request, alive)


async def _redis_ok(redis: Redis | RedisCluster, timeout: float) -> bool:
    try:
        async with asyncio.timeout(timeout):
            return bool(await redis.ping())
    except (*STORAGE_DOWN, TimeoutError):  # type: ignore[misc]
        return False


@router.get(
    "/readyz",
    response_model=Health,
    summary="Redis and the engine answer",
    responses={
        200: ok("Redis and the engine answer.", **_INSTANCE_ID),
        503: {**problems(503)[503], "headers": {"Retry-After": RETRY_AFTER_HEADER}},
        500: problems()[500],
    },
)
async def readyz(request: Request) -> JSONResponse:
    state = services_of(request)
    engine = state.engine
    with untraced():  # a probe, every few seconds
        redis_ok, engine_ok = await asyncio.gather(
            _redis_ok(state.redis, state.settings.redis_timeout_seconds), engine.health()
        )
    retry = {"Retry-After": str(state.settings.retry_after_seconds)}
    if not redis_ok:
        raise ProblemError("storage-unavailable", "Redis does not answer PING", headers=retry)
    if not engine_ok:
        raise ProblemError("engine-unavailable", "the engine is not SERVING", headers=retry)
    body: Health = {"status": "ok", "checks": {"redis": "ok", "engine": "ok"}}
    with untraced():
        await _add_engine_states(engine, body)
    return _answer(request, body)


_UNSAFE = (
    "the engine runs without a seal key, an unsafe development mode: game states are "
    "stored in plain text (stock order, random deal numbers) and forged states cannot be "
    "told apart; set ENGINE_SEAL_KEY (docs/operations.md, Keys)"
)


@functools.cache
def _log_unsafe_once() -> None:
    log.warning("%s", _UNSAFE)


async def _add_engine_states(engine: EngineClient, body: Health) -> None:
    """How the engine protects states, for the readiness answer (nothing if it cannot
    say: an engine of an earlier version, or one that just went away)."""
    try:
        info = await engine.engine_info()
    except EngineError:
        return
    if info.state_protection == engine_pb2.STATE_PROTECTION_SEALED:
        body["engine_states"] = "sealed"
    elif info.state_protection == engine_pb2.STATE_PROTECTION_NONE:
        _log_unsafe_once()
        body["engine_states"] = "plain"
        body["warnings"] = [_UNSAFE]


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "Prometheus text format.",
        },
        **problems(),
    },
)
async def metrics(request: Request) -> Response:
    services = services_of(request)
    if services.settings.metrics_port:  # served on a port of their own, to Prometheus alone
        raise ProblemError("not-found", f"nothing lives at {request.url.path}")
    with untraced():
        scraped = await scrape(services.scrape)
    return services.metrics.response(scraped)


@router.get(
    "/problems/{code}",
    response_model=ProblemType,
    summary="What a problem type means",
    responses=problems(404),
)
async def problem_type(
    code: Annotated[str, Path(description="A problem code.", examples=["illegal-move"])],
) -> JSONResponse:
    kind = KINDS.get(code)
    if kind is None:
        raise ProblemError("not-found", f"there is no problem type {code!r}")
    body: ProblemType = {
        "code": kind.code,
        "status": kind.status,
        "title": kind.title,
        "description": kind.description,
    }
    return JSONResponse(body)
