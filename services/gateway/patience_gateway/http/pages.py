"""The reference web client at /play: static files shipped in the package (`web/`),
served as they are (no build step), under a content security policy that lets the page
load and call nothing but this gateway."""

from __future__ import annotations

from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PLAY_PATH = "/play"
# the files live beside the packages, in `patience_gateway/web/` (package data)
WEB_FILES = Path(__file__).parent.parent / "web"

# Everything from this origin only: no CDN, no inline script, no framing; the owner
# token lives in the address's fragment and must not leak through a Referer either.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    # Revalidated on every load (cheap: ETag), so a new version of the page is seen at once.
    "Cache-Control": "no-cache",
}


# The documentation pages (fastapi-offline's Swagger UI and ReDoc) load their scripts
# from this gateway, but ReDoc's bundle still shows its maker's logo from a CDN: images
# from elsewhere are refused, so opening the pages contacts no other site.
DOCS_PAGES = frozenset({"/docs", "/redoc"})
DOCS_HEADERS = {"Content-Security-Policy": "img-src 'self' data:"}


class WithHeaders:
    """Adds fixed headers to the answers of the app it wraps: to all of them, or only
    to those for the given paths."""

    def __init__(
        self, app: ASGIApp, headers: dict[str, str], paths: frozenset[str] | None = None
    ) -> None:
        self.app = app
        self.headers = headers
        self.paths = paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.paths is not None and scope.get("path") not in self.paths:
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(self.headers)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def web_client() -> ASGIApp:
    """The ASGI app that serves the page and its scripts (index.html for the folder)."""
    return WithHeaders(StaticFiles(directory=WEB_FILES, html=True), SECURITY_HEADERS)
