"""Every body rule holds on both ways a body arrives: whole (Content-Length) and chunked
(Transfer-Encoding, no length): the size limit, the media type, duplicate keys, the
nesting depth and malformed JSON are each refused with their problem code, on a route
that creates and one that changes a game, and nothing changes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from patience_gateway.http import bodies

from tests.gateway.helpers import GameHandle, Gateway, assert_problem

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


# --- the rules' own readings, without a request ---------------------------------------------


@pytest.mark.parametrize(
    ("body", "depth"),
    [
        (b'"a scalar"', 0),
        (b"[]", 1),
        (b"[[],[],[],[]]", 2),  # wide is not deep
        (b"[[],[[]]]", 3),
        (b"[[[],[[]]]]", 4),  # the deepest part after a way back up
        (b'{"a": "[[[[{{{{", "b": [1]}', 2),  # brackets inside a string do not nest
        (b'{"a": "\\"[[[", "b": {}}', 2),  # nor after an escaped quote
    ],
)
def test_json_depth_counts_nesting_only(body: bytes, depth: int) -> None:
    assert bodies.json_depth(body) == depth


def test_a_duplicate_key_is_named_wherever_it_is() -> None:
    assert bodies.duplicate_key(b'{"a": 1, "b": 2, "b": 3}') == "b"
    assert bodies.duplicate_key(b'{"a": {"c": 1, "c": 2}}') == "c"
    assert bodies.duplicate_key(b'{"a": 1, "b": 2}') is None
    assert bodies.duplicate_key(b'{"a": 1,') is None  # not JSON: the route says so


@pytest.mark.parametrize(
    ("content_type", "json"),
    [
        (b"application/json", True),
        (b"Application/JSON ; charset=utf-8", True),
        (b"application/json; charset=utf-8; q=1", True),
        (b"application/merge-patch+json", True),
        (b"application/problem+json;charset=utf-8", True),
        (b"text/json", False),
        (b"text/plain; x=application/json", False),
        (b"", False),
    ],
)
def test_is_json_reads_the_media_type_before_its_parameters(
    content_type: bytes, json: bool
) -> None:
    assert bodies.is_json(content_type) is json


async def test_a_body_of_another_media_type_says_what_to_send(gateway: Gateway) -> None:
    """415 names the media type sent (or none) and offers JSON (Accept-Post)."""
    for content_type, shown in (("text/plain", "text/plain"), ("", "none")):
        response = await gateway.http.post(
            "/v1/games", content=b'{"variant": "bisley"}', headers={"Content-Type": content_type}
        )
        body = assert_problem(response, 415, "unsupported-media-type")
        assert body["detail"] == f"the body must be application/json, not {shown}"
        assert response.headers["accept-post"] == "application/json"
