"""Request body limits, enforced while the body arrives: its size and its time.

A declared Content-Length over the size limit is refused before a byte of the body is
read. A chunked body (no Content-Length) is counted as it streams in and refused as
soon as it passes the limit, so the gateway never holds more than the limit.

The whole body must arrive within the body timeout, counted from the end of the
request's headers (the HTTP server bounds the time to receive those): a client that
declares 50 bytes and sends one is answered 408 and its connection closed, instead of
holding a request open for ever. The server has no setting for this, so it is here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from patience_gateway.http.errors import problem_response


class BodyTooLarge(HTTPException):
    """Raised from inside `receive` once a streamed body passes the limit; FastAPI
    passes HTTPExceptions from body reading through to the exception handlers."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodyTimedOut(HTTPException):
    """Raised from inside `receive` when the body is late; the connection is closed
    after the answer, since the rest of the body may still come."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            408,
            f"the request body did not arrive within {seconds:g} seconds",
            headers={"Connection": "close"},
        )


class BodySizeLimit:
    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        timeout_seconds: float,
        on_problem: Callable[[str], None] = lambda code: None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_seconds = timeout_seconds
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
        body_done = False
        seconds = self.timeout_seconds
        deadline = asyncio.get_running_loop().time() + seconds

        async def limited_receive() -> Message:
            nonlocal received, body_done
            if body_done:
                return await receive()  # after the body: waiting for a disconnect
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyTimedOut(seconds) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
                body_done = not message.get("more_body", False)
            return message

        await self.app(scope, limited_receive, send)
