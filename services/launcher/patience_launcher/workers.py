"""How many engine and gateway processes `patience serve` runs on this machine.

Each default is that service's share of the cores, in proportion to the CPU time it
spends on one move through the whole stack (bench/README.md, "Server CPU per request by
process": gateway 819 µs, engine 431 µs, Redis 95 µs). What is left over goes to Redis,
which is one process whatever the machine. On 2 cores: 1 gateway + 1 engine process; on
4: 2 + 1; on 8: 5 + 3; on 16: 10 + 5.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from patience_contract.settings import read_settings

from patience_launcher.settings import LauncherSettings

GATEWAY_CPU_PER_MOVE = 819
ENGINE_CPU_PER_MOVE = 431
REDIS_CPU_PER_MOVE = 95
_TOTAL = GATEWAY_CPU_PER_MOVE + ENGINE_CPU_PER_MOVE + REDIS_CPU_PER_MOVE


@dataclass(frozen=True)
class WorkerSplit:
    engine: int
    gateway: int


def cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's cpuset)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def share(cpu_per_move: int, available: int) -> int:
    return max(1, round(available * cpu_per_move / _TOTAL))


def split_workers(
    engine: int | None,
    gateway: int | None,
    environ: Mapping[str, str] | None = None,
    available: int | None = None,
) -> WorkerSplit:
    """The flags when given, else ENGINE_WORKERS / GATEWAY_WORKERS (SettingsError for a
    count that is not one), else each service's share of the cores."""
    settings = read_settings(LauncherSettings, environ)
    available = available if available is not None else cores()
    engine = engine if engine is not None else settings.engine_workers
    gateway = gateway if gateway is not None else settings.gateway_workers
    return WorkerSplit(
        engine=engine if engine is not None else share(ENGINE_CPU_PER_MOVE, available),
        gateway=gateway if gateway is not None else share(GATEWAY_CPU_PER_MOVE, available),
    )
