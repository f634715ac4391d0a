"""Running the engine: one grpc.aio server, or several worker processes on one port.

`start_server(config)` starts one server in the current event loop and returns a
`RunningEngine`:

    running = await start_server(EngineConfig(listen="127.0.0.1:0", workers=1))
    running.port            # the bound port (useful with port 0)
    running.server          # the grpc.aio.Server
    await running.stop(grace)   # health NOT_SERVING, then server.stop(grace)
    await running.wait_for_termination()

Besides the Engine service, the server answers gRPC health checks (service "" and
"solitaire.v1.EngineService": SERVING, NOT_SERVING once shutdown starts) and server
reflection, v1 and v1alpha (`patience_engine.reflection`). Each call is counted in
the engine's metrics (`patience_engine.metrics`), served over HTTP when
ENGINE_METRICS_PORT is set (`patience_engine.metrics_server`); where the OTEL_*
variables turn tracing on (`patience_contract.tracing`), each call is a span, continued
from the caller's traceparent. Logs are JSON lines (`patience_contract.logs`).

`main()` (the `patience-engine` command, `python -m patience_engine`) reads
`EngineConfig.from_env()`. With one worker it serves in its own process; with more,
it is a supervisor, as in gRPC's multiprocessing example: it reserves the port (and
picks it if the address says port 0) with SO_REUSEPORT, starts ENGINE_WORKERS worker
processes that each bind that port with `grpc.so_reuseport`, so the kernel spreads
connections over them, restarts a worker that dies, and on SIGINT or SIGTERM stops
them all gracefully; it serves the sums of its workers' metrics.

The port is one engine's alone. SO_REUSEPORT would let a second engine's workers join
the first's on the same port (each would get some of the connections), so before it
reserves the port a supervisor claims it for the machine (`_claimed_port`) and checks
that nothing listens there yet: a second engine on the port stops at once, exit status
1, with a line that names the port. An engine of one process binds without
SO_REUSEPORT: the kernel itself refuses a port already taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from types import FrameType

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from patience_contract import logs, tracing

from patience_engine import metrics_server
from patience_engine.config import EngineConfig, split_host_port
from patience_engine.encoding import ReplyWriter, writer_for
from patience_engine.metrics import EngineMetrics
from patience_engine.reflection import enable_server_reflection
from patience_engine.sealing import Sealer, key_id_of
from patience_engine.searches import SearchPool
from patience_engine.servicer import SERVICE_NAME, EngineService, add_to_server

__all__ = ["GRACE_SECONDS", "EngineConfig", "RunningEngine", "main", "serve", "start_server"]

log = logging.getLogger("patience_engine")

# Calls in flight get this long to finish when the server stops.
GRACE_SECONDS = 5.0
# A supervisor gives up (and exits) after restarting workers this many times per worker.
RESTARTS_PER_WORKER = 3


@dataclass(slots=True)
class RunningEngine:
    """A started engine server in this process."""

    server: aio.Server
    port: int
    health: health.aio.HealthServicer
    searches: SearchPool
    writer: ReplyWriter
    metrics: EngineMetrics

    async def stop(self, grace: float | None = GRACE_SECONDS) -> None:
        """Reports NOT_SERVING, then stops; calls in flight get `grace` seconds, then
        the search processes end."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        self.searches.close()

    async def wait_for_termination(self) -> None:
        await self.server.wait_for_termination()


async def start_server(
    config: EngineConfig, *, reuse_port: bool = False, metrics: EngineMetrics | None = None
) -> RunningEngine:
    """Starts one engine server on `config.listen` in the running event loop, counting
    into `metrics` (new ones by default).

    `reuse_port` lets several processes bind the same port (the supervisor's workers);
    otherwise a port already taken is an error instead of silently shared.
    """
    metrics = metrics or EngineMetrics()
    limit = config.max_message_bytes
    server = aio.server(
        options=[
            ("grpc.max_send_message_length", limit),
            ("grpc.max_receive_message_length", limit),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ]
    )
    # The writer is chosen here, once: the server and its search processes keep it.
    writer = writer_for(config.speed_paths)
    searches = SearchPool(
        config.solver_processes,
        config.solver_queue,
        speed_paths=config.speed_paths,
        observer=metrics,
        niceness=config.search_niceness,
    )
    sealer = Sealer(config.seal_key, config.old_seal_keys)
    engine = EngineService(
        sealer,
        searches,
        writer=writer,
        metrics=metrics,
        hint_seconds=config.hint_milliseconds / 1000,
    )
    add_to_server(engine, server)
    health_servicer = health.aio.HealthServicer()
    for service in ("", SERVICE_NAME):
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME), server)
    try:
        port = server.add_insecure_port(config.listen)
    except RuntimeError as error:
        host, wanted = split_host_port(config.listen)
        if not reuse_port:  # gRPC's words do not say why: a port in use, most often
            _check_nothing_listens(_family(host, wanted), host, wanted)
        raise OSError(f"cannot listen on {config.listen}: {error}") from None
    if port == 0:
        raise OSError(f"cannot listen on {config.listen}")
    searches.start(asyncio.get_running_loop())
    await server.start()
    return RunningEngine(server, port, health_servicer, searches, writer, metrics)


