"""The HTTP server: Granian, GATEWAY_WORKERS worker processes on one port.

Why Granian (measured with bench/clients/http_probes.py, see docs/operations.md "HTTP limits"):
its HTTP/1 layer (hyper, in Rust) enforces with its own settings what uvicorn has no
setting for: a deadline for a request's line and headers (which also closes silent and
idle kept-alive connections), a bound on their total size (431 past it), at most 100
headers (hyper's fixed limit, 431 past it) and a cap on the connections each worker
holds. Slow or huge requests are refused in Rust, before Python sees them, so they
cost the event loop nothing. Its main process supervises the workers: one that dies
is started again (and the server exits if they keep dying), and SIGINT/SIGTERM stops
them gracefully. The one limit it has no setting for, the time to receive a body, is
enforced by the app (`patience_gateway.http.limits`).

Each worker builds its own app (`create_app`, a factory), with its own Redis pool and
engine channels.
"""

from __future__ import annotations

from granian.constants import HTTPModes, Interfaces
from granian.http import HTTP1Settings
from granian.log import LogLevels
from granian.server.mp import MPServer
from patience_contract import logs

from patience_gateway.settings import Settings

# Connections waiting to be accepted (the kernel caps it at net.core.somaxconn).
BACKLOG = 4096
# How long a stopping worker may take to finish its requests before it is killed.
STOP_SECONDS = 15


def granian_server(target: str, settings: Settings) -> MPServer:
    """A Granian server for the app factory `target` ("module:function"), with the
    gateway's limits and process model: the bench's bare app is served with this too."""
    return MPServer(
        target,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        factory=True,
        # HTTP/1.1 only: no client of the gateway needs cleartext HTTP/2, which would
        # bring limits of its own (header frames up to 16 MiB by default) to keep.
        http=HTTPModes.http1,
        websockets=False,
        workers=settings.workers,
        respawn_failed_workers=True,
        workers_kill_timeout=STOP_SECONDS,
        backlog=BACKLOG,
        backpressure=settings.max_connections,
        http1_settings=HTTP1Settings(
            header_read_timeout=settings.header_timeout_seconds * 1000,
            max_buffer_size=settings.max_header_bytes,
        ),
        log_level=_log_level(settings.log_level),
        # JSON lines, Granian's own and the app's (patience_contract.logs); the app logs
        # each request's access line itself (patience_gateway.http.access).
        log_dictconfig=logs.granian_log_config(settings.log_level),
        log_access=False,
    )


def _log_level(name: str) -> LogLevels:
    """Granian's level of the same name (uvicorn's `trace` is its `debug`)."""
    try:
        return LogLevels(name)
    except ValueError:
        return LogLevels.debug if name == "trace" else LogLevels.info
