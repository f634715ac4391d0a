"""The gateway's REST calls that the bench makes, in one place (paths, bodies,
headers), on top of bench/clients/http_client.py.

A game is created with POST /v1/games, which answers the player's view, an ETag and
the game's owner token; every later call on the game sends the token as
`Authorization: Bearer <token>`, and every change sends `If-Match: <ETag>`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from bench.clients.http_client import Connection, Response

GAMES = "/v1/games"
PLAYING = "playing"


@dataclass
class GameRef:
    """A game the client plays: its id, owner token and the version (ETag) it last saw."""

    id: str
    token: str
    etag: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def auth_if_match(self) -> dict[str, str]:
        return {**self.auth, "If-Match": self.etag}


def etag_of(response: Response) -> str:
    etag = response.headers.get("etag")
    if not etag:
        raise RuntimeError(f"response without ETag: {response.status} {response.body[:200]!r}")
    return etag


def legal_moves_of(body: dict[str, Any]) -> list[str]:
    """Notation of the legal moves in a game view (`legal_moves`) or a legal-moves
    answer (`moves`), listed as notation strings or as structured moves; none once
    the game is over."""
    if body.get("status", PLAYING) != PLAYING:
        return []
    moves = body["legal_moves"] if "legal_moves" in body else body["moves"]
    return [move if isinstance(move, str) else move["notation"] for move in moves]


def new_game_body(variant: str, deal: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"variant": variant}
    if deal is not None:
        body["deal"] = deal
    return body


async def create_game(
    conn: Connection,
    variant: str,
    *,
    deal: int | None = None,
    attempts: int = 20,
    access_token: str | None = None,
) -> GameRef:
    """A new game (with `access_token`, a player's game, which that token opens); a 503
    (the store or engine busy for a moment, as on a loaded machine) is retried after
    its Retry-After, as a client would, `attempts` times."""
    headers = {} if access_token is None else {"Authorization": f"Bearer {access_token}"}
    body = new_game_body(variant, deal)
    for attempt in range(1, attempts + 1):
        expect = (201,) if attempt == attempts else (201, 503)
        response = await conn.request("POST", GAMES, body=body, headers=headers, expect=expect)
        if response.status == 201:
            break
        await asyncio.sleep(float(response.headers.get("retry-after", "1")))
    data = response.json()
    token = access_token if access_token is not None else str(data["token"])
    return GameRef(str(data["id"]), token, etag_of(response))


async def create_player(conn: Connection) -> str:
    """A new player (POST /v1/players); its access token."""
    response = await conn.request("POST", "/v1/players", body={}, expect=(201,))
    token: str = response.json()["access_token"]
    return token


async def change(conn: Connection, game: GameRef, step: str, body: Any = None) -> None:
    """A change of the game with If-Match: `moves` (a move in `body`), `undo` or `redo`;
    the game's ETag follows."""
    response = await conn.request(
        "POST", f"{GAMES}/{game.id}/{step}", body=body, headers=game.auth_if_match, expect=(200,)
    )
    game.etag = etag_of(response)


async def move(conn: Connection, game: GameRef, notation: str) -> None:
    await change(conn, game, "moves", {"move": notation})
