"""`patience`: the whole service on this machine with one command.

    patience serve     Redis (embedded unless REDIS_URL is set), the engine and the gateway
    patience engine    the gRPC engine alone
    patience gateway   the REST gateway alone, against REDIS_URL and ENGINE_ADDR
    patience redis     an embedded Redis alone

Every service runs as a child process; Ctrl-C or SIGTERM stops them all, the gateway
first and Redis last. If one of them dies, the others are stopped and the exit status
is 1.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path

from patience_launcher import addresses, probes
from patience_launcher.children import ChildProcess
from patience_launcher.redis_server import EmbeddedRedis
from patience_launcher.supervisor import ServiceFailed, StopRequested, Supervisor

DEFAULT_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8000
DEFAULT_GRPC_PORT = 50051
STOP_TIMEOUT_SECONDS = 10.0


class UsageError(Exception):
    """A problem with the command line or the environment, found before starting."""


# how to run each service ---------------------------------------------------------------
def service_argv(script: str, module: str) -> list[str]:
    """The console script installed beside this Python, else `python -m module`
    (never some other installation's script found on PATH)."""
    beside = Path(sys.executable).parent / script
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", module]


def child_env(**overrides: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"  # logs reach the terminal as they happen
    env.update(overrides)
    return env


def engine_workers(flag: int | None) -> str:
    if flag is not None:
        return str(flag)
    return os.environ.get("ENGINE_WORKERS") or str(os.cpu_count() or 1)


def start_engine(
    supervisor: Supervisor, host: str, port: int, workers: int | None, timeout: float
) -> str:
    """Starts the engine on host:port; returns the address a local client dials."""
    env = child_env(
        ENGINE_LISTEN=addresses.host_port(host, port), ENGINE_WORKERS=engine_workers(workers)
    )
    if "ENGINE_SEAL_KEY" not in os.environ:
        # Sealed states by default; the key lives as long as this run (set
        # ENGINE_SEAL_KEY to keep states valid across restarts, or empty to disable).
        env["ENGINE_SEAL_KEY"] = secrets.token_hex(32)
    target = addresses.host_port(addresses.reachable_host(host), port)
    child = ChildProcess("engine", service_argv("patience-engine", "patience_engine"), env)
    supervisor.say(f"starting the engine on {env['ENGINE_LISTEN']}")
    supervisor.add_child(child, lambda: probes.grpc_serving(target), timeout, STOP_TIMEOUT_SECONDS)
    return target


def start_gateway(
    supervisor: Supervisor,
    host: str,
    port: int,
    redis_url: str,
    engine_addr: str,
    timeout: float,
) -> str:
    """Starts the gateway on host:port; returns its base URL for local clients."""
    base = f"http://{addresses.host_port(addresses.reachable_host(host), port)}"
    env = child_env(
        REDIS_URL=redis_url,
        ENGINE_ADDR=engine_addr,
        GATEWAY_HOST=host,
        GATEWAY_PORT=str(port),
        CORS_ORIGINS=page_origins(base, port, os.environ.get("CORS_ORIGINS", "")),
    )
    child = ChildProcess("gateway", service_argv("patience-gateway", "patience_gateway"), env)
    supervisor.say(f"starting the gateway on {addresses.host_port(host, port)}")
    ready = lambda: probes.http_ok(f"{base}/readyz")  # noqa: E731
    supervisor.add_child(child, ready, timeout, STOP_TIMEOUT_SECONDS)
    return base


def page_origins(base: str, port: int, configured: str) -> str:
    """CORS_ORIGINS for the gateway: its own web client's origin (under the loopback
    name too), then whatever origins were configured."""
    own = [base]
    if base == f"http://127.0.0.1:{port}":
        own.append(f"http://localhost:{port}")
    return ",".join([*own, configured]) if configured.strip() else ",".join(own)


def start_redis(supervisor: Supervisor, timeout: float) -> tuple[str, str]:
    """REDIS_URL if set (after it answers PING), else an embedded Redis on loopback.
    Returns the URL and how to describe it."""
    given = os.environ.get("REDIS_URL")
    if given:
        supervisor.say(f"using the Redis at {redact(given)}")
        if "ENGINE_SEAL_KEY" not in os.environ:
            supervisor.say(
                "ENGINE_SEAL_KEY is not set: this run seals states with a key of its own, so "
                "games kept in that Redis will not be playable after a restart; set "
                "ENGINE_SEAL_KEY to keep them"
            )
        wait_for(supervisor, lambda: probes.redis_pong(given), timeout, f"Redis at {redact(given)}")
        return given, "from REDIS_URL"
    redis = EmbeddedRedis(host=DEFAULT_HOST, supervised=True)
    try:
        redis.start(timeout=timeout)
    except (OSError, RuntimeError, ImportError) as error:
        raise ServiceFailed(
            f"could not start an embedded Redis ({error}); install redis-server, "
            "or point REDIS_URL at a running Redis"
        ) from error
    supervisor.add_redis(redis)
    return redis.url, "embedded, data in a temporary folder deleted on exit"


def wait_for(supervisor: Supervisor, ready: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if supervisor.stop_requested.is_set():
            raise StopRequested
        if time.monotonic() > deadline:
            raise ServiceFailed(f"{what} did not answer within {timeout:g} s")
        supervisor.stop_requested.wait(0.1)


def redact(url: str) -> str:
    """The URL without its password, for printing."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def choose_port(host: str, port: int, flag: str) -> int:
    """`port`, or a free one when it is 0; refuses a port that is taken."""
    if port == 0:
        return addresses.free_port(addresses.unbracket(host) or DEFAULT_HOST)
    if not addresses.port_is_free(host, port):
        raise UsageError(f"port {port} on {host} is in use: stop what uses it or pass {flag}")
    return port


def split_listen(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"expected host:port, got {listen!r}")
    return addresses.unbracket(host), int(port)


# the commands -----------------------------------------------------------------------------
def run_services(supervisor: Supervisor, start: Callable[[], list[str]]) -> int:
    """Runs `start` (which starts services and returns the lines to print once they all
    answer), then waits for a signal or a death; always stops everything it started."""
    supervisor.install_signal_handlers()
    try:
        banner = start()
        print("\n".join(banner), flush=True)
        supervisor.wait()
        return 0
    except StopRequested:
        return 0
    except ServiceFailed as failure:
        supervisor.say(str(failure))
        return 1
    finally:
        supervisor.stop_all()
        supervisor.say("stopped")


def cmd_serve(args: argparse.Namespace) -> int:
    http_port = choose_port(args.host, args.http_port, "--http-port")
    grpc_port = choose_port(args.host, args.grpc_port, "--grpc-port")
    if http_port == grpc_port:
        raise UsageError("--http-port and --grpc-port must differ")
    supervisor = Supervisor()

    def start() -> list[str]:
        redis_url, redis_note = start_redis(supervisor, args.startup_timeout)
        engine = start_engine(supervisor, args.host, grpc_port, args.workers, args.startup_timeout)
        rest = start_gateway(
            supervisor, args.host, http_port, redis_url, engine, args.startup_timeout
        )
        return [
            "patience is ready:",
            f"  REST API   {rest}/v1",
            f"  REST docs  {rest}/docs",
            f"  gRPC       {engine}  ({engine_workers(args.workers)} engine workers)",
            f"  Redis      {redact(redis_url)}  ({redis_note})",
            "Press Ctrl-C to stop.",
        ]

    return run_services(supervisor, start)


def cmd_engine(args: argparse.Namespace) -> int:
    host, port = split_listen(os.environ.get("ENGINE_LISTEN") or f"{DEFAULT_HOST}:50051")
    host = args.host or host
    port = choose_port(host, port if args.grpc_port is None else args.grpc_port, "--grpc-port")
    supervisor = Supervisor()

    def start() -> list[str]:
        target = start_engine(supervisor, host, port, args.workers, args.startup_timeout)
        return [f"patience engine is ready: gRPC {target}", "Press Ctrl-C to stop."]

    return run_services(supervisor, start)


def cmd_gateway(args: argparse.Namespace) -> int:
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        raise UsageError("set REDIS_URL (and ENGINE_ADDR), or run `patience serve` instead")
    engine_addr = os.environ.get("ENGINE_ADDR") or f"{DEFAULT_HOST}:{DEFAULT_GRPC_PORT}"
    host = args.host or os.environ.get("GATEWAY_HOST") or DEFAULT_HOST
    port = args.http_port
    if port is None:
        port = int(os.environ.get("GATEWAY_PORT") or DEFAULT_HTTP_PORT)
    port = choose_port(host, port, "--http-port")
    supervisor = Supervisor()

    def start() -> list[str]:
        rest = start_gateway(supervisor, host, port, redis_url, engine_addr, args.startup_timeout)
        return [
            f"patience gateway is ready: REST {rest}/v1, docs {rest}/docs",
            f"  engine {engine_addr}, Redis {redact(redis_url)}",
            "Press Ctrl-C to stop.",
        ]

    return run_services(supervisor, start)


def cmd_redis(args: argparse.Namespace) -> int:
    supervisor = Supervisor()
    redis = EmbeddedRedis(
        port=choose_port(args.host, args.port, "--port"),
        host=args.host,
        appendonly=args.appendonly,
        data_dir=args.dir,
        supervised=True,
    )

    def start() -> list[str]:
        try:
            redis.start(timeout=args.startup_timeout)
        except (OSError, RuntimeError, ImportError) as error:
            raise ServiceFailed(f"could not start Redis: {error}") from error
        supervisor.add_redis(redis)
        return [f"patience redis is ready: {redis.url}  (data in {redis.data_dir})"]

    return run_services(supervisor, start)


# the command line -------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="patience",
        description="Run the patience rules engine, its REST gateway and Redis.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def timeout_flag(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--startup-timeout",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="how long each service may take to answer (default 60)",
        )

    serve = commands.add_parser(
        "serve", help="Redis, engine and gateway together (REDIS_URL: use that Redis)"
    )
    serve.add_argument("--host", default=DEFAULT_HOST, help="bind address (default 127.0.0.1)")
    serve.add_argument(
        "--http-port", type=int, default=DEFAULT_HTTP_PORT, help="REST port (default 8000; 0: any)"
    )
    serve.add_argument(
        "--grpc-port", type=int, default=DEFAULT_GRPC_PORT, help="gRPC port (default 50051; 0: any)"
    )
    serve.add_argument("--workers", type=int, help="engine processes (default: number of cores)")
    timeout_flag(serve)
    serve.set_defaults(run=cmd_serve)

    engine = commands.add_parser("engine", help="the gRPC engine alone (ENGINE_* variables)")
    engine.add_argument("--host", help="bind address (default: from ENGINE_LISTEN)")
    engine.add_argument("--grpc-port", type=int, help="port (default: from ENGINE_LISTEN)")
    engine.add_argument("--workers", type=int, help="engine processes (default: number of cores)")
    timeout_flag(engine)
    engine.set_defaults(run=cmd_engine)

    gateway = commands.add_parser(
        "gateway", help="the REST gateway alone, against REDIS_URL and ENGINE_ADDR"
    )
    gateway.add_argument("--host", help="bind address (default: GATEWAY_HOST or 127.0.0.1)")
    gateway.add_argument("--http-port", type=int, help="port (default: GATEWAY_PORT or 8000)")
    timeout_flag(gateway)
    gateway.set_defaults(run=cmd_gateway)

    redis = commands.add_parser("redis", help="an embedded Redis alone")
    redis.add_argument("--host", default=DEFAULT_HOST, help="bind address (default 127.0.0.1)")
    redis.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    redis.add_argument("--dir", help="data folder (default: a temporary one, deleted on exit)")
    redis.add_argument("--appendonly", action="store_true", help="keep an append-only file")
    timeout_flag(redis)
    redis.set_defaults(run=cmd_redis)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except UsageError as error:
        print(f"patience: {error}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
