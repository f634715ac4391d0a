"""Players in PostgreSQL (table `players`): created, read, renamed, marked deleted; the
outside identities linked to them (table `identities`).

A deleted player's row stays as a tombstone (`deleted_at`) while its deletion runs
(`records.deletion`): every read here takes such a player for no player at all.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

import psycopg
from psycopg import AsyncConnection

from patience_gateway.players.names import name_key
from patience_gateway.problems import ProblemError

_NAME_INDEX = "players_by_name_key"


def new_player_id() -> str:
    """128 random bits, url-safe (22 characters)."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    display_name: str | None
    created: datetime


def _key(display_name: str | None) -> str | None:
    return None if display_name is None else name_key(display_name)


def _name_taken(display_name: str | None) -> ProblemError:
    return ProblemError(
        "display-name-taken",
        f"another player is called {display_name!r} (names differ by more than case or width)",
    )


async def add(
    connection: AsyncConnection, player_id: str, display_name: str | None, now: datetime
) -> Player:
    try:
        async with connection.transaction():  # a savepoint: the name's clash is answered
            await connection.execute(
                "INSERT INTO players (id, display_name, name_key, created_at) "
                "VALUES (%s, %s, %s, %s)",
                (player_id, display_name, _key(display_name), now),
            )
    except psycopg.errors.UniqueViolation as error:
        if error.diag.constraint_name == _NAME_INDEX:
            raise _name_taken(display_name) from None
        raise
    return Player(player_id, display_name, now)


async def find(connection: AsyncConnection, player_id: str) -> Player | None:
    """The player, or None: never was, or deleted."""
    row = await (
        await connection.execute(
            "SELECT id, display_name, created_at FROM players WHERE id = %s AND deleted_at IS NULL",
            (player_id,),
        )
    ).fetchone()
    return None if row is None else Player(*row)


async def rename(
    connection: AsyncConnection, player_id: str, display_name: str | None
) -> Player | None:
    try:
        async with connection.transaction():
            row = await (
                await connection.execute(
                    "UPDATE players SET display_name = %s, name_key = %s "
                    "WHERE id = %s AND deleted_at IS NULL "
                    "RETURNING id, display_name, created_at",
                    (display_name, _key(display_name), player_id),
                )
            ).fetchone()
    except psycopg.errors.UniqueViolation as error:
        if error.diag.constraint_name == _NAME_INDEX:
            raise _name_taken(display_name) from None
        raise
    return None if row is None else Player(*row)


# ---------------------------------------------------------------------- identities


@dataclass(frozen=True, slots=True)
class Identity:
    issuer: str
    subject: str
    linked: datetime


async def link_identity(
    connection: AsyncConnection, player_id: str, issuer: str, subject: str, now: datetime
) -> bool:
    """Links the identity to the player; False when it belongs to another player (linked
    to this one already: True, nothing changes)."""
    row = await (
        await connection.execute(
            "INSERT INTO identities (issuer, subject, player_id, linked_at) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (issuer, subject) DO UPDATE "
            "SET issuer = identities.issuer RETURNING player_id",
            (issuer, subject, player_id, now),
        )
    ).fetchone()
    return row is not None and row[0] == player_id


async def player_of_identity(
    connection: AsyncConnection, issuer: str, subject: str
) -> Player | None:
    row = await (
        await connection.execute(
            "SELECT p.id, p.display_name, p.created_at FROM identities i "
            "JOIN players p ON p.id = i.player_id "
            "WHERE i.issuer = %s AND i.subject = %s AND p.deleted_at IS NULL",
            (issuer, subject),
        )
    ).fetchone()
    return None if row is None else Player(*row)


async def identities_of(connection: AsyncConnection, player_id: str) -> list[Identity]:
    rows = await (
        await connection.execute(
            "SELECT issuer, subject, linked_at FROM identities WHERE player_id = %s "
            "ORDER BY linked_at, issuer, subject",
            (player_id,),
        )
    ).fetchall()
    return [Identity(*row) for row in rows]
