"""A player's account deleted (DELETE /v1/players/me; docs/api.md, "Deleting a player"),
in steps that each may be run again, so that an outage or a crash anywhere leaves a
deletion that the next try finishes, never one half done.

1. `mark`, one PostgreSQL transaction: the player's row becomes a tombstone
   (`deleted_at`; its display name and name key cleared), its sessions (refresh
   tokens) and outside identities are deleted. From its commit on, every player route
   refuses the player's tokens (the row is read as no player) and the drain applies no
   entry of the player's games (`records.outbox`).
2. `clear_redis`: the mark that refuses the player's access tokens on the routes that
   read no PostgreSQL (`storage.gone_players`), the player's link codes and rate
   counters, every key kept under the player's hash tag, every game of the player's
   that Redis keeps (deleted as a DELETE of the game deletes it: its event streams
   end; a game in play ends there), and the player's places on every board and daily
   ranking.
3. `purge`, one PostgreSQL transaction: the games (finished or not: deleted, not
   kept anonymised), statistics, daily attempts, challenges the player offered or
   took, and the tombstone itself. The player is then taken off the boards once more,
   in case a board was rebuilt from PostgreSQL while the steps ran.

A tombstone left by a deletion cut short is finished by the next DELETE of the player
or by the drain, which looks for tombstones each round (`unfinished`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from psycopg import AsyncConnection

from patience_gateway.records.player_boards import boards_of
from patience_gateway.storage.boards import Boards
from patience_gateway.storage.database import Database
from patience_gateway.storage.gone_players import GonePlayers, gone_key, player_keys
from patience_gateway.storage.link_codes import LinkCodes
from patience_gateway.storage.rates import rate_key
from patience_gateway.storage.store import GameStore

log = logging.getLogger("patience_gateway")

# The rate counters kept per player (by id): `players.service`, `games.daily`,
# `games.challenges`.
PLAYER_RATE_KINDS: Final = ("link-code", "daily-start", "challenge")
UNFINISHED_PER_ROUND: Final = 20


@dataclass(frozen=True, slots=True)
class Left:
    """What a tombstone's player still has: its games' ids, the boards it may be on."""

    games: list[str]
    boards: list[str]


@dataclass
class AccountDeletion:
    database: Database
    store: GameStore

    async def delete(self, player_id: str) -> None:
        """Deletes the player, or finishes its deletion; nothing to do for a player
        deleted already (or never known)."""
        async with self.database.transaction() as connection:
            await mark(connection, player_id, datetime.now(UTC))
        await self.finish(player_id)

    async def finish(self, player_id: str) -> None:
        """Steps 2 and 3 of a player whose row is a tombstone (or gone)."""
        left = await self.what_is_left(player_id)
        if left is None:
            return  # purged already, or not deleted
        await self.clear_redis(player_id, left)
        async with self.database.transaction() as connection:
            await purge(connection, player_id)
        await self.off_boards(player_id, left)
        log.info("player %s deleted", player_id)

    async def what_is_left(self, player_id: str) -> Left | None:
        """What steps 2 and 3 have to do, read from a tombstone; None without one."""
        async with self.database.transaction() as connection:
            if not await _is_tombstone(connection, player_id):
                return None
            return Left(
                await _games_of(connection, player_id), await boards_of(connection, player_id)
            )

    async def clear_redis(self, player_id: str, left: Left) -> None:
        redis = self.store.redis
        await GonePlayers(redis).mark(player_id)
        await LinkCodes(redis).forget_player(player_id)
        for kind in PLAYER_RATE_KINDS:
            await redis.delete(rate_key(kind, player_id))
        for key in await player_keys(redis, player_id):  # kept under the player's tag
            if key != gone_key(player_id):
                await redis.delete(key)
        for game_id in left.games:
            await self.forget_game(game_id)
        await self.off_boards(player_id, left)

    async def forget_game(self, game_id: str) -> None:
        """Deletes a deleted player's game from Redis, if it is there; its outbox's
        entries are left to the drain, which applies none of them."""
        await self.store.delete(game_id, None, b"")

    async def off_boards(self, player_id: str, left: Left) -> None:
        boards = Boards(self.store.redis)
        for name in left.boards:
            await boards.remove(name, player_id)

    async def unfinished(self) -> list[str]:
        """Players whose deletion was cut short (for the drain to finish)."""
        async with self.database.transaction() as connection:
            rows = await (
                await connection.execute(
                    "SELECT id FROM players WHERE deleted_at IS NOT NULL "
                    "ORDER BY deleted_at LIMIT %s",
                    (UNFINISHED_PER_ROUND,),
                )
            ).fetchall()
        return [str(row[0]) for row in rows]


async def mark(connection: AsyncConnection, player_id: str, now: datetime) -> bool:
    """Step 1; whether the player's row is there (a tombstone now)."""
    row = await (
        await connection.execute(
            "UPDATE players SET deleted_at = coalesce(deleted_at, %s), display_name = NULL, "
            "name_key = NULL WHERE id = %s RETURNING id",
            (now, player_id),
        )
    ).fetchone()
    if row is None:
        return False
    await connection.execute("DELETE FROM refresh_tokens WHERE player_id = %s", (player_id,))
    await connection.execute("DELETE FROM identities WHERE player_id = %s", (player_id,))
    return True


async def purge(connection: AsyncConnection, player_id: str) -> None:
    """Step 3: every row of the player's, the tombstone last."""
    if not await _is_tombstone(connection, player_id, lock=True):
        return
    for statement in (
        "DELETE FROM challenges WHERE player_id = %s OR taken_by = %s",
        "DELETE FROM daily_attempts WHERE player_id = %s",
        "DELETE FROM statistics WHERE player_id = %s",
        "DELETE FROM games WHERE player_id = %s",
        "DELETE FROM players WHERE id = %s",
    ):
        await connection.execute(statement, (player_id,) * statement.count("%s"))


async def is_gone(connection: AsyncConnection, player_id: str) -> bool:
    """Whether the player is deleted or being deleted (in the caller's transaction;
    the row is locked against a deletion that starts meanwhile)."""
    row = await (
        await connection.execute(
            "SELECT deleted_at FROM players WHERE id = %s FOR SHARE", (player_id,)
        )
    ).fetchone()
    return row is None or row[0] is not None


async def _is_tombstone(connection: AsyncConnection, player_id: str, *, lock: bool = False) -> bool:
    row = await (
        await connection.execute(
            "SELECT 1 FROM players WHERE id = %s AND deleted_at IS NOT NULL"
            + (" FOR UPDATE" if lock else ""),
            (player_id,),
        )
    ).fetchone()
    return row is not None


async def _games_of(connection: AsyncConnection, player_id: str) -> list[str]:
    rows = await (
        await connection.execute("SELECT id FROM games WHERE player_id = %s", (player_id,))
    ).fetchall()
    return [str(row[0]) for row in rows]
