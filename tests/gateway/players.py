"""Driving players, their sessions and their games in tests."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from patience_gateway.players.access_tokens import key_id, parse_private_key

from tests.gateway.helpers import GameHandle, Gateway, load_wins


@dataclass
class Session:
    player_id: str
    access: str
    refresh: str
    body: dict[str, Any]

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access}"}


async def new_player(gateway: Gateway, name: str | None = None) -> Session:
    body = {} if name is None else {"display_name": name}
    response = await gateway.http.post("/v1/players", json=body)
    assert response.status_code == 201, response.text
    return session_of(response)


def session_of(response: httpx.Response) -> Session:
    data = response.json()
    return Session(data["player"]["id"], data["access_token"], data["refresh_token"], data)


async def new_game(
    gateway: Gateway, player: Session, variant: str = "bisley", deal: int | None = None
) -> GameHandle:
    body: dict[str, Any] = {"variant": variant}
    if deal is not None:
        body["deal"] = deal
    response = await gateway.http.post("/v1/games", json=body, headers=player.auth())
    assert response.status_code == 201, response.text
    data = response.json()
    assert data["token"] is None
    return GameHandle(data["id"], player.access, response.headers["etag"], data)


async def play(
    gateway: Gateway, game: GameHandle, moves: list[str] | tuple[str, ...]
) -> dict[str, Any]:
    """Plays `moves` (each must be legal); the last answer."""
    body: dict[str, Any] = {}
    for notation in moves:
        response = await gateway.move(game, notation)
        assert response.status_code == 200, response.text
        body = response.json()
    return body


async def one_move_in(
    gateway: Gateway, player: Session, variant: str = "bisley"
) -> tuple[GameHandle, int]:
    """A random deal with one move played and still in play, and how many random deals
    ended stuck on their first move on the way (rare, but each counts as a lost game)."""
    for ended in range(20):
        game = await new_game(gateway, player, variant)
        if (await play(gateway, game, [game.created["legal_moves"][0]]))["status"] == "playing":
            return game, ended
    raise AssertionError(f"20 random {variant} deals in a row ended on their first move")


def bisley_win() -> tuple[int, tuple[str, ...]]:
    win = next(w for w in load_wins() if w.variant == "bisley")
    return int(win.deal), win.moves


async def play_until_stuck(gateway: Gateway, game: GameHandle, seed: int = 0) -> dict[str, Any]:
    """Random legal moves (never a redeal) until no move is legal; the last answer."""
    chooser = random.Random(seed)
    view = (await gateway.http.get(f"/v1/games/{game.id}", headers=game.auth())).json()
    for _ in range(2000):
        if view["status"] != "playing":
            return view
        legal = [m for m in view["legal_moves"] if m != "redeal"] or view["legal_moves"]
        response = await gateway.move(game, chooser.choice(legal))
        assert response.status_code == 200, response.text
        view = response.json()
    raise AssertionError("the game did not end")


async def eventually(
    check: Callable[[], Awaitable[bool]], seconds: float = 30.0, what: str = "it"
) -> None:
    """Waits until `check` holds (the drain carries records in the background)."""
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds} s")
        await asyncio.sleep(0.05)


async def drained(gateway: Gateway, seconds: float = 60.0) -> None:
    """Every outbox entry applied to PostgreSQL (drain rounds run here until none finds
    a game waiting); an outbox still waiting after `seconds` fails, naming its games."""
    drain = gateway.app.state.services.drain
    await drain.schema_ready()
    deadline = time.monotonic() + seconds
    while await drain.drain():
        if time.monotonic() > deadline:
            waiting = await drain.outbox.waiting(10)
            raise AssertionError(f"outboxes still waiting after {seconds} s: {waiting}")


async def my_games(gateway: Gateway, player: Session, query: str = "") -> dict[str, Any]:
    response = await gateway.http.get(f"/v1/players/me/games{query}", headers=player.auth())
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def my_statistics(gateway: Gateway, player: Session) -> dict[str, dict[str, Any]]:
    """The player's statistics, by "variant/category"."""
    response = await gateway.http.get("/v1/players/me/stats", headers=player.auth())
    assert response.status_code == 200, response.text
    return {f"{s['variant']}/{s['category']}": s for s in response.json()["statistics"]}


def signed_token(
    key_hex: str | None,
    *,
    subject: str = "someone-22-characters-",
    expires_in: int = 900,
    kid: str | None = None,
    typ: str = "at+jwt",
    algorithm: str = "EdDSA",
    issuer: str = "patience-gateway",
) -> str:
    """An access token made here: with a key of the gateway's (or another), or with
    whatever header a forger would choose."""
    key = parse_private_key(key_hex) if key_hex else Ed25519PrivateKey.generate()
    now = int(time.time())
    claims = {"iss": issuer, "sub": subject, "iat": now, "exp": now + expires_in}
    headers = {"kid": kid or key_id(key.public_key()), "typ": typ}
    if algorithm == "none":
        return jwt.encode(claims, None, algorithm="none", headers=headers)
    return jwt.encode(claims, key, algorithm=algorithm, headers=headers)
