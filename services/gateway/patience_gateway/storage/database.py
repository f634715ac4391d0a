"""PostgreSQL, the system of record for players, their finished games and statistics:
a pool of connections (psycopg 3) and the one way a transaction is run.

A move never waits on PostgreSQL (a finished game reaches it through the outbox,
`records.outbox`); the routes that read or write players' records do, and answer 503
`records-unavailable` while it cannot be reached (`DatabaseUnavailable`), as the move
routes answer `storage-unavailable` for Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool, PoolTimeout


class DatabaseUnavailable(Exception):
    """PostgreSQL cannot be reached (or is not configured): nothing was written."""


# How long the pool keeps trying to replace a connection before it leaves that to the
# next request for one (see Database.__init__).
RECONNECT_SECONDS = 5.0


class Database:
    """The gateway process's connections to PostgreSQL (opened lazily, so a gateway
    starts and plays games while PostgreSQL is down)."""

    def __init__(self, url: str, *, max_size: int = 8, timeout_seconds: float = 2.0) -> None:
        self.url = url
        self.timeout = timeout_seconds
        self.pool = AsyncConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            timeout=timeout_seconds,
            # a connection that died with the server is replaced before it is handed out
            check=AsyncConnectionPool.check_connection,
            kwargs={"connect_timeout": max(int(timeout_seconds), 1)},
            # psycopg_pool tries a lost connection again after 1, 2, 4, 8... seconds,
            # for reconnect_timeout in all; given up sooner, the next request for a
            # connection tries at once: a PostgreSQL that was away for a minute is used
            # within moments of its return, not half a minute later
            reconnect_timeout=RECONNECT_SECONDS,
        )
        self._opened = False

    async def open(self) -> None:
        if not self._opened:
            await self.pool.open(wait=False)
            self._opened = True

    async def close(self) -> None:
        if self._opened:
            await self.pool.close()
            self._opened = False

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a transaction: committed when the block ends, rolled back if
        it raises. DatabaseUnavailable when PostgreSQL cannot be reached."""
        await self.open()
        try:
            async with self.pool.connection() as connection:
                yield connection
        except (PoolTimeout, psycopg.OperationalError) as error:
            raise DatabaseUnavailable(str(error)) from None

    async def answers(self, timeout: float) -> bool:
        """Whether PostgreSQL answers a query within `timeout` seconds (the metrics'
        `patience_gateway_postgres_up`)."""
        try:
            async with asyncio.timeout(timeout), self.transaction() as connection:
                await connection.execute("SELECT 1")
        except (DatabaseUnavailable, psycopg.Error, TimeoutError):
            return False
        return True
