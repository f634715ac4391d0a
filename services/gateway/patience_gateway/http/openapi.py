"""OpenAPI details FastAPI does not derive on its own: problem+json error bodies,
response headers, header limits, short operation ids, servers, and the bearer security
scheme (and `security: []` on the public routes)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from patience_gateway.games.preconditions import MAX_HEADER_CHARS
from patience_gateway.problems import KINDS, PROBLEM_MEDIA_TYPE, Code, Problem

TOKEN_SCHEME = "gameToken"
_TOKEN_SCHEME_SPEC = {
    "type": "http",
    "scheme": "bearer",
    "bearerFormat": "opaque",
    "description": "The token returned once, when an anonymous game was created, sent as "
    "`Authorization: Bearer <token>`. Missing: 401 `missing-token`; not this game's: "
    "403 `bad-token`.",
}
PLAYER_SCHEME = "playerToken"
_PLAYER_SCHEME_SPEC = {
    "type": "http",
    "scheme": "bearer",
    "bearerFormat": "JWT",
    "description": "A player's access token (POST /v1/players, POST /v1/sessions/refresh), "
    "sent as `Authorization: Bearer <access_token>`: it opens the player's routes and "
    "games. Missing: 401 `missing-token`; not verifying: 401 `invalid-token`; expired: "
    "401 `expired-token`; another player's game: 403 `bad-token`.",
}
LICENSE = {"name": "MIT", "identifier": "MIT"}
SERVERS = [
    {"url": "/", "description": "The gateway that serves this document."},
    {"url": "http://127.0.0.1:8000", "description": "`make run` on this machine."},
]
# If-Match / If-None-Match as preconditions.parse_tags reads them: a comma-separated list
# (blanks and empty elements allowed) of `*`, bare numbers and entity tags whose inside is
# printable ASCII without `"` (nor `,`, which separates elements before tags are read).
_TAG = r'\*|[0-9]+|(W/)?"[\x21\x23-\x2b\x2d-\x7e]*"'
ENTITY_TAGS_SCHEMA = {
    "type": "string",
    "maxLength": MAX_HEADER_CHARS,
    "pattern": rf"^[ \t,]*({_TAG})([ \t]*,[ \t,]*({_TAG}))*[ \t,]*$",
    "example": '"7"',
}
# The gateway refuses other Idempotency-Keys with 400 malformed-header (`games.idempotency`).
IDEMPOTENCY_KEY_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": 255,
    "pattern": "^[\\x20-\\x7E]+$",
    "example": "5b0c3f9e-move-12",
}


def operation_id(route: APIRoute) -> str:
    """A route's operationId: its function's name in lowerCamelCase (`make_move`:
    `makeMove`), short and stable, which generated clients use as method names."""
    first, *rest = route.name.split("_")
    return first + "".join(word.capitalize() for word in rest)


TICKET_SCHEME = "streamTicket"
_TICKET_SCHEME_SPEC = {
    "type": "apiKey",
    "in": "query",
    "name": "ticket",
    "description": "A one-use ticket from POST /v1/games/{game_id}/stream-tickets (a "
    "browser's EventSource cannot send the owner token). Missing: 401 `missing-ticket`; "
    "used, expired or another game's: 403 `bad-ticket`.",
}
ETAG_HEADER = {
    "description": 'The game\'s version as a strong entity tag, e.g. `"7"`. '
    "Send it back in If-Match to make a change conditional.",
    "schema": {"type": "string", "example": '"7"'},
}
RETRY_AFTER_HEADER = {
    "description": "Seconds to wait before retrying.",
    "schema": {"type": "integer", "example": 1},
}
WWW_AUTHENTICATE_HEADER = {
    "description": 'RFC 6750: `Bearer realm="patience", error="invalid_token", '
    'error_description="..."` (the problem\'s detail).',
    "schema": {"type": "string"},
}
LOCATION_HEADER = {
    "description": "The new game's URL.",
    "schema": {"type": "string", "example": "/v1/games/x7R2kJ0vQp9sYd3mN8a1Zw-_"},
}
REPLAYED_HEADER = {
    "description": "`true` when this is the stored answer to an earlier request with the "
    "same Idempotency-Key.",
    "schema": {"type": "string", "example": "true"},
}


def _codes_for(status: int) -> list[Code]:
    return [kind.code for kind in KINDS.values() if kind.status == status] + (
        ["malformed-body"] if status == 422 else []
    )


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` entries for error statuses, each a problem+json body."""
    responses: dict[int | str, dict[str, Any]] = {}
    for status in (*statuses, 500):
        codes = ", ".join(f"`{code}`" for code in _codes_for(status))
        entry: dict[str, Any] = {"model": Problem, "description": f"Problem: {codes}."}
        if status in (429, 503):
            entry["headers"] = {"Retry-After": RETRY_AFTER_HEADER}
        if status in (409, 412):
            entry["headers"] = {"ETag": ETAG_HEADER}
        if status == 401:
            entry["headers"] = {"WWW-Authenticate": WWW_AUTHENTICATE_HEADER}
        responses[status] = entry
    return responses


