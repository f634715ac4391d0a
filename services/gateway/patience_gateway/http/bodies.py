"""What the gateway checks of a request body, in two middlewares: `BodySizeLimit` while
the body arrives (its size and its time), then `JsonBodies` on what arrived (its media
type, how deeply its JSON nests, and JSON objects that name a key twice).

Size and time: a declared Content-Length over the size limit is refused before a byte
of the body is read. A chunked body (no Content-Length) is counted as it streams in and
refused as soon as it passes the limit, so the gateway never holds more than the limit.
The whole body must arrive within the body timeout, counted from the end of the
request's headers (the HTTP server bounds the time to receive those): a client that
declares 50 bytes and sends one is answered 408 and its connection closed, instead of
holding a request open for ever. The server has no setting for this, so it is here.

What FastAPI leaves unchecked: a body that is not JSON (`text/plain`, a form) is answered
415 `unsupported-media-type` before it is read; a JSON body nested deeper than
MAX_JSON_DEPTH, 400 `body-too-deep` (before any parser sees it: the standard one would
fail with a RecursionError, a 500); one with a duplicate key, 400 `malformed-body` (the
standard parser keeps the last one silently, so two readers of the same body could
disagree about what it says). Requests without a body, and bodies that are not valid
JSON at all, are left to the routes. The move speed path (`speed.moves`) applies the
same duplicate check to the moves it answers itself.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any, Final

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


_WITH_BODY = {"POST", "PUT", "PATCH", "DELETE"}
# No body the API takes nests deeper than 3 (a create's options: an object in an array in
# an object); 32 leaves room and keeps every parser far from its recursion limit.
MAX_JSON_DEPTH: Final = 32
# A JSON string (with escapes): what it holds is no bracket.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(body: bytes) -> int:
    """How deeply the arrays and objects of `body` nest (0 for a scalar), counted
    without parsing it (any text: a body that is not JSON counts as its brackets do)."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    depth = peak = 0
    for bracket in brackets:
        if bracket in b"[{":
            depth += 1
            peak = max(peak, depth)
        else:
            depth -= 1
    return peak


class DuplicateKey(ValueError):
    pass


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return result


def duplicate_key(body: bytes) -> str | None:
    """The first key that an object of this JSON names twice; None when there is
    none, or when the body is not JSON at all (the route then says so)."""
    try:
        json.loads(body, object_pairs_hook=_refuse_duplicates)
    except DuplicateKey as duplicate:
        return str(duplicate)
    except ValueError:
        return None
    return None


def is_json(content_type: bytes) -> bool:
    """`application/json` or any `application/*+json`, parameters allowed."""
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


class JsonBodies:
    def __init__(self, app: ASGIApp, on_problem: Callable[[str], None] = lambda code: None):
        self.app = app
        self.on_problem = on_problem

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _WITH_BODY:
            await self.app(scope, receive, send)
            return
        content_type = b""
        has_body = False
        for name, value in scope["headers"]:
            if name == b"content-type":
                content_type = value
            elif name == b"content-length":
                has_body = has_body or value.strip() not in (b"", b"0")
            elif name == b"transfer-encoding":
                has_body = True
        if not has_body:
            await self.app(scope, receive, send)
            return
        if not is_json(content_type):
            self.on_problem("unsupported-media-type")
            shown = content_type.decode("latin-1")[:100] or "none"
            response = problem_response(
                "unsupported-media-type",
                f"the body must be application/json, not {shown}",
                scope["path"],
                headers={"Accept-Post": "application/json"},
            )
            await response(scope, receive, send)
            return
        received: list[Message] = []
        chunks: list[bytes] = []
        # a body refused while it arrives (too large, too slow): the route meets the
        # same refusal when it reads the body, and the app's handlers answer it
        refused: HTTPException | None = None
        while True:
            try:
                message = await receive()
            except HTTPException as error:
                refused = error
                break
            received.append(message)
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                body = b"".join(chunks)
                if json_depth(body) > MAX_JSON_DEPTH:
                    self.on_problem("body-too-deep")
                    response = problem_response(
                        "body-too-deep",
                        f"the body's JSON nests deeper than {MAX_JSON_DEPTH} levels",
                        scope["path"],
                    )
                    await response(scope, receive, send)
                    return
                key = duplicate_key(body)
                if key is not None:
                    self.on_problem("malformed-body")
                    response = problem_response(
                        "malformed-body",
                        f"the body names the key {key[:100]!r} twice",
                        scope["path"],
                    )
                    await response(scope, receive, send)
                    return
                break

        async def replay() -> Message:
            if received:
                return received.pop(0)
            if refused is not None:
                raise refused
            return await receive()

        await self.app(scope, replay, send)
