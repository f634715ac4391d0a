"""How the launcher starts each service as a supervised child: its command line, its
environment, and the check that tells it answers."""

from __future__ import annotations

import os
import secrets
import signal
import sys
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from patience_contract.settings import declared
from patience_engine.config import EngineConfig
from patience_gateway.settings import Settings as GatewaySettings

from patience_launcher import addresses, postgres_server, probes
from patience_launcher.children import ChildProcess
from patience_launcher.redis_server import AppendFsync, redis_argv
from patience_launcher.seal_keys import KeyChoice
from patience_launcher.settings import LauncherSettings
from patience_launcher.supervisor import ServiceFailed, StopRequested, Supervisor

DEFAULT_HOST = "127.0.0.1"
STOP_TIMEOUT_SECONDS = 10.0
# The gateway's workers keep their metrics in files there (prometheus_client's
# multiprocess mode). The launcher gives it a folder of its own, so that one left by a
# gateway that was killed is removed with the launcher's other temporary folders.
METRICS_VARIABLE = declared(LauncherSettings, "metrics_dir").name
METRICS_PREFIX = "patience-metrics-"
# The engine serves its metrics on a port of its own (its supervisor sums its workers').
ENGINE_METRICS_VARIABLE = declared(EngineConfig, "metrics_port").name
# What the gateway answers its health checks with: the launcher knows its own.
INSTANCE_VARIABLE = declared(GatewaySettings, "instance_id").name
# The gateway's /metrics stays on its API port, where the banner says it is, whatever
# this environment says of a port of their own (the Kubernetes manifests use one).
GATEWAY_METRICS_VARIABLE = declared(GatewaySettings, "metrics_port").name


def service_argv(script: str, module: str) -> list[str]:
    """The console script installed beside this Python, else `python -m module`
    (never some other installation's script found on PATH)."""
    beside = Path(sys.executable).parent / script
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", module]


def child_env(**overrides: str) -> dict[str, str]:
    """This process's environment (with PATIENCE_DATA_DIR, set by the launcher) for a
    child, plus `overrides`."""
    env = dict(os.environ)
    # the gateway's metrics folder is given to the gateway alone (`start_gateway`)
    env.pop(METRICS_VARIABLE, None)
    env["PYTHONUNBUFFERED"] = "1"  # logs reach the terminal as they happen
    env.update(overrides)
    return env


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def redact(url: str) -> str:
    """The URL without its password, for printing."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def use_redis_url(supervisor: Supervisor, url: str, timeout: float) -> None:
    """Waits until the Redis the user named answers PING."""
    supervisor.say(f"using the Redis at {redact(url)}")
    wait_for(supervisor, f"the Redis at {redact(url)}", timeout, lambda: probes.redis_pong(url))


def use_database_url(supervisor: Supervisor, url: str, timeout: float) -> None:
    """Waits until the database the user named answers a query; fails with the server's
    last words (a wrong password, a database that does not exist)."""
    supervisor.say(f"using the PostgreSQL database at {redact(url)}")
    problem: list[str | None] = [None]

    def answers() -> bool:
        problem[0] = probes.postgres_problem(url)
        return problem[0] is None

    try:
        wait_for(supervisor, f"the PostgreSQL database at {redact(url)}", timeout, answers)
    except ServiceFailed as failure:
        raise ServiceFailed(f"{failure}: {problem[0]}") from None


def wait_for(
    supervisor: Supervisor, what: str, timeout: float, answers: Callable[[], bool]
) -> None:
    """Polls `answers` until it holds; ServiceFailed after `timeout` seconds,
    StopRequested on a signal."""
    deadline = time.monotonic() + timeout
    while not answers():
        if supervisor.stop_requested.is_set():
            raise StopRequested
        if time.monotonic() > deadline:
            raise ServiceFailed(f"{what} did not answer within {timeout:g} s")
        supervisor.stop_requested.wait(0.1)


def start_redis(
    supervisor: Supervisor,
    folder: Path,
    timeout: float,
    *,
    host: str = DEFAULT_HOST,
    port: int = 0,
    appendonly: bool = True,
    appendfsync: AppendFsync = "everysec",
) -> str:
    """Starts a redis-server with its data in `folder` (absolute, existing); returns
    its URL. Its log goes to the terminal, so a failure shows Redis's own words."""
    port = addresses.given_or_free(port, host)
    argv = redis_argv(host, port, folder, appendonly=appendonly, appendfsync=appendfsync)
    url = f"redis://{addresses.host_port(host, port)}/0"
    supervisor.say(f"starting Redis on {addresses.host_port(host, port)}, data in {folder}")
    child = ChildProcess("redis", argv, child_env())
    supervisor.add_child(child, lambda: probes.redis_pong(url), timeout, STOP_TIMEOUT_SECONDS)
    return url


