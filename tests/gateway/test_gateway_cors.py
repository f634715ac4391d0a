"""CORS: pages on the configured origins may call the API from a browser, on every
route (the move route's fast path included) and on error answers too; other origins
get nothing a browser would accept, and with no origin configured nothing changes."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest
from patience_gateway.http.cors import cors_middleware
from patience_gateway.settings import Settings, SettingsError, parse_origins
from patience_gateway.speed.moves import MoveFastPath

from tests.gateway.helpers import Gateway, assert_problem, running_gateway

PAGE = "http://play.example:8080"
ELSEWHERE = "http://evil.example"
EXPOSED = {"etag", "location", "retry-after", "idempotent-replayed"}


@pytest.fixture(scope="module")
async def cors_gateway(settings: Settings) -> AsyncIterator[Gateway]:
    """With its speed paths, whatever PATIENCE_SPEED_PATHS says: CORS must wrap them."""
    cors = dataclasses.replace(settings, cors_origins=(PAGE,), speed_paths=True)
    async with running_gateway(cors) as gateway:
        yield gateway


def preflight_headers(method: str, headers: str, origin: str = PAGE) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": headers,
    }


def listed(value: str) -> set[str]:
    return {part.strip().lower() for part in value.split(",")}


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("POST", "/v1/games", "content-type, idempotency-key"),
        ("POST", "/v1/games/A/moves", "authorization, content-type, if-match, idempotency-key"),
        ("GET", "/v1/games/A", "authorization, if-none-match"),
        ("GET", "/v1/games/A/events", "last-event-id"),
        ("DELETE", "/v1/games/A", "authorization, if-match"),
        ("PATCH", "/v1/games/A", "authorization, content-type, if-match"),
        ("POST", "/v1/games/A/autoplay", "authorization, if-match, idempotency-key"),
    ],
)
async def test_preflights_are_answered(
    cors_gateway: Gateway, method: str, path: str, headers: str
) -> None:
    response = await cors_gateway.http.options(path, headers=preflight_headers(method, headers))
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == PAGE
    assert method.lower() in listed(response.headers["access-control-allow-methods"])
    assert listed(headers) <= listed(response.headers["access-control-allow-headers"])
    assert int(response.headers["access-control-max-age"]) >= 60
    assert "access-control-allow-credentials" not in response.headers


async def test_a_preflight_from_another_origin_is_refused(cors_gateway: Gateway) -> None:
    response = await cors_gateway.http.options(
        "/v1/games", headers=preflight_headers("POST", "content-type", origin=ELSEWHERE)
    )
    assert response.status_code == 400
    assert "access-control-allow-origin" not in response.headers


async def test_a_preflight_for_an_unused_method_is_refused(cors_gateway: Gateway) -> None:
    response = await cors_gateway.http.options(
        "/v1/games", headers=preflight_headers("PUT", "content-type")
    )
    assert response.status_code == 400


def assert_readable(headers: dict[str, str] | object) -> None:
    assert isinstance(headers, dict)
    assert headers["access-control-allow-origin"] == PAGE
    assert listed(headers["access-control-expose-headers"]) >= EXPOSED
    assert "origin" in listed(headers["vary"])


async def test_answers_are_readable_by_the_page_on_every_route(cors_gateway: Gateway) -> None:
    http = cors_gateway.http
    origin = {"Origin": PAGE}
    created = await http.post("/v1/games", json={"variant": "bisley", "deal": 3}, headers=origin)
    assert created.status_code == 201
    assert_readable(dict(created.headers))
    game = created.json()
    auth = {**origin, "Authorization": f"Bearer {game['token']}"}
    view = await http.get(f"/v1/games/{game['id']}", headers=auth)
    assert_readable(dict(view.headers))
    # The move route's fast path answers this one (plain JSON of the right shape).
    move = game["legal_moves"][0]
    moved = await http.post(
        f"/v1/games/{game['id']}/moves",
        content=b'{"move": "%s"}' % move.encode(),
        headers={**auth, "Content-Type": "application/json", "If-Match": '"1"'},
    )
    assert moved.status_code == 200, moved.text
    assert_readable(dict(moved.headers))
    # ... and its errors: a stale version, then a body over the size limit.
    stale = await http.post(
        f"/v1/games/{game['id']}/moves",
        content=b'{"move": "%s"}' % move.encode(),
        headers={**auth, "Content-Type": "application/json", "If-Match": '"1"'},
    )
    assert_problem(stale, 412, "stale-version")
    assert_readable(dict(stale.headers))
    too_big = await http.post(
        f"/v1/games/{game['id']}/moves",
        content=b" " * 5000,
        headers={**auth, "Content-Type": "application/json"},
    )
    assert_problem(too_big, 413, "body-too-large")
    assert_readable(dict(too_big.headers))
    undone = await http.post(f"/v1/games/{game['id']}/undo", headers=auth)
    assert_readable(dict(undone.headers))
    variants = await http.get("/v1/variants", headers=origin)
    assert_readable(dict(variants.headers))


async def test_another_origin_is_not_allowed_to_read(cors_gateway: Gateway) -> None:
    response = await cors_gateway.http.get("/v1/variants", headers={"Origin": ELSEWHERE})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_cors_wraps_the_fast_path_and_the_size_limit(cors_gateway: Gateway) -> None:
    """Middleware listed first is outermost: CORS must see the fast path's answers."""
    stack = [middleware.cls for middleware in cors_gateway.app.user_middleware]
    assert stack.index(cors_middleware) < stack.index(MoveFastPath)  # type: ignore[arg-type]


async def test_without_origins_there_is_no_cors(gateway: Gateway) -> None:
    preflight = await gateway.http.options(
        "/v1/games", headers=preflight_headers("POST", "content-type")
    )
    assert_problem(preflight, 405, "method-not-allowed")
    plain = await gateway.http.get("/v1/variants", headers={"Origin": PAGE})
    assert not any(name.startswith("access-control-") for name in plain.headers)


def test_origins_from_the_environment() -> None:
    settings = Settings.from_env(
        {"CORS_ORIGINS": " https://A.example:443, http://localhost:8000 ,http://[::1]:80,,"}
    )
    assert settings.cors_origins == ("https://a.example", "http://localhost:8000", "http://[::1]")
    assert Settings.from_env({}).cors_origins == ()
    assert parse_origins("*") == ("*",)
    assert parse_origins("http://a.example/, http://a.example") == ("http://a.example",)


@pytest.mark.parametrize(
    "value",
    ["a.example", "ftp://a.example", "http://a.example/play", "http://a.example?x", "http://:80"],
)
def test_origins_that_are_not_origins_are_refused(value: str) -> None:
    with pytest.raises(SettingsError, match="CORS_ORIGINS"):
        Settings.from_env({"CORS_ORIGINS": value})
