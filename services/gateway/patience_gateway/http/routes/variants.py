"""/v1/variants: the games the engine knows, and how to draw their tables."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from patience_gateway.games import shapes, variants
from patience_gateway.http.exchange import games_of, send
from patience_gateway.http.openapi import problems

router = APIRouter(prefix="/v1/variants", tags=["variants"])


@router.get(
    "",
    response_model=shapes.VariantList,
    summary="Every variant",
    responses=problems(503),
)
async def list_variants(request: Request) -> Response:
    return send(await variants.list_variants(games_of(request)))


@router.get(
    "/{variant_id}",
    response_model=shapes.Variant,
    summary="One variant: rules summary, piles, options",
    responses=problems(404, 503),
)
async def get_variant(
    request: Request,
    variant_id: Annotated[str, Path(description="Variant id.", examples=["bisley"])],
) -> Response:
    return send(await variants.get_variant(games_of(request), variant_id))
