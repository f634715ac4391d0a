"""Host and port helpers shared by the launcher's commands."""

from __future__ import annotations

import socket


def unbracket(host: str) -> str:
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def host_port(host: str, port: int) -> str:
    """`host:port`, with IPv6 literals in brackets as gRPC targets and URLs want."""
    bare = unbracket(host)
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"


def reachable_host(bind_host: str) -> str:
    """The address a local client uses to reach a server bound to `bind_host`."""
    bare = unbracket(bind_host)
    if bare in ("", "0.0.0.0"):
        return "127.0.0.1"
    if bare == "::":
        return "::1"
    return bare


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in unbracket(host) else socket.AF_INET


# The ports this process has chosen for its servers. A port is free only until its
# server binds it, and the kernel hands out a port just released again (measured here:
# about 8 repeats in 500 choices in a row), so a launcher that chooses the ports of
# several services before they have all bound would now and then give two of them one.
_chosen: set[int] = set()


def choose(port: int) -> int:
    """`port`, kept from the choices of `free_port` in this process from now on."""
    _chosen.add(port)
    return port


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that nothing listens on right now on `host`, and that this process
    has not chosen before (`choose`)."""
    held: list[socket.socket] = []  # bound meanwhile, so that the kernel offers others
    try:
        while True:
            sock = socket.socket(_family(host), socket.SOCK_STREAM)
            held.append(sock)
            sock.bind((unbracket(host), 0))
            port = int(sock.getsockname()[1])
            if port not in _chosen:
                return choose(port)
    finally:
        for sock in held:
            sock.close()


def given_or_free(port: int | None, host: str = "127.0.0.1") -> int:
    """`port` where one is given (then kept from `free_port`'s choices, so that no other
    service of this process is handed it), else a free one."""
    return choose(port) if port else free_port(host)


def port_is_free(host: str, port: int) -> bool:
    """True when a server could bind `host:port` now.

    Bound without SO_REUSEPORT on purpose: the engine shares its port between worker
    processes with SO_REUSEPORT, so a second engine started on the same port would
    silently join the first one instead of failing. This probe refuses in that case.
    """
    with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((unbracket(host), port))
        except OSError:
            return False
        return True


def port_is_closed(host: str, port: int) -> bool:
    """True when nothing accepts TCP connections on `host:port`."""
    try:
        with socket.create_connection((unbracket(host), port), timeout=1.0):
            return False
    except OSError:
        return True
