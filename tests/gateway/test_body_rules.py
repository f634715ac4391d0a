"""Every body rule holds on both ways a body arrives: whole (Content-Length) and chunked
(Transfer-Encoding, no length): the size limit, the media type, duplicate keys, the
nesting depth and malformed JSON are each refused with their problem code, on a route
that creates and one that changes a game, and nothing changes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.gateway.helpers import GameHandle, Gateway, assert_problem

pytestmark = pytest.mark.asyncio(loop_scope="session")

LIMIT = 4096  # the test gateway's max_body_bytes (conftest.settings)

# rule: (body of the move route, body of the create route, content type, status, code)
RULES: dict[str, tuple[str, str, str, int, str]] = {
    "size limit": (
        '{"move": "t1-f1", "pad": "' + "x" * LIMIT + '"}',
        '{"variant": "bisley", "pad": "' + "x" * LIMIT + '"}',
        "application/json",
        413,
        "body-too-large",
    ),
    "media type": (
        '{"move": "t1-f1"}',
        '{"variant": "bisley"}',
        "text/plain",
        415,
        "unsupported-media-type",
    ),
    "duplicate key": (
        '{"move": "t1-f1", "move": "t2-f1"}',
        '{"variant": "bisley", "deal": 1, "deal": 2}',
        "application/json",
        400,
        "malformed-body",
    ),
    "depth": (
        '{"move": ' + "[" * 40 + '"t1-f1"' + "]" * 40 + "}",
        '{"variant": "bisley", "options": ' + "[" * 40 + "]" * 40 + "}",
        "application/json",
        400,
        "body-too-deep",
    ),
    "malformed JSON": (
        '{"move": "t1-f1"',
        '{"variant": bisley}',
        "application/json",
        400,
        "malformed-body",
    ),
}


async def in_chunks(body: bytes, size: int = 700) -> AsyncIterator[bytes]:
    """The body as a chunked upload (httpx sends no Content-Length for an iterator)."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


async def post(
    gateway: Gateway, path: str, body: str, content_type: str, chunked: bool, **headers: str
) -> Any:
    raw = body.encode()
    content: Any = in_chunks(raw) if chunked else raw
    return await gateway.http.post(
        path, content=content, headers={**headers, "Content-Type": content_type}
    )


@pytest.mark.parametrize("chunked", [False, True], ids=["whole", "chunked"])
@pytest.mark.parametrize("rule", list(RULES))
async def test_a_move_body_breaking_a_rule_is_refused(
    gateway: Gateway, rule: str, chunked: bool
) -> None:
    game = await gateway.create("bisley", deal=4)
    body, _, content_type, status, code = RULES[rule]
    response = await post(
        gateway, f"/v1/games/{game.id}/moves", body, content_type, chunked, **game.auth()
    )
    if chunked:
        assert "content-length" not in response.request.headers
        assert response.request.headers["transfer-encoding"] == "chunked"
    assert_problem(response, status, code)
    assert (await gateway.view(game))["version"] == 1


@pytest.mark.parametrize("chunked", [False, True], ids=["whole", "chunked"])
@pytest.mark.parametrize("rule", list(RULES))
async def test_a_create_body_breaking_a_rule_is_refused(
    gateway: Gateway, rule: str, chunked: bool
) -> None:
    _, body, content_type, status, code = RULES[rule]
    response = await post(gateway, "/v1/games", body, content_type, chunked)
    assert_problem(response, status, code)
    assert "location" not in response.headers


@pytest.mark.parametrize("chunked", [False, True], ids=["whole", "chunked"])
async def test_a_body_within_every_rule_is_read(gateway: Gateway, chunked: bool) -> None:
    """The same routes take a good body either way (the refusals above are the rules')."""
    created = await post(
        gateway, "/v1/games", '{"variant": "bisley", "deal": 4}', "application/json", chunked
    )
    assert created.status_code == 201, created.text
    data = created.json()
    game = GameHandle(data["id"], data["token"], created.headers["etag"], data)
    text = (await gateway.view(game))["legal_moves"][0]
    moved = await post(
        gateway,
        f"/v1/games/{game.id}/moves",
        '{"move": "' + text + '"}',
        "application/json; charset=utf-8",
        chunked,
        **game.auth(),
    )
    assert moved.status_code == 200, moved.text
    assert (await gateway.view(game))["version"] == 2