def start_postgres(
    supervisor: Supervisor, folder: Path, timeout: float, *, host: str = DEFAULT_HOST
) -> str:
    """Starts a PostgreSQL server with its data in `folder`/data (made on the first
    start, the password kept beside it) and creates the project's database if missing;
    returns the database's URL. Its log goes to the terminal. Under root it runs as
    `nobody` (PostgreSQL refuses root), which then owns `folder`/data."""
    port = addresses.free_port(host)
    try:
        password = postgres_server.init_cluster(folder)
        argv = postgres_server.postgres_argv(host, port, folder)
    except ImportError:
        raise ServiceFailed(
            "no PostgreSQL to embed: install it (postgres and initdb on PATH, or "
            f"{postgres_server.BIN_DIR_VARIABLE}), or set DATABASE_URL (empty: keep no records)"
        ) from None
    except (RuntimeError, OSError) as error:
        raise ServiceFailed(f"cannot make PostgreSQL's data folder in {folder}: {error}") from None
    server = postgres_server.ServerUser.for_this_process()
    user = (server.uid, server.gid) if server.is_other else None
    # The server's own database, always there: answering it means the server is up.
    own = postgres_server.database_url(host, port, password, "postgres")
    supervisor.say(f"starting PostgreSQL on {addresses.host_port(host, port)}, data in {folder}")
    child = ChildProcess(
        "postgres",
        argv,
        child_env(),
        user=user,
        # its fast shutdown: SIGTERM would wait for every client to disconnect
        stop_signal=signal.SIGINT,
    )
    supervisor.add_child(child, lambda: probes.postgres_answers(own), timeout, STOP_TIMEOUT_SECONDS)
    import psycopg  # late: only where a database is run

    try:
        postgres_server.ensure_database(host, port, password, timeout)
    except psycopg.Error as error:
        raise ServiceFailed(f"cannot create the database on PostgreSQL: {error}") from None
    return postgres_server.database_url(host, port, password)


def engine_metrics_port(host: str, settings: LauncherSettings) -> int:
    """The port of the engine's metrics: ENGINE_METRICS_PORT, else a free one."""
    return addresses.given_or_free(settings.engine_metrics_port, addresses.unbracket(host))


def metrics_url(host: str, port: int) -> str:
    """Where a local Prometheus scrapes a service bound to host:port."""
    return f"http://{addresses.host_port(addresses.reachable_host(host), port)}/metrics"


def start_engine(
    supervisor: Supervisor,
    host: str,
    port: int,
    workers: int,
    timeout: float,
    keys: KeyChoice,
    solver_processes: int | None = None,
    metrics_port: int | None = None,
    *,
    wait: bool = True,
) -> str:
    """Starts the engine on host:port with the seal keys chosen by
    `seal_keys.choose`; returns the address a local client dials. (A restarted engine
    keeps this environment, so it keeps its keys.) `solver_processes`: search processes
    per engine process (None: ENGINE_SOLVER_PROCESSES, else the engine's default);
    `metrics_port`: where it serves its metrics (None: ENGINE_METRICS_PORT, if set);
    `wait=False`: returns before it answers (`Supervisor.until_ready`)."""
    settings = (
        {} if solver_processes is None else {"ENGINE_SOLVER_PROCESSES": str(solver_processes)}
    )
    if metrics_port is not None:
        settings[ENGINE_METRICS_VARIABLE] = str(metrics_port)
    env = child_env(
        ENGINE_LISTEN=addresses.host_port(host, port),
        ENGINE_WORKERS=str(workers),
        **keys.env,
        **settings,
    )
    target = addresses.host_port(addresses.reachable_host(host), port)
    child = ChildProcess("engine", service_argv("patience-engine", "patience_engine"), env)
    supervisor.say(f"starting the engine on {env['ENGINE_LISTEN']} ({plural(workers, 'worker')})")
    supervisor.add_child(
        child, lambda: probes.grpc_serving(target), timeout, STOP_TIMEOUT_SECONDS, wait=wait
    )
    return target


def start_gateway(
    supervisor: Supervisor,
    host: str,
    port: int,
    workers: int,
    redis_url: str,
    engine_addr: str,
    timeout: float,
    metrics_dir: Path,
    settings: Mapping[str, str] | None = None,
    *,
    origins: Sequence[str] = (),
    wait: bool = True,
) -> str:
    """Starts the gateway on host:port, its metrics files in `metrics_dir`; returns its
    base URL for local clients. `settings`: more variables for it (where its records
    are kept, the players' token keys), over this process's environment; `origins`: the
    configured CORS origins, after the gateway's own page's. The gateway is given an
    instance id of this start's, and only an answer that carries it counts as the
    gateway's: another server answering on the port (started there meanwhile) is not
    taken for it. `wait=False`: returns before it answers (`Supervisor.until_ready`)."""
    base = f"http://{addresses.host_port(addresses.reachable_host(host), port)}"
    instance = secrets.token_hex(8)
    env = child_env(
        **{
            METRICS_VARIABLE: str(metrics_dir),
            INSTANCE_VARIABLE: instance,
            GATEWAY_METRICS_VARIABLE: "0",
        },
        REDIS_URL=redis_url,
        ENGINE_ADDR=engine_addr,
        GATEWAY_HOST=host,
        GATEWAY_PORT=str(port),
        GATEWAY_WORKERS=str(workers),
        CORS_ORIGINS=page_origins(base, port, origins),
        **(settings or {}),
    )
    child = ChildProcess("gateway", service_argv("patience-gateway", "patience_gateway"), env)
    listen = addresses.host_port(host, port)
    supervisor.say(f"starting the gateway on {listen} ({plural(workers, 'worker')})")
    supervisor.add_child(
        child,
        # The banner waits until the whole stack answers through the gateway; after a
        # restart, the gateway is back once it answers at all (it reports Redis or the
        # engine being down with 503s of its own).
        lambda: probes.http_ok(f"{base}/readyz", instance=instance),
        timeout,
        STOP_TIMEOUT_SECONDS,
        back=lambda: probes.http_ok(f"{base}/livez", instance=instance),
        wait=wait,
    )
    return base


def page_origins(base: str, port: int, configured: Sequence[str]) -> str:
    """CORS_ORIGINS for the gateway: its own web client's origin (under the loopback
    name too), then whatever origins were configured."""
    own = [base]
    if base == f"http://127.0.0.1:{port}":
        own.append(f"http://localhost:{port}")
    return ",".join([*own, *configured])
