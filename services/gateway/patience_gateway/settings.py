"""The gateway's settings: each field with the environment variable it is read from
(`Settings.from_env`; patience_contract.settings says how every variable is read)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from patience_contract import key_files
from patience_contract.key_files import KeyProblem
from patience_contract.settings import (
    LOG_LEVEL,
    SPEED_PATHS,
    SettingsError,
    comma_list,
    declared,
    is_set,
    read_settings,
    variable,
)

__all__ = [
    "DEFAULT_WINNABLE_POOL_SIZE",
    "SPEED_PATHS_VARIABLE",
    "IdentityIssuer",
    "OriginError",
    "Settings",
    "SettingsError",
    "TokenKeySettings",
    "parse_origins",
]

SPEED_PATHS_VARIABLE = SPEED_PATHS.name


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
DEFAULT_GAME_TTL_SECONDS = 7 * 86400
# A player's game in play that has not changed for this long ends as abandoned. Less
# than the games' time to live, so the game is still there to end (and records).
DEFAULT_ABANDON_AFTER_SECONDS = 6 * 86400


@dataclass(frozen=True, slots=True)
class IdentityIssuer:
    """An OpenID Connect issuer whose ID tokens sign players in (docs/operations.md,
    "Outside identities"): its `iss`, the `aud` its tokens carry for this app (the
    app's client id there), and the address of its JSON Web Key Set."""

    issuer: str
    audience: str
    jwks_url: str


def parse_issuers(raw: str) -> tuple[IdentityIssuer, ...]:
    """IDENTITY_ISSUERS: a JSON array of {"issuer", "audience", "jwks_url"} objects."""
    if not raw.strip():
        return ()
    try:
        entries = json.loads(raw)
    except ValueError as error:
        raise ValueError(f"is not JSON: {error}") from None
    if not isinstance(entries, list):
        raise ValueError('takes a JSON array of {"issuer", "audience", "jwks_url"} objects')
    issuers: dict[str, IdentityIssuer] = {}
    for entry in entries:
        fields = ("issuer", "audience", "jwks_url")
        if not isinstance(entry, dict) or set(entry) != set(fields):
            raise ValueError(f"each issuer is an object of exactly {', '.join(fields)}")
        if not all(isinstance(entry[name], str) and entry[name] for name in fields):
            raise ValueError(f"each of {', '.join(fields)} is a non-empty string")
        if urlsplit(entry["jwks_url"]).scheme not in ("http", "https"):
            raise ValueError(f"jwks_url {entry['jwks_url']!r} is not an http(s) address")
        if entry["issuer"] in issuers:
            raise ValueError(f"the issuer {entry['issuer']!r} is named twice")
        issuers[entry["issuer"]] = IdentityIssuer(
            entry["issuer"], entry["audience"], entry["jwks_url"]
        )
    return tuple(issuers.values())


class OriginError(ValueError):
    """A CORS_ORIGINS entry that is not an origin."""


def parse_origins(raw: str) -> tuple[str, ...]:
    """CORS_ORIGINS: comma-separated origins (`scheme://host[:port]`, no path), or `*`
    for any origin. Browsers send the origin lowercased and without a default port, so
    a configured one is compared in that form."""
    origins = [entry if entry == "*" else _normalised_origin(entry) for entry in comma_list(raw)]
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


def _pool_sizes(raw: str) -> tuple[tuple[str, int], ...]:
    """`variant=size` pairs, comma-separated; each size a whole number, 0 or more."""
    sizes: dict[str, int] = {}
    for pair in comma_list(raw):
        variant, _, size = (part.strip() for part in pair.partition("="))
        if not variant or not (size.isascii() and size.isdigit()):
            raise ValueError(f"takes variant=size pairs, each size a whole number, got {pair!r}")
        sizes[variant] = int(size)
    return tuple(sorted(sizes.items()))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the gateway needs to know about its surroundings. Made in code, it is
    taken as it is (tests shorten what the environment could not)."""

    redis_url: Annotated[
        str, variable("REDIS_URL", "the Redis server, or nodes of a Redis Cluster")
    ] = "redis://127.0.0.1:6379/0"
    redis_cluster: Annotated[
        bool, variable("REDIS_CLUSTER", "REDIS_URL names nodes of a Redis Cluster")
    ] = False
    redis_wait_replicas: Annotated[
        int,
        variable("REDIS_WAIT_REPLICAS", "replicas that confirm every change (0: none)", ge=0),
    ] = 0
    redis_wait_timeout_ms: Annotated[
        int,
        variable("REDIS_WAIT_TIMEOUT_MS", "how long a change waits for them (then 503)", ge=1),
    ] = 1000
    engine_addr: Annotated[str, variable("ENGINE_ADDR", "the engine's gRPC target")] = (
        "127.0.0.1:50051"
    )
    engine_channels: Annotated[
        int, variable("ENGINE_CHANNELS", "gRPC channels engine calls are spread over", ge=1)
    ] = field(default_factory=default_engine_channels)
    game_ttl_seconds: Annotated[
        int, variable("GAME_TTL_SECONDS", "how long an unused game is kept", ge=1)
    ] = DEFAULT_GAME_TTL_SECONDS
    max_body_bytes: Annotated[int, variable("MAX_BODY_BYTES", "largest request body", ge=1)] = 65536
    host: Annotated[str, variable("GATEWAY_HOST", "the address to listen on")] = "127.0.0.1"
    port: Annotated[int, variable("GATEWAY_PORT", "the port to listen on", ge=1, le=65535)] = 8000
    # Answered by /livez and /readyz (Instance-Id): whoever started this gateway knows it
    # reached this one, and no other server on the port (`patience serve` gives each
    # start a random one).
    instance_id: Annotated[
        str, variable("GATEWAY_INSTANCE_ID", "the id /livez and /readyz answer with")
    ] = ""
    # /metrics on a port of its own, served by the main process for every worker (0: on
    # the API port, as `patience serve` has it); Kubernetes keeps the API port public and
    # this one to Prometheus (docs/operations.md, Metrics).
    metrics_port: Annotated[
        int,
        variable(
            "GATEWAY_METRICS_PORT",
            "serve /metrics on this port, not on the API's (0: on the API's)",
            ge=0,
            le=65535,
        ),
    ] = 0
    # The source commit of the running build, for patience_gateway_build_info.
    commit: Annotated[
        str, variable("PATIENCE_COMMIT", "the source commit the image was built from")
    ] = ""
    log_level: Annotated[str, LOG_LEVEL] = "info"
    # Apart from LOG_LEVEL: production logs from warning up, and a player's Request-Id
    # must still find its request's line.
    access_log: Annotated[
        bool,
        variable(
            "GATEWAY_ACCESS_LOG",
            "one line per request (info level) whatever LOG_LEVEL says; off: none",
        ),
    ] = True
    # How long clients are told to wait (Retry-After) when Redis or the engine is down.
    retry_after_seconds: int = 1
    # Deadline of one engine call.
    engine_timeout_seconds: float = 5.0
    # Deadline of one Redis command.
    redis_timeout_seconds: float = 2.0
    cors_origins: Annotated[
        tuple[str, ...],
        variable(
            "CORS_ORIGINS",
            "origins whose pages may call the API from a browser, or *; none by default",
            parse=parse_origins,
        ),
    ] = ()
    # The HTTP server (docs/operations.md, "HTTP limits").
    workers: Annotated[int, variable("GATEWAY_WORKERS", "worker processes on the port", ge=1)] = (
        field(default_factory=default_workers)
    )
    header_timeout_seconds: Annotated[
        int,
        variable(
            "GATEWAY_HEADER_TIMEOUT_SECONDS",
            "time to receive a request's line and headers; also how long an idle kept-alive "
            "connection stays open",
            ge=1,
            le=60,
        ),
    ] = 10
    body_timeout_seconds: Annotated[
        int,
        variable("GATEWAY_BODY_TIMEOUT_SECONDS", "time to receive a body, after its headers", ge=1),
    ] = 10
    max_header_bytes: Annotated[
        int,
        variable(
            "GATEWAY_MAX_HEADER_BYTES", "request line and headers together", ge=8192, le=1 << 20
        ),
    ] = 16384
    max_connections: Annotated[
        int,
        variable("GATEWAY_MAX_CONNECTIONS", "open connections per worker process", ge=1),
    ] = 10000
    stream_heartbeat_seconds: Annotated[
        int,
        variable(
            "STREAM_HEARTBEAT_SECONDS",
            "seconds between the comment lines of an idle event stream",
            ge=1,
        ),
    ] = 15
    # Winnable deals (`games.winnable`): with 0, no pools and no background searches;
    # `from_env` keeps DEFAULT_WINNABLE_POOL_SIZE.
    winnable_pool_size: Annotated[
        int,
        variable("WINNABLE_POOL_SIZE", "proven deals kept ready per variant and options", ge=0),
    ] = 0
    winnable_pool_sizes: Annotated[
        tuple[tuple[str, int], ...],
        variable(
            "WINNABLE_POOL_SIZES",
            "variant=size pairs: other pool sizes for some variants (0: no pool)",
            parse=_pool_sizes,
        ),
    ] = ()
    winnable_search_seconds: Annotated[
        int,
        variable(
            "WINNABLE_SEARCH_SECONDS", "the most a create searches with its pool empty", ge=1, le=60
        ),
    ] = 10
    # A tenth of a second: the deals proven in that time are most of those proven within a
    # second, so a short search of many deals proves more of them a second than a long one
    # of few (docs/api.md, "Winnable deals").
    winnable_solve_milliseconds: Annotated[
        int,
        variable("WINNABLE_SOLVE_MILLISECONDS", "the budget of each deal tried", ge=10, le=60000),
    ] = 100
    winnable_solve_positions: Annotated[
        int,
        variable(
            "WINNABLE_SOLVE_POSITIONS", "positions each deal may search (0: the engine's)", ge=0
        ),
    ] = 0
    # The speed paths (`patience_gateway.speed`); off: their reference code runs instead.
    speed_paths: Annotated[bool, SPEED_PATHS] = True
    database_url: Annotated[
        str,
        variable("DATABASE_URL", "the PostgreSQL of players and records (none: routes 503)"),
    ] = ""
    # The keys of players' access tokens: hex Ed25519 seeds, the current one first
    # (TokenKeySettings).
    player_token_keys: tuple[str, ...] = ()
    access_token_seconds: Annotated[
        int,
        variable("ACCESS_TOKEN_SECONDS", "the lifetime of an access token", ge=60, le=86400),
    ] = 900
    # Outside identities (`players.outside_identities`; docs/operations.md).
    identity_issuers: Annotated[
        tuple[IdentityIssuer, ...],
        variable(
            "IDENTITY_ISSUERS",
            'OpenID Connect issuers players sign in with: a JSON array of {"issuer", '
            '"audience", "jwks_url"}; none by default',
            parse=parse_issuers,
        ),
    ] = ()
    identity_keys_seconds: Annotated[
        int,
        variable(
            "IDENTITY_KEYS_SECONDS",
            "how long an issuer's key set is used before it is fetched again",
            ge=1,
        ),
    ] = 300
    identity_refetch_seconds: Annotated[
        int,
        variable(
            "IDENTITY_REFETCH_SECONDS",
            "the least time between two fetches of an issuer's keys for a key id it did not list",
            ge=0,
        ),
    ] = 30
    new_players_per_minute: Annotated[
        int,
        variable("NEW_PLAYERS_PER_MINUTE", "new players one client address may create", ge=1),
    ] = 20
    outbox_sweep_seconds: Annotated[
        int,
        variable(
            "OUTBOX_SWEEP_SECONDS",
            "how often the outbox drain looks for outboxes whose announcement was lost",
            ge=1,
        ),
    ] = 300
    daily_variants: Annotated[
        tuple[str, ...],
        variable(
            "DAILY_VARIANTS", "the variants with a daily deal (none: every one)", parse=comma_list
        ),
    ] = ()
    # The operators' routes (docs/operations.md, "Moderation"): none without it.
    operator_key: Annotated[
        str,
        variable(
            "OPERATOR_KEY",
            "the bearer token of the operators' routes, 32 characters or more (none: refused)",
        ),
    ] = ""
    # From the environment, less than the games' time to live (`from_env`).
    abandon_after_seconds: Annotated[
        int,
        variable("ABANDON_AFTER_SECONDS", "a player's game untouched this long ends", ge=1),
    ] = DEFAULT_ABANDON_AFTER_SECONDS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings the environment (default: this process's) gives; SettingsError
        naming the variable whose value cannot be used. ABANDON_AFTER_SECONDS must be
        less than GAME_TTL_SECONDS, so that a game is ended as abandoned while it is
        still kept: by default 6 days, or 6/7 of a shorter time to live."""
        keys = read_settings(TokenKeySettings, environ).keys()
        settings = read_settings(
            cls,
            environ,
            winnable_pool_size=DEFAULT_WINNABLE_POOL_SIZE,
            player_token_keys=tuple(keys),
        )
        ttl = settings.game_ttl_seconds
        if not is_set(cls, "abandon_after_seconds", environ):
            settings = replace(
                settings, abandon_after_seconds=min(DEFAULT_ABANDON_AFTER_SECONDS, ttl * 6 // 7)
            )
        if settings.abandon_after_seconds >= ttl:
            raise SettingsError(
                f"ABANDON_AFTER_SECONDS ({settings.abandon_after_seconds}) must be less than "
                f"GAME_TTL_SECONDS ({ttl}): a game is ended as abandoned while it is still kept"
            )
        return settings


_TOKEN_KEY = re.compile(r"[0-9a-fA-F]{64}")


@dataclass(frozen=True, slots=True)
class TokenKeySettings:
    """Where the keys of players' access tokens come from: inline or a key file, not
    both; each an Ed25519 seed in hex, the signing key first."""

    inline: Annotated[
        tuple[str, ...],
        variable("PLAYER_TOKEN_KEYS", "the keys, comma-separated, current first", parse=comma_list),
    ] = ()
    key_file: Annotated[
        Path | None,
        variable("PLAYER_TOKEN_KEY_FILE", "a key file: the signing key first, then old keys"),
    ] = None

    def keys(self) -> list[str]:
        """The keys, current first; KeyProblem for one that is not a key, naming its
        place, never its text (it may be a secret pasted in the wrong place)."""
        names = (
            declared(TokenKeySettings, "inline").name,
            declared(TokenKeySettings, "key_file").name,
        )
        keys = key_files.given_keys(self.inline, self.key_file, names=names, what="player token")
        where = f"the player token key file {self.key_file}" if self.key_file else names[0]
        for number, key in enumerate(keys, 1):
            if not _TOKEN_KEY.fullmatch(key):
                raise KeyProblem(f"{where}: key {number} is not 64 hex digits (an Ed25519 seed)")
        return keys
