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
enforced by the app (`patience_gateway.http.bodies`).

Each worker builds its own app (`create_app`, a factory), with its own Redis pool and
engine channels.

The port is this service's alone. On Linux Granian has each worker bind the port itself
with SO_REUSEPORT, which would let any other process of the same user bind it too: a
second gateway started on the same port would start, and the kernel would hand it half
the connections (and half the reads of a game it never saw). So the main process binds
one listening socket, without SO_REUSEPORT, before any worker starts, and its workers
inherit it, as Granian serves a shared socket where SO_REUSEPORT is not used; a port
already taken stops the gateway at once, exit status 1, with a line that names it.
"""

from __future__ import annotations

import errno
import logging
import socket

from granian._granian import SocketHolder
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

log = logging.getLogger("patience_gateway")


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """A socket listening on host:port that no other process can bind beside it (no
    SO_REUSEPORT); SO_REUSEADDR only lets it bind over the connections a stopped server
    left closing. When it cannot listen (the port in use), the gateway stops there, exit
    status 1, after a line that says why."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as Granian's own
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError as error:
        sock.close()
        address = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        if error.errno == errno.EADDRINUSE:
            log.error(
                "cannot listen on %s: port %d is in use by another process; stop it or "
                "choose another GATEWAY_PORT",
                address,
                port,
            )
        else:
            log.error("cannot listen on %s: %s", address, error.strerror or error)
        raise SystemExit(1) from None
    return sock


class OwnPortServer(MPServer):
    """Granian's multi-process server, its workers sharing the one socket the main
    process listens on (`listening_socket`)."""

    def _init_shared_socket(self) -> None:
        # Granian's own hook for the socket its workers share: filled in as Granian
        # fills it for a socket bound once (a holder of the descriptor, which the
        # workers inherit as they are forked, and the socket itself, closed at shutdown).
        sock = listening_socket(self.bind_addr, self.bind_port, self.backlog)
        sock.set_inheritable(True)
        self._sso = sock
        # (Granian's stubs type these as unset, and its holder as taking no argument.)
        self._sfd = sock.fileno()  # type: ignore[assignment]
        self._shd = SocketHolder(sock.fileno(), False, self.backlog)  # type: ignore[call-arg,assignment]
        self._ssp = None


def granian_server(target: str, settings: Settings) -> MPServer:
    """A Granian server for the app factory `target` ("module:function"), with the
    gateway's limits and process model: the bench's bare app is served with this too."""
    return OwnPortServer(
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
