"""Serving the bare app exactly as the gateway is served: Granian through
`patience_gateway.server.granian_server`, with the gateway's settings read from the
environment (GATEWAY_HOST, GATEWAY_PORT, GATEWAY_WORKERS and the limits), so that the
two differ only in what their endpoints do."""

from __future__ import annotations

from patience_gateway.server import granian_server
from patience_gateway.settings import Settings


def serve_like_gateway(factory: str) -> None:
    """Serves the app that `factory` ("module:function") builds, until SIGTERM."""
    granian_server(factory, Settings.from_env()).serve()
