"""What the launcher reads from its environment (patience_contract.settings says how):
its own variables, and the few of the services' that it must know before it starts them
(where Redis is, their addresses and processes), read with the services' own
declarations, so that a value means to the launcher what it means to the service. The
rest of the environment is passed to the services, which read it themselves."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from patience_contract.settings import declared, variable
from patience_engine.config import DEFAULT_LISTEN, DEFAULT_SOLVER_PROCESSES, EngineConfig
from patience_gateway.settings import Settings as GatewaySettings

DEFAULT_DATA_FOLDER = ".patience"


@dataclass(frozen=True, slots=True)
class LauncherSettings:
    """The launcher's settings; None where the launcher chooses (a share of the cores,
    a free port)."""

    data_dir: Annotated[
        Path,
        variable(
            "PATIENCE_DATA_DIR", "the data folder: the embedded servers' data and the key files"
        ),
    ] = Path(DEFAULT_DATA_FOLDER)
    # Unset: an embedded Redis.
    redis_url: Annotated[str, declared(GatewaySettings, "redis_url")] = ""
    redis_cluster: Annotated[bool, declared(GatewaySettings, "redis_cluster")] = False
    engine_addr: Annotated[str, declared(GatewaySettings, "engine_addr")] = DEFAULT_LISTEN
    gateway_host: Annotated[str, declared(GatewaySettings, "host")] = "127.0.0.1"
    gateway_port: Annotated[int, declared(GatewaySettings, "port")] = 8000
    gateway_workers: Annotated[int | None, declared(GatewaySettings, "workers")] = None
    cors_origins: Annotated[tuple[str, ...], declared(GatewaySettings, "cors_origins")] = ()
    engine_listen: Annotated[str, declared(EngineConfig, "listen")] = DEFAULT_LISTEN
    engine_workers: Annotated[int | None, declared(EngineConfig, "workers")] = None
    solver_processes: Annotated[int, declared(EngineConfig, "solver_processes")] = (
        DEFAULT_SOLVER_PROCESSES
    )
    engine_metrics_port: Annotated[int | None, declared(EngineConfig, "metrics_port")] = None
    # The folder of the gateway's metrics files (prometheus_client's multiprocess mode).
    metrics_dir: Annotated[
        Path | None,
        variable("PROMETHEUS_MULTIPROC_DIR", "the gateway's metrics folder; unset: one per run"),
    ] = None


@dataclass(frozen=True, slots=True)
class ServerBinaries:
    """Which Redis and PostgreSQL the launcher, and the tests' and the bench's embedded
    servers, run; unset: found on PATH, else the ones the wheels ship."""

    redis_server: Annotated[
        Path | None, variable("REDIS_SERVER", "the redis-server binary to run")
    ] = None
    postgres_bin_dir: Annotated[
        Path | None, variable("POSTGRES_BIN_DIR", "the folder of postgres and initdb")
    ] = None
