"""The games on offer: every variant the engine knows, and how to draw its table."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from patience_gateway.games import answers
from patience_gateway.games.answers import Reply
from patience_gateway.games.service import Games
from patience_gateway.games.shapes import VariantList


def _stdlib_json(body: Mapping[str, Any]) -> bytes:
    # The stdlib's JSON, as these answers always were: non-ASCII text escaped.
    return json.dumps(body, separators=(",", ":")).encode()


async def list_variants(games: Games) -> Reply:
    variants = await games.ask(games.engine.list_variants(), games.client_problem)
    body: VariantList = {"variants": [answers.variant_summary_json(v) for v in variants]}
    return Reply(200, _stdlib_json(body))


async def get_variant(games: Games, variant_id: str) -> Reply:
    variant = await games.ask(games.engine.get_variant(variant_id), games.client_problem)
    return Reply(200, _stdlib_json(answers.variant_json(variant)))
