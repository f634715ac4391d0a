"""Driving the gateway in tests: create games, play moves, check problem bodies."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from patience_gateway.app import create_app
from patience_gateway.settings import SPEED_PATHS_VARIABLE, Settings
from pydantic import BaseModel

from tests.gateway.documented import models

WINS_FILE = Path(__file__).resolve().parents[1] / "rules" / "golden" / "wins.json"
# The players' token keys of the suite's gateways: the current one, then an older one.
PLAYER_KEY = "5f" * 32
OLD_PLAYER_KEY = "a3" * 32
PROBLEM_FIELDS = {"type", "title", "status", "detail", "instance", "code"}


def environment_speed_paths() -> bool:
    """PATIENCE_SPEED_PATHS as the gateway reads it from the environment: the suite's
    gateways follow it, so that it runs with the speed paths on (the default) or off."""
    given = os.environ.get(SPEED_PATHS_VARIABLE, "")
    return Settings.from_env({SPEED_PATHS_VARIABLE: given}).speed_paths


@dataclass
class Gateway:
    app: FastAPI
    http: httpx.AsyncClient

    async def create(
        self, variant: str, deal: int | str | None = None, options: tuple[str, ...] = ()
    ) -> GameHandle:
        body: dict[str, Any] = {"variant": variant, "options": list(options)}
        if deal is not None:
            body["deal"] = deal
        response = await self.http.post("/v1/games", json=body)
        assert response.status_code == 201, response.text
        data = response.json()
        models.CreatedGame.model_validate(data)
        assert response.headers["location"] == f"/v1/games/{data['id']}"
        return GameHandle(data["id"], data["token"], response.headers["etag"], data)

    async def move(
        self, game: GameHandle, notation: str, *, if_match: bool = True, key: str | None = None
    ) -> httpx.Response:
        """Plays `notation`; on success the handle follows the new version."""
        headers = game.auth()
        if if_match:
            headers["If-Match"] = game.etag
        if key is not None:
            headers["Idempotency-Key"] = key
        response = await self.http.post(
            f"/v1/games/{game.id}/moves", json={"move": notation}, headers=headers
        )
        game.follow(response)
        return response

    async def autoplay_on(self, game: GameHandle, **headers: str) -> httpx.Response:
        """Switches the game's autoplay setting on (a JSON merge patch of its settings)."""
        return await self.http.patch(
            f"/v1/games/{game.id}",
            content=b'{"autoplay": true}',
            headers={**game.auth(), "Content-Type": "application/merge-patch+json", **headers},
        )

    async def undo(self, game: GameHandle) -> httpx.Response:
        return await self._history_step(game, "undo")

    async def redo(self, game: GameHandle) -> httpx.Response:
        return await self._history_step(game, "redo")

    async def _history_step(self, game: GameHandle, step: str) -> httpx.Response:
        response = await self.http.post(
            f"/v1/games/{game.id}/{step}", headers={**game.auth(), "If-Match": game.etag}
        )
        game.follow(response)
        return response

    async def view(self, game: GameHandle) -> dict[str, Any]:
        return await self._read(game, f"/v1/games/{game.id}", models.Game)

    async def history(self, game: GameHandle) -> dict[str, Any]:
        return await self._read(game, f"/v1/games/{game.id}/history", models.History)

    async def _read(self, game: GameHandle, path: str, model: type[BaseModel]) -> dict[str, Any]:
        """A GET that must succeed, its body checked against the documented model."""
        response = await self.http.get(path, headers=game.auth())
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        model.model_validate(data)
        return data


@dataclass
class GameHandle:
    id: str
    token: str
    etag: str
    created: dict[str, Any]

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def follow(self, response: httpx.Response) -> None:
        if response.status_code == 200:
            self.etag = response.headers["etag"]


class SteadyClock:
    """The records' clock of a test gateway: a second later at each reading, from a
    fixed start, so two gateways given the same requests write the same records.

    The start is the wall's time when the suite began: the suite's gateways share one
    PostgreSQL, and a gateway on the wall's clock (the daily deal's tests) judges every
    game in it by that clock. Games whose records said an earlier day would be due to be
    abandoned there, and ended under the test playing them."""

    START_MS = time.time_ns() // 1_000_000 // 1000 * 1000

    def __init__(self) -> None:
        self.now_ms = self.START_MS

    def __call__(self) -> int:
        self.now_ms += 1000
        return self.now_ms

    def read(self) -> int:
        """The time now, the clock left where it is."""
        return self.now_ms


def use_clock(app: FastAPI, clock: Callable[[], int]) -> None:
    """Gives the gateway's records `clock`. Its outbox drain, which works in the
    background, reads a SteadyClock without moving it: otherwise the times a test's
    requests write would depend on when the drain happened to look."""
    app.state.services.games.clock = clock
    drain = app.state.services.drain
    if drain is not None:
        drain.settings = replace(drain.settings, clock=getattr(clock, "read", clock))


@asynccontextmanager
async def running_gateway(
    settings: Settings, clock: Callable[[], int] | None = None
) -> AsyncIterator[Gateway]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        use_clock(app, clock or SteadyClock())
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            yield Gateway(app, http)


def assert_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The response is an RFC 9457 problem with this status and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body.keys() >= PROBLEM_FIELDS, body
    assert body["status"] == status and body["code"] == code, body
    assert body["type"] == f"/problems/{code}"
    assert body["instance"] == response.request.url.path
    assert "Traceback" not in response.text
    models.Problem.model_validate(body)
    return body


def view_without_identity(view: dict[str, Any]) -> dict[str, Any]:
    """A view with the fields that name the game, its version or the change made left out."""
    identity = {"id", "version", "token", "move", "autoplayed", "moves", "events", "record"}
    return {k: v for k, v in view.items() if k not in identity}


@dataclass(frozen=True)
class Win:
    variant: str
    deal: int | str
    options: tuple[str, ...]
    moves: tuple[str, ...]


def load_wins() -> list[Win]:
    """The winning games in tests/rules/golden/wins.json, one per variant."""
    data: Any = json.loads(WINS_FILE.read_text())
    if isinstance(data, dict) and "wins" in data:
        data = data["wins"]
    entries: Iterator[tuple[str, dict[str, Any]]]
    if isinstance(data, dict):
        entries = iter(data.items())
    else:
        entries = ((entry["variant"], entry) for entry in data)
    return [
        Win(variant, entry["deal"], tuple(entry.get("options", ())), tuple(entry["moves"]))
        for variant, entry in entries
    ]


@contextmanager
def held_port(port: int) -> Iterator[None]:
    """While a server of a test is away, its loopback port bound but not listening:
    connections to it are refused, as to a port nobody holds, but no server another
    test starts (on a free port) takes it before the test's server comes back on it."""
    held = socket.socket()
    try:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
        held.bind(("127.0.0.1", port))
        yield
    finally:
        held.close()


def killed_late(log: str) -> list[str]:
    """The workers the server killed for not stopping within its kill timeout (15 s):
    each "Killing" line that long after the stop began. granian 2.8 sometimes kills a
    worker within milliseconds of the stop (its wait for the worker returns at once, the
    worker still finishing): that is not a late worker, and is let pass."""
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    began = [line["time"] for line in lines if line["message"] == "Shutting down granian"]
    if not began:
        return []
    start = datetime.fromisoformat(began[0])
    return [
        line["message"]
        for line in lines
        if line["message"].startswith("Killing")
        and (datetime.fromisoformat(line["time"]) - start).total_seconds() >= 10
    ]
