"""The PostgreSQL schema, brought to its newest revision by Alembic (the migrations are
in `migrations/versions`, one file a revision).

The gateway upgrades the schema itself before it first uses the database (`SchemaReady`,
awaited by `records.outbox` and the player routes' first use); the migrations hold a
PostgreSQL advisory lock, so gateway processes that start together migrate once. A
new revision: `alembic revision` (or a file written like 0001), NEWEST_REVISION set to
it, then `make test`.

A database already at NEWEST_REVISION is told by one query, without Alembic: Alembic and
SQLAlchemy are imported only to migrate, since their import is a third of a gateway
process's start (bench/README.md, "Starting a gateway").
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg
from psycopg import sql

from patience_gateway.storage.database import DatabaseUnavailable

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger("patience_gateway")

MIGRATIONS = Path(__file__).with_name("migrations")
# The revision of the newest file in migrations/versions (tests/gateway/test_schema_upgrades.py
# holds the two to each other).
NEWEST_REVISION = "0004"
# Where Alembic keeps the revision a database is at.
VERSION_TABLE = "alembic_version"
# How long the revision's query waits for a PostgreSQL that does not answer.
CONNECT_SECONDS = 5


def alembic_config(url: str) -> Config:
    # Imported here, not above: see the module's docstring.
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # SQLAlchemy names psycopg 3 `postgresql+psycopg`; the gateway's URL is libpq's
    config.attributes["url"] = url.replace("postgresql://", "postgresql+psycopg://", 1)
    return config


# Alembic keeps the running migration's context and operations in module globals
# (`alembic.context`, `alembic.op`): two runs at once in one process (two apps in one
# process, as in the tests) would take them from each other mid-run.
_ONE_RUN_AT_A_TIME = threading.Lock()


def upgrade(url: str, revision: str = "head") -> None:
    """Brings the database at `url` up to `revision`, the newest by default (blocking:
    run it in a thread from async code)."""
    from alembic import command  # imported here: see the module's docstring

    with _ONE_RUN_AT_A_TIME:
        command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    """Takes the database at `url` down to `revision` (blocking, as `upgrade`)."""
    from alembic import command  # imported here: see the module's docstring

    with _ONE_RUN_AT_A_TIME:
        command.downgrade(alembic_config(url), revision)


async def revision_of(url: str) -> str | None:
    """The revision the database at `url` is at; None before its first migration."""
    async with await psycopg.AsyncConnection.connect(
        url, autocommit=True, connect_timeout=CONNECT_SECONDS
    ) as connection:
        try:
            cursor = await connection.execute(
                sql.SQL("SELECT version_num FROM {}").format(sql.Identifier(VERSION_TABLE))
            )
        except psycopg.errors.UndefinedTable:
            return None
        row = await cursor.fetchone()
    return None if row is None else str(row[0])


def _upgrade_to_newest(url: str) -> None:
    from sqlalchemy.exc import OperationalError  # imported here: see the module's docstring

    try:
        upgrade(url)
    except OperationalError as error:
        raise DatabaseUnavailable(str(error.orig)) from None


class SchemaReady:
    """Awaitable once per process: the schema brought up to date before the first use
    of the database (again at the next use if it failed, e.g. PostgreSQL was down)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._done = False
        self._lock = asyncio.Lock()

    async def __call__(self) -> None:
        if self._done:
            return
        async with self._lock:
            if not self._done:
                try:
                    at = await revision_of(self.url)
                except psycopg.OperationalError as error:
                    raise DatabaseUnavailable(str(error)) from None
                if at != NEWEST_REVISION:
                    await asyncio.to_thread(_upgrade_to_newest, self.url)
                log.info("the PostgreSQL schema is at its newest revision")
                self._done = True
