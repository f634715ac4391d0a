"""Players kept off the boards by an operator, and put back: the table
`board_exclusions` (who is kept off now) and its audit, `moderation_log` (every change:
the player, what was done, by which operator, when, why), written in one transaction.

A player kept off is on no board and in no day's ranking: the boards' queries leave
them out (`records.leaderboards`), and their scores are taken out of Redis at once.
Put back, their scores are written again from their finished games. Their games,
statistics and signed results stay as they were: this is about the boards only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from psycopg import AsyncConnection

from patience_gateway.problems import ProblemError
from patience_gateway.records.leaderboards import Leaderboards
from patience_gateway.records.player_boards import boards_of

EXCLUDE: Final = "exclude"
RESTORE: Final = "restore"
# the audit lines an answer shows, newest first
AUDIT_LINES: Final = 50


@dataclass(frozen=True, slots=True)
class AuditLine:
    action: str
    reason: str
    operator: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Standing:
    """Whether the player is on the boards, and the audit of the changes."""

    player_id: str
    on_boards: bool
    audit: list[AuditLine]


async def _known(connection: AsyncConnection, player_id: str) -> None:
    row = await (
        await connection.execute("SELECT 1 FROM players WHERE id = %s", (player_id,))
    ).fetchone()
    if row is None:
        raise ProblemError("unknown-player", f"there is no player {player_id!r}")


async def _standing(connection: AsyncConnection, player_id: str) -> Standing:
    excluded = await (
        await connection.execute(
            "SELECT 1 FROM board_exclusions WHERE player_id = %s", (player_id,)
        )
    ).fetchone()
    rows = await (
        await connection.execute(
            "SELECT action, reason, operator, at FROM moderation_log WHERE player_id = %s "
            "ORDER BY at DESC, id DESC LIMIT %s",
            (player_id, AUDIT_LINES),
        )
    ).fetchall()
    return Standing(player_id, excluded is None, [AuditLine(*row) for row in rows])


async def standing(leaderboards: Leaderboards, player_id: str) -> Standing:
    async with leaderboards.database.transaction() as connection:
        await _known(connection, player_id)
        return await _standing(connection, player_id)


async def set_standing(
    leaderboards: Leaderboards, player_id: str, *, on_boards: bool, operator: str, reason: str
) -> Standing:
    """Keeps the player off every board, or puts them back, audited; a change to what
    the player already is is audited too (an operator's decision, said again)."""
    async with leaderboards.database.transaction() as connection:
        await _known(connection, player_id)
        if on_boards:
            await connection.execute(
                "DELETE FROM board_exclusions WHERE player_id = %s", (player_id,)
            )
        else:
            await connection.execute(
                "INSERT INTO board_exclusions (player_id, reason, operator) VALUES (%s, %s, %s) "
                "ON CONFLICT (player_id) DO UPDATE SET reason = EXCLUDED.reason, "
                "operator = EXCLUDED.operator, excluded_at = now()",
                (player_id, reason, operator),
            )
        await connection.execute(
            "INSERT INTO moderation_log (player_id, action, reason, operator) "
            "VALUES (%s, %s, %s, %s)",
            (player_id, RESTORE if on_boards else EXCLUDE, reason, operator),
        )
        names = await boards_of(connection, player_id)
    # After the commit: from now on the drain writes the player on no board (or on
    # them again), and Redis follows PostgreSQL.
    if on_boards:
        await leaderboards.put_back(player_id, names)
    else:
        await leaderboards.take_off(player_id, names)
    async with leaderboards.database.transaction() as connection:
        return await _standing(connection, player_id)
