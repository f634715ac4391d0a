"""A small keep-alive HTTP/1.1 client on asyncio streams, one connection per caller.

Why not httpx: on a two-core machine the load generator shares the CPU with the
servers it measures. Against the bare endpoint, with 8 clients, httpx.AsyncClient
spent about 1,500 µs of client CPU per request and this client about 125 µs (one
write, and one parse with httptools, the C parser uvicorn also uses). Less client
overhead leaves more of the machine to the servers and keeps the gateway/bare ratio
about the servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httptools

# no request of the bench should take this long; past it the call fails
REQUEST_TIMEOUT = 30.0


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class HttpError(Exception):
    """A response whose status the caller did not expect."""

    def __init__(self, method: str, path: str, response: Response) -> None:
        self.response = response
        super().__init__(f"{method} {path} -> {response.status}: {response.body[:200]!r}")


@dataclass
class _ParseState:
    headers: dict[str, str] = field(default_factory=dict)
    body: list[bytes] = field(default_factory=list)
    done: bool = False

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.done = True


class Connection:
    """One persistent connection; reconnects when the server closed it."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"only plain http://host:port URLs are supported: {base_url}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self._host_header = f"{self.host}:{self.port}"
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: dict[str, str] | None = None,
        expect: tuple[int, ...] = (),
    ) -> Response:
        payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        lines = [
            f"{method} {self.prefix}{path} HTTP/1.1",
            f"Host: {self._host_header}",
            "Accept: application/json",
        ]
        if body is not None:
            lines.append("Content-Type: application/json")
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(payload)}")
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload
        async with asyncio.timeout(REQUEST_TIMEOUT):
            try:
                response = await self._round_trip(raw)
            except (ConnectionError, asyncio.IncompleteReadError):
                # the server closed an idle keep-alive connection: one fresh try
                await self.close()
                response = await self._round_trip(raw)
        if expect and response.status not in expect:
            raise HttpError(method, path, response)
        return response

    async def _round_trip(self, raw: bytes) -> Response:
        if self._writer is None or self._writer.is_closing():
            await self._connect()
        assert self._reader is not None and self._writer is not None
        self._writer.write(raw)
        state = _ParseState()
        parser = httptools.HttpResponseParser(state)
        while not state.done:
            chunk = await self._reader.read(65536)
            if not chunk:
                raise ConnectionResetError("server closed the connection mid-response")
            parser.feed_data(chunk)
        response = Response(parser.get_status_code(), state.headers, b"".join(state.body))
        if not parser.should_keep_alive():
            await self.close()
        return response

    async def close(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
