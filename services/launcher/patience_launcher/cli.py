"""`patience`: the whole service on this machine with one command.

    patience serve     Redis and PostgreSQL (embedded unless REDIS_URL / DATABASE_URL is
                       set), the engine and the gateway
    patience engine    the gRPC engine alone
    patience gateway   the REST gateway alone, against REDIS_URL and ENGINE_ADDR
    patience redis     an embedded Redis alone

Every service runs as a child process. One that stops on its own is started again (see
`patience_launcher.supervisor`); Ctrl-C or SIGTERM stops them all, the gateway first and
Redis last, exit status 0. Exit status 1 when a service cannot start or keeps crashing,
2 for a mistake on the command line. A port already in use is refused before anything
starts, or, taken meanwhile, by the service that cannot listen on it: either way the
line that says so names the port.

The banner, on standard output, is text; every other line of the launcher's own is a
JSON line on standard error (`patience_launcher.supervisor.say`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from patience_contract.settings import SettingsError, read_settings
from patience_engine.config import DEFAULT_SOLVER_PROCESSES

from patience_launcher import addresses, player_keys, seal_keys
from patience_launcher.data_folder import (
    DATA_DIR_VARIABLE,
    FolderInUse,
    RunData,
    data_dir,
    prepare,
)
from patience_launcher.player_keys import TokenKeys
from patience_launcher.records_database import start_database
from patience_launcher.redis_server import TEMP_PREFIX, resolve_folder
from patience_launcher.scratch import temp_dir_for
from patience_launcher.seal_keys import KeyChoice
from patience_launcher.services import (
    DEFAULT_HOST,
    METRICS_PREFIX,
    engine_metrics_port,
    metrics_url,
    plural,
    redact,
    start_engine,
    start_gateway,
    start_redis,
    use_redis_url,
)
from patience_launcher.settings import LauncherSettings
from patience_launcher.solve_command import add_solve_command
from patience_launcher.supervisor import (
    ServiceFailed,
    StopRequested,
    Supervisor,
    say,
    write_whole,
)
from patience_launcher.workers import cores, split_workers

DEFAULT_HTTP_PORT = 8000
DEFAULT_GRPC_PORT = 50051
FSYNC_NOTES = {"everysec": "fsynced every second", "always": "fsynced before every reply"}


class UsageError(Exception):
    """A problem with the command line or the environment, found before starting."""


def environment() -> LauncherSettings:
    """The launcher's settings from its environment; UsageError for a bad value."""
    try:
        return read_settings(LauncherSettings)
    except SettingsError as error:
        raise UsageError(str(error)) from None


def choose_keys(data_folder: Path | None, *, redis_url_given: bool = False) -> KeyChoice:
    try:
        return seal_keys.choose(os.environ, data_folder, redis_url_given=redis_url_given)
    except SettingsError as problem:
        raise UsageError(str(problem)) from None


def choose_token_keys(data_folder: Path) -> TokenKeys:
    try:
        return player_keys.choose(os.environ, data_folder)
    except SettingsError as problem:
        raise UsageError(str(problem)) from None


def check_store_key(redis_url: str, keys: KeyChoice, *, cluster: bool) -> None:
    """The Redis's games open with these keys (it records the current key's id)."""
    try:
        seal_keys.check_store(redis_url, keys.key_ids, cluster=cluster)
    except SettingsError as problem:
        raise ServiceFailed(str(problem)) from None


def choose_port(host: str, port: int, flag: str) -> int:
    """`port`, or a free one when it is 0; refuses a port that is taken."""
    if port and not addresses.port_is_free(host, port):
        raise UsageError(f"port {port} on {host} is in use: stop what uses it or pass {flag}")
    return addresses.given_or_free(port, addresses.unbracket(host) or DEFAULT_HOST)


def split_listen(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"expected host:port, got {listen!r}")
    return addresses.unbracket(host), int(port)


def search_processes(flag: int | None) -> int:
    """The search processes per engine process: the flag, else ENGINE_SOLVER_PROCESSES,
    else the engine's default; said in the banner."""
    return flag if flag is not None else environment().solver_processes


def search_note(count: int) -> str:
    return f"{count} search process{'' if count == 1 else 'es'} each"


def run_services(supervisor: Supervisor, start: Callable[[], list[str]]) -> int:
    """Runs `start` (which starts services and returns the lines to print once they all
    answer), then supervises them until a signal; always stops everything it started."""
    supervisor.install_signal_handlers()
    try:
        banner = start()
        write_whole(sys.stdout, "\n".join(banner))
        supervisor.wait()
        return 0
    except StopRequested:
        return 0
    except ServiceFailed as failure:
        supervisor.say(str(failure), logging.ERROR)
        return 1
    finally:
        supervisor.stop_all()
        supervisor.say("stopped")


