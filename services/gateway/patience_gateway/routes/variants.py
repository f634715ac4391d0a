"""/v1/variants: the games the engine knows, and how to draw their tables."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Path, Request
from patience_engine.client import EngineClient, EngineError
from starlette.responses import Response

from patience_gateway import models, views
from patience_gateway.failures import engine_problem
from patience_gateway.openapi import problems

router = APIRouter(prefix="/v1/variants", tags=["variants"])


def _engine(request: Request) -> EngineClient:
    engine: EngineClient = request.app.state.engine
    return engine


def _json(body: object) -> Response:
    return Response(json.dumps(body, separators=(",", ":")), media_type="application/json")


@router.get(
    "",
    response_model=models.VariantList,
    summary="Every variant",
    responses=problems(503),
)
async def list_variants(request: Request) -> Response:
    try:
        variants = await _engine(request).list_variants()
    except EngineError as error:
        raise engine_problem(error, request.app.state.settings.retry_after_seconds) from None
    return _json({"variants": [views.variant_summary_json(v) for v in variants]})


@router.get(
    "/{variant_id}",
    response_model=models.Variant,
    summary="One variant: rules summary, piles, options",
    responses=problems(404, 503),
)
async def get_variant(
    request: Request,
    variant_id: Annotated[str, Path(description="Variant id.", examples=["bisley"])],
) -> Response:
    try:
        variant = await _engine(request).get_variant(variant_id)
    except EngineError as error:
        raise engine_problem(error, request.app.state.settings.retry_after_seconds) from None
    return _json(views.variant_json(variant))
