"""Cross-origin access for web pages on other origins (CORS), with Starlette's
CORSMiddleware: which origins may call the API (CORS_ORIGINS, read by `settings`), which
request headers their scripts may send and which response headers they may read.

With no origin configured the middleware is not installed at all: the gateway then
answers exactly as a server without CORS does (a preflight is 405), and a page on
another origin cannot read any answer.
"""

from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

# What a page's script must be able to send: the owner token, the version preconditions,
# the retry key, JSON bodies, and the position an event stream resumes from.
ALLOWED_HEADERS = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
)
# What it must be able to read: the version, a new game's address, when to retry, and
# whether an answer is a stored one.
EXPOSED_HEADERS = ("ETag", "Location", "Retry-After", "Idempotent-Replayed")
ALLOWED_METHODS = ("GET", "POST", "PATCH", "DELETE")
# How long a browser may keep a preflight's answer, so a page does not send one before
# every move.
PREFLIGHT_MAX_AGE_SECONDS = 600


def cors_middleware(app: ASGIApp, origins: tuple[str, ...]) -> CORSMiddleware:
    """The middleware for these origins (not for none: see the module's doc)."""
    return CORSMiddleware(
        app,
        allow_origins=origins,
        allow_methods=ALLOWED_METHODS,
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        allow_credentials=False,  # the token is a bearer header, never a cookie
        max_age=PREFLIGHT_MAX_AGE_SECONDS,
    )
