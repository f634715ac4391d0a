"""Challenges in PostgreSQL (table `challenges`): a player's deal, offered to another with
a one-use code. The code is kept only as its SHA-256; the deal as the engine sealed it,
so its number stays hidden from both players until each game ends."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from psycopg import AsyncConnection

LIFETIME: Final = timedelta(days=7)


def code_hash(code: str) -> bytes:
    return hashlib.sha256(code.encode()).digest()


@dataclass(frozen=True, slots=True)
class Challenge:
    game_id: str
    player_id: str
    variant: str
    dealt: bytes
    expires_at: datetime
    taken_by: str | None
    taken_game_id: str | None


async def offer(
    connection: AsyncConnection,
    code: str,
    game_id: str,
    player_id: str,
    variant: str,
    dealt: bytes,
    now: datetime,
) -> None:
    await connection.execute(
        "INSERT INTO challenges (code_hash, game_id, player_id, variant, dealt, created_at, "
        "expires_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (
            code_hash(code),
            game_id,
            player_id,
            variant,
            dealt,
            now,
            now + LIFETIME,
        ),
    )


async def find(connection: AsyncConnection, code: str, *, lock: bool = False) -> Challenge | None:
    row = await (
        await connection.execute(
            "SELECT game_id, player_id, variant, dealt, expires_at, taken_by, taken_game_id "
            f"FROM challenges WHERE code_hash = %s{' FOR UPDATE' if lock else ''}",
            (code_hash(code),),
        )
    ).fetchone()
    if row is None:
        return None
    return Challenge(row[0], row[1], row[2], bytes(row[3]), row[4], row[5], row[6])


async def take(
    connection: AsyncConnection, code: str, player_id: str, game_id: str, now: datetime
) -> None:
    await connection.execute(
        "UPDATE challenges SET taken_by = %s, taken_game_id = %s, taken_at = %s "
        "WHERE code_hash = %s AND taken_by IS NULL",
        (player_id, game_id, now, code_hash(code)),
    )
