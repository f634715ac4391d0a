"""A route's exchange: what it takes from the request and the app (the game
operations' dependencies, `games.service.Games`, one per app; the owner token), and how
an operation's reply is sent.

The routes read their headers from the request itself instead of declaring them as
FastAPI parameters: on the move path FastAPI's per-parameter resolution cost more than
the rest of the route's own work. The headers are documented in the OpenAPI schema all
the same (`openapi_extra`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from patience_gateway.games.answers import Reply
from patience_gateway.games.security import bearer_token
from patience_gateway.games.service import Games
from patience_gateway.players.service import Players
from patience_gateway.records.service import Records


def games_of(request: Request) -> Games:
    games: Games = request.app.state.games
    return games


def players_of(request: Request) -> Players:
    players: Players = request.app.state.players
    return players


def records_of(request: Request) -> Records:
    records: Records = request.app.state.records
    return records


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
