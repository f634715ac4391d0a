"""The engine's settings: each field with the environment variable it is read from
(`EngineConfig.from_env`; patience_contract.settings says how every variable is read)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from patience_contract import key_files
from patience_contract.key_files import KeyProblem
from patience_contract.settings import (
    LOG_LEVEL,
    SPEED_PATHS,
    check_settings,
    comma_list,
    declared,
    read_settings,
    variable,
)

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_MAX_MESSAGE_BYTES = 1_048_576
# Search processes per server process. One: each server process (ENGINE_WORKERS, one per
# core by default) then adds one search at a time, so searches alone can use every core
# but never more, and moves keep the share the kernel gives their processes.
DEFAULT_SOLVER_PROCESSES = 1
# Searches waiting for a search process, per server process: a few hints' worth (each at
# most HINT_BUDGET, 0.8 s); more would wait past the deadlines callers usually set.
DEFAULT_SOLVER_QUEUE = 4
# How far below the server's own processes the search processes run (nice, 0 to 19). The
# lowest: where cores are short, searches (a pool refill, a hint) get only the CPU that
# moves leave over (bench/README.md, "Searches beside moves").
DEFAULT_SEARCH_NICENESS = 19
MAX_NICENESS = 19
# A hint's time when its request names none (HINT_BUDGET: under a second), and the most a
# request may ask for (patience_engine.search_budgets).
DEFAULT_HINT_MILLISECONDS = 800
MAX_HINT_MILLISECONDS = 5_000


def _default_workers() -> int:
    return os.cpu_count() or 1


def split_host_port(address: str) -> tuple[str, int]:
    """("127.0.0.1", 50051) from "127.0.0.1:50051"; IPv6 hosts in brackets ("[::1]:0")."""
    host, sep, port_text = address.rpartition(":")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"listen address must be host:port, not {address!r}")
    return host.removeprefix("[").removesuffix("]"), int(port_text)


def _address(text: str) -> str:
    split_host_port(text)
    return text


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """How one engine runs. Made in code, it is checked as the environment's values are
    (ValueError); the seal keys come from SealKeySettings."""

    listen: Annotated[
        str,
        variable("ENGINE_LISTEN", "host:port to bind (port 0 picks a free one)", parse=_address),
    ] = DEFAULT_LISTEN
    workers: Annotated[
        int, variable("ENGINE_WORKERS", "processes sharing the port (SO_REUSEPORT)", ge=1)
    ] = field(default_factory=_default_workers)
    # The secret states are sealed with (patience_engine.sealing), None for plain states
    # (an unsafe development mode); earlier secrets, which still open what they sealed.
    seal_key: bytes | None = field(default=None, repr=False)
    old_seal_keys: tuple[bytes, ...] = field(default=(), repr=False)
    max_message_bytes: Annotated[
        int, variable("ENGINE_MAX_MESSAGE_BYTES", "largest request or reply, in bytes", ge=1)
    ] = DEFAULT_MAX_MESSAGE_BYTES
    solver_processes: Annotated[
        int,
        variable("ENGINE_SOLVER_PROCESSES", "search processes (Solve, Hint) per process", ge=1),
    ] = DEFAULT_SOLVER_PROCESSES
    solver_queue: Annotated[
        int,
        variable("ENGINE_SOLVER_QUEUE", "searches that may wait, per server process", ge=0),
    ] = DEFAULT_SOLVER_QUEUE
    search_niceness: Annotated[
        int,
        variable(
            "ENGINE_SEARCH_NICENESS",
            "how far below the server the search processes run (nice)",
            ge=0,
            le=MAX_NICENESS,
        ),
    ] = DEFAULT_SEARCH_NICENESS
    # Off: replies written by protobuf's own serializer (patience_engine.encoding).
    speed_paths: Annotated[bool, SPEED_PATHS] = True
    metrics_port: Annotated[
        int | None,
        variable(
            "ENGINE_METRICS_PORT",
            "the port of GET /metrics on the host of ENGINE_LISTEN; unset: none",
            ge=1,
            le=65535,
        ),
    ] = None
    log_level: Annotated[str, LOG_LEVEL] = "info"
    hint_milliseconds: Annotated[
        int,
        variable(
            "ENGINE_HINT_MILLISECONDS",
            "the time a hint searches when its request names none, in milliseconds",
            ge=1,
            le=MAX_HINT_MILLISECONDS,
        ),
    ] = DEFAULT_HINT_MILLISECONDS

    def __post_init__(self) -> None:
        check_settings(self)
        if self.old_seal_keys and not self.seal_key:
            raise ValueError("old seal keys need a current key (ENGINE_SEAL_KEY)")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineConfig:
        """The settings the environment (default: this process's) gives; SettingsError
        (a ValueError) naming the variable whose value cannot be used."""
        keys = read_settings(SealKeySettings, environ).keys()
        return read_settings(
            cls, environ, seal_key=keys[0] if keys else None, old_seal_keys=tuple(keys[1:])
        )


@dataclass(frozen=True, slots=True)
class SealKeySettings:
    """Where the seal keys come from: a key inline or a key file (not both), and old
    keys beside them."""

    key: Annotated[str, variable("ENGINE_SEAL_KEY", "the current key: any secret text")] = ""
    key_file: Annotated[
        Path | None,
        variable("ENGINE_SEAL_KEY_FILE", "a key file: the current key first, then old keys"),
    ] = None
    old_keys: Annotated[
        tuple[str, ...],
        variable(
            "ENGINE_OLD_SEAL_KEYS",
            "earlier keys, comma-separated: they open the states they sealed",
            parse=comma_list,
        ),
    ] = ()

    def keys(self) -> list[bytes]:
        """The keys, the current one first; none for plain states."""
        names = (declared(SealKeySettings, "key").name, declared(SealKeySettings, "key_file").name)
        inline = [self.key] if self.key else []
        keys = key_files.given_keys(inline, self.key_file, names=names, what="seal")
        if self.old_keys and not keys:
            old = declared(SealKeySettings, "old_keys").name
            raise KeyProblem(f"{old} needs a current key ({names[0]} or {names[1]})")
        for old in self.old_keys:
            if old not in keys:
                keys.append(old)
        return [key.encode() for key in keys]


def speed_paths_from_env(environ: Mapping[str, str]) -> bool:
    """Whether PATIENCE_SPEED_PATHS leaves the speed paths on."""
    return read_settings(EngineConfig, environ).speed_paths
