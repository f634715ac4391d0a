"""The gateway's REST calls that the bench makes, in one place (paths, bodies,
headers), on top of bench.http_client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.http_client import Connection, Response

GAMES = "/v1/games"


@dataclass
class GameRef:
    """A game the client plays: its id and the version (ETag) it last saw."""

    id: str
    etag: str


def _etag(response: Response) -> str:
    etag = response.headers.get("etag")
    if not etag:
        raise RuntimeError(f"response without ETag: {response.status} {response.body[:200]!r}")
    return etag


def game_id_of(body: dict[str, Any]) -> str:
    return str(body["id"])


def legal_moves_of(body: dict[str, Any]) -> list[str]:
    """Notation of the legal moves listed in a game or legal-moves response."""
    view = body.get("view", body)
    moves = view.get("legal_moves", body.get("moves", []))
    return [m if isinstance(m, str) else m["notation"] for m in moves]


async def create_game(
    conn: Connection, variant: str, *, deal: int | None = None, options: tuple[str, ...] = ()
) -> tuple[GameRef, dict[str, Any]]:
    body: dict[str, Any] = {"variant": variant, "options": list(options)}
    if deal is not None:
        body["deal"] = str(deal)
    response = await conn.request("POST", GAMES, body=body, expect=(200, 201))
    data = response.json()
    return GameRef(game_id_of(data), _etag(response)), data


async def get_game(conn: Connection, game: GameRef) -> dict[str, Any]:
    response = await conn.request("GET", f"{GAMES}/{game.id}", expect=(200,))
    game.etag = _etag(response)
    data: dict[str, Any] = response.json()
    return data


async def legal_moves(conn: Connection, game: GameRef) -> list[str]:
    response = await conn.request("GET", f"{GAMES}/{game.id}/legal-moves", expect=(200,))
    return legal_moves_of(response.json())


async def move(conn: Connection, game: GameRef, notation: str) -> dict[str, Any]:
    """Play one move with If-Match; the game's ETag follows."""
    response = await conn.request(
        "POST",
        f"{GAMES}/{game.id}/moves",
        body={"move": notation},
        headers={"If-Match": game.etag},
        expect=(200, 201),
    )
    game.etag = _etag(response)
    data: dict[str, Any] = response.json()
    return data


async def undo(conn: Connection, game: GameRef) -> dict[str, Any]:
    response = await conn.request(
        "POST", f"{GAMES}/{game.id}/undo", headers={"If-Match": game.etag}, expect=(200,)
    )
    game.etag = _etag(response)
    data: dict[str, Any] = response.json()
    return data
