"""The engine's settings, read from the environment (see EngineConfig.from_env)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_MAX_MESSAGE_BYTES = 1_048_576


def _default_workers() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """listen: host:port to bind (port 0 picks a free one);
    workers: processes sharing the port (SO_REUSEPORT);
    seal_key: HMAC key for sealing states, None for unsealed states;
    max_message_bytes: largest request or reply, in bytes."""

    listen: str = DEFAULT_LISTEN
    workers: int = field(default_factory=_default_workers)
    seal_key: bytes | None = field(default=None, repr=False)
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")
        if self.max_message_bytes < 1:
            raise ValueError(f"max_message_bytes must be positive, not {self.max_message_bytes}")
        split_host_port(self.listen)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineConfig:
        """ENGINE_LISTEN, ENGINE_WORKERS, ENGINE_SEAL_KEY, ENGINE_MAX_MESSAGE_BYTES."""
        env = os.environ if environ is None else environ
        key = env.get("ENGINE_SEAL_KEY", "")
        return cls(
            listen=env.get("ENGINE_LISTEN", "") or DEFAULT_LISTEN,
            workers=_positive_int(env, "ENGINE_WORKERS", _default_workers()),
            seal_key=key.encode() if key else None,
            max_message_bytes=_positive_int(
                env, "ENGINE_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES
            ),
        )


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {text!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}")
    return value


def split_host_port(address: str) -> tuple[str, int]:
    """("127.0.0.1", 50051) from "127.0.0.1:50051"; IPv6 hosts in brackets ("[::1]:0")."""
    host, sep, port_text = address.rpartition(":")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError(f"listen address must be host:port, not {address!r}")
    return host.removeprefix("[").removesuffix("]"), int(port_text)
