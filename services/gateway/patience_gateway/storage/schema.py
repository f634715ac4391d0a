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
import threading
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


# Alembic keeps the running migration's context and operations in module globals
# (`alembic.context`, `alembic.op`): two runs at once in one process (two apps in one
# process, as in the tests) would take them from each other mid-run.
_ONE_RUN_AT_A_TIME = threading.Lock()


def upgrade(url: str, revision: str = "head") -> None:
    """Brings the database at `url` up to `revision`, the newest by default (blocking:
    run it in a thread from async code)."""
    with _ONE_RUN_AT_A_TIME:
        command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    """Takes the database at `url` down to `revision` (blocking, as `upgrade`)."""
    with _ONE_RUN_AT_A_TIME:
        command.downgrade(alembic_config(url), revision)


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