def ok(description: str, **headers: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "headers": headers}


# Headers the gateway reads and refuses with 400 malformed-header when malformed.
_CHECKED_HEADERS = frozenset({"if-match", "if-none-match", "idempotency-key", "last-event-id"})
_BEARER_SCHEMES = frozenset({TOKEN_SCHEME, PLAYER_SCHEME})


def _document_refusals(operation: dict[str, Any]) -> None:
    """Adds the refusals every operation of a kind can answer, so that no route leaves
    one out: 400 `malformed-header` where a bearer token or a checked header is read,
    422 `malformed-body` where a parameter or a body has a schema to fail."""
    responses = operation.setdefault("responses", {})
    parameters = operation.get("parameters", [])
    schemes = {name for requirement in operation.get("security", []) for name in requirement}
    headers = {p["name"].lower() for p in parameters if p.get("in") == "header"}
    if schemes & _BEARER_SCHEMES or headers & _CHECKED_HEADERS:
        responses.setdefault("400", _problem_response(400))
    if parameters or "requestBody" in operation:
        responses.setdefault("422", _problem_response(422))


def _problem_response(status: int) -> dict[str, Any]:
    codes = ", ".join(f"`{code}`" for code in _codes_for(status))
    reference = {"$ref": "#/components/schemas/Problem"}
    return {
        "description": f"Problem: {codes}.",
        "content": {PROBLEM_MEDIA_TYPE: {"schema": reference}},
    }


def install(app: FastAPI) -> None:
    """Replace app.openapi with a generator that finishes the schema."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
            tags=app.openapi_tags,
            servers=SERVERS,
            license_info=LICENSE,
        )
        for path in schema.get("paths", {}).values():
            for operation in path.values():
                # No security requirement means public; said explicitly, as linters ask.
                operation.setdefault("security", [])
                responses = operation.get("responses", {})
                # FastAPI's default 422 (HTTPValidationError) is never sent: validation
                # failures are problems, declared explicitly where they can happen.
                default_422 = responses.get("422", {}).get("content", {}).get("application/json")
                if default_422 and "HTTPValidationError" in str(default_422):
                    del responses["422"]
                _document_refusals(operation)
                for status, response in responses.items():
                    content = response.get("content", {})
                    # Error bodies are application/problem+json (RFC 9457).
                    if status[0] in "45" and "application/json" in content:
                        content[PROBLEM_MEDIA_TYPE] = content.pop("application/json")
        components = schema.setdefault("components", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            components.get("schemas", {}).pop(unused, None)
        schemes = components.setdefault("securitySchemes", {})
        schemes[TOKEN_SCHEME] = _TOKEN_SCHEME_SPEC
        schemes[PLAYER_SCHEME] = _PLAYER_SCHEME_SPEC
        schemes[TICKET_SCHEME] = _TICKET_SCHEME_SPEC
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
