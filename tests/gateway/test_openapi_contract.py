"""The OpenAPI document the gateway serves is a contract generated clients can rely on:
valid OpenAPI 3.1 (openapi-spec-validator), clean under `redocly lint`, short operation
ids, one named schema per enum, problem codes as an enum, and where it describes a
request (the move body, the Idempotency-Key header) the server accepts exactly what the
schema accepts."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from patience_gateway.games.preconditions import check_idempotency_key, check_tags
from patience_gateway.games.requests import MoveRequest
from patience_gateway.http.openapi import ENTITY_TAGS_SCHEMA
from patience_gateway.problems import KINDS, ProblemError
from pydantic import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from typing_extensions import is_typeddict

from tests.gateway.helpers import Gateway
from tests.tools import REPO, node_tool

# Operations with no client error to answer (probes, the fixed list of variants).
NO_CLIENT_ERROR = {"listVariants", "livez", "readyz", "metrics", "jwks"}
PUBLIC = {
    "createGame",
    "listVariants",
    "getVariant",
    "livez",
    "readyz",
    "metrics",
    "problemType",
    "createPlayer",
    "refresh",
    "signOut",
    "link",
    "signInWithIdentity",
    "jwks",
    "getChallenge",
}
# Open to anyone; a player's access token adds the player's own (attempts, rank).
PLAYER_OPTIONAL = {"dailyDeals", "dailyBoard", "winsBoard", "streaksBoard"}
# A player's only.
PLAYER_ONLY = {"startDaily", "offerChallenge", "takeChallenge"}


@pytest.fixture
def document(gateway: Gateway) -> dict[str, Any]:
    return gateway.app.openapi()


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    """A JSON Schema validator for `schema`, its `$ref`s resolved in the document."""
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:openapi", resource)
    refs = json.loads(json.dumps(schema).replace('"#/components/', '"urn:openapi#/components/'))
    return Draft202012Validator(refs, registry=registry)


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert [server["url"] for server in document["servers"]] == ["/", "http://127.0.0.1:8000"]


def test_redocly_lint_passes(document: dict[str, Any], tmp_path: Path) -> None:
    redocly = node_tool("redocly")
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(document))
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
    done = subprocess.run(
        [redocly, "lint", str(path), "--config", str(REPO / "redocly.yaml"), "--format=json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    report = json.loads(done.stdout)
    problems = [(p["ruleId"], p["location"][0]["pointer"]) for p in report["problems"]]
    assert report["totals"]["errors"] == 0, problems
    owners = {
        f"#/paths/{path.replace('/', '~1')}/{method}/responses": operation["operationId"]
        for path, method, operation in operations(document)
    }
    warned = {owners.get(pointer, pointer) for rule, pointer in problems}
    assert {rule for rule, _ in problems} <= {"operation-4xx-response"}, problems
    assert warned <= NO_CLIENT_ERROR, problems
    assert done.returncode == 0


def test_operation_ids_are_short_and_unique(document: dict[str, Any]) -> None:
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids))
    for operation_id in ids:
        assert re.fullmatch(r"[a-z][a-zA-Z]{2,24}", operation_id), operation_id
    assert {"makeMove", "createGame", "getGame", "undo", "redo"} <= set(ids)


def test_security_is_stated_on_every_operation(document: dict[str, Any]) -> None:
    for path, method, operation in operations(document):
        public = operation["operationId"] in PUBLIC
        # a game opens to its own token (anonymous) or its player's access token
        expected = [] if public else [{"gameToken": []}, {"playerToken": []}]
        if path.endswith("/events"):  # an EventSource cannot send the token: a ticket
            expected = [{"streamTicket": []}]
        if path.startswith("/v1/players/me") or path.endswith("/claim"):
            expected = [{"playerToken": []}]  # the player's own
        if operation["operationId"] == "createGame":
            expected = [{}, {"playerToken": []}]  # anonymous, or a player's game
        if operation["operationId"] in PLAYER_OPTIONAL:
            expected = [{}, {"playerToken": []}]
        if operation["operationId"] in PLAYER_ONLY:
            expected = [{"playerToken": []}]
        assert operation["security"] == expected, (path, method)
        statuses = {status for status in operation["responses"] if status[0] == "4"}
        assert statuses or operation["operationId"] in NO_CLIENT_ERROR, (path, method)


def test_problem_codes_are_one_enum(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert schemas["ProblemCode"]["enum"] == list(KINDS)
    assert schemas["Problem"]["properties"]["code"]["$ref"] == "#/components/schemas/ProblemCode"
    assert schemas["ProblemType"]["properties"]["code"]["$ref"].endswith("/ProblemCode")


def test_every_enum_is_one_named_schema(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    named = {name for name, schema in schemas.items() if "enum" in schema}
    assert {"GameStatus", "PileKind", "MoveKind", "Layout", "Direction", "Suit"} <= named

    def inline_enums(node: Any, where: str) -> Iterator[str]:
        if isinstance(node, dict):
            if "enum" in node and where.count("/") > 1:
                yield where
            for key, value in node.items():
                yield from inline_enums(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                yield from inline_enums(value, f"{where}/{index}")

    found = [w for name, schema in schemas.items() for w in inline_enums(schema, f"/{name}")]
    assert found == []
    for model in ("Game", "CreatedGame", "MoveResult"):
        status = schemas[model]["properties"]["status"]
        assert status == {"$ref": "#/components/schemas/GameStatus"}, model


MOVE_BODIES: list[Any] = [
    {"move": "t3-f1"},
    {"move": "withdraw t5 t9"},
    {"kind": "transfer", "source": "waste", "target": "t2"},
    {"kind": "transfer", "source": "t4", "target": "t7", "count": 3},
    {"kind": "withdraw", "columns": ["t5", "t9"]},
    {"kind": "deal"},
    {"move": "t3-f1", "kind": "transfer"},
    {"move": "t3-f1", "source": "t3"},
    {"move": "t3-f1", "count": None},
    {"move": ""},
    {"move": "x" * 65},
    {"move": None},
    {"move": 3},
    {"kind": "shuffle"},
    {"kind": "transfer", "source": None},
    {"kind": "transfer", "count": 0},
    {"kind": "transfer", "count": 105},
    {"kind": "deal", "extra": 1},
    {"source": "t3", "target": "f1"},
    {},
    [],
    "t3-f1",
    None,
]


@pytest.mark.parametrize("body", MOVE_BODIES, ids=json.dumps)
def test_the_server_takes_exactly_the_moves_the_schema_takes(
    document: dict[str, Any], body: Any
) -> None:
    schema = document["components"]["schemas"]["MoveRequest"]
    assert [s["$ref"].rsplit("/", 1)[-1] for s in schema["oneOf"]] == [
        "NotationMove",
        "StructuredMove",
    ]
    by_schema = validator(document, {"$ref": "#/components/schemas/MoveRequest"}).is_valid(body)
    try:
        MoveRequest.model_validate(body)
        by_server = True
    except ValidationError:
        by_server = False
    assert by_schema == by_server


async def test_move_and_kind_together_are_refused(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=3)
    response = await gateway.http.post(
        f"/v1/games/{game.id}/moves",
        json={"move": "t1-f1", "kind": "transfer"},
        headers={**game.auth(), "If-Match": game.etag},
    )
    assert response.status_code == 422
    assert response.json()["code"] == "malformed-body"
    assert (await gateway.view(game))["version"] == 1


KEYS = ["a", "5b0c3f9e-move-12", "a b~c", "x" * 255, "", "x" * 256, "caf\u00e9", "tab\there"]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_the_server_takes_exactly_the_idempotency_keys_the_schema_takes(
    document: dict[str, Any], key: str
) -> None:
    (parameter,) = [
        p
        for p in document["paths"]["/v1/games/{game_id}/moves"]["post"]["parameters"]
        if p["name"] == "Idempotency-Key"
    ]
    by_schema = validator(document, parameter["schema"]).is_valid(key)
    try:
        check_idempotency_key(key)
        by_server = True
    except ProblemError:
        by_server = False
    assert by_schema == by_server


TAGS_VALIDATOR = Draft202012Validator(ENTITY_TAGS_SCHEMA)
# Headers made of the characters that matter to the grammar, and a few others.
HEADER_TEXT = st.text(alphabet=' \t,*W/"0123456789aZ!#~\x7f\u00e9', max_size=24)


@given(HEADER_TEXT)
@example('"7"')
@example('W/"7", "8"')
@example(" , 7 ,,")
@example('"a,b"')
@example("*")
@example("")
@example('"' + "1" * 1030 + '"')
def test_the_server_takes_exactly_the_entity_tags_the_schema_takes(header: str) -> None:
    try:
        check_tags(header, "If-Match")
        by_server = True
    except ProblemError:
        by_server = False
    assert TAGS_VALIDATOR.is_valid(header) == by_server


def test_every_answer_shape_builds_its_schema_when_the_document_is_asked_for() -> None:
    """FastAPI makes a schema of each response of each route as the routes are declared;
    a TypedDict's is built again every time unless pydantic may defer it (defer_build).
    Each shape a route answers with defers it, so a gateway process starts without some
    170 schema builds (games/shapes.py)."""
    import importlib
    import pkgutil

    from fastapi.routing import APIRoute, APIRouter
    from patience_gateway.http import routes

    modules = [
        importlib.import_module(f"{routes.__name__}.{found.name}")
        for found in pkgutil.iter_modules(routes.__path__)
    ]
    routers = [r for m in modules for r in vars(m).values() if isinstance(r, APIRouter)]
    shapes: set[type] = set()
    for router in routers:
        for route in router.routes:
            if isinstance(route, APIRoute):
                models = [route.response_model, *(r.get("model") for r in route.responses.values())]
                shapes.update(m for m in models if isinstance(m, type) and is_typeddict(m))
    assert len(shapes) > 20
    eager = sorted(s.__name__ for s in shapes if not s.__pydantic_config__.get("defer_build"))
    assert not eager, f"shapes built at every route's declaration: {eager}"
