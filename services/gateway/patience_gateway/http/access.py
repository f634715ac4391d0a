"""Each request's id, and its one access line.

Every request gets an id, answered in the `Request-Id` header and in every problem body
(`request_id`), so that a player's report finds what the gateway saw of it: its access
line and any other line logged while it was served, and its trace. A request that came
with a W3C `traceparent` has that trace's id as its id (when the gateway traces, its
span continues that trace, so the two are one); a traced request without one has the
id of the trace it starts; any other gets a new random id of the same form.

While the request is served, its id, its trace's and its game's are context variables
that every log line carries (`patience_contract.logs`). When it is answered, one line
is logged at info level by the logger `patience_gateway.access`: method, path (never
its query, where a stream ticket travels), route, status and time taken. No header is
logged: tokens travel in them. That logger has a level of its own
(`write_access_lines`, GATEWAY_ACCESS_LOG): a gateway logging from warning up, as in
production, still writes every request's line.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Final

from opentelemetry import trace
from patience_contract import logs
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from patience_gateway.http.metrics import UNMATCHED_ROUTE

access_log = logging.getLogger("patience_gateway.access")

REQUEST_ID_HEADER: Final = b"request-id"
_GAMES: Final = "/v1/games/"
_HEX: Final = frozenset("0123456789abcdef")


def write_access_lines(on: bool) -> None:
    """On: a line for every request, whatever level the rest of the gateway logs from;
    off: none."""
    access_log.setLevel(logging.INFO if on else logging.CRITICAL + 1)


def traceparent_trace_id(value: bytes) -> str | None:
    """The trace id of a W3C traceparent (`00-<32 hex>-<16 hex>-<2 hex>`), or None
    when the header is not one (an id of zeros included, as the standard says)."""
    parts = value.decode("latin-1").strip().split("-")
    if len(parts) < 4 or len(parts[0]) != 2 or parts[0] == "ff":
        return None
    version, trace_id, span_id, flags = parts[:4]
    if version == "00" and len(parts) != 4:
        return None
    if len(trace_id) != 32 or len(span_id) != 16 or len(flags) != 2:
        return None
    if not _HEX.issuperset(version + trace_id + span_id + flags):
        return None
    if trace_id == "0" * 32 or span_id == "0" * 16:
        return None
    return trace_id


def _incoming_trace(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"traceparent":
            return traceparent_trace_id(value)
    return None


def game_of(path: str) -> str | None:
    """The game a /v1/games/{game_id}... path names."""
    if not path.startswith(_GAMES):
        return None
    game = path[len(_GAMES) :].partition("/")[0]
    return game or None


def _game_created(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The game a create answered with (its Location)."""
    for name, value in headers:
        if name == b"location":
            return game_of(value.decode("latin-1"))
    return None


class AccessLog:
    """The middleware (see the module's doc); outside every other of the app's, inside
    OpenTelemetry's where the gateway traces."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        span = trace.get_current_span().get_span_context()
        incoming = None if span.is_valid else _incoming_trace(scope["headers"])
        if span.is_valid:
            request_id = format(span.trace_id, "032x")
        else:
            request_id = incoming or os.urandom(16).hex()
        path: str = scope["path"]
        tokens = (
            logs.request_id.set(request_id),
            logs.game_id.set(game_of(path)),
            logs.trace_id.set(incoming),
        )
        status = 500
        created: str | None = None

        async def answering(message: Message) -> None:
            nonlocal status, created
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", ()), (REQUEST_ID_HEADER, request_id.encode())]
                message["headers"] = headers
                if status == 201:
                    created = _game_created(headers)
            await send(message)

        try:
            await self.app(scope, receive, answering)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                if created is not None:
                    logs.game_id.set(created)
                route = getattr(scope.get("route"), "path", UNMATCHED_ROUTE)
                # made and handled directly: the line names no source line, so the
                # logger's search of the stack for one would be time lost on every request
                line = access_log.makeRecord(
                    access_log.name,
                    logging.INFO,
                    "",
                    0,
                    "%s %s %d",
                    (scope["method"], path, status),
                    None,
                    extra={
                        "method": scope["method"],
                        "path": path,
                        "route": route,
                        "status": status,
                        "duration_ms": round((time.perf_counter() - start) * 1000, 3),
                    },
                )
                access_log.handle(line)
            logs.request_id.reset(tokens[0])
            logs.game_id.reset(tokens[1])
            logs.trace_id.reset(tokens[2])
