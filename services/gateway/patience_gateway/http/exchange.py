"""A route's exchange: what it takes from the request and the app (the app's
`Services`, built and closed by its lifespan, `app.create_app`; the owner token), and how
an operation's reply is sent.

The routes read their headers from the request itself instead of declaring them as
FastAPI parameters: on the move path FastAPI's per-parameter resolution cost more than
the rest of the route's own work. The headers are documented in the OpenAPI schema all
the same (`openapi_extra`).
"""

from __future__ import annotations

from dataclasses import dataclass

from patience_contract.client import EngineClient
from redis.asyncio import Redis, RedisCluster
from starlette.requests import Request
from starlette.responses import Response

from patience_gateway.games.answers import Reply
from patience_gateway.games.challenges import Challenges
from patience_gateway.games.daily import DailyDeals
from patience_gateway.games.service import Games
from patience_gateway.games.tokens import bearer_token
from patience_gateway.http.metrics import Metrics
from patience_gateway.http.scrape import ScrapeSources
from patience_gateway.players.service import Players
from patience_gateway.records.leaderboards import Leaderboards
from patience_gateway.records.outbox import OutboxDrain
from patience_gateway.records.service import Records
from patience_gateway.settings import Settings
from patience_gateway.storage.database import Database
from patience_gateway.storage.events import EventHub


@dataclass(frozen=True, slots=True)
class Services:
    """Everything the routes use that lives as long as the app: one per app, in
    `app.state.services`. Those that need PostgreSQL are None without DATABASE_URL."""

    settings: Settings
    metrics: Metrics
    redis: Redis | RedisCluster
    engine: EngineClient
    database: Database | None
    games: Games
    players: Players
    records: Records
    leaderboards: Leaderboards | None
    daily: DailyDeals
    challenges: Challenges
    events: EventHub
    scrape: ScrapeSources
    drain: OutboxDrain | None


def services_of(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def games_of(request: Request) -> Games:
    return services_of(request).games


def players_of(request: Request) -> Players:
    return services_of(request).players


def records_of(request: Request) -> Records:
    return services_of(request).records


def client_of(request: Request) -> str:
    """Who a rate limit counts the request against: the client's address."""
    return request.client.host if request.client is not None else "unknown"


def token_of(request: Request) -> str:
    """The bearer token of the request's Authorization header."""
    return bearer_token(request.headers.get("authorization"))


def send(reply: Reply) -> Response:
    """An operation's reply as the HTTP response (JSON, or no body at all)."""
    if not reply.body:
        return Response(status_code=reply.status, headers=reply.headers)
    return Response(reply.body, reply.status, reply.headers, media_type="application/json")
