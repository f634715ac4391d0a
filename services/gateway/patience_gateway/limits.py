"""Request body size limit, enforced while the body arrives.

A declared Content-Length over the limit is refused before a byte of the body is
read. A chunked body (no Content-Length) is counted as it streams in and refused as
soon as it passes the limit, so the gateway never holds more than the limit.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from patience_gateway.problems import problem_response


class BodyTooLarge(HTTPException):
    """Raised from inside `receive` once a streamed body passes the limit; FastAPI
    passes HTTPExceptions from body reading through to the exception handlers."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodySizeLimit:
    def __init__(
        self, app: ASGIApp, max_bytes: int, on_problem: Callable[[str], None] = lambda code: None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.on_problem = on_problem

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for name, value in scope["headers"]:
            if name == b"content-length":
                if not value.isdigit() or int(value) > limit:
                    detail = f"the request body is larger than {limit} bytes"
                    self.on_problem("body-too-large")
                    response = problem_response("body-too-large", detail, scope["path"])
                    await response(scope, receive, send)
                    return
                break

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited_receive, send)
