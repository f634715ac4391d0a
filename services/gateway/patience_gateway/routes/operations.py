"""Liveness, readiness, metrics, and the problem type descriptions."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Annotated

from fastapi import APIRouter, Path, Request
from patience_engine.client import EngineClient, EngineError
from redis.asyncio import Redis
from solitaire.v1 import engine_pb2
from starlette.responses import JSONResponse, Response

from patience_gateway import models
from patience_gateway.failures import STORAGE_DOWN
from patience_gateway.metrics import Metrics
from patience_gateway.openapi import RETRY_AFTER_HEADER, problems
from patience_gateway.problems import KINDS, ProblemError

log = logging.getLogger("patience_gateway")

router = APIRouter(tags=["operations"])


@router.get(
    "/livez", response_model=models.Health, summary="The process is alive", responses=problems()
)
async def livez() -> JSONResponse:
    return JSONResponse({"status": "ok", "checks": {}})


async def _redis_ok(redis: Redis, timeout: float) -> bool:
    try:
        async with asyncio.timeout(timeout):
            return bool(await redis.ping())
    except (*STORAGE_DOWN, TimeoutError):  # type: ignore[misc]
        return False


@router.get(
    "/readyz",
    response_model=models.Health,
    summary="Redis and the engine answer",
    responses={
        503: {**problems(503)[503], "headers": {"Retry-After": RETRY_AFTER_HEADER}},
        500: problems()[500],
    },
)
async def readyz(request: Request) -> JSONResponse:
    state = request.app.state
    engine: EngineClient = state.engine
    redis_ok, engine_ok = await asyncio.gather(
        _redis_ok(state.redis, state.settings.redis_timeout_seconds), engine.health()
    )
    retry = {"Retry-After": str(state.settings.retry_after_seconds)}
    if not redis_ok:
        raise ProblemError("storage-unavailable", "Redis does not answer PING", headers=retry)
    if not engine_ok:
        raise ProblemError("engine-unavailable", "the engine is not SERVING", headers=retry)
    body: dict[str, object] = {"status": "ok", "checks": {"redis": "ok", "engine": "ok"}}
    body.update(await _engine_states(engine))
    return JSONResponse(body)


_UNSAFE = (
    "the engine runs without a seal key, an unsafe development mode: game states are "
    "stored in plain text (stock order, random deal numbers) and forged states cannot be "
    "told apart; set ENGINE_SEAL_KEY (docs/operations.md, Keys)"
)


@functools.cache
def _log_unsafe_once() -> None:
    log.warning("%s", _UNSAFE)


async def _engine_states(engine: EngineClient) -> dict[str, object]:
    """How the engine protects states, for the readiness answer (nothing if it cannot
    say: an engine of an earlier version, or one that just went away)."""
    try:
        info = await engine.engine_info()
    except EngineError:
        return {}
    if info.state_protection == engine_pb2.STATE_PROTECTION_SEALED:
        return {"engine_states": "sealed"}
    if info.state_protection == engine_pb2.STATE_PROTECTION_NONE:
        _log_unsafe_once()
        return {"engine_states": "plain", "warnings": [_UNSAFE]}
    return {}


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {}}, "description": "Prometheus text format."},
        **problems(),
    },
)
async def metrics(request: Request) -> Response:
    registry: Metrics = request.app.state.metrics
    return registry.response()


@router.get(
    "/problems/{code}",
    response_model=models.ProblemType,
    summary="What a problem type means",
    responses=problems(404),
)
async def problem_type(
    code: Annotated[str, Path(description="A problem code.", examples=["illegal-move"])],
) -> JSONResponse:
    kind = KINDS.get(code)
    if kind is None:
        raise ProblemError("not-found", f"there is no problem type {code!r}")
    return JSONResponse(
        {
            "code": kind.code,
            "status": kind.status,
            "title": kind.title,
            "description": kind.description,
        }
    )
