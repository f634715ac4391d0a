"""The PostgreSQL schema, brought to its newest revision by Alembic (the migrations are
in `migrations/versions`, one file a revision).

The gateway upgrades the schema itself before it first uses the database (`upgrade`,
run by `records.outbox` and the player routes' first use); the migrations hold a
PostgreSQL advisory lock, so gateway processes that start together migrate once. A
new revision: `alembic revision` (or a file written like 0001), then `make test`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.exc import OperationalError

from patience_gateway.storage.database import DatabaseUnavailable

log = logging.getLogger("patience_gateway")

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # SQLAlchemy names psycopg 3 `postgresql+psycopg`; the gateway's URL is libpq's
    config.attributes["url"] = url.replace("postgresql://", "postgresql+psycopg://", 1)
    return config


def upgrade(url: str) -> None:
    """Brings the database at `url` to the newest revision (blocking: run it in a
    thread from async code)."""
    command.upgrade(alembic_config(url), "head")


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
                    await asyncio.to_thread(upgrade, self.url)
                except OperationalError as error:
                    raise DatabaseUnavailable(str(error.orig)) from None
                log.info("the PostgreSQL schema is at its newest revision")
                self._done = True