def claim_data_folder(args: argparse.Namespace) -> RunData:
    try:
        run_data = RunData(args.data_dir, ephemeral=args.ephemeral)
    except FolderInUse as error:
        raise UsageError(f"{error}: stop it, or pass --data-dir or --ephemeral") from None
    except OSError as error:
        raise UsageError(f"cannot use the data folder: {error}") from None
    # The services started from here find the same folder through data_dir().
    os.environ[DATA_DIR_VARIABLE] = str(run_data.path)
    return run_data


def metrics_folder(settings: LauncherSettings, stack: contextlib.ExitStack) -> Path:
    """The gateway's metrics folder: PROMETHEUS_MULTIPROC_DIR, else one of this run's
    own, removed with its other temporary folders."""
    return settings.metrics_dir or stack.enter_context(temp_dir_for(METRICS_PREFIX))


# the commands -----------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    http_port = choose_port(args.host, args.http_port, "--http-port")
    grpc_port = choose_port(args.host, args.grpc_port, "--grpc-port")
    if http_port == grpc_port:
        raise UsageError("--http-port and --grpc-port must differ")
    settings = environment()
    workers = split_workers(args.engine_workers, args.gateway_workers)
    run_data = claim_data_folder(args)
    given = settings.redis_url
    # One key per data store: kept beside the embedded Redis's data, or given with
    # REDIS_URL; chosen before anything starts, so that a missing key starts nothing.
    try:
        keys = choose_keys(None if given else run_data.path, redis_url_given=bool(given))
        token_keys = choose_token_keys(run_data.path)
    except UsageError:
        run_data.release()
        raise
    stack = contextlib.ExitStack()  # what this run made, removed when it ends
    stack.callback(run_data.release)
    searches = search_processes(args.solver_processes)
    supervisor = Supervisor()
    timeout = args.startup_timeout

    def start() -> list[str]:
        if given:
            use_redis_url(supervisor, given, timeout)
            redis_url, redis_note = given, "from REDIS_URL"
        else:
            folder = prepare(run_data.path / "redis")
            redis_url = start_redis(supervisor, folder, timeout, appendfsync=args.appendfsync)
            redis_note = f"embedded, append-only file {FSYNC_NOTES[args.appendfsync]}"
        check_store_key(redis_url, keys, cluster=settings.redis_cluster)
        # The engine needs nothing of the others: it starts while PostgreSQL and the
        # gateway do (about a second less before the banner), and each is waited for
        # at the end, in the order they started.
        engine_metrics = engine_metrics_port(args.host, settings)
        engine = start_engine(
            supervisor,
            args.host,
            grpc_port,
            workers.engine,
            timeout,
            keys,
            solver_processes=searches,
            metrics_port=engine_metrics,
            wait=False,
        )
        database = start_database(supervisor, os.environ, run_data.path, timeout)
        rest = start_gateway(
            supervisor,
            args.host,
            http_port,
            workers.gateway,
            redis_url,
            engine,
            timeout,
            metrics_folder(settings, stack),
            {**database.env, **token_keys.env},
            origins=settings.cors_origins,
            wait=False,
        )
        supervisor.until_ready()
        data_note = "temporary, deleted on exit" if run_data.ephemeral else "kept across runs"
        return [
            "patience is ready:",
            f"  REST API   {rest}/v1  ({plural(workers.gateway, 'gateway worker')})",
            f"  REST docs  {rest}/docs",
            f"  Play       {rest}/play/",
            f"  gRPC       {engine}  ({plural(workers.engine, 'engine worker')},"
            f" {search_note(searches)})",
            f"  Redis      {redact(redis_url)}  ({redis_note})",
            f"  PostgreSQL {database.banner}",
            f"  Data       {run_data.path}  ({data_note})",
            f"  States     {keys.banner}",
            f"  Players    {token_keys.banner}",
            f"  Metrics    {rest}/metrics (gateway),"
            f" {metrics_url(args.host, engine_metrics)} (engine): Prometheus scrapes these",
            "A service that stops is started again; Ctrl-C stops them all.",
        ]

    with stack:
        return run_services(supervisor, start)


