"""No JSON body, however deep, makes a 500: every route that reads a body refuses one
nested deeper than MAX_JSON_DEPTH with 400 `body-too-deep` (sent whole or chunked), and
changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from patience_gateway.http.bodies import MAX_JSON_DEPTH, json_depth

from tests.gateway.helpers import Gateway, assert_problem
from tests.gateway.players import new_player

pytestmark = pytest.mark.asyncio(loop_scope="session")


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def bodies(depth: int) -> dict[str, str]:
    """Bodies `depth` deep where each route reads a value: in `move`, in a create's
    `options`, ..."""
    inside = depth - 1  # within the body's own object

    def field(name: str, inner: str = '"x"') -> str:
        return '{"' + name + '": ' + nested(inside, inner) + "}"

    return {
        "move": field("move", "1"),
        "structured move": '{"kind": "transfer", "columns": ' + nested(inside, '"t1"') + "}",
        "create": '{"variant": "bisley", "options": ' + nested(inside) + "}",
        "patch": field("autoplay", "true"),
        "player": field("display_name"),
        "refresh": field("refresh_token"),
        "link": field("code"),
        "claim": field("token"),
        "top level": nested(depth),
    }


# Deeper than the standard parser's recursion limit (it failed with a RecursionError, a
# 500), within the test gateway's 4 KB body limit.
DEEP = 1500


async def chunked(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), 1000):
        yield body[start : start + 1000]


async def send(
    gateway: Gateway, route: str, body: str, game: Any, player: Any, *, chunks: bool
) -> Any:
    paths = {
        "move": ("POST", f"/v1/games/{game.id}/moves", game.auth()),
        "structured move": ("POST", f"/v1/games/{game.id}/moves", game.auth()),
        "create": ("POST", "/v1/games", {}),
        "patch": ("PATCH", f"/v1/games/{game.id}", game.auth()),
        "player": ("POST", "/v1/players", {}),
        "refresh": ("POST", "/v1/sessions/refresh", {}),
        "link": ("POST", "/v1/sessions/link", {}),
        "claim": ("POST", f"/v1/games/{game.id}/claim", player.auth()),
        "top level": ("POST", f"/v1/games/{game.id}/moves", game.auth()),
    }
    method, path, headers = paths[route]
    content: Any = chunked(body.encode()) if chunks else body.encode()
    return await gateway.http.request(
        method, path, content=content, headers={**headers, "Content-Type": "application/json"}
    )


@pytest.mark.parametrize("chunks", [False, True], ids=["whole", "chunked"])
@pytest.mark.parametrize("route", list(bodies(2)))
async def test_a_deep_body_is_refused_on_every_route(
    records_gateway: Gateway, route: str, chunks: bool
) -> None:
    game = await records_gateway.create("bisley", deal=4)
    player = await new_player(records_gateway)
    response = await send(records_gateway, route, bodies(DEEP)[route], game, player, chunks=chunks)
    body = assert_problem(response, 400, "body-too-deep")
    assert str(MAX_JSON_DEPTH) in body["detail"]
    assert (await records_gateway.view(game))["version"] == 1


@pytest.mark.parametrize("route", ["move", "create", "player"])
async def test_the_limit_is_exact(records_gateway: Gateway, route: str) -> None:
    """At the limit a body is read (and refused for its shape, 422); one level more, 400."""
    game = await records_gateway.create("bisley", deal=4)
    player = await new_player(records_gateway)
    at, over = bodies(MAX_JSON_DEPTH)[route], bodies(MAX_JSON_DEPTH + 1)[route]
    assert json_depth(at.encode()) == MAX_JSON_DEPTH
    read = await send(records_gateway, route, at, game, player, chunks=False)
    assert_problem(read, 422, "malformed-body")
    refused = await send(records_gateway, route, over, game, player, chunks=False)
    assert_problem(refused, 400, "body-too-deep")


async def test_depth_counts_brackets_outside_strings_only() -> None:
    assert json_depth(b'{"a": "[[[[", "b": [1, {"c": []}]}') == 4
    assert json_depth(b'"\\"[["') == 0
    assert json_depth(b"7") == 0
