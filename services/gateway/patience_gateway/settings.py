"""The gateway's configuration, read from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit


def default_workers() -> int:
    """One gateway process per core: each serves requests on one core at most."""
    return os.cpu_count() or 1


def default_engine_channels() -> int:
    """Two connections per core, four at least: each reaches one engine process, chosen
    by the kernel at random, and ENGINE_WORKERS defaults to the cores too; with twice
    as many connections as processes, and calls sent to the less busy connection (see
    `patience_contract.client`), every process gets calls."""
    return max(4, 2 * (os.cpu_count() or 1))


# Winnable deals kept ready per variant (and options) by a running gateway. Settings made
# in code (tests, tools) keep none unless they ask: the pools are filled by background
# searches, which a test run on a shared machine should not pay for.
DEFAULT_WINNABLE_POOL_SIZE = 8


class SettingsError(ValueError):
    """An environment variable holds a value the gateway cannot use."""


def _positive_int(environ: Mapping[str, str], name: str, default: int, minimum: int = 1) -> int:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise SettingsError(f"{name} must be at least {minimum}, got {value}")
    return value


def _int_in(environ: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    value = _positive_int(environ, name, default)
    if not low <= value <= high:
        raise SettingsError(f"{name} must be from {low} to {high}, got {value}")
    return value


class OriginError(ValueError):
    """A CORS_ORIGINS entry that is not an origin."""


def parse_origins(raw: str) -> tuple[str, ...]:
    """CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`, no path), or `*`
    for any origin. Browsers send the origin lowercased and without a default port, so
    a configured one is compared in that form."""
    origins: list[str] = []
    for entry in raw.split(","):
        entry = entry.strip()
        if not entry:
            continue
        if entry == "*":
            origins.append(entry)
            continue
        origins.append(_normalised_origin(entry))
    return tuple(dict.fromkeys(origins))


def _normalised_origin(entry: str) -> str:
    parts = urlsplit(entry)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OriginError(f"{entry!r} is not an origin like https://example.com:8443")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise OriginError(f"{entry!r} is not an origin: no path, query or user part")
    try:
        port = parts.port
    except ValueError:
        raise OriginError(f"{entry!r} has an invalid port") from None
    default = 80 if parts.scheme == "http" else 443
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host}" + ("" if port in (None, default) else f":{port}")


def _origins(environ: Mapping[str, str], name: str) -> tuple[str, ...]:
    try:
        return parse_origins(environ.get(name, ""))
    except OriginError as error:
        raise SettingsError(f"{name}: {error}") from None


def _pool_sizes(environ: Mapping[str, str], name: str) -> tuple[tuple[str, int], ...]:
    """`variant=size` pairs, comma-separated; each size a whole number, 0 or more."""
    sizes: dict[str, int] = {}
    for pair in (p.strip() for p in environ.get(name, "").split(",")):
        if not pair:
            continue
        variant, _, raw = (part.strip() for part in pair.partition("="))
        if not variant or not (raw.isascii() and raw.isdigit()):
            raise SettingsError(
                f"{name} takes variant=size pairs, each size a whole number, got {pair!r}"
            )
        sizes[variant] = int(raw)
    return tuple(sorted(sizes.items()))


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def _flag(environ: Mapping[str, str], name: str) -> bool:
    raw = environ.get(name, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise SettingsError(f"{name} must be true or false, got {raw!r}")


def _switch(environ: Mapping[str, str], name: str, default: bool) -> bool:
    """`on` or `off` (or the other words a flag takes); unset or empty: `default`."""
    if not environ.get(name, "").strip():
        return default
    try:
        return _flag(environ, name)
    except SettingsError:
        raw = environ[name].strip()
        raise SettingsError(f"{name} must be on or off, got {raw!r}") from None


SPEED_PATHS_VARIABLE = "PATIENCE_SPEED_PATHS"
DEFAULT_GAME_TTL_SECONDS = 7 * 86400
# A player's game in play that has not changed for this long ends as abandoned. Less
# than the games' time to live, so the game is still there to end (and records).
DEFAULT_ABANDON_AFTER_SECONDS = 6 * 86400


def _player_token_keys(environ: Mapping[str, str]) -> tuple[str, ...]:
    """PLAYER_TOKEN_KEYS (comma-separated) or PLAYER_TOKEN_KEY_FILE (a line each, `#`
    comments): hex Ed25519 seeds, the current key first. Not both."""
    inline = environ.get("PLAYER_TOKEN_KEYS", "").strip()
    path = environ.get("PLAYER_TOKEN_KEY_FILE", "").strip()
    if inline and path:
        raise SettingsError("set PLAYER_TOKEN_KEYS or PLAYER_TOKEN_KEY_FILE, not both")
    if path:
        try:
            lines = Path(path).read_text(encoding="ascii").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise SettingsError(f"PLAYER_TOKEN_KEY_FILE {path!r} cannot be read: {error}") from None
        keys = [
            line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")
        ]
    else:
        keys = [part.strip() for part in inline.split(",") if part.strip()]
    for key in keys:
        if len(key) != 64 or not all(c in "0123456789abcdefABCDEF" for c in key):
            raise SettingsError("a player token key is 64 hex digits (an Ed25519 seed)")
    if path and not keys:
        raise SettingsError(f"PLAYER_TOKEN_KEY_FILE {path!r} holds no key")
    return tuple(keys)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the gateway needs to know about its surroundings."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    # REDIS_URL names nodes of a Redis Cluster (any one, or a comma-separated list).
    redis_cluster: bool = False
    # Every change waits until this many replicas confirm it (Redis WAIT); 0: no wait.
    redis_wait_replicas: int = 0
    # How long a change waits for them before it is answered 503 instead.
    redis_wait_timeout_ms: int = 1000
    engine_addr: str = "127.0.0.1:50051"
    # gRPC channels (each its own connections) the gateway spreads engine calls over.
    engine_channels: int = field(default_factory=default_engine_channels)
    game_ttl_seconds: int = DEFAULT_GAME_TTL_SECONDS
    max_body_bytes: int = 65536
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    # How long clients are told to wait (Retry-After) when Redis or the engine is down.
    retry_after_seconds: int = 1
    # Deadline of one engine call.
    engine_timeout_seconds: float = 5.0
    # Deadline of one Redis command.
    redis_timeout_seconds: float = 2.0
    # Origins whose pages may call the API from a browser (CORS); none by default.
    cors_origins: tuple[str, ...] = ()
    # The HTTP server (docs/operations.md, "HTTP limits"): worker processes on the port,
    # and what one client may hold of each.
    workers: int = field(default_factory=default_workers)
    # Time to receive a request's line and headers; also how long an idle kept-alive
    # connection stays open.
    header_timeout_seconds: int = 10
    # Time to receive a request's body, from the end of its headers.
    body_timeout_seconds: int = 10
    # Request line and headers together.
    max_header_bytes: int = 16384
    # Open connections per worker process; more wait in the listen backlog.
    max_connections: int = 10000
    # Seconds between the comment lines an idle event stream sends (keeps proxies from
    # closing it, and tells the client it is still connected).
    stream_heartbeat_seconds: int = 15
    # Winnable deals (`games.winnable`): proven deals kept ready per variant and options (0: no
    # pools, and no background searches; `from_env` keeps DEFAULT_WINNABLE_POOL_SIZE),
    # the time a create may search when its pool is empty, and the budget of each deal
    # tried.
    winnable_pool_size: int = 0
    # Sizes for some variants instead (WINNABLE_POOL_SIZES, `variant=size,...`): deeper
    # pools for the games whose deals are slow to prove, or 0 to keep none of one.
    winnable_pool_sizes: tuple[tuple[str, int], ...] = ()
    winnable_search_seconds: int = 10
    winnable_solve_milliseconds: int = 1000
    # positions each deal may search (0: the engine's default)
    winnable_solve_positions: int = 0
    # The speed paths (`patience_gateway.speed`); off: their reference code runs instead.
    speed_paths: bool = True
    # PostgreSQL, the system of record of players and their games ("": none, and the
    # player routes answer 503).
    database_url: str = ""
    # The keys of players' access tokens: hex Ed25519 seeds, the current one first.
    player_token_keys: tuple[str, ...] = ()
    access_token_seconds: int = 900
    # New players one client address may create per minute (abuse of sign-ups).
    new_players_per_minute: int = 20
    # How often the outbox drain looks for outboxes whose announcement was lost (a
    # gateway or Redis that died between a game's script and the announcement).
    outbox_sweep_seconds: int = 300
    # The variants with a daily deal (none named: every variant the engine has).
    daily_variants: tuple[str, ...] = ()
    abandon_after_seconds: int = DEFAULT_ABANDON_AFTER_SECONDS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        defaults = cls()
        return cls(
            redis_url=env.get("REDIS_URL") or defaults.redis_url,
            redis_cluster=_flag(env, "REDIS_CLUSTER"),
            redis_wait_replicas=_positive_int(
                env, "REDIS_WAIT_REPLICAS", defaults.redis_wait_replicas, minimum=0
            ),
            redis_wait_timeout_ms=_positive_int(
                env, "REDIS_WAIT_TIMEOUT_MS", defaults.redis_wait_timeout_ms
            ),
            engine_addr=env.get("ENGINE_ADDR") or defaults.engine_addr,
            engine_channels=_positive_int(env, "ENGINE_CHANNELS", defaults.engine_channels),
            game_ttl_seconds=_positive_int(env, "GAME_TTL_SECONDS", defaults.game_ttl_seconds),
            max_body_bytes=_positive_int(env, "MAX_BODY_BYTES", defaults.max_body_bytes),
            host=env.get("GATEWAY_HOST") or defaults.host,
            port=_positive_int(env, "GATEWAY_PORT", defaults.port),
            log_level=(env.get("LOG_LEVEL") or defaults.log_level).lower(),
            cors_origins=_origins(env, "CORS_ORIGINS"),
            workers=_positive_int(env, "GATEWAY_WORKERS", defaults.workers),
            header_timeout_seconds=_int_in(
                env, "GATEWAY_HEADER_TIMEOUT_SECONDS", defaults.header_timeout_seconds, 1, 60
            ),
            body_timeout_seconds=_positive_int(
                env, "GATEWAY_BODY_TIMEOUT_SECONDS", defaults.body_timeout_seconds
            ),
            max_header_bytes=_int_in(
                env, "GATEWAY_MAX_HEADER_BYTES", defaults.max_header_bytes, 8192, 1 << 20
            ),
            max_connections=_positive_int(env, "GATEWAY_MAX_CONNECTIONS", defaults.max_connections),
            stream_heartbeat_seconds=_positive_int(
                env, "STREAM_HEARTBEAT_SECONDS", defaults.stream_heartbeat_seconds
            ),
            winnable_pool_size=_positive_int(
                env, "WINNABLE_POOL_SIZE", DEFAULT_WINNABLE_POOL_SIZE, minimum=0
            ),
            winnable_pool_sizes=_pool_sizes(env, "WINNABLE_POOL_SIZES"),
            winnable_search_seconds=_int_in(
                env, "WINNABLE_SEARCH_SECONDS", defaults.winnable_search_seconds, 1, 60
            ),
            winnable_solve_milliseconds=_int_in(
                env, "WINNABLE_SOLVE_MILLISECONDS", defaults.winnable_solve_milliseconds, 10, 60000
            ),
            winnable_solve_positions=_positive_int(
                env, "WINNABLE_SOLVE_POSITIONS", defaults.winnable_solve_positions, minimum=0
            ),
            speed_paths=_switch(env, SPEED_PATHS_VARIABLE, defaults.speed_paths),
            database_url=env.get("DATABASE_URL", "").strip(),
            player_token_keys=_player_token_keys(env),
            access_token_seconds=_int_in(
                env, "ACCESS_TOKEN_SECONDS", defaults.access_token_seconds, 60, 86400
            ),
            abandon_after_seconds=_abandon_after(env),
            new_players_per_minute=_positive_int(
                env, "NEW_PLAYERS_PER_MINUTE", defaults.new_players_per_minute
            ),
            outbox_sweep_seconds=_positive_int(
                env, "OUTBOX_SWEEP_SECONDS", defaults.outbox_sweep_seconds
            ),
            daily_variants=tuple(
                v.strip() for v in env.get("DAILY_VARIANTS", "").split(",") if v.strip()
            ),
        )


def _abandon_after(env: Mapping[str, str]) -> int:
    """ABANDON_AFTER_SECONDS: less than the games' time to live, so that a game is ended
    as abandoned while it is still kept (by default 6 days, or 6/7 of a shorter time
    to live)."""
    ttl = _positive_int(env, "GAME_TTL_SECONDS", DEFAULT_GAME_TTL_SECONDS)
    default = min(DEFAULT_ABANDON_AFTER_SECONDS, ttl * 6 // 7)
    value = _positive_int(env, "ABANDON_AFTER_SECONDS", default, minimum=1)
    if value >= ttl:
        raise SettingsError(
            f"ABANDON_AFTER_SECONDS ({value}) must be less than GAME_TTL_SECONDS ({ttl}): "
            "a game is ended as abandoned while it is still kept"
        )
    return value
