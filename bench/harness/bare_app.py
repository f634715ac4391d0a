"""The floor the gateway is compared with: a FastAPI endpoint that does what any
stateful request must at least do here, and nothing else: read a JSON body, one Redis
GET and one Redis SET of the same key, answer JSON with an ETag. Served like the
gateway (`python -m bench.harness.bare_app`): Granian through the gateway's own
`granian_server`, with the gateway's settings read from the environment (GATEWAY_HOST,
GATEWAY_PORT, GATEWAY_WORKERS and the limits), so that the two differ only in what
their endpoints do.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from fastapi import FastAPI, Header, Response
from pydantic import BaseModel


class MoveBody(BaseModel):
    move: str


def create_app(redis_url: str) -> FastAPI:
    client: aioredis.Redis = aioredis.from_url(redis_url)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await client.aclose()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)

    @app.post("/bare/{key}")
    async def bare_move(
        key: str, body: MoveBody, response: Response, if_match: str | None = Header(None)
    ) -> dict[str, object]:
        stored = await client.get(f"bare:{{{key}}}")
        version = int(stored or 0) + 1
        await client.set(f"bare:{{{key}}}", version)
        response.headers["ETag"] = f'"{version}"'
        return {"key": key, "move": body.move, "version": version, "if_match": if_match}

    return app


def app_from_env() -> FastAPI:
    """The app of one server worker (each builds its own)."""
    return create_app(os.environ["REDIS_URL"])


def main() -> None:
    """Serves the app until SIGTERM, each worker building its own."""
    # imported here: a worker imports this module for the app alone
    from patience_gateway.http.server import granian_server
    from patience_gateway.settings import Settings

    granian_server("bench.harness.bare_app:app_from_env", Settings.from_env()).serve()


if __name__ == "__main__":
    main()
