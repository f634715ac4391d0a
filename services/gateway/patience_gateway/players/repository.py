"""Players in PostgreSQL (table `players`): created, read, renamed."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from psycopg import AsyncConnection

PLAYER_ID_PATTERN = r"^[A-Za-z0-9_-]{22}$"


def new_player_id() -> str:
    """128 random bits, url-safe (22 characters)."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    display_name: str | None
    created: datetime


async def add(
    connection: AsyncConnection, player_id: str, display_name: str | None, now: datetime
) -> Player:
    await connection.execute(
        "INSERT INTO players (id, display_name, created_at) VALUES (%s, %s, %s)",
        (player_id, display_name, now),
    )
    return Player(player_id, display_name, now)


async def find(connection: AsyncConnection, player_id: str) -> Player | None:
    row = await (
        await connection.execute(
            "SELECT id, display_name, created_at FROM players WHERE id = %s", (player_id,)
        )
    ).fetchone()
    return None if row is None else Player(*row)


async def rename(
    connection: AsyncConnection, player_id: str, display_name: str | None
) -> Player | None:
    row = await (
        await connection.execute(
            "UPDATE players SET display_name = %s WHERE id = %s "
            "RETURNING id, display_name, created_at",
            (display_name, player_id),
        )
    ).fetchone()
    return None if row is None else Player(*row)