def start_tracing() -> None:
    """Traces this process's calls where the OTEL_* variables say so: OpenTelemetry's
    gRPC server instrumentation, installed before the server is made (and not at all
    otherwise)."""
    if tracing.start_tracing("patience-engine"):
        from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorServer

        GrpcAioInstrumentorServer().instrument()  # type: ignore[no-untyped-call]


async def serve(config: EngineConfig, *, reuse_port: bool = False) -> None:
    """Serves until SIGINT or SIGTERM, then stops gracefully. A server alone (not a
    supervisor's worker) serves its own metrics when ENGINE_METRICS_PORT is set."""
    start_tracing()
    running = await start_server(config, reuse_port=reuse_port)
    host, _ = split_host_port(config.listen)
    scrape = None
    if config.metrics_port is not None and not reuse_port:
        registry = metrics_server.own_registry(running.metrics.registry)
        scrape = metrics_server.serve_metrics(host, config.metrics_port, registry)
        log.info("engine metrics on http://%s/metrics", _format_address(host, config.metrics_port))
    log.info(
        "engine serving on %s:%d (pid %d, %s)",
        host,
        running.port,
        os.getpid(),
        describe_sealing(config),
    )
    warn_if_unsealed(config)
    say_if_speed_paths_off(config)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopping.set)
    await stopping.wait()
    log.info("engine stopping (pid %d)", os.getpid())
    await running.stop(GRACE_SECONDS)
    if scrape is not None:
        scrape.shutdown()
    log.info("engine stopped (pid %d)", os.getpid())


def describe_sealing(config: EngineConfig) -> str:
    if not config.seal_key:
        return "states NOT encrypted"
    old = len(config.old_seal_keys)
    return f"states encrypted with key {key_id_of(config.seal_key)}" + (
        f" (+{old} old key{'s' if old > 1 else ''})" if old else ""
    )


def warn_if_unsealed(config: EngineConfig) -> None:
    """Says loudly that an engine without a key is for development only."""
    if not config.seal_key:
        log.warning(
            "UNSAFE DEVELOPMENT MODE: no ENGINE_SEAL_KEY, so states leave the engine in "
            "plain text (any client can read the stock and a secret deal number) and the "
            "engine cannot tell a forged state from its own; set ENGINE_SEAL_KEY or "
            "ENGINE_SEAL_KEY_FILE for any real use"
        )


def say_if_speed_paths_off(config: EngineConfig) -> None:
    """Says that replies come from the reference writer, which is slower, so that a
    setting left off after a diagnosis shows in the log."""
    if not config.speed_paths:
        log.warning(
            "PATIENCE_SPEED_PATHS=off: replies are written by protobuf's own serializer "
            "(the reference), not the speed path; the same bytes, more CPU per call"
        )


# --------------------------------------------------------------------------- processes


def _worker_main(config: EngineConfig) -> None:
    """A worker process: one server on the shared port."""
    logs.configure_logging(config.log_level)
    asyncio.run(serve(config, reuse_port=True))


@contextlib.contextmanager
def _reserved_port(host: str, port: int) -> Iterator[int]:
    """Holds host:port with SO_REUSEPORT (not listening) while the workers run, so that
    port 0 becomes a real port and no one else takes it meanwhile; the port claimed for
    this engine alone (`_claimed_port`), and nothing listening on it already. OSError,
    naming the port, when it is taken."""
    family = _family(host, port)
    with contextlib.ExitStack() as held:
        if port != 0:
            held.enter_context(_claimed_port(host, port))
            _check_nothing_listens(family, host, port)
        sock = held.enter_context(socket.socket(family, socket.SOCK_STREAM))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            raise _port_error(host, port, error) from None
        bound: int = sock.getsockname()[1]
        if port == 0:  # a port no one had: claimed as any other
            held.enter_context(_claimed_port(host, bound))
        yield bound


def _family(host: str, port: int) -> socket.AddressFamily:
    return socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0][0]


