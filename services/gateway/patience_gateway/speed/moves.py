"""Speed path: the move route served straight from ASGI when the request is the
ordinary kind. Its reference: the FastAPI route `http.routes.games.make_move`, which
answers every move when this middleware is not installed (PATIENCE_SPEED_PATHS=off).

`POST /v1/games/{game_id}/moves` is most of the gateway's traffic, and on it FastAPI's
own layers (routing, the content-type check, dependency solving, the endpoint
wrappers) cost about as much as the gateway's work itself. This middleware answers
such a request itself when its body is `application/json` that parses and validates
as a `MoveRequest`, and then does exactly what the FastAPI route does: the same
change (`games.change.run` of a MOVE, its reply sent by `exchange.send`), the same
exception handlers, the same route in the scope for the
metrics. Anything else (another content type, an empty or unparseable body, a body of
the wrong shape, a client that went away) is handed on to the FastAPI route unchanged,
body included, so every error keeps its one implementation there. The route stays
declared in FastAPI for the OpenAPI schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from patience_gateway.games import change
from patience_gateway.games.requests import MoveRequest
from patience_gateway.http.bodies import duplicate_key
from patience_gateway.http.exchange import send
from patience_gateway.http.routes.games import make_move, router

_PREFIX = "/v1/games/"
_SUFFIX = "/moves"
_WANTED = (b"authorization", b"if-match", b"idempotency-key", b"content-type")

Handler = Callable[[Request, Exception], Any]


def move_route() -> APIRoute:
    """The FastAPI route this path stands in for (its `path` labels the metrics)."""
    for route in router.routes:
        if isinstance(route, APIRoute) and route.endpoint is make_move:
            return route
    raise LookupError("the move route is not declared")


def game_id_of(scope: Scope) -> str | None:
    """The game id when the request is POST /v1/games/{game_id}/moves, else None
    (the route's own pattern: one path segment, not empty)."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
        return None
    path: str = scope["path"]
    if not (path.startswith(_PREFIX) and path.endswith(_SUFFIX)):
        return None
    game_id = path[len(_PREFIX) : -len(_SUFFIX)]
    return game_id if game_id and "/" not in game_id else None


def wanted_headers(raw: list[tuple[bytes, bytes]]) -> dict[bytes, str]:
    """The first value of each header the route reads, as Starlette's Headers.get
    gives it."""
    found: dict[bytes, str] = {}
    for name, value in raw:
        if name in _WANTED and name not in found:
            found[name] = value.decode("latin-1")
    return found


def is_plain_json(content_type: str | None) -> bool:
    """`application/json`, parameters allowed: a type FastAPI reads as JSON. Other
    JSON types (`+json`) are left to FastAPI."""
    if content_type is None:
        return False
    return content_type.partition(";")[0].strip().lower() == "application/json"


def parse_move(body: bytes) -> MoveRequest | None:
    """The move when the body is JSON of the right shape; None sends the request on
    to FastAPI, whose stdlib parser and validation errors then answer it. Where
    orjson accepts a body, the stdlib reads the same value from it."""
    if not body:
        return None
    try:
        request = MoveRequest.model_validate(orjson.loads(body))
    except (orjson.JSONDecodeError, ValidationError):
        return None
    # a key given twice: refused by `http.bodies.JsonBodies` on the FastAPI side
    return None if duplicate_key(body) is not None else request


async def read_body(receive: Receive, received: list[Message]) -> bytes | None:
    """The whole body, keeping every message in `received`; None if the stream
    ended some other way (a disconnect)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        received.append(message)
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def replaying(received: list[Message], receive: Receive) -> Receive:
    """A receive that gives the messages already read again, then the rest."""
    pending = list(received)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


class MoveFastPath:
    """The middleware (see the module's doc); the gateway it serves is the app in the
    request's scope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.route = move_route()
        self._handlers: dict[Any, Handler] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        game_id = game_id_of(scope)
        if game_id is None:
            await self.app(scope, receive, send)
            return
        headers = wanted_headers(scope["headers"])
        if not is_plain_json(headers.get(b"content-type")):
            await self.app(scope, receive, send)
            return
        gateway: FastAPI = scope["app"]
        scope["route"] = self.route
        received: list[Message] = []
        try:
            response = await self._answer(scope, receive, game_id, headers, received)
        except Exception as error:
            handler = self._handler_for(gateway, error)
            if handler is None:
                raise  # for the server-error handler, as from the route
            response = await handler(Request(scope, receive), error)
        if response is None:
            await self.app(scope, replaying(received, receive), send)
        else:
            await response(scope, receive, send)

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        game_id: str,
        headers: dict[bytes, str],
        received: list[Message],
    ) -> Response | None:
        """The route's answer, or None to hand the request on to FastAPI."""
        body = await read_body(receive, received)
        request = None if body is None else parse_move(body)
        if request is None:
            return None
        reply = await change.run(
            scope["app"].state.services.games,
            change.MOVE,
            game_id,
            headers.get(b"authorization"),
            headers.get(b"if-match"),
            headers.get(b"idempotency-key"),
            request,
        )
        return send(reply)

    def _handler_for(self, gateway: FastAPI, error: Exception) -> Handler | None:
        """The app's handler for `error`, found as Starlette's ExceptionMiddleware
        finds it; `Exception` itself belongs to the outer server-error middleware."""
        if self._handlers is None:
            self._handlers = {
                kind: handler
                for kind, handler in gateway.exception_handlers.items()
                if kind not in (500, Exception)
            }
        for kind in type(error).__mro__:
            if kind in self._handlers:
                return self._handlers[kind]
        return None
