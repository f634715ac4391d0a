"""The boards a player may stand on, named from what PostgreSQL keeps of the player's
games: what an account's deletion takes the player off, and what its export reads the
player's places on."""

from __future__ import annotations

from datetime import UTC

from psycopg import AsyncConnection

from patience_gateway.records.leaderboards import (
    ALL_TIME,
    daily_name,
    streaks_name,
    week_of,
    wins_name,
)
from patience_gateway.records.record import RANKED, WON


async def boards_of(connection: AsyncConnection, player_id: str) -> list[str]:
    """Every board the player's games could have put the player on (a board the player
    is not on is harmless: taking the player off it changes nothing)."""
    names: dict[str, None] = {}
    variants = await (
        await connection.execute(
            "SELECT DISTINCT variant FROM games WHERE player_id = %s AND category = ANY(%s) "
            "ORDER BY variant",
            (player_id, list(RANKED)),
        )
    ).fetchall()
    for (variant,) in variants:
        names[wins_name(variant, ALL_TIME)] = None
        names[streaks_name(variant)] = None
    won = await (
        await connection.execute(
            "SELECT variant, finished_at FROM games WHERE player_id = %s AND category = ANY(%s) "
            "AND outcome = %s AND finished_at IS NOT NULL ORDER BY finished_at",
            (player_id, list(RANKED), WON),
        )
    ).fetchall()
    for variant, finished in won:
        names[wins_name(variant, week_of(finished.astimezone(UTC).date()))] = None
    days = await (
        await connection.execute(
            "SELECT variant, day FROM daily_attempts WHERE player_id = %s ORDER BY day, variant",
            (player_id,),
        )
    ).fetchall()
    for variant, day in days:
        names[daily_name(variant, day.isoformat())] = None
    return list(names)