@contextlib.contextmanager
def _claimed_port(host: str, port: int) -> Iterator[None]:
    """Holds the machine's claim on `port` for an engine: a Unix socket bound to a name
    of Linux's abstract namespace, which only one process can hold, and the kernel
    releases when that process ends, however it ends. The workers' SO_REUSEPORT admits
    any process of the same user to the port; two supervisors started at the same moment
    would both find it free, and both serve. (Names, like ports, are per network
    namespace.) Elsewhere than Linux, no claim is held."""
    if sys.platform != "linux":
        yield
        return
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        claim.bind(f"\0patience-engine-port-{port}")
    except OSError as error:
        claim.close()
        if error.errno != errno.EADDRINUSE:
            raise _port_error(host, port, error) from None
        raise OSError(
            f"cannot listen on {_format_address(host, port)}: port {port} is in use by "
            "another engine on this machine"
        ) from None
    with claim:
        yield


def _check_nothing_listens(family: socket.AddressFamily, host: str, port: int) -> None:
    """OSError when a server listens on host:port already: a bind without SO_REUSEPORT
    fails there even where that server's sockets would admit the workers'."""
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # a stopped engine's connections still closing do not count
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise _port_error(host, port, error) from None


def _port_error(host: str, port: int, error: OSError) -> OSError:
    """What the engine says when it cannot have host:port."""
    address = _format_address(host, port)
    if error.errno == errno.EADDRINUSE:
        return OSError(f"cannot listen on {address}: port {port} is in use by another process")
    return OSError(f"cannot listen on {address}: {error.strerror or error}")


def _format_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def supervise(config: EngineConfig) -> int:
    """Runs `config.workers` worker processes on one port until SIGINT/SIGTERM."""
    host, port = split_host_port(config.listen)
    wake_reader, wake_writer = os.pipe()
    os.set_blocking(wake_writer, False)
    stop_requested = False

    def request_stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stop_requested
        stop_requested = True
        with contextlib.suppress(BlockingIOError):
            os.write(wake_writer, b"x")

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    context = multiprocessing.get_context("spawn")
    restarts = metrics_server.WorkerRestarts()
    with _reserved_port(host, port) as bound_port, metrics_server.worker_files() as folder:
        scrape = None
        if config.metrics_port is not None:
            registry = metrics_server.supervisor_registry(folder, restarts)
            scrape = metrics_server.serve_metrics(host, config.metrics_port, registry)
        worker_config = replace(config, listen=_format_address(host, bound_port))

        def start_worker(index: int) -> multiprocessing.process.BaseProcess:
            process = context.Process(
                target=_worker_main, args=(worker_config,), name=f"engine-worker-{index}"
            )
            process.start()
            return process

        workers = [start_worker(index) for index in range(config.workers)]
        log.info(
            "engine on %s with %d worker processes, %s",
            worker_config.listen,
            config.workers,
            describe_sealing(config),
        )
        if scrape is not None:
            address = _format_address(host, config.metrics_port)  # type: ignore[arg-type]
            log.info("engine metrics on http://%s/metrics", address)
        warn_if_unsealed(config)
        restarts_left = RESTARTS_PER_WORKER * config.workers
        exit_code = 0
        while not stop_requested:
            by_sentinel = {worker.sentinel: index for index, worker in enumerate(workers)}
            ready = multiprocessing.connection.wait([wake_reader, *by_sentinel])
            for item in ready:
                if stop_requested or item == wake_reader:
                    continue
                index = by_sentinel[item]  # type: ignore[index]
                dead = workers[index]
                dead.join()
                if dead.pid is not None:
                    metrics_server.worker_died(folder, dead.pid)
                if restarts_left == 0:
                    log.error("worker %d exited (code %s); giving up", index, dead.exitcode)
                    stop_requested, exit_code = True, 1
                    break
                restarts_left -= 1
                restarts.count += 1
                log.error("worker %d exited (code %s); restarting it", index, dead.exitcode)
                workers[index] = start_worker(index)
        log.info("stopping %d worker processes", len(workers))
        for worker in workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: the worker stops gracefully
        for worker in workers:
            worker.join(GRACE_SECONDS + 5)
            if worker.is_alive():
                log.error("worker %s did not stop in time; killing it", worker.name)
                worker.kill()
                worker.join()
        if scrape is not None:
            scrape.shutdown()
    os.close(wake_reader)
    os.close(wake_writer)
    log.info("engine stopped")
    return exit_code


def main() -> None:
    """The `patience-engine` command: serves from the environment until SIGINT/SIGTERM."""
    try:
        config = EngineConfig.from_env()
    except ValueError as error:
        logs.configure_logging("info")
        log.error("bad configuration: %s", error)
        sys.exit(2)
    logs.configure_logging(config.log_level)
    try:
        if config.workers == 1:
            asyncio.run(serve(config))
            return
        code = supervise(config)
    except OSError as error:
        log.error("%s", error)
        sys.exit(1)
    sys.exit(code)