def cmd_engine(args: argparse.Namespace) -> int:
    settings = environment()
    host, port = split_listen(settings.engine_listen)
    host = args.host or host
    port = choose_port(host, port if args.grpc_port is None else args.grpc_port, "--grpc-port")
    workers = args.engine_workers or settings.engine_workers or cores()
    searches = search_processes(args.solver_processes)
    supervisor = Supervisor()

    # Clients keep the states this engine seals: the key is kept in the data folder
    # (made once) unless ENGINE_SEAL_KEY or ENGINE_SEAL_KEY_FILE gives one.
    keys = choose_keys(None if seal_keys.configured(os.environ) else prepare(data_dir()))

    def start() -> list[str]:
        metrics = engine_metrics_port(host, settings)
        target = start_engine(
            supervisor,
            host,
            port,
            workers,
            args.startup_timeout,
            keys,
            solver_processes=searches,
            metrics_port=metrics,
        )
        return [
            f"patience engine is ready: gRPC {target}"
            f"  ({plural(workers, 'worker')}, {search_note(searches)})",
            f"  states {keys.banner}",
            f"  metrics {metrics_url(host, metrics)}",
            "Press Ctrl-C to stop.",
        ]

    return run_services(supervisor, start)


def cmd_gateway(args: argparse.Namespace) -> int:
    settings = environment()
    redis_url, engine_addr = settings.redis_url, settings.engine_addr
    if not redis_url:
        raise UsageError("set REDIS_URL (and ENGINE_ADDR), or run `patience serve` instead")
    host = args.host or settings.gateway_host
    port = settings.gateway_port if args.http_port is None else args.http_port
    port = choose_port(host, port, "--http-port")
    workers = args.gateway_workers or settings.gateway_workers or cores()
    supervisor = Supervisor()
    stack = contextlib.ExitStack()

    def start() -> list[str]:
        rest = start_gateway(
            supervisor,
            host,
            port,
            workers,
            redis_url,
            engine_addr,
            args.startup_timeout,
            metrics_folder(settings, stack),
            origins=settings.cors_origins,
        )
        return [
            f"patience gateway is ready: REST {rest}/v1, docs {rest}/docs, play {rest}/play/"
            f"  ({plural(workers, 'worker')})",
            f"  metrics {rest}/metrics",
            f"  engine {engine_addr}, Redis {redact(redis_url)}",
            "Press Ctrl-C to stop.",
        ]

    with stack:
        return run_services(supervisor, start)


def cmd_redis(args: argparse.Namespace) -> int:
    port = choose_port(args.host, args.port, "--port")
    stack = contextlib.ExitStack()
    if args.dir:
        try:
            folder = resolve_folder(args.dir)
        except OSError as error:
            raise UsageError(f"cannot use --dir {args.dir}: {error}") from None
    else:
        folder = stack.enter_context(temp_dir_for(TEMP_PREFIX))
    supervisor = Supervisor()

    def start() -> list[str]:
        url = start_redis(
            supervisor,
            folder,
            args.startup_timeout,
            host=args.host,
            port=port,
            appendonly=args.appendonly,
        )
        kept = "kept" if args.dir else "deleted on exit"
        return [f"patience redis is ready: {url}  (data in {folder}, {kept})"]

    with stack:
        return run_services(supervisor, start)


def cmd_key(args: argparse.Namespace) -> int:
    kind = player_keys if args.player else seal_keys
    if args.key_command == "new":
        print(kind.new_key())
        return 0
    if args.key_command == "ensure":
        path = Path(args.file)
        existed = path.exists()
        try:
            kind.ensure_key_file(path)
        except OSError as error:
            raise UsageError(f"cannot make the key file {path}: {error}") from None
        print(f"{path}: {'kept as it was' if existed else 'made with a new key'}")
        return 0
    path = Path(args.file) if args.file else data_dir() / kind.KEY_FILE_NAME
    try:
        key_id = kind.rotate_key_file(path)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot rotate the key file {path}: {error}") from None
    if args.player:
        print(
            f"{path}: new signing key {key_id}, the earlier keys kept to verify the tokens "
            "they signed; restart the gateways (docs/operations.md, Player token keys)"
        )
    else:
        print(
            f"{path}: new current key {key_id}, the earlier keys kept as old keys; restart "
            "the engines (docs/operations.md, Keys)"
        )
    return 0


