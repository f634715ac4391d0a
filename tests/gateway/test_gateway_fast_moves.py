"""The move route's fast path (patience_gateway.speed.moves) answers exactly as the
FastAPI route does: every request below is sent to the gateway and to the same
gateway built without the fast path, each on its own copy of one game, and the two
answers must match byte for byte (the game id aside)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from patience_gateway.app import create_app
from patience_gateway.settings import Settings
from patience_gateway.speed.moves import MoveFastPath

from tests.gateway.helpers import (
    GameHandle,
    Gateway,
    SteadyClock,
    assert_problem,
    running_gateway,
    use_clock,
)

LEGAL = "{legal}"  # replaced by a legal move of the game's deal
SOME_GAME_ID = "A" * 24


@dataclass(frozen=True)
class Send:
    """One request to POST .../moves."""

    body: bytes | None
    content_type: str | None = "application/json"
    token: str = "own"  # own, none, wrong, blank
    if_match: str | None = "current"  # current, a literal value, or None
    key: str | None = None
    game: str = "own"  # own, or another id to send it to
    extra_headers: tuple[tuple[str, str], ...] = field(default=())


def legal_body(notation: str = LEGAL) -> bytes:
    return b'{"move": "%s"}' % notation.encode()


CASES: dict[str, list[Send]] = {
    "applied": [Send(legal_body())],
    "applied, charset": [Send(legal_body(), "application/json; charset=utf-8")],
    "applied, upper case type": [Send(legal_body(), "Application/JSON")],
    "applied, +json type": [Send(legal_body(), "application/vnd.patience+json")],
    "applied, no If-Match": [Send(legal_body(), if_match=None)],
    "applied, spaces around": [Send(b'  \n{ "move" : "{legal}" }\t')],
    "duplicate key, last wins": [Send(b'{"move": "t1-zz", "move": "{legal}"}')],
    "byte order mark": [Send(b"\xef\xbb\xbf" + legal_body())],
    "no content type": [Send(legal_body(), None)],
    "text content type": [Send(legal_body(), "text/plain")],
    "empty body": [Send(b"")],
    "no body": [Send(None)],
    "not json": [Send(b'{"move": ')],
    "json null": [Send(b"null")],
    "NaN": [Send(b'{"move": NaN}')],
    "huge integer": [Send(b'{"kind": "transfer", "count": 123456789012345678901234567890}')],
    "float count": [Send(b'{"kind": "transfer", "source": "t1", "target": "f1", "count": 1.0}')],
    "invalid utf-8": [Send(b'{"move": "\xff"}')],
    "lone surrogate": [Send(b'{"move": "\\ud800"}')],
    "unknown field": [Send(b'{"move": "{legal}", "why": 1}')],
    "illegal move": [Send(b'{"move": "t1-t1"}')],
    "malformed move": [Send(b'{"move": "sideways"}')],
    "structured move": [Send(b'{"kind": "deal"}')],
    "no token": [Send(legal_body(), token="none")],
    "blank token": [Send(legal_body(), token="blank")],
    "wrong token": [Send(legal_body(), token="wrong")],
    "unknown game": [Send(legal_body(), game=SOME_GAME_ID)],
    "not a game id": [Send(legal_body(), game="no-such-game")],
    "stale If-Match": [Send(legal_body(), if_match='"99"')],
    "bad If-Match": [Send(legal_body(), if_match="W/x")],
    "bad Idempotency-Key": [Send(legal_body(), key="tab\there")],
    "replayed": [Send(legal_body(), key="k1"), Send(legal_body(), key="k1", if_match='"1"')],
    "key reused": [Send(legal_body(), key="k2"), Send(b'{"move": "deal"}', key="k2")],
    "repeated headers": [
        Send(legal_body(), extra_headers=(("Authorization", "Bearer second"),)),
    ],
}


@pytest.fixture(scope="module")
async def gateway(settings: Settings) -> AsyncIterator[Gateway]:
    """The gateway with its speed paths, whatever PATIENCE_SPEED_PATHS says: this module
    holds the move speed path to its reference."""
    async with running_gateway(dataclasses.replace(settings, speed_paths=True)) as gateway:
        yield gateway


@pytest.fixture(scope="module")
async def without_fast_path(settings: Settings) -> AsyncIterator[Gateway]:
    """The gateway as FastAPI alone would serve it."""
    app = create_app(dataclasses.replace(settings, speed_paths=True))
    app.user_middleware = [m for m in app.user_middleware if m.cls is not MoveFastPath]
    async with app.router.lifespan_context(app):
        use_clock(app, SteadyClock())
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            yield Gateway(app, http)


async def send(gateway: Gateway, game: GameHandle, legal: str, request: Send) -> httpx.Response:
    headers: list[tuple[str, str]] = []
    if request.content_type is not None:
        headers.append(("Content-Type", request.content_type))
    token = {"own": game.token, "wrong": "not-the-token", "blank": "", "none": None}
    if (value := token[request.token]) is not None:
        headers.append(("Authorization", f"Bearer {value}"))
    if request.if_match is not None:
        headers.append(
            ("If-Match", game.etag if request.if_match == "current" else request.if_match)
        )
    if request.key is not None:
        headers.append(("Idempotency-Key", request.key))
    headers.extend(request.extra_headers)
    game_id = game.id if request.game == "own" else request.game
    content = None if request.body is None else request.body.replace(b"{legal}", legal.encode())
    return await gateway.http.post(f"/v1/games/{game_id}/moves", content=content, headers=headers)


def seen(response: httpx.Response, game: GameHandle) -> tuple[int, list[tuple[str, str]], str]:
    """What the client sees, with the game's own id and the request's written the same
    way for both."""
    names = {game.id: "GAME", response.headers["request-id"]: "REQUEST"}
    headers = list(response.headers.multi_items())
    text = response.text
    for real, name in names.items():
        headers = [(k, v.replace(real, name)) for k, v in headers]
        text = text.replace(real, name)
    return response.status_code, headers, text


@pytest.mark.parametrize("case", list(CASES))
async def test_the_fast_path_answers_as_the_route_does(
    gateway: Gateway,
    without_fast_path: Gateway,
    case: str,
) -> None:
    answers: dict[str, list[Any]] = {}
    for name, which in (("fast", gateway), ("route", without_fast_path)):
        game = await which.create("bisley", deal=11)
        legal = game.created["legal_moves"][0]
        answers[name] = []
        for request in CASES[case]:
            response = await send(which, game, legal, request)
            game.follow(response)
            answers[name].append(seen(response, game))
    assert answers["fast"] == answers["route"]


async def test_ordinary_moves_take_the_fast_path(
    gateway: Gateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[str] = []
    answer = MoveFastPath._answer

    async def counting(self: MoveFastPath, *args: Any) -> Any:
        response = await answer(self, *args)
        served.append("fast" if response is not None else "handed on")
        return response

    monkeypatch.setattr(MoveFastPath, "_answer", counting)
    game = await gateway.create("bisley", deal=11)
    assert (await gateway.move(game, game.created["legal_moves"][0])).status_code == 200
    await gateway.http.post(
        f"/v1/games/{game.id}/moves",
        content=b"{",
        headers={**game.auth(), "Content-Type": "application/json"},
    )
    await gateway.http.post(
        f"/v1/games/{game.id}/moves", content=b"{}", headers={"Content-Type": "text/plain"}
    )
    assert served == ["fast", "handed on"]  # text/plain does not even reach it


async def test_an_unexpected_failure_on_the_fast_path_is_a_generic_500(gateway: Gateway) -> None:
    game = await gateway.create("bisley", deal=11)
    service = gateway.app.state.services.games
    original = service.engine

    class Exploding:
        async def apply_move(self, state: object, move: object) -> object:
            raise RuntimeError("secret internals")

    service.engine = Exploding()
    try:
        response = await gateway.move(game, game.created["legal_moves"][0])
    finally:
        service.engine = original
    problem = assert_problem(response, 500, "internal")
    assert "secret internals" not in response.text and "RuntimeError" not in response.text
    assert problem["detail"]
