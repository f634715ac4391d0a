"""Liveness, readiness, metrics, variants, and the published OpenAPI schema."""

from __future__ import annotations

from typing import get_args

from patience_gateway.problems import KINDS, Code
from prometheus_client.parser import text_string_to_metric_families

from tests.gateway.documented import models
from tests.gateway.helpers import Gateway


async def test_livez_and_readyz(gateway: Gateway) -> None:
    live = await gateway.http.get("/livez")
    assert (live.status_code, live.json()["status"]) == (200, "ok")
    ready = await gateway.http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ok",
        "checks": {"redis": "ok", "engine": "ok"},
        "engine_states": "sealed",
    }
    models.Health.model_validate(ready.json())


async def test_variants_are_listed_and_described(gateway: Gateway) -> None:
    listed = await gateway.http.get("/v1/variants")
    assert listed.status_code == 200
    body = models.VariantList.model_validate(listed.json())
    ids = [v.id for v in body.variants]
    assert "bisley" in ids and "napoleon-at-st-helena" in ids and len(ids) == 9
    described = await gateway.http.get("/v1/variants/napoleon-at-st-helena")
    assert described.status_code == 200
    variant = models.Variant.model_validate(described.json())
    assert variant.summary
    kinds = {pile.kind for pile in variant.piles}
    assert {"tableau", "foundation", "stock", "waste"} <= kinds
    assert all(p.suit and p.direction for p in variant.piles if p.kind == "foundation")
    assert [o.name for o in variant.options] == ["fill_from_waste_only"]


async def test_metrics_count_requests_moves_and_errors(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=31)
    notation = game.created["legal_moves"][0]
    assert (await gateway.move(game, notation)).status_code == 200
    assert (await gateway.move(game, "t1-t1")).status_code == 422
    await gateway.http.get(f"/v1/games/{game.id}/nowhere")
    text = (await gateway.http.get("/metrics")).text
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }

    def value(name: str, **labels: str) -> float:
        return samples.get((name, tuple(sorted(labels.items()))), 0.0)

    moves = "/v1/games/{game_id}/moves"
    requests = "patience_gateway_requests_total"
    assert value(requests, route=moves, method="POST", status="200") >= 1
    assert value(requests, route=moves, method="POST", status="422") >= 1
    assert value(requests, route="unmatched", method="GET", status="404") >= 1
    assert value("patience_gateway_request_duration_seconds_count", route=moves) >= 2
    assert value("patience_gateway_moves_applied_total", variant="bisley") >= 1
    assert value("patience_gateway_errors_total", code="illegal-move") >= 1
    assert value("patience_gateway_errors_total", code="not-found") >= 1
    assert game.id not in text  # one series per route template, not per game


def test_openapi_documents_every_route(gateway: Gateway) -> None:
    schema = gateway.app.openapi()
    paths = schema["paths"]
    component_names = set(schema["components"]["schemas"])
    assert {"NewGameRequest", "MoveRequest", "Game", "CreatedGame", "MoveResult", "History",
            "LegalMoves", "Variant", "VariantList", "Problem"} <= component_names  # fmt: skip
    for path, operations in paths.items():
        for method, operation in operations.items():
            responses = operation["responses"]
            errors = {s: r for s, r in responses.items() if s[0] in "45"}
            assert "500" in errors, (path, method)
            for status, response in errors.items():
                content = response["content"]
                assert list(content) == ["application/problem+json"], (path, method, status)
                assert content["application/problem+json"]["schema"] == {
                    "$ref": "#/components/schemas/Problem"
                }
            if path.startswith("/v1/games/{game_id}"):
                # a game's own token, or its player's access token; a ticket for events
                schemes = [{"gameToken": []}, {"playerToken": []}]
                if path.endswith("/events"):
                    schemes = [{"streamTicket": []}]
                if path.endswith(("/claim", "/challenges")):
                    schemes = [{"playerToken": []}]  # a player's own, never a game's
                assert operation["security"] == schemes
                assert {"401", "403", "404"} <= errors.keys(), (path, method)
            if method == "post" and path.endswith(("/moves", "/undo", "/redo")):
                names = {p["name"] for p in operation["parameters"]}
                assert {"If-Match", "Idempotency-Key"} <= names
                assert {"409", "412", "422"} <= errors.keys()
                assert "ETag" in responses["200"]["headers"]
    assert "ETag" in paths["/v1/games"]["post"]["responses"]["201"]["headers"]
    assert "Location" in paths["/v1/games"]["post"]["responses"]["201"]["headers"]
    assert schema["components"]["securitySchemes"]["gameToken"]["scheme"] == "bearer"


def test_every_problem_code_has_a_description() -> None:
    for code, kind in KINDS.items():
        assert kind.code == code and kind.title and kind.description
        assert 400 <= kind.status <= 599
    # the type that checks a code where it is raised lists the catalog's codes, no more
    assert sorted(get_args(Code)) == sorted(KINDS)
