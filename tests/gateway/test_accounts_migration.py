"""Revision 0003 on a database whose players' names were not unique: the oldest holder
of a name keeps its key, a later look-alike keeps its name without one (and is asked for
another when it renames); the revision goes down again to 0002."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from patience_gateway.storage.schema import downgrade, upgrade

pytestmark = pytest.mark.asyncio(loop_scope="session")

START = datetime(2026, 11, 2, 9, tzinfo=UTC)


async def test_revision_0003_keys_the_oldest_name_of_look_alikes_and_goes_down(
    database_of_its_own: str,
) -> None:
    url = database_of_its_own
    await asyncio.to_thread(upgrade, url, "0002")
    players = [
        ("p-walker", "Walker", 0),
        ("p-walker-2", "WALKER", 1),  # a look-alike, later
        ("p-ada", "Ada", 2),
        ("p-none", None, 3),
    ]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
        for player_id, name, minutes in players:
            await connection.execute(
                "INSERT INTO players (id, display_name, created_at) VALUES (%s, %s, %s)",
                (player_id, name, START + timedelta(minutes=minutes)),
            )
    await asyncio.to_thread(upgrade, url, "0003")
    async with await psycopg.AsyncConnection.connect(url) as connection:
        rows = await (
            await connection.execute(
                "SELECT id, display_name, name_key, deleted_at FROM players ORDER BY id"
            )
        ).fetchall()
        assert rows == [
            ("p-ada", "Ada", "ada", None),
            ("p-none", None, None, None),
            ("p-walker", "Walker", "walker", None),
            ("p-walker-2", "WALKER", None, None),  # kept, without the key
        ]
        with pytest.raises(psycopg.errors.UniqueViolation):
            await connection.execute(
                "UPDATE players SET name_key = 'walker' WHERE id = 'p-walker-2'"
            )
    await asyncio.to_thread(downgrade, url, "0002")
    async with await psycopg.AsyncConnection.connect(url) as connection:
        columns = await (
            await connection.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'players'"
            )
        ).fetchall()
        assert {column for (column,) in columns} == {"id", "display_name", "created_at"}
        tables = await (
            await connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_name = 'identities'"
            )
        ).fetchall()
        assert tables == []