# the command line -------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="patience",
        description="Run the patience rules engine, its REST gateway and Redis.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def timeout_flag(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--startup-timeout",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="how long each service may take to answer (default 60)",
        )

    def engine_workers_flag(sub: argparse.ArgumentParser, default: str) -> None:
        sub.add_argument(
            "--engine-workers",
            "--workers",
            dest="engine_workers",
            type=int,
            metavar="N",
            help=f"engine processes (default: ENGINE_WORKERS, else {default})",
        )

    def gateway_workers_flag(sub: argparse.ArgumentParser, default: str) -> None:
        sub.add_argument(
            "--gateway-workers",
            dest="gateway_workers",
            type=int,
            metavar="N",
            help=f"gateway processes (default: GATEWAY_WORKERS, else {default})",
        )

    def solver_processes_flag(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--solver-processes",
            dest="solver_processes",
            type=int,
            metavar="N",
            help="search processes (Solve, Hint) per engine process"
            f" (default: ENGINE_SOLVER_PROCESSES, else {DEFAULT_SOLVER_PROCESSES})",
        )

    serve = commands.add_parser(
        "serve",
        help="Redis, PostgreSQL, engine and gateway together (REDIS_URL, DATABASE_URL: use those)",
    )
    serve.add_argument("--host", default=DEFAULT_HOST, help="bind address (default 127.0.0.1)")
    serve.add_argument(
        "--http-port", type=int, default=DEFAULT_HTTP_PORT, help="REST port (default 8000; 0: any)"
    )
    serve.add_argument(
        "--grpc-port", type=int, default=DEFAULT_GRPC_PORT, help="gRPC port (default 50051; 0: any)"
    )
    engine_workers_flag(serve, "a share of the cores")
    gateway_workers_flag(serve, "a share of the cores")
    solver_processes_flag(serve)
    serve.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help=f"where the games are kept (default: {DATA_DIR_VARIABLE}, else ./.patience)",
    )
    serve.add_argument(
        "--ephemeral",
        action="store_true",
        help="keep the data in a temporary folder deleted on exit instead",
    )
    serve.add_argument(
        "--appendfsync",
        choices=sorted(FSYNC_NOTES),
        default="everysec",
        help="when the embedded Redis flushes its append-only file to the disk "
        "(default everysec; always: no acknowledged move lost even if the machine fails)",
    )
    timeout_flag(serve)
    serve.set_defaults(run=cmd_serve)

    engine = commands.add_parser("engine", help="the gRPC engine alone (ENGINE_* variables)")
    engine.add_argument("--host", help="bind address (default: from ENGINE_LISTEN)")
    engine.add_argument("--grpc-port", type=int, help="port (default: from ENGINE_LISTEN)")
    engine_workers_flag(engine, "the cores")
    solver_processes_flag(engine)
    timeout_flag(engine)
    engine.set_defaults(run=cmd_engine)

    gateway = commands.add_parser(
        "gateway", help="the REST gateway alone, against REDIS_URL and ENGINE_ADDR"
    )
    gateway.add_argument("--host", help="bind address (default: GATEWAY_HOST or 127.0.0.1)")
    gateway.add_argument("--http-port", type=int, help="port (default: GATEWAY_PORT or 8000)")
    gateway_workers_flag(gateway, "the cores")
    timeout_flag(gateway)
    gateway.set_defaults(run=cmd_gateway)

    redis = commands.add_parser("redis", help="an embedded Redis alone")
    redis.add_argument("--host", default=DEFAULT_HOST, help="bind address (default 127.0.0.1)")
    redis.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    redis.add_argument(
        "--dir", help="data folder, created if missing (default: a temporary one, deleted on exit)"
    )
    redis.add_argument("--appendonly", action="store_true", help="keep an append-only file")
    timeout_flag(redis)
    redis.set_defaults(run=cmd_redis)

    key = commands.add_parser(
        "key", help="the engine's seal keys or the players' token keys: make one, rotate a file"
    )
    key_commands = key.add_subparsers(dest="key_command", required=True, metavar="ACTION")

    def player_flag(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--player",
            action="store_true",
            help="a key that signs players' tokens (the gateway's), not a seal key",
        )

    new = key_commands.add_parser(
        "new", help="print a new random key (for ENGINE_SEAL_KEY, or PLAYER_TOKEN_KEYS)"
    )
    player_flag(new)
    rotate = key_commands.add_parser(
        "rotate", help="put a new key first in a key file; the others stay as old keys"
    )
    rotate.add_argument(
        "file",
        nargs="?",
        help=f"the key file (default: <data folder>/{seal_keys.KEY_FILE_NAME}, with --player "
        f"<data folder>/{player_keys.KEY_FILE_NAME})",
    )
    player_flag(rotate)
    ensure = key_commands.add_parser(
        "ensure", help="make a key file with a new key unless it exists (e.g. in a volume)"
    )
    ensure.add_argument("file", help="the key file")
    player_flag(ensure)
    key.set_defaults(run=cmd_key)

    add_solve_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    for name in ("engine_workers", "gateway_workers", "solver_processes"):
        count = getattr(args, name, None)
        if count is not None and count < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    try:
        code: int = args.run(args)
    except (UsageError, SettingsError) as error:
        say(str(error), logging.ERROR)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
