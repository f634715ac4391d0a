"""Daily deals in PostgreSQL (tables `daily_deals` and `daily_attempts`): prepared once
per variant and day (the first gateway to prove one writes it; the others find it), and
each player's first attempt at a day's deal."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from psycopg import AsyncConnection


@dataclass(frozen=True, slots=True)
class DailyDeal:
    day: date
    variant: str
    deal: str
    dealt: bytes


async def deals_of(connection: AsyncConnection, day: date) -> dict[str, DailyDeal]:
    rows = await (
        await connection.execute(
            "SELECT day, variant, deal, dealt FROM daily_deals WHERE day = %s", (day,)
        )
    ).fetchall()
    return {row[1]: DailyDeal(row[0], row[1], row[2], bytes(row[3])) for row in rows}


async def deal_of(connection: AsyncConnection, day: date, variant: str) -> DailyDeal | None:
    row = await (
        await connection.execute(
            "SELECT day, variant, deal, dealt FROM daily_deals WHERE day = %s AND variant = %s",
            (day, variant),
        )
    ).fetchone()
    return None if row is None else DailyDeal(row[0], row[1], row[2], bytes(row[3]))


async def keep(connection: AsyncConnection, deal: DailyDeal) -> DailyDeal:
    """Keeps the day's deal of a variant unless one is kept already; the one kept."""
    await connection.execute(
        "INSERT INTO daily_deals (day, variant, deal, dealt) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (day, variant) DO NOTHING",
        (deal.day, deal.variant, deal.deal, deal.dealt),
    )
    kept = await deal_of(connection, deal.day, deal.variant)
    assert kept is not None
    return kept


async def first_attempt(
    connection: AsyncConnection,
    day: date,
    variant: str,
    player_id: str,
    game_id: str,
    now: datetime,
) -> str:
    """Records `game_id` as the player's first attempt at the day's deal unless there is
    one; the first attempt's game id."""
    await connection.execute(
        "INSERT INTO daily_attempts (day, variant, player_id, game_id, started_at) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (day, variant, player_id, game_id, now),
    )
    row = await (
        await connection.execute(
            "SELECT game_id FROM daily_attempts WHERE day = %s AND variant = %s AND player_id = %s",
            (day, variant, player_id),
        )
    ).fetchone()
    assert row is not None
    return str(row[0])


async def attempts_of(connection: AsyncConnection, player_id: str, day: date) -> dict[str, str]:
    """The player's first attempts on `day`: variant -> game id."""
    rows = await (
        await connection.execute(
            "SELECT variant, game_id FROM daily_attempts WHERE player_id = %s AND day = %s",
            (player_id, day),
        )
    ).fetchall()
    return {str(row[0]): str(row[1]) for row in rows}
