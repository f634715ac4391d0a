"""The engine's settings, read from the environment (see EngineConfig.from_env)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

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
# The environment variable that turns the speed paths off (patience_engine.encoding);
# the gateway reads the same one for its own.
SPEED_PATHS_SETTING = "PATIENCE_SPEED_PATHS"


def _default_workers() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """listen: host:port to bind (port 0 picks a free one);
    workers: processes sharing the port (SO_REUSEPORT);
    seal_key: the secret states are sealed with (patience_engine.sealing), None for plain
    states (an unsafe development mode);
    old_seal_keys: earlier secrets, which still open the states they sealed;
    max_message_bytes: largest request or reply, in bytes;
    solver_processes: search processes (Solve, Hint) per server process;
    solver_queue: searches that may wait for a search process, per server process;
    search_niceness: how far below the server the search processes run (nice, 0 to 19);
    speed_paths: replies written by the hand-written speed path (the default), or, when
    False, by protobuf's own serializer (patience_engine.encoding);
    metrics_port: the port of the metrics over HTTP (GET /metrics, on the host of
    `listen`), None for none (patience_engine.metrics_server)."""

    listen: str = DEFAULT_LISTEN
    workers: int = field(default_factory=_default_workers)
    seal_key: bytes | None = field(default=None, repr=False)
    old_seal_keys: tuple[bytes, ...] = field(default=(), repr=False)
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    solver_processes: int = DEFAULT_SOLVER_PROCESSES
    solver_queue: int = DEFAULT_SOLVER_QUEUE
    search_niceness: int = DEFAULT_SEARCH_NICENESS
    speed_paths: bool = True
    metrics_port: int | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")
        if self.max_message_bytes < 1:
            raise ValueError(f"max_message_bytes must be positive, not {self.max_message_bytes}")
        if self.solver_processes < 1:
            raise ValueError(f"solver_processes must be at least 1, not {self.solver_processes}")
        if self.solver_queue < 0:
            raise ValueError(f"solver_queue cannot be negative, not {self.solver_queue}")
        if not 0 <= self.search_niceness <= MAX_NICENESS:
            raise ValueError(
                f"search_niceness must be from 0 to {MAX_NICENESS}, not {self.search_niceness}"
            )
        split_host_port(self.listen)
        if self.metrics_port is not None and not 1 <= self.metrics_port <= 65535:
            raise ValueError(f"the metrics port must be from 1 to 65535, not {self.metrics_port}")
        if self.old_seal_keys and not self.seal_key:
            raise ValueError("old seal keys need a current key (ENGINE_SEAL_KEY)")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineConfig:
        """ENGINE_LISTEN, ENGINE_WORKERS, ENGINE_SEAL_KEY or ENGINE_SEAL_KEY_FILE,
        ENGINE_OLD_SEAL_KEYS, ENGINE_MAX_MESSAGE_BYTES, ENGINE_SOLVER_PROCESSES,
        ENGINE_SOLVER_QUEUE, ENGINE_SEARCH_NICENESS, PATIENCE_SPEED_PATHS,
        ENGINE_METRICS_PORT."""
        env = os.environ if environ is None else environ
        keys = seal_keys_from_env(env)
        return cls(
            listen=env.get("ENGINE_LISTEN", "") or DEFAULT_LISTEN,
            workers=_positive_int(env, "ENGINE_WORKERS", _default_workers()),
            seal_key=keys[0] if keys else None,
            old_seal_keys=tuple(keys[1:]),
            max_message_bytes=_positive_int(
                env, "ENGINE_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES
            ),
            solver_processes=_positive_int(
                env, "ENGINE_SOLVER_PROCESSES", DEFAULT_SOLVER_PROCESSES
            ),
            solver_queue=_whole_number(env, "ENGINE_SOLVER_QUEUE", DEFAULT_SOLVER_QUEUE),
            search_niceness=_int_setting(
                env,
                "ENGINE_SEARCH_NICENESS",
                DEFAULT_SEARCH_NICENESS,
                minimum=0,
                maximum=MAX_NICENESS,
            ),
            speed_paths=speed_paths_from_env(env),
            metrics_port=_positive_int(env, "ENGINE_METRICS_PORT", 0) or None,
        )


def speed_paths_from_env(env: Mapping[str, str]) -> bool:
    """Whether PATIENCE_SPEED_PATHS leaves the speed paths on: "on" (or unset, or empty)
    for on, "off" for off; anything else is refused rather than guessed."""
    text = env.get(SPEED_PATHS_SETTING, "").strip()
    if text in ("", "on"):
        return True
    if text == "off":
        return False
    raise ValueError(f"{SPEED_PATHS_SETTING} must be on or off, not {text!r}")


def seal_keys_from_env(env: Mapping[str, str]) -> list[bytes]:
    """The seal keys the environment names, the current one first; empty for none.

    ENGINE_SEAL_KEY holds the current key, or ENGINE_SEAL_KEY_FILE names a key file
    (`read_key_file`); ENGINE_OLD_SEAL_KEYS adds earlier keys, comma-separated."""
    key = env.get("ENGINE_SEAL_KEY", "").strip()
    key_file = env.get("ENGINE_SEAL_KEY_FILE", "").strip()
    if key and key_file:
        raise ValueError("set ENGINE_SEAL_KEY or ENGINE_SEAL_KEY_FILE, not both")
    keys = read_key_file(Path(key_file)) if key_file else [key] if key else []
    old = [part.strip() for part in env.get("ENGINE_OLD_SEAL_KEYS", "").split(",")]
    keys.extend(part for part in old if part and part not in keys)
    if keys and not (key or key_file):
        raise ValueError("ENGINE_OLD_SEAL_KEYS needs a current key (ENGINE_SEAL_KEY)")
    return [text.encode() for text in keys]


def read_key_file(path: Path) -> list[str]:
    """The keys in a key file: one a line, the current key first, then old keys that
    still open what they sealed; blank lines and lines starting with # are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read the seal key file {path}: {error}") from None
    keys = [line.strip() for line in text.splitlines()]
    keys = [key for key in keys if key and not key.startswith("#")]
    if not keys:
        raise ValueError(f"the seal key file {path} holds no key")
    return keys


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    return _int_setting(env, name, default, minimum=1)


def _whole_number(env: Mapping[str, str], name: str, default: int) -> int:
    return _int_setting(env, name, default, minimum=0)


def _int_setting(
    env: Mapping[str, str], name: str, default: int, *, minimum: int, maximum: int | None = None
) -> int:
    """The whole number `name` sets (the default when unset), refused below `minimum`
    (and above `maximum`, when given)."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {text!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, not {value}")
    return value


def split_host_port(address: str) -> tuple[str, int]:
    """("127.0.0.1", 50051) from "127.0.0.1:50051"; IPv6 hosts in brackets ("[::1]:0")."""
    host, sep, port_text = address.rpartition(":")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"listen address must be host:port, not {address!r}")
    return host.removeprefix("[").removesuffix("]"), int(port_text)
